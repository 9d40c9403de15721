"""Adapters that compute a problem's gradient with another AD tool, for ``benchmarks/run.py``.

Contract:
- ``PEERS`` lists one ``Peer`` per column of the results table, in order:
  autograd, jax (eager), jax.jit, torch (eager), tangent-ad.  Every peer is
  optional: ``Peer.unavailable()`` returns None when the tool imports, else
  the reason it does not (the table then shows "n/a").
- ``Peer.prepare(problem, args)`` returns ``(call, to_numpy)``: ``call()``
  computes the gradient of ``problem.function`` at ``args`` with respect to
  ``problem.wrt`` and waits for it (jax: ``block_until_ready``), so timing
  ``call`` times the whole gradient; ``to_numpy(call())`` gives the gradient
  as a tuple of float64 NumPy arrays, one per ``wrt`` entry.  Inputs are
  converted to the tool's arrays once, in ``prepare``, outside ``call``.
  ``prepare`` raises ``PeerUnsupported`` when the tool cannot run the
  problem, and may raise any error the tool raises on it.
- Peers run the problem's own source where they can: autograd, jax and torch
  execute the objective with the module name ``np`` bound to their NumPy
  (``autograd.numpy``, ``jax.numpy``, or ``TorchNumPy``, a small table of
  torch equivalents); tangent-ad transforms the objective itself.  Where a
  tool cannot store into an array (autograd and jax), the ``*_functional``
  ports below replace the element stores with an equivalent gather or list
  comprehension, line for line otherwise; jax runs the LSTM's time loop as
  ``jax.lax.scan`` (``lstm_scan_functional``), as a jax user would.
- All peers compute in float64 (jax with ``jax_enable_x64``).  Nothing here
  checks that a gradient is right: ``run.py`` compares each against srcad and
  finite differences before timing it.

Example::

    >>> from problems import PROBLEMS
    >>> peer = PEERS[0]
    >>> if peer.unavailable() is None:                       # doctest: +SKIP
    ...     call, to_numpy = peer.prepare(PROBLEMS["rosenbrock"], args)
    ...     gradient = to_numpy(call())
"""
from __future__ import annotations

import importlib.metadata
import math
import types
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as onp

import problems as problems_module


class PeerUnsupported(Exception):
    """The peer cannot run this problem (the message says why)."""


# --------------------------------------------------------------------------
# running the problems' source with another NumPy


def _ported_namespace(numpy_like, **extra) -> Dict[str, Any]:
    """The problems module's globals with ``np`` bound to ``numpy_like``, and its functions rebound to them."""
    namespace = dict(vars(problems_module))
    namespace.update(extra, np=numpy_like, onp=onp)
    sources = [problems_module.__name__, __name__]
    for name, value in list(namespace.items()) + [(n, v) for n, v in globals().items() if n.endswith("_functional")]:
        if isinstance(value, types.FunctionType) and value.__module__ in sources:
            clone = types.FunctionType(value.__code__, namespace, value.__name__, value.__defaults__,
                                       value.__closure__)
            clone.__kwdefaults__ = value.__kwdefaults__
            namespace[name] = clone
    return namespace


def pool_functional(B):
    """``problems.pool`` without element stores: A is built from a nested list."""
    A = np.array([[(B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0 for j in range(B.shape[1])]   # noqa: F821
                  for i in range(B.shape[0] - 2)])
    return np.sum(A * A)   # noqa: F821


def matmul_loops_functional(B, C):
    """``problems.matmul_loops`` without element stores: each entry of A is a sum built in a loop."""
    n, m = B.shape
    p = C.shape[1]
    rows = []
    for i in range(n):
        row = []
        for j in range(p):
            total = 0.0
            for k in range(m):
                total = total + B[i, k] * C[k, j]
            row.append(total)
        rows.append(row)
    A = np.array(rows)   # noqa: F821
    return np.sum(A * A)   # noqa: F821


def gmm_functional(alphas, means, icf, x, wishart_gamma, wishart_m):
    """``problems.gmm`` without element stores: the Cholesky factors are gathered, not stored."""
    n, d = x.shape
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])   # noqa: F821  (np is bound by _ported_namespace)
    sum_qs = np.sum(icf[:, :d], axis=1)   # noqa: F821
    cols, rows = onp.triu_indices(d, 1)
    gather = onp.zeros((d, d), dtype=int)         # 0 picks the zero column, j + 1 picks icf[:, d + j]
    gather[rows, cols] = onp.arange(1, len(rows) + 1)
    padded = np.concatenate([np.zeros((k, 1)), icf[:, d:]], axis=1)   # noqa: F821
    Ls = padded[:, gather]
    xcentered = x - means[:, None, :]
    Lxcentered = Qdiags[:, None, :] * xcentered + xcentered @ np.transpose(Ls, (0, 2, 1))   # noqa: F821
    sqsum_Lxcentered = np.sum(Lxcentered ** 2, axis=2)   # noqa: F821
    inner_term = alphas[:, None] + sum_qs[:, None] - 0.5 * sqsum_Lxcentered
    top = np.max(inner_term, axis=0)   # noqa: F821
    slse = np.sum(np.log(np.sum(np.exp(inner_term - top), axis=0)) + top)   # noqa: F821
    top_alpha = np.max(alphas)   # noqa: F821
    lse_alphas = np.log(np.sum(np.exp(alphas - top_alpha))) + top_alpha   # noqa: F821
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    nw = d + wishart_m + 1
    frobenius = np.sum(Qdiags ** 2) + np.sum(icf[:, d:] ** 2)   # noqa: F821
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)   # noqa: F821
    log_gamma = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        log_gamma = log_gamma + math.lgamma(0.5 * nw - 0.5 * j)
    c = nw * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - log_gamma
    return constant + slse - n * lse_alphas + prior - k * c


def lstm_scan_functional(main_params, extra_params, state, sequence):
    """``problems.lstm`` with its time loop as ``jax.lax.scan`` (jax only); the cell code is unchanged."""
    def step(carry, pair):
        state, total = carry
        inp, ygold = pair
        ypred, state = lstm_predict(main_params, extra_params, state, inp)   # noqa: F821
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)   # noqa: F821
        return (state, total + np.sum(ygold * ynorm)), None   # noqa: F821

    (state, total), _ = jax.lax.scan(step, (state, np.zeros(())), (sequence[:-1], sequence[1:]))   # noqa: F821
    return -total / ((sequence.shape[0] - 1) * sequence.shape[1])


def heat_scan_functional(u, alpha, steps):
    """``problems.heat`` with its time loop as ``jax.lax.fori_loop`` (jax only); the step is unchanged."""
    def step(_, u):
        return np.concatenate((u[:1], u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2]), u[-1:]))   # noqa: F821

    u = jax.lax.fori_loop(0, steps, step, u)   # noqa: F821
    return np.sum(u * u)   # noqa: F821


def conv_functional(x, K, b):
    """``problems.conv`` without element stores: the output is an array of sums built in loops."""
    def pixel(o, i, j):
        total = b[o]
        for c in range(K.shape[1]):
            for di in range(K.shape[2]):
                for dj in range(K.shape[3]):
                    total = total + K[o, c, di, dj] * x[c, i + di, j + dj]
        return total

    h, w = x.shape[1] - K.shape[2] + 1, x.shape[2] - K.shape[3] + 1
    out = np.array([[[pixel(o, i, j) for j in range(w)] for i in range(h)] for o in range(K.shape[0])])   # noqa: F821
    return np.sum(np.tanh(out) ** 2)   # noqa: F821


def conv_lax_functional(x, K, b):
    """``problems.conv`` as a jax user writes a convolution layer: ``jax.lax.conv`` (jax only)."""
    out = jax.lax.conv(x[None], K, (1, 1), "VALID")[0] + b[:, None, None]   # noqa: F821
    return np.sum(np.tanh(out) ** 2)   # noqa: F821


# problems whose objective stores into an array, and the functional port to run instead
FUNCTIONAL_PORTS = {"pool": "pool_functional", "gmm": "gmm_functional", "matmul_loops": "matmul_loops_functional",
                    "conv": "conv_functional"}
# jax traces Python loops op by op: the unrolled 1023-step LSTM takes about a minute per eager
# gradient and more than 15 GB to compile under jit, so jax runs the LSTM's and the heat equation's
# time loops as a scan or fori_loop, and the convolution as jax.lax.conv, as a jax user would
JAX_PORTS = dict(FUNCTIONAL_PORTS, lstm="lstm_scan_functional", heat="heat_scan_functional",
                 conv="conv_lax_functional")


class TorchNumPy:
    """The NumPy names the problems use, as torch functions (float64)."""

    def __init__(self, torch):
        self.torch = torch

    def __getattr__(self, name):          # log, exp, tanh, ...: same name in torch
        return getattr(self.torch, name)

    def sum(self, x, axis=None, keepdims=False):
        return self.torch.sum(x) if axis is None else self.torch.sum(x, dim=axis, keepdim=keepdims)

    def max(self, x, axis=None, keepdims=False):
        return self.torch.amax(x) if axis is None else self.torch.amax(x, dim=axis, keepdim=keepdims)

    def zeros(self, shape):
        return self.torch.zeros(shape, dtype=self.torch.float64)

    def concatenate(self, arrays, axis=0):
        return self.torch.cat(tuple(arrays), dim=axis)

    def stack(self, arrays, axis=0):
        return self.torch.stack(tuple(arrays), dim=axis)

    def transpose(self, x, axes=None):
        return x.T if axes is None else x.permute(*axes)

    def triu_indices(self, n, k=0):
        return self.torch.triu_indices(n, n, k)


# --------------------------------------------------------------------------
# the peers


class Peer:
    """One AD tool; subclasses define ``_import`` and ``_prepare``."""
    name = "?"
    distribution = "?"   # the package's name on PyPI

    def __init__(self):
        self._module = None
        self._error: Optional[str] = None

    def unavailable(self) -> Optional[str]:
        """None when the tool can be used, else why not (e.g. 'ModuleNotFoundError: jax')."""
        if self._module is None and self._error is None:
            try:
                self._module = self._import()
            except Exception as error:   # an optional peer: any import failure makes it n/a
                self._error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        return self._error

    def version(self) -> str:
        """The installed version of the tool's package, or '?'."""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "?"

    def prepare(self, problem, args) -> Tuple[Callable[[], Any], Callable[[Any], Tuple[onp.ndarray, ...]]]:
        reason = self.unavailable()
        if reason is not None:
            raise PeerUnsupported(reason)
        return self._prepare(problem, tuple(args))

    def _import(self):
        raise NotImplementedError

    def _prepare(self, problem, args):
        raise NotImplementedError


def _as_tuple(value, count):
    return tuple(value) if count > 1 else (value,)


class AutogradPeer(Peer):
    distribution = "autograd"
    name = "autograd"

    def _import(self):
        import autograd
        import autograd.numpy as anp
        self._namespace = _ported_namespace(anp)
        return autograd

    def _prepare(self, problem, args):
        function = self._namespace[FUNCTIONAL_PORTS.get(problem.name, problem.function.__name__)]
        positions = problem.wrt_positions()
        gradient = self._module.grad(function, positions if len(positions) > 1 else positions[0])
        count = len(positions)
        return (lambda: gradient(*args)), (lambda g: tuple(onp.asarray(v, dtype=float) for v in _as_tuple(g, count)))


class JaxPeer(Peer):
    distribution = "jax"
    name = "jax"
    jit = False

    def _import(self):
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        self._namespace = _ported_namespace(jnp, jax=jax)
        return jax

    def _prepare(self, problem, args):
        jax = self._module
        function = self._namespace[JAX_PORTS.get(problem.name, problem.function.__name__)]
        positions = problem.wrt_positions()
        # only the wrt arguments become traced values; the others stay as they are (sizes, constants)
        fixed = list(args)

        def partial(*wrt_values):
            values = list(fixed)
            for position, value in zip(positions, wrt_values):
                values[position] = value
            return function(*values)

        gradient = jax.grad(partial, argnums=tuple(range(len(positions))))
        if self.jit:
            gradient = jax.jit(gradient)
        for i, value in enumerate(fixed):
            if isinstance(value, onp.ndarray):
                fixed[i] = jax.numpy.asarray(value)
        wrt_values = tuple(jax.numpy.asarray(args[p]) for p in positions)

        def call():
            return jax.block_until_ready(gradient(*wrt_values))
        return call, (lambda g: tuple(onp.asarray(v, dtype=float) for v in g))


class JaxJitPeer(JaxPeer):
    name = "jax.jit"
    jit = True


class TorchPeer(Peer):
    distribution = "torch"
    name = "torch"

    def _import(self):
        import torch
        self._namespace = _ported_namespace(TorchNumPy(torch))
        return torch

    def _prepare(self, problem, args):
        torch = self._module
        function = self._namespace[problem.function.__name__]
        positions = problem.wrt_positions()
        values = []
        for i, value in enumerate(args):
            if isinstance(value, onp.ndarray) or (i in positions and isinstance(value, float)):
                value = torch.tensor(value, dtype=torch.float64, requires_grad=i in positions)
            values.append(value)
        wrt_values = [values[p] for p in positions]

        def call():
            return torch.autograd.grad(function(*values), wrt_values)
        return call, (lambda g: tuple(v.detach().numpy().astype(float) for v in g))


class TangentPeer(Peer):
    distribution = "tangent-ad"
    name = "tangent"

    def _import(self):
        import tangent
        return tangent

    def _prepare(self, problem, args):
        positions = problem.wrt_positions()
        gradient = self._module.grad(problem.function, wrt=positions, verbose=0)
        count = len(positions)
        return (lambda: gradient(*args)), (lambda g: tuple(onp.asarray(v, dtype=float) for v in _as_tuple(g, count)))


PEERS = [AutogradPeer(), JaxPeer(), JaxJitPeer(), TorchPeer(), TangentPeer()]
