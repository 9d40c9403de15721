"""Functional first-order optimisers over nested containers of arrays and floats.

Contract:
- Each factory (``sgd``, ``momentum``, ``nesterov``, ``rmsprop``, ``adagrad``,
  ``adadelta``, ``adam``, ``adamax``, ``rprop``) takes hyperparameters and
  returns an ``Optimizer`` with two pure functions:
  ``state = opt.init(params)`` and
  ``new_params, new_state = opt.update(params, grads, state)``.
- ``params`` is a pytree: a leaf (a NumPy array, a NumPy scalar or a Python
  number) or a dict, list or tuple (named tuples included) of pytrees.
  ``grads`` must have the same structure (dicts: the same keys, in any
  order); a mismatch raises ``ValueError`` naming the path, e.g.
  ``grads['layer'][1]``.
- Nothing is mutated: ``update`` returns new containers and new arrays, and
  leaves ``params``, ``grads`` and ``state`` as they were.  Each new
  parameter keeps its leaf's kind: a float array keeps its dtype, a Python
  number becomes a Python float, a NumPy scalar keeps its type.
- The state is a named tuple (``AdamState(count, m, v)``...) whose fields
  are pytrees shaped like ``params``; ``count`` is the number of updates
  done.  A state of the wrong kind (``SGDState`` given to ``adam``) raises
  ``TypeError``.
- ``tree_map(fn, tree, *rest)`` and ``tree_leaves(tree)`` are the helpers the
  optimisers use; they are public for code that works on the same pytrees.

Example::

    >>> import numpy as np
    >>> from srcad import optim
    >>> opt = optim.sgd(lr=0.1)
    >>> params = {"w": np.array([1.0, -2.0]), "b": 0.5}
    >>> state = opt.init(params)
    >>> params, state = opt.update(params, {"w": np.array([1.0, 1.0]), "b": 2.0}, state)
    >>> params["w"], params["b"]
    (array([ 0.9, -2.1]), 0.3)
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from .trees import LeafOutputs, Tree, check_leaves, leaf_like, tree_leaves, tree_map, unzip


__all__ = ["Optimizer", "tree_map", "tree_leaves", "sgd", "momentum", "nesterov", "rmsprop",
           "adagrad", "adadelta", "adam", "adamax", "rprop"]


# --------------------------------------------------------------------------
# the optimiser object and the driver shared by every rule


@dataclass(frozen=True)
class Optimizer:
    """A pair of pure functions: ``init(params) -> state`` and ``update(params, grads, state)``.

    ``update`` returns ``(new_params, new_state)``.  ``hyperparams`` records
    the settings the optimiser was made with.
    """

    name: str
    hyperparams: Dict[str, float]
    init: Callable[[Tree], Any] = field(repr=False)
    update: Callable[[Tree, Tree, Any], Tuple[Tree, Any]] = field(repr=False)

    def __repr__(self) -> str:
        settings = ", ".join(f"{key}={value!r}" for key, value in self.hyperparams.items())
        return f"{self.name}({settings})"


def _make(name: str, state_type: type, hyper: Dict[str, float], leaf_init, leaf_step) -> Optimizer:
    """An ``Optimizer`` from per-leaf rules.

    ``leaf_init(p)`` returns the initial slot values of one leaf;
    ``leaf_step(p, g, *slots, t)`` returns ``(new_p, *new_slots)`` for update
    number ``t`` (counting from 1).
    """
    slots = state_type._fields[1:]

    def init(params: Tree) -> Any:
        check_leaves(params, "params")
        initial = tree_map(lambda p: LeafOutputs(tuple(leaf_like(np.full(np.shape(p), s, dtype=float), p)
                                                for s in leaf_init(p))), params)
        return state_type(0, *unzip(initial, len(slots)))

    def update(params: Tree, grads: Tree, state: Any) -> Tuple[Tree, Any]:
        if not isinstance(state, state_type):
            raise TypeError(f"{name}.update needs the state from {name}.init ({state_type.__name__}), "
                            f"got {type(state).__name__}")
        check_leaves(params, "params")
        check_leaves(grads, "grads")
        tree_map(lambda p, g: None, params, grads, path="grads")
        t = state.count + 1

        def step(p, g, *old):
            values = leaf_step(np.asarray(p, dtype=float), np.asarray(g, dtype=float),
                               *(np.asarray(s, dtype=float) for s in old), t)
            return LeafOutputs(tuple(leaf_like(v, p) for v in values))

        new_params, *new_slots = unzip(tree_map(step, params, grads, *state[1:], path="state"),
                                        1 + len(slots))
        return new_params, state_type(t, *new_slots)

    return Optimizer(name, dict(hyper), init, update)


def _validate(positive: Dict[str, float], fraction: Optional[Dict[str, float]] = None) -> None:
    """Raise ``ValueError`` unless every ``positive`` value is > 0 and every ``fraction`` in [0, 1)."""
    for key, value in positive.items():
        if not value > 0:
            raise ValueError(f"{key} must be positive, got {value!r}")
    for key, value in (fraction or {}).items():
        if not 0 <= value < 1:
            raise ValueError(f"{key} must be in [0, 1), got {value!r}")


# Each state is a named tuple: the update count, then one pytree per slot.
SGDState = namedtuple("SGDState", "count")
MomentumState = namedtuple("MomentumState", "count velocity")
RMSpropState = namedtuple("RMSpropState", "count mean_square")
AdaGradState = namedtuple("AdaGradState", "count sum_square")
AdaDeltaState = namedtuple("AdaDeltaState", "count mean_square mean_square_delta")
AdamState = namedtuple("AdamState", "count m v")
AdaMaxState = namedtuple("AdaMaxState", "count m u")
RpropState = namedtuple("RpropState", "count previous_grad step_size")


# --------------------------------------------------------------------------
# the optimisers

def sgd(lr: float = 1e-2) -> Optimizer:
    """Plain gradient descent: ``w <- w - lr * g``.

    Example::

        >>> opt = sgd(lr=0.5)
        >>> opt.update(2.0, 1.0, opt.init(2.0))[0]
        1.5
    """
    _validate(dict(lr=lr))
    return _make("sgd", SGDState, {"lr": lr}, lambda p: (),
                 lambda p, g, t: (p - lr * g,))


def momentum(lr: float = 1e-2, mu: float = 0.9) -> Optimizer:
    """Gradient descent with momentum (heavy ball)::

        v <- mu * v - lr * g
        w <- w + v

    ``v`` starts at zero.

    Example::

        >>> opt = momentum(lr=0.5, mu=0.9)
        >>> w, state = opt.update(2.0, 1.0, opt.init(2.0))
        >>> w, state.velocity
        (1.5, -0.5)
    """
    _validate(dict(lr=lr), dict(mu=mu))

    def step(p, g, v, t):
        v = mu * v - lr * g
        return p + v, v
    return _make("momentum", MomentumState, {"lr": lr, "mu": mu}, lambda p: (0.0,), step)


def nesterov(lr: float = 1e-2, mu: float = 0.9) -> Optimizer:
    """Nesterov accelerated gradient, in the form that needs only the gradient at ``w``::

        v <- mu * v - lr * g
        w <- w + mu * v - lr * g

    Nesterov's method evaluates the gradient at the look-ahead point
    ``w + mu * v``.  Tracking that point instead of ``w`` gives the update
    above, so ``update`` can take the gradient at the parameters it is given,
    like every other optimiser here.

    Example::

        >>> opt = nesterov(lr=0.5, mu=0.9)
        >>> w, state = opt.update(2.0, 1.0, opt.init(2.0))
        >>> round(w, 10), state.velocity
        (1.05, -0.5)
    """
    _validate(dict(lr=lr), dict(mu=mu))

    def step(p, g, v, t):
        v = mu * v - lr * g
        return p + mu * v - lr * g, v
    return _make("nesterov", MomentumState, {"lr": lr, "mu": mu}, lambda p: (0.0,), step)


def rmsprop(lr: float = 1e-3, decay: float = 0.9, eps: float = 1e-8) -> Optimizer:
    """RMSprop: divide the step by a running root mean square of the gradient::

        s <- decay * s + (1 - decay) * g**2
        w <- w - lr * g / (sqrt(s) + eps)

    ``s`` starts at zero.

    Example::

        >>> opt = rmsprop(lr=0.1, decay=0.75, eps=0.0)
        >>> w, state = opt.update(1.0, 2.0, opt.init(1.0))   # s = 0.25 * 4 = 1
        >>> round(w, 10), state.mean_square
        (0.8, 1.0)
    """
    _validate(dict(lr=lr), dict(decay=decay))

    def step(p, g, s, t):
        s = decay * s + (1.0 - decay) * g * g
        return p - lr * g / (np.sqrt(s) + eps), s
    return _make("rmsprop", RMSpropState, {"lr": lr, "decay": decay, "eps": eps}, lambda p: (0.0,), step)


def adagrad(lr: float = 1e-2, eps: float = 1e-8) -> Optimizer:
    """AdaGrad: divide the step by the root of the sum of all squared gradients::

        s <- s + g**2
        w <- w - lr * g / (sqrt(s) + eps)

    Example::

        >>> opt = adagrad(lr=0.1, eps=0.0)
        >>> w, state = opt.update(1.0, 2.0, opt.init(1.0))
        >>> round(w, 10), state.sum_square
        (0.9, 4.0)
    """
    _validate(dict(lr=lr))

    def step(p, g, s, t):
        s = s + g * g
        return p - lr * g / (np.sqrt(s) + eps), s
    return _make("adagrad", AdaGradState, {"lr": lr, "eps": eps}, lambda p: (0.0,), step)


def adadelta(lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6) -> Optimizer:
    """AdaDelta: scale the gradient by RMS[delta] / RMS[g], which has the units of ``w``::

        s  <- rho * s + (1 - rho) * g**2
        dw =  -sqrt(sd + eps) / sqrt(s + eps) * g
        sd <- rho * sd + (1 - rho) * dw**2
        w  <- w + lr * dw

    ``s`` and ``sd`` start at zero; ``lr = 1`` is the original method.

    Example::

        >>> opt = adadelta(rho=0.5, eps=1.0)
        >>> w, state = opt.update(1.0, 2.0, opt.init(1.0))   # s = 2, dw = -2/sqrt(3)
        >>> round(w, 6), state.mean_square
        (-0.154701, 2.0)
    """
    _validate(dict(lr=lr, eps=eps), dict(rho=rho))

    def step(p, g, s, sd, t):
        s = rho * s + (1.0 - rho) * g * g
        delta = -np.sqrt(sd + eps) / np.sqrt(s + eps) * g
        sd = rho * sd + (1.0 - rho) * delta * delta
        return p + lr * delta, s, sd
    return _make("adadelta", AdaDeltaState, {"lr": lr, "rho": rho, "eps": eps}, lambda p: (0.0, 0.0), step)


def adam(lr: float = 1e-3, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """Adam: running first and second moments of the gradient, with bias correction::

        m <- b1 * m + (1 - b1) * g
        v <- b2 * v + (1 - b2) * g**2
        w <- w - lr * (m / (1 - b1**t)) / (sqrt(v / (1 - b2**t)) + eps)

    where ``t`` counts updates from 1.  The first step moves each entry by
    about ``lr`` whatever the gradient's scale.

    Example::

        >>> opt = adam(lr=0.1)
        >>> w, state = opt.update(1.0, 123.0, opt.init(1.0))
        >>> round(w, 6), state.count
        (0.9, 1)
    """
    _validate(dict(lr=lr), dict(b1=b1, b2=b2))

    def step(p, g, m, v, t):
        m = b1 * m + (1.0 - b1) * g
        v = b2 * v + (1.0 - b2) * g * g
        m_hat, v_hat = m / (1.0 - b1 ** t), v / (1.0 - b2 ** t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps), m, v
    return _make("adam", AdamState, {"lr": lr, "b1": b1, "b2": b2, "eps": eps}, lambda p: (0.0, 0.0), step)


def adamax(lr: float = 2e-3, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
    """AdaMax: Adam with the infinity norm in place of the root mean square::

        m <- b1 * m + (1 - b1) * g
        u <- max(b2 * u, |g|)
        w <- w - lr / (1 - b1**t) * m / (u + eps)

    Example::

        >>> opt = adamax(lr=0.1)
        >>> w, state = opt.update(1.0, -4.0, opt.init(1.0))
        >>> round(w, 6), state.u
        (1.1, 4.0)
    """
    _validate(dict(lr=lr), dict(b1=b1, b2=b2))

    def step(p, g, m, u, t):
        m = b1 * m + (1.0 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        return p - lr / (1.0 - b1 ** t) * m / (u + eps), m, u
    return _make("adamax", AdaMaxState, {"lr": lr, "b1": b1, "b2": b2, "eps": eps},
                 lambda p: (0.0, 0.0), step)


def rprop(lr: float = 1e-2, eta_plus: float = 1.2, eta_minus: float = 0.5,
          step_min: float = 1e-6, step_max: float = 50.0) -> Optimizer:
    """Resilient propagation: each entry moves by its own step size, against the gradient's sign::

        a <- min(a * eta_plus, step_max)    where g * g_prev > 0
        a <- max(a * eta_minus, step_min)   where g * g_prev < 0
        a <- a                              elsewhere
        w <- w - a * sign(g)

    Step sizes ``a`` start at ``lr`` and ``g_prev`` at zero, so the first
    update moves each entry by ``lr``.  Only the gradient's sign is used, so
    rescaling the loss does not change the steps.

    Example::

        >>> opt = rprop(lr=0.1)
        >>> w, state = opt.update(1.0, 50.0, opt.init(1.0))
        >>> w, state.step_size
        (0.9, 0.1)
    """
    _validate(dict(lr=lr, step_min=step_min, step_max=step_max))
    if not (eta_plus > 1.0 and 0.0 < eta_minus < 1.0):
        raise ValueError(f"rprop needs eta_plus > 1 > eta_minus > 0, got {eta_plus!r}, {eta_minus!r}")

    def step(p, g, g_prev, a, t):
        agree = g * g_prev
        a = np.where(agree > 0, np.minimum(a * eta_plus, step_max),
                     np.where(agree < 0, np.maximum(a * eta_minus, step_min), a))
        return p - a * np.sign(g), g, a
    hyper = {"lr": lr, "eta_plus": eta_plus, "eta_minus": eta_minus, "step_min": step_min,
             "step_max": step_max}
    return _make("rprop", RpropState, hyper, lambda p: (0.0, lr), step)
