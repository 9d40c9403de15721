"""Rules for ``scipy.integrate.odeint`` and ``solve_ivp``, registered when ``scipy.integrate`` is imported.

``ys = odeint(func, y0, t, args)`` and ``res = solve_ivp(fun, t_span, y0,
t_eval=..., args=...)`` are differentiated with respect to the initial
state, the time points (``t``; ``t_span`` and ``t_eval``) and the float items
of ``args``.  ``func`` is a module-level function srcad differentiates
(srcad refuses a local one or a lambda written in the call); its own
derivatives come from srcad at run time (``srcad.runtime.callbacks``).
``solve_ivp``'s result is a dict: read it as ``res["y"]`` (and ``res["t"]``);
``res.y`` of a value being differentiated is an error.  Without ``t_eval``
its output times are the solver's steps: the first and last move with
``t_span``, the others are constants.

Reverse mode is the adjoint method (``adjoint_sweep``): from the last output
time back to the first, one backward solve per interval of the state ``y``
(restarted from the stored output), its adjoint ``a`` (``da/dt = -a J_y``,
plus the output gradient at each output time) and the parameters' adjoint
(``d/dt = -a J_args``); an output time ``tau_i`` gets ``g_i . f(y_i,
tau_i)``, the initial time ``-a(t_0) . f(y_0, t_0)``.  Forward mode solves the
sensitivity equations ``ds/dt = J_y s + J_args dargs`` with ``y``
(``s(t_0) = dy0 - f(y_0, t_0) dt_0``; the tangent at ``tau_i`` is
``s(tau_i) + f(y_i, tau_i) dtau_i``), one solve per differentiated input.

Both are derivatives of the exact solution, solved with the call's own
method and tolerances: they match finite differences of the numerical
solution to about the tolerances asked for, so pass tight ones (e.g.
``rtol=atol=1e-10``) when the derivative must be accurate.  The backward
solve of ``y`` can lose accuracy on strongly contracting systems; forward
mode does not.  ``odeint``'s ``full_output`` and ``Dfun``, ``solve_ivp``'s
``events``, ``dense_output`` and ``vectorized`` are not rule parameters: a
call passing them is refused.  Derivatives of these derivatives are not
built (differentiating them again is an error, not a number).
"""
import numbers

import numpy as np
from scipy import integrate

from srcad.errors import SrcadError
from srcad.runtime.callbacks import derivative_of
from srcad.runtime.ode import item_gradients, pack, unpack
from srcad.templates import adjoint, d, not_differentiated, tangent


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, numbers.Real) and not isinstance(value, (int, bool, np.integer))


class Dynamics:
    """``func`` with its extra arguments: its value, VJP and JVP in ``y`` and the float items of ``args``."""

    def __init__(self, func, args, tfirst):
        self.func, self.args, self.tfirst = func, (() if args is None else tuple(args)), bool(tfirst)
        self.floats = [i for i, arg in enumerate(self.args) if _is_float(arg)]
        self.wrt = (1 if self.tfirst else 0,) + tuple(2 + i for i in self.floats)

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
        return np.asarray(derivative(*self.call(y, t), tangent, *arg_tangents), dtype=float).reshape(np.shape(y))

    def float_args(self):
        return [self.args[i] for i in self.floats]

    def args_grad(self, flat):
        """The flat parameters' adjoint as one gradient per item of ``args`` (0.0 for the others)."""
        pieces = iter(unpack(flat, self.float_args()))
        return [next(pieces) if i in self.floats else 0.0 for i in range(len(self.args))]

    def arg_tangents(self, tangent):
        return [np.broadcast_to(np.asarray(tangent[i], dtype=float), np.shape(self.args[i])) for i in self.floats]


def adjoint_sweep(dynamics, ys, times, grad, back, start=None):
    """From ``times[-1]`` back to ``times[0]`` (then to ``start`` when given): ``(a, args adjoint, time
    gradients)``, ``a`` the adjoint there (with ``grad[0]``); ``back(rhs, state, t_from, t_to)`` solves an
    interval backward."""
    n = ys.shape[1]

    def backward(time, state):
        y, a = state[:n], state[n:2 * n]
        a_y, a_args = dynamics.vjp(y, time, a)
        return np.concatenate([dynamics(y, time), -a_y, -pack(a_args)])

    time_grads = np.array([np.dot(g, dynamics(y, time)) for g, y, time in zip(grad, ys, times)])
    adjoint_y, adjoint_args = np.array(grad[-1], dtype=float), np.zeros(np.size(pack(dynamics.float_args())))
    for i in range(len(times) - 1, 0, -1):
        state = back(backward, np.concatenate([ys[i], adjoint_y, adjoint_args]), times[i], times[i - 1])
        adjoint_y, adjoint_args = state[n:2 * n] + grad[i - 1], state[2 * n:]
    if start is not None and start != times[0]:
        state = back(backward, np.concatenate([ys[0], adjoint_y, adjoint_args]), times[0], start)
        adjoint_y, adjoint_args = state[n:2 * n], state[2 * n:]
    return adjoint_y, adjoint_args, time_grads


def sensitivity(dynamics, y_start, t_start, times, start, arg_tangents, ahead):
    """The tangents at ``times`` of the solution from ``(t_start, y_start)`` for the initial tangent ``start``
    and the parameters' tangents; ``ahead(rhs, state, t_start, times)`` solves forward, one row per time."""
    n = np.size(y_start)

    def forward(time, state):
        y, s = state[:n], state[n:]
        return np.concatenate([dynamics(y, time), dynamics.jvp(y, time, s, arg_tangents)])

    return ahead(forward, np.concatenate([y_start, start]), t_start, times)[:, n:]


# --------------------------------------------------------------------------
# odeint

def _odeint_solvers(rtol, atol, mxstep):
    options = {key: value for key, value in (("rtol", rtol), ("atol", atol), ("mxstep", mxstep)) if value}

    def solve(rhs, state, times):
        states, info = integrate.odeint(rhs, state, times, tfirst=True, full_output=True, **options)
        if info["message"] != "Integration successful.":
            raise SrcadError(f"odeint failed while computing a derivative ({info['message']}); "
                             f"loosen rtol/atol or raise mxstep")
        return states

    def back(rhs, state, start, stop):
        return solve(rhs, state, [start, stop])[-1]

    def ahead(rhs, state, start, times):
        return solve(rhs, state, times)

    return back, ahead


def odeint_grads(grad, ys, func, y0, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """The gradients ``(y0, t, [each item of args])`` of ``ys = odeint(func, y0, t, args)`` for the gradient
    ``grad`` of ``ys`` (the adjoint method).

    Example: for ``func(y, t) = -y``, ``odeint_grads(np.ones((2, 1)), ys, func, 1.0, [0.0, 1.0])[0]`` is
    ``1 + exp(-1)``, to the solver's tolerance.
    """
    dynamics, ys, t = Dynamics(func, args, tfirst), np.asarray(ys, dtype=float), np.asarray(t, dtype=float)
    back, _ = _odeint_solvers(rtol, atol, mxstep)
    grad = np.broadcast_to(grad, ys.shape)
    adjoint_y, adjoint_args, t_grad = adjoint_sweep(dynamics, ys, t, grad, back)
    if len(t) > 1:   # moving t_0 moves every later y_i by -Phi(t_i, t_0) f(y_0, t_0); ys[0] is y0 whatever t_0
        t_grad[0] -= np.dot(adjoint_y, dynamics(ys[0], t[0]))
    else:
        t_grad[0] = 0.0
    return np.reshape(adjoint_y, np.shape(y0)), t_grad.reshape(np.shape(t)), dynamics.args_grad(adjoint_args)


def odeint_tangent_of(ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False, y0_tangent=None,
                      t_tangent=None, args_tangent=None):
    """The tangent of ``ys = odeint(func, y0, t, args)`` for the tangents given (the others are zero).

    Example: for ``func(y, t) = -y`` and ``y0 = 1``, ``odeint_tangent_of(ys, func, [0.0, 1.0], y0_tangent=1.0)``
    is ``[[1], [exp(-1)]]``, to the solver's tolerance.
    """
    dynamics, ys, t = Dynamics(func, args, tfirst), np.asarray(ys, dtype=float), np.asarray(t, dtype=float)
    _, ahead = _odeint_solvers(rtol, atol, mxstep)
    slopes = np.array([dynamics(y, time) for y, time in zip(ys, t)])
    start = np.zeros(ys.shape[1]) if y0_tangent is None else np.broadcast_to(y0_tangent, ys.shape[1:]).astype(float)
    if t_tangent is not None:
        t_tangent = np.broadcast_to(np.asarray(t_tangent, dtype=float), t.shape)
        start = start - slopes[0] * t_tangent[0]
    arg_tangents = dynamics.arg_tangents(args_tangent) if args_tangent is not None else \
        [np.zeros(np.shape(arg)) for arg in dynamics.float_args()]
    moved = sensitivity(dynamics, ys[0], t[0], t, start, arg_tangents, ahead)
    return moved if t_tangent is None else moved + slopes * t_tangent[:, None]


def odeint_y0_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """``odeint_tangent_of`` for a tangent of ``y0``."""
    return odeint_tangent_of(ys, func, t, args, rtol, atol, mxstep, tfirst, y0_tangent=tangent)


def odeint_t_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """``odeint_tangent_of`` for a tangent of the time points ``t``."""
    return odeint_tangent_of(ys, func, t, args, rtol, atol, mxstep, tfirst, t_tangent=tangent)


def odeint_args_tangent(tangent, ys, func, t, args=(), rtol=None, atol=None, mxstep=0, tfirst=False):
    """``odeint_tangent_of`` for tangents of the items of ``args``."""
    return odeint_tangent_of(ys, func, t, args, rtol, atol, mxstep, tfirst, args_tangent=tangent)


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
                        "derivatives through odeint or solve_ivp); differentiate the solve once")
