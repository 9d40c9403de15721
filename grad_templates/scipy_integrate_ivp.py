"""Rules for ``scipy.integrate.solve_ivp``, registered when ``scipy.integrate`` is imported.

Read ``scipy_integrate.py`` first: this module applies its adjoint sweep and
sensitivity solves to ``res = solve_ivp(fun, t_span, y0, method, t_eval,
args)``, with the call's method and tolerances.  ``res`` is a dict: its
derivative is one too (``IvpTangent`` adds entry by entry), nonzero at
``"y"`` (shape ``(n, T)``) and ``"t"``.  The output times are ``t_eval`` when
given; else the solver's steps, of which the first and the last are
``t_span``'s ends and move with them, and the others are constants.
"""
import numpy as np
from scipy import integrate

from srcad.errors import SrcadError
from srcad.runtime import zeros_like
from srcad.runtime.ode import item_gradients
from srcad.templates import adjoint, d, not_differentiated, tangent

from .scipy_integrate import Dynamics, adjoint_sweep, sensitivity


class IvpTangent(dict):
    """The tangent of ``solve_ivp``'s result (a dict): tangents add key by key."""

    def __add__(self, other):
        return IvpTangent({key: value + other[key] for key, value in self.items()})


def _ivp_solvers(method, options):
    given = {key: value for key, value in options.items() if value is not None}

    def solve(rhs, state, span, times=None):
        result = integrate.solve_ivp(rhs, span, state, method=method, t_eval=times, **given)
        if not result.success:
            raise SrcadError(f"solve_ivp failed while computing a derivative ({result.message}); loosen rtol/atol")
        return result.y.T

    def back(rhs, state, start, stop):
        return solve(rhs, state, (start, stop))[-1]

    def ahead(rhs, state, start, times):
        return solve(rhs, state, (start, times[-1]), times)

    return back, ahead


def solve_ivp_grads(grad, res, fun, t_span, y0, method="RK45", t_eval=None, args=None, **options):
    """The gradients ``(y0, t_span, t_eval, [each item of args])`` of ``res = solve_ivp(...)`` for the
    gradient ``grad`` of ``res`` (a dict; its ``"y"`` and ``"t"`` entries count), by the adjoint method.

    Example: for ``fun(t, y) = -y``, the gradient of ``y0`` for ``grad = {"y": [[1.0]]}`` and
    ``t_eval = [1.0]`` is ``exp(-1)``, to the solver's tolerance.
    """
    dynamics = Dynamics(fun, args, tfirst=True)
    back, _ = _ivp_solvers(method, options)
    ys, times = np.asarray(res["y"], dtype=float).T, np.asarray(res["t"], dtype=float)
    grad_y = np.broadcast_to(np.asarray(grad["y"], dtype=float), ys.T.shape).T
    grad_t = np.broadcast_to(np.asarray(grad["t"], dtype=float), times.shape)
    start = float(t_span[0])
    adjoint_y, adjoint_args, time_grads = adjoint_sweep(dynamics, ys, times, grad_y, back, start)
    start_grad = -np.dot(adjoint_y, dynamics(np.ravel(np.asarray(y0, dtype=float)), start))
    time_grads = time_grads + grad_t
    if t_eval is None:   # the first and last output times are t_span's ends
        span_grads, eval_grads = [start_grad + time_grads[0], time_grads[-1]], None
    else:
        span_grads, eval_grads = [start_grad, 0.0], np.reshape(time_grads, np.shape(t_eval))
    return np.reshape(adjoint_y, np.shape(y0)), span_grads, eval_grads, dynamics.args_grad(adjoint_args)


def solve_ivp_tangent_of(res, fun, t_span, y0, method="RK45", t_eval=None, args=None, y0_tangent=None,
                         t_span_tangent=None, t_eval_tangent=None, args_tangent=None, **options):
    """The tangent (an ``IvpTangent``) of ``res = solve_ivp(...)`` for the tangents given (the others zero).

    Example: for ``fun(t, y) = -y`` and ``t_eval = [1.0]``, ``y0_tangent=1.0`` gives ``{"y": [[exp(-1)]], ...}``,
    to the solver's tolerance.
    """
    dynamics = Dynamics(fun, args, tfirst=True)
    _, ahead = _ivp_solvers(method, options)
    ys, times = np.asarray(res["y"], dtype=float).T, np.asarray(res["t"], dtype=float)
    start_time, start_y = float(t_span[0]), np.ravel(np.asarray(y0, dtype=float))
    start = np.zeros(ys.shape[1]) if y0_tangent is None else np.ravel(np.broadcast_to(y0_tangent, np.shape(y0)))
    moved_times = np.zeros(times.shape)
    if t_span_tangent is not None:
        start = start - dynamics(start_y, start_time) * float(t_span_tangent[0])
        if t_eval is None:
            moved_times[0], moved_times[-1] = t_span_tangent[0], t_span_tangent[1]
    if t_eval_tangent is not None:
        moved_times = moved_times + np.ravel(t_eval_tangent)
    arg_tangents = dynamics.arg_tangents(args_tangent) if args_tangent is not None else \
        [np.zeros(np.shape(arg)) for arg in dynamics.float_args()]
    moved = sensitivity(dynamics, start_y, start_time, times, start, arg_tangents, ahead)
    slopes = np.array([dynamics(y, time) for y, time in zip(ys, times)])
    result = IvpTangent({key: zeros_like(value) for key, value in res.items()})
    result["y"], result["t"] = (moved + slopes * moved_times[:, None]).T, moved_times
    return result


def ivp_y0_tangent(tangent, res, fun, t_span, y0, method="RK45", t_eval=None, args=None, **options):
    """``solve_ivp_tangent_of`` for a tangent of ``y0``."""
    return solve_ivp_tangent_of(res, fun, t_span, y0, method, t_eval, args, y0_tangent=tangent, **options)


def ivp_t_span_tangent(tangent, res, fun, t_span, y0, method="RK45", t_eval=None, args=None, **options):
    """``solve_ivp_tangent_of`` for a tangent of ``t_span``."""
    return solve_ivp_tangent_of(res, fun, t_span, y0, method, t_eval, args, t_span_tangent=tangent, **options)


def ivp_t_eval_tangent(tangent, res, fun, t_span, y0, method="RK45", t_eval=None, args=None, **options):
    """``solve_ivp_tangent_of`` for a tangent of ``t_eval``."""
    return solve_ivp_tangent_of(res, fun, t_span, y0, method, t_eval, args, t_eval_tangent=tangent, **options)


def ivp_args_tangent(tangent, res, fun, t_span, y0, method="RK45", t_eval=None, args=None, **options):
    """``solve_ivp_tangent_of`` for tangents of the items of ``args``."""
    return solve_ivp_tangent_of(res, fun, t_span, y0, method, t_eval, args, args_tangent=tangent, **options)


@adjoint(integrate.solve_ivp)
def solve_ivp_adjoint(res, fun, t_span, y0, method="RK45", t_eval=None, args=None, rtol=None, atol=None,
                      max_step=None, first_step=None):
    grads = solve_ivp_grads(d[res], res, fun, t_span, y0, method=method, t_eval=t_eval, args=args, rtol=rtol,
                            atol=atol, max_step=max_step, first_step=first_step)
    d[y0] = grads[0]
    d[t_span] = item_gradients(grads[1], t_span)
    d[t_eval] = grads[2]
    d[args] = item_gradients(grads[3], args)


@tangent(integrate.solve_ivp)
def solve_ivp_tangent(res, fun, t_span, y0, method="RK45", t_eval=None, args=None, rtol=None, atol=None,
                      max_step=None, first_step=None):
    d[res] = (ivp_y0_tangent(d[y0], res, fun, t_span, y0, method=method, t_eval=t_eval, args=args, rtol=rtol,
                             atol=atol, max_step=max_step, first_step=first_step)
              + ivp_t_span_tangent(d[t_span], res, fun, t_span, y0, method=method, t_eval=t_eval, args=args,
                                   rtol=rtol, atol=atol, max_step=max_step, first_step=first_step)
              + ivp_t_eval_tangent(d[t_eval], res, fun, t_span, y0, method=method, t_eval=t_eval, args=args,
                                   rtol=rtol, atol=atol, max_step=max_step, first_step=first_step)
              + ivp_args_tangent(d[args], res, fun, t_span, y0, method=method, t_eval=t_eval, args=args,
                                 rtol=rtol, atol=atol, max_step=max_step, first_step=first_step))


not_differentiated(solve_ivp_grads, ivp_y0_tangent, ivp_t_span_tangent, ivp_t_eval_tangent, ivp_args_tangent,
                   hint="srcad does not differentiate the derivative of an ODE solution again (no second "
                        "derivatives through odeint or solve_ivp); differentiate the solve once")
