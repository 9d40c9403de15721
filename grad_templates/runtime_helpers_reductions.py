"""Rules for the helpers of ``srcad.runtime.reductions`` and ``srcad.runtime.shapes``, so derivatives of
reductions, cumulative sums, joins and gathers can be differentiated again.

Every ``un<op>`` helper is the transpose of the linear operation ``<op>``
(``unconcatenate`` splits what ``np.concatenate`` joined, ``untake`` scatters
what ``np.take`` gathered), so its adjoint is ``<op>`` itself and its tangent
is the helper applied to the tangent.  ``prod_others`` (the gradient of
``np.prod``) is symmetric in the sense of a Hessian: its derivatives are the
multilinear ``prod_others_tangent``, ``prod_others_tangent2`` and
``prod_others_tangent3`` and ``prod_others_tangent4`` (exact where the input
has zeros); ``prod_others_tangent4`` has no rule: srcad differentiates its
source (products, flips and stacks, ``srcad.runtime.reductions``) and the
derivatives it generates, so ``np.prod`` is differentiated to any order.  ``logsumexp_weights`` is differentiated through
its output (``b * exp(a - result)``).  ``nan_centered(t, x)`` (in the
gradients of ``nanvar``/``nanstd``) is linear and symmetric in ``t``, so it is
its own adjoint; ``x`` only marks the NaNs.  Shares of a gradient among tied
extremes, ``nanmean``'s weights, ``nanvar``'s counts and padding masks are
piecewise constant and non-differentiable.  ``concat_item`` (an item of
``np.r_``) and ``sample_axis`` (a bound of ``np.linspace``) are reshapes; the
weights of ``np.linspace``'s samples depend on shapes only; ``index_range`` (a
slice of ``np.r_`` with a step srcad cannot see) is not differentiated.
``cumprod_grad`` and ``cumprod_tangent`` have no rules: srcad differentiates
their source like a user's function.
"""
import numpy as np

from srcad.runtime import reductions as runtime_reductions, shapes as runtime_shapes
from srcad.runtime import unbroadcast, unreduce
from srcad.runtime.reductions import (extremum_grad, extremum_tangent, logsumexp_weights, nan_centered,
                                      prod_others_tangent, prod_others_tangent2, prod_others_tangent3,
                                      prod_others_tangent4, uncumsum, unsum)
from srcad.runtime.shapes import (concat_item, sample_axis, unarray, uncolumn_stack, unconcatenate, undiag,
                                  undiagonal, undstack, unhstack, unpad, unrepeat, unstack, untake,
                                  untake_along_axis, untile, untrace, unvstack)
from srcad.templates import adjoint, d, nondifferentiable, not_differentiated, tangent


# reductions ---------------------------------------------------------------

@adjoint(runtime_reductions.prod_others)
def prod_others_adjoint(y, x, axis=None):
    d[x] = prod_others_tangent(d[y], x, axis=axis)


@tangent(runtime_reductions.prod_others)
def prod_others_tangent_rule(y, x, axis=None):
    d[y] = prod_others_tangent(d[x], x, axis=axis)


@adjoint(runtime_reductions.prod_others_tangent)
def prod_others_tangent_adjoint(y, t, x, axis=None):
    d[t] = prod_others_tangent(d[y], x, axis=axis)
    d[x] = prod_others_tangent2(d[y], t, x, axis=axis)


@tangent(runtime_reductions.prod_others_tangent)
def prod_others_tangent_tangent(y, t, x, axis=None):
    d[y] = prod_others_tangent(d[t], x, axis=axis) + prod_others_tangent2(t, d[x], x, axis=axis)


@adjoint(runtime_reductions.prod_others_tangent2)
def prod_others_tangent2_adjoint(y, t1, t2, x, axis=None):
    d[t1] = prod_others_tangent2(d[y], t2, x, axis=axis)
    d[t2] = prod_others_tangent2(t1, d[y], x, axis=axis)
    d[x] = prod_others_tangent3(d[y], t1, t2, x, axis=axis)


@tangent(runtime_reductions.prod_others_tangent2)
def prod_others_tangent2_tangent(y, t1, t2, x, axis=None):
    d[y] = (prod_others_tangent2(d[t1], t2, x, axis=axis) + prod_others_tangent2(t1, d[t2], x, axis=axis)
            + prod_others_tangent3(t1, t2, d[x], x, axis=axis))


@adjoint(runtime_reductions.prod_others_tangent3)
def prod_others_tangent3_adjoint(y, t1, t2, t3, x, axis=None):
    d[t1] = prod_others_tangent3(d[y], t2, t3, x, axis=axis)
    d[t2] = prod_others_tangent3(t1, d[y], t3, x, axis=axis)
    d[t3] = prod_others_tangent3(t1, t2, d[y], x, axis=axis)
    d[x] = prod_others_tangent4(d[y], t1, t2, t3, x, axis=axis)


@tangent(runtime_reductions.prod_others_tangent3)
def prod_others_tangent3_tangent(y, t1, t2, t3, x, axis=None):
    d[y] = (prod_others_tangent3(d[t1], t2, t3, x, axis=axis) + prod_others_tangent3(t1, d[t2], t3, x, axis=axis)
            + prod_others_tangent3(t1, t2, d[t3], x, axis=axis) + prod_others_tangent4(t1, t2, t3, d[x], x, axis=axis))


@adjoint(runtime_reductions.logsumexp_weights)
def logsumexp_weights_adjoint(y, a, result, b=None, axis=None, keepdims=False):
    d[a] = unbroadcast(d[y] * y, a)
    d[result] = -unbroadcast(np.sum(d[y] * y, axis=axis, keepdims=keepdims), result)
    d[b] = unbroadcast(d[y] * logsumexp_weights(a, result, axis=axis, keepdims=keepdims), b)


@tangent(runtime_reductions.logsumexp_weights)
def logsumexp_weights_tangent(y, a, result, b=None, axis=None, keepdims=False):
    d[y] = (y * (d[a] - unreduce(d[result], a, axis=axis, keepdims=keepdims))
            + d[b] * logsumexp_weights(a, result, axis=axis, keepdims=keepdims))


@adjoint(runtime_reductions.uncumsum)
def uncumsum_adjoint(y, grad, like, axis=None):
    d[grad] = np.cumsum(d[y], axis=axis)


@tangent(runtime_reductions.uncumsum)
def uncumsum_tangent(y, grad, like, axis=None):
    d[y] = uncumsum(d[grad], like, axis=axis)


@adjoint(runtime_reductions.unsum)
def unsum_adjoint(y, grad, iterable):
    d[grad] = unbroadcast(sum(d[y]), grad)


@tangent(runtime_reductions.unsum)
def unsum_tangent(y, grad, iterable):
    d[y] = unsum(d[grad], iterable)


@adjoint(runtime_reductions.extremum_grad)
def extremum_grad_adjoint(y, grad, value, result, other=None):
    d[grad] = unbroadcast(extremum_tangent(d[y], value, result, other=other), grad)


@tangent(runtime_reductions.extremum_grad)
def extremum_grad_tangent(y, grad, value, result, other=None):
    d[y] = extremum_grad(d[grad], value, result, other=other)


@adjoint(runtime_reductions.extremum_tangent)
def extremum_tangent_adjoint(y, tangent, value, result, other=None):
    d[tangent] = extremum_grad(d[y], value, result, other=other)


@tangent(runtime_reductions.extremum_tangent)
def extremum_tangent_tangent(y, tangent, value, result, other=None):
    d[y] = extremum_tangent(d[tangent], value, result, other=other)


# joins: the adjoint of splitting a gradient into pieces is joining them back -----------------

@adjoint(runtime_shapes.unconcatenate)
def unconcatenate_adjoint(y, grad, arrays, axis=0):
    d[grad] = np.concatenate(d[y], axis=axis)


@tangent(runtime_shapes.unconcatenate)
def unconcatenate_tangent(y, grad, arrays, axis=0):
    d[y] = unconcatenate(d[grad], arrays, axis=axis)


@adjoint(runtime_shapes.unstack)
def unstack_adjoint(y, grad, arrays, axis=0):
    d[grad] = np.stack(d[y], axis=axis)


@tangent(runtime_shapes.unstack)
def unstack_tangent(y, grad, arrays, axis=0):
    d[y] = unstack(d[grad], arrays, axis=axis)


@adjoint(runtime_shapes.unhstack)
def unhstack_adjoint(y, grad, arrays):
    d[grad] = np.hstack(d[y])


@tangent(runtime_shapes.unhstack)
def unhstack_tangent(y, grad, arrays):
    d[y] = unhstack(d[grad], arrays)


@adjoint(runtime_shapes.unvstack)
def unvstack_adjoint(y, grad, arrays):
    d[grad] = np.vstack(d[y])


@tangent(runtime_shapes.unvstack)
def unvstack_tangent(y, grad, arrays):
    d[y] = unvstack(d[grad], arrays)


@adjoint(runtime_shapes.undstack)
def undstack_adjoint(y, grad, arrays):
    d[grad] = np.dstack(d[y])


@tangent(runtime_shapes.undstack)
def undstack_tangent(y, grad, arrays):
    d[y] = undstack(d[grad], arrays)


@adjoint(runtime_shapes.uncolumn_stack)
def uncolumn_stack_adjoint(y, grad, arrays):
    d[grad] = np.column_stack(d[y])


@tangent(runtime_shapes.uncolumn_stack)
def uncolumn_stack_tangent(y, grad, arrays):
    d[y] = uncolumn_stack(d[grad], arrays)


@adjoint(runtime_shapes.unarray)
def unarray_adjoint(y, grad, obj):
    d[grad] = np.reshape(np.array(d[y]), np.shape(grad))


@tangent(runtime_shapes.unarray)
def unarray_tangent(y, grad, obj):
    d[y] = unarray(d[grad], obj)


# pieces of np.r_/np.c_ and bounds of np.linspace: reshapes, whose adjoint reshapes back -------

@adjoint(runtime_shapes.concat_item)
def concat_item_adjoint(y, item, ndmin=1, trans1d=-1, alone=False):
    d[item] = unarray(d[y], item)


@tangent(runtime_shapes.concat_item)
def concat_item_tangent(y, item, ndmin=1, trans1d=-1, alone=False):
    d[y] = concat_item(d[item], ndmin=ndmin, trans1d=trans1d)


@adjoint(runtime_shapes.sample_axis)
def sample_axis_adjoint(y, value, samples, axis=0):
    d[value] = np.reshape(d[y], np.shape(value))


@tangent(runtime_shapes.sample_axis)
def sample_axis_tangent(y, value, samples, axis=0):
    d[y] = sample_axis(d[value], samples, axis=axis)


# copies and gathers: the adjoint of adding up the copies is copying again ------------------

@adjoint(runtime_shapes.unrepeat)
def unrepeat_adjoint(y, grad, like, repeats, axis=None):
    d[grad] = np.repeat(d[y], repeats, axis=axis)


@tangent(runtime_shapes.unrepeat)
def unrepeat_tangent(y, grad, like, repeats, axis=None):
    d[y] = unrepeat(d[grad], like, repeats, axis=axis)


@adjoint(runtime_shapes.untile)
def untile_adjoint(y, grad, like, reps):
    d[grad] = np.tile(d[y], reps)


@tangent(runtime_shapes.untile)
def untile_tangent(y, grad, like, reps):
    d[y] = untile(d[grad], like, reps)


@adjoint(runtime_shapes.unpad)
def unpad_adjoint(y, grad, like, pad_width, mode="constant"):
    d[grad] = np.pad(d[y], pad_width, mode=mode)


@tangent(runtime_shapes.unpad)
def unpad_tangent(y, grad, like, pad_width, mode="constant"):
    d[y] = unpad(d[grad], like, pad_width, mode=mode)


@adjoint(runtime_shapes.untake)
def untake_adjoint(y, grad, like, indices, axis=None, mode="raise"):
    d[grad] = np.take(d[y], indices, axis=axis, mode=mode)


@tangent(runtime_shapes.untake)
def untake_tangent(y, grad, like, indices, axis=None, mode="raise"):
    d[y] = untake(d[grad], like, indices, axis=axis, mode=mode)


@adjoint(runtime_shapes.untake_along_axis)
def untake_along_axis_adjoint(y, grad, like, indices, axis=-1):
    d[grad] = np.take_along_axis(d[y], indices, axis)


@tangent(runtime_shapes.untake_along_axis)
def untake_along_axis_tangent(y, grad, like, indices, axis=-1):
    d[y] = untake_along_axis(d[grad], like, indices, axis=axis)


@adjoint(runtime_shapes.undiag)
def undiag_adjoint(y, grad, v, k=0):
    d[grad] = np.diag(d[y], k=k)


@tangent(runtime_shapes.undiag)
def undiag_tangent(y, grad, v, k=0):
    d[y] = undiag(d[grad], v, k=k)


@adjoint(runtime_shapes.undiagonal)
def undiagonal_adjoint(y, grad, a, offset=0, axis1=0, axis2=1):
    d[grad] = np.diagonal(d[y], offset=offset, axis1=axis1, axis2=axis2)


@tangent(runtime_shapes.undiagonal)
def undiagonal_tangent(y, grad, a, offset=0, axis1=0, axis2=1):
    d[y] = undiagonal(d[grad], a, offset=offset, axis1=axis1, axis2=axis2)


@adjoint(runtime_shapes.untrace)
def untrace_adjoint(y, grad, a, offset=0, axis1=0, axis2=1):
    d[grad] = np.trace(d[y], offset=offset, axis1=axis1, axis2=axis2)


@tangent(runtime_shapes.untrace)
def untrace_tangent(y, grad, a, offset=0, axis1=0, axis2=1):
    d[y] = untrace(d[grad], a, offset=offset, axis1=axis1, axis2=axis2)


@adjoint(runtime_reductions.nan_centered)
def nan_centered_adjoint(y, t, x, axis=None):
    d[t] = nan_centered(d[y], x, axis=axis)


@tangent(runtime_reductions.nan_centered)
def nan_centered_tangent(y, t, x, axis=None):
    d[y] = nan_centered(d[t], x, axis=axis)


nondifferentiable(runtime_reductions.extreme_share, runtime_reductions.ptp_share,
                  runtime_reductions.nanmean_weights, runtime_reductions.nan_count, runtime_reductions.extremum_share,
                  runtime_shapes.padding_mask, runtime_shapes.linspace_weights, runtime_shapes.linspace_step_weight,
                  reason="it is a piecewise-constant share of a gradient, a mask or a weight set by shapes")
nondifferentiable(runtime_reductions._complements, runtime_reductions._subset_shifts,
                  runtime_reductions._empty_subset, runtime_reductions._one_hot,
                  reason="it is a table of subsets, a one-hot column or a constant of prod_others_tangent4's algebra")
not_differentiated(runtime_shapes.index_range, hint="it reads a slice of np.r_[...] whose step is not written in the "
                                                    "source; write np.arange(start, stop, step), or "
                                                    "np.linspace(start, stop, n) for a count, in place of the slice")
