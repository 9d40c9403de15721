"""Rules for ``scipy.integrate.odeint``, registered when ``scipy.integrate`` is imported.

``ys = odeint(func, y0, t, args)`` is differentiated with respect to the
initial state ``y0``, the time points ``t`` and the float items of ``args``
(``func`` itself is a module-level function: srcad refuses a local one or a
lambda written in the call).  ``func``'s own derivatives come from srcad
(``srcad.runtime.callbacks``), so ``func`` must be a function srcad
differentiates.

Reverse mode is the adjoint method: from the last time point back to the
first, one backward ``odeint`` of the state ``y`` (restarted from the stored
``ys`` at each time point), its adjoint ``a`` (``da/dt = -a J_y``, plus the
output gradient at each time point) and the parameters' adjoint
(``d/dt = -a J_args``).  The gradient of ``t_i`` (``i >= 1``) is
``g_i . f(y_i, t_i)``; of ``t_0`` it is ``-(a(t_0) - g_0) . f(y_0, t_0)``.
Forward mode solves the sensitivity equations ``ds/dt = J_y s + J_args
dargs`` with ``y`` (``s(t_0) = dy0 - f(y_0, t_0) dt_0``; the tangent at ``t_i``
is ``s(t_i) + f(y_i, t_i) dt_i``), one solve per differentiated input.

Both are derivatives of the exact solution, computed with the call's own
``rtol``, ``atol`` and ``mxstep``: they match finite differences of the
numerical solution to about the tolerances asked for (pass tight ones,
e.g. ``rtol=atol=1e-10``, when the derivative must be accurate).  The
adjoint's backward solve of ``y`` can lose accuracy on strongly
contracting systems (it runs them in the expanding direction); forward mode
does not.  ``full_output`` and ``Dfun`` are not rule parameters: a call that
passes them is refused.  Derivatives of these derivatives are not built
(differentiating them again is an error, not a number).
"""
import numbers

import numpy as np
from scipy import integrate

from srcad.runtime.callbacks import derivative_of
from srcad.runtime.ode import item_gradients, pack, unpack
from srcad.templates import adjoint, d, not_differentiated, tangent


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating)) or (isinstance(value, numbers.Real)
                                                       and not isinstance(value, (int, bool, np.integer)))


class _Dynamics:
    """``func`` with its extra arguments: its value, VJP and JVP in ``y`` and the float items of ``args``."""

    def __init__(self, func, args, tfirst):
        self.func, self.args, self.tfirst = func, tuple(args), bool(tfirst)
        self.floats = [i for i, arg in enumerate(self.args) if _is_float(arg)]
        self.wrt = (1 if self.tfirst else 0,) + tuple(2 + i for i in self.floats)
        self.options = {}

    def call(self, y, t):
        return (t, y, *self.args) if self.tfirst else (y, t, *self.args)

    def __call__(self, y, t):
        return np.asarray(self.func(*self.call(y, t)), dtype=float).reshape(np.shape(y))

    def vjp(self, y, t, cotangent):
        """``(a J_y, [a J_arg for each float arg])``."""
        derivative = derivative_of(self.func, self.wrt, "reverse")
        grads = derivative(*self.call(y, t), **{derivative.parameters[-1]: cotangent})
        grads = grads if len(self.wrt) > 1 else (grads,)
        return np.reshape(grads[0], np.shape(y)), list(grads[1:])

    def jvp(self, y, t, tangent, arg_tangents):
        """``J_y tangent + sum J_arg arg_tangent``."""
        derivative = derivative_of(self.func, self.wrt, "forward")
        moved = derivative(*self.call(y, t), tangent, *arg_tangents)
        return np.asarray(moved, dtype=float).reshape(np.shape(y))


def _solve(rhs, state, times, options):
    return integrate.odeint(rhs, state, times, **options)


def _options(rtol, atol, mxstep):
    return {key: value for key, value in (("rtol", rtol), ("atol", atol), ("mxstep", mxstep)) if value}


def odeint_grads(grad, ys, func, y0, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """The gradients ``(y0, t, [each item of args])`` of ``ys = odeint(func, y0, t, args)`` for the gradient
    ``grad`` of ``ys``, by the adjoint method (backward solves between the time points).

    Example: for ``func = lambda y, t: -y``, ``odeint_grads(np.ones((2, 1)), ys, func, 1.0, [0.0, 1.0])[0]``
    is ``array([1 + exp(-1)])``, up to the solver's tolerance.
    """
    dynamics = _Dynamics(func, args, tfirst)
    ys, grad, t = np.asarray(ys, dtype=float), np.broadcast_to(grad, np.shape(ys)), np.asarray(t, dtype=float)
    n = ys.shape[1]
    floats = [dynamics.args[i] for i in dynamics.floats]
    sizes = int(sum(np.size(arg) for arg in floats))
    options = _options(rtol, atol, mxstep)

    def backward(state, time):
        y, a = state[:n], state[n:2 * n]
        a_y, a_args = dynamics.vjp(y, time, a)
        return np.concatenate([dynamics(y, time), -a_y, -pack(a_args)])

    t_grad = np.zeros(t.shape)
    adjoint_y, adjoint_args = np.array(grad[-1]), np.zeros(sizes)
    for i in range(len(t) - 1, 0, -1):
        t_grad[i] = np.dot(grad[i], dynamics(ys[i], t[i]))
        state = _solve(backward, np.concatenate([ys[i], adjoint_y, adjoint_args]), [t[i], t[i - 1]], options)[-1]
        adjoint_y, adjoint_args = state[n:2 * n], state[2 * n:]
        if i > 1:
            adjoint_y = adjoint_y + grad[i - 1]
    if len(t) > 1:   # moving t_0 moves every later y_i by -Phi(t_i, t_0) f(y_0, t_0)
        t_grad[0] = -np.dot(adjoint_y, dynamics(ys[0], t[0]))
        adjoint_y = adjoint_y + grad[0]
    arg_grads = iter(unpack(adjoint_args, floats))
    args_grad = [next(arg_grads) if i in dynamics.floats else 0.0 for i in range(len(dynamics.args))]
    return np.reshape(adjoint_y, np.shape(y0)), t_grad.reshape(np.shape(t)), args_grad


def _sensitivity(dynamics, ys, t, start, arg_tangents, options):
    """The tangent of ``ys`` solving ``ds/dt = J_y s + J_args arg_tangents`` from ``s(t_0) = start``."""
    n = ys.shape[1]

    def forward(state, time):
        y, s = state[:n], state[n:]
        return np.concatenate([dynamics(y, time), dynamics.jvp(y, time, s, arg_tangents)])

    return _solve(forward, np.concatenate([ys[0], start]), t, options)[:, n:]


def _zero_tangents(dynamics):
    return [np.zeros(np.shape(dynamics.args[i])) for i in dynamics.floats]


def odeint_y0_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """The tangent of ``ys = odeint(func, y0, t, args)`` for the tangent ``tangent`` of ``y0``.

    Example: for ``func = lambda y, t: -y``, ``odeint_y0_tangent(1.0, ys, func, [0.0, 1.0])`` is
    ``[[1], [exp(-1)]]``, up to the solver's tolerance.
    """
    dynamics, ys = _Dynamics(func, args, tfirst), np.asarray(ys, dtype=float)
    start = np.broadcast_to(np.asarray(tangent, dtype=float), ys.shape[1:])
    return _sensitivity(dynamics, ys, np.asarray(t, dtype=float), start, _zero_tangents(dynamics),
                        _options(rtol, atol, mxstep))


def odeint_t_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """The tangent of ``ys = odeint(func, y0, t, args)`` for the tangent ``tangent`` of the time points ``t``.

    Example: for ``func = lambda y, t: -y``, moving only the last time point by 1 moves ``ys[-1]`` by
    ``-ys[-1]``.
    """
    dynamics, ys, t = _Dynamics(func, args, tfirst), np.asarray(ys, dtype=float), np.asarray(t, dtype=float)
    tangent = np.broadcast_to(np.asarray(tangent, dtype=float), t.shape)
    slopes = np.array([dynamics(y, time) for y, time in zip(ys, t)])
    moved = _sensitivity(dynamics, ys, t, -slopes[0] * tangent[0], _zero_tangents(dynamics),
                         _options(rtol, atol, mxstep))
    return moved + slopes * tangent[:, None]


def odeint_args_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """The tangent of ``ys = odeint(func, y0, t, args)`` for the tangents ``tangent`` of the items of ``args``.

    Example: for ``func = lambda y, t, k: -k * y``, ``odeint_args_tangent((1.0,), ys, func, [0.0, 1.0], (1.0,))``
    is ``[[0], [-exp(-1)]]`` for ``y0 = 1``, up to the solver's tolerance.
    """
    dynamics, ys = _Dynamics(func, args, tfirst), np.asarray(ys, dtype=float)
    arg_tangents = [np.broadcast_to(tangent[i], np.shape(dynamics.args[i])) for i in dynamics.floats]
    return _sensitivity(dynamics, ys, np.asarray(t, dtype=float), np.zeros(ys.shape[1]), arg_tangents,
                        _options(rtol, atol, mxstep))


@adjoint(integrate.odeint)
def odeint_adjoint(ys, func, y0, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    grads = odeint_grads(d[ys], ys, func, y0, t, args, rtol=rtol, atol=atol, mxstep=mxstep, tfirst=tfirst)
    d[y0] = grads[0]
    d[t] = grads[1]
    d[args] = item_gradients(grads[2])


@tangent(integrate.odeint)
def odeint_tangent(ys, func, y0, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    d[ys] = (odeint_y0_tangent(d[y0], ys, func, t, args, rtol=rtol, atol=atol, mxstep=mxstep, tfirst=tfirst)
             + odeint_t_tangent(d[t], ys, func, t, args, rtol=rtol, atol=atol, mxstep=mxstep, tfirst=tfirst)
             + odeint_args_tangent(d[args], ys, func, t, args, rtol=rtol, atol=atol, mxstep=mxstep,
                                   tfirst=tfirst))


not_differentiated(odeint_grads, odeint_y0_tangent, odeint_t_tangent, odeint_args_tangent,
                   hint="srcad does not differentiate the derivative of an ODE solution again (no second "
                        "derivatives through odeint); differentiate odeint once")
