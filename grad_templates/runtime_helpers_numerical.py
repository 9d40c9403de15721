"""Rules for the helpers of ``srcad.runtime.numerical``, ``srcad.runtime.stencils`` and
``srcad.runtime.arrays``, so derivatives of differences, gradients, selections and partitions can be
differentiated again.

The helpers with rules here are linear maps of the derivative they move,
and each one's adjoint is its transpose: ``undiff`` (the transpose of
``np.diff``) and ``np.diff``; ``undiff_piece`` and ``diff_piece``;
``gradient_unstack`` and ``gradient_restack``; ``unselect`` and
``np.select``.  The other arguments only give shapes, positions or masks.
The index and mask helpers (``rollaxis_position``, ``matching_order``,
``select_rest``, ``gradient_axes``) carry no derivative.  The remaining
helpers of these modules (``gradient_transpose``, ``trapezoid_weights``,
``interp_slope``, ``convolve_grad``...) have no rules: they are written with
NumPy operations srcad has rules for, and srcad differentiates their source.
"""
import numpy as np

from srcad.runtime import arrays as runtime_arrays
from srcad.runtime import factorizations as runtime_factorizations
from srcad.runtime import broadcast_like
from srcad.runtime import numerical as runtime_numerical
from srcad.runtime import stencils as runtime_stencils
from srcad.runtime.arrays import unselect
from srcad.runtime.numerical import diff_piece, undiff, undiff_piece
from srcad.runtime.stencils import gradient_restack, gradient_unstack
from srcad.templates import adjoint, d, nondifferentiable, tangent


@adjoint(runtime_numerical.undiff)
def undiff_adjoint(y, grad, n=1, axis=-1):
    d[grad] = np.diff(d[y], n=n, axis=axis)


@tangent(runtime_numerical.undiff)
def undiff_tangent(y, grad, n=1, axis=-1):
    d[y] = undiff(d[grad], n=n, axis=axis)


@adjoint(runtime_numerical.undiff_piece)
def undiff_piece_adjoint(y, grad, which, a, n=1, axis=-1, prepend=None, append=None):
    d[grad] = diff_piece(d[y], which, a, n, axis, prepend, append)


@tangent(runtime_numerical.undiff_piece)
def undiff_piece_tangent(y, grad, which, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = undiff_piece(d[grad], which, a, n, axis, prepend, append)


@adjoint(runtime_numerical.diff_piece)
def diff_piece_adjoint(y, piece, which, a, n=1, axis=-1, prepend=None, append=None):
    d[piece] = undiff_piece(d[y], which, a, n, axis, prepend, append)


@tangent(runtime_numerical.diff_piece)
def diff_piece_tangent(y, piece, which, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = diff_piece(d[piece], which, a, n, axis, prepend, append)


@adjoint(runtime_stencils.gradient_unstack)
def gradient_unstack_adjoint(y, stacked, f, axis=None):
    d[stacked] = gradient_restack(d[y], f, axis=axis)


@tangent(runtime_stencils.gradient_unstack)
def gradient_unstack_tangent(y, stacked, f, axis=None):
    d[y] = gradient_unstack(d[stacked], f, axis=axis)


@adjoint(runtime_stencils.gradient_restack)
def gradient_restack_adjoint(y, grad, f, axis=None):
    d[grad] = gradient_unstack(d[y], f, axis=axis)


@tangent(runtime_stencils.gradient_restack)
def gradient_restack_tangent(y, grad, f, axis=None):
    d[y] = gradient_restack(d[grad], f, axis=axis)


@adjoint(runtime_arrays.unselect)
def unselect_adjoint(y, grad, condlist, choicelist):
    d[grad] = broadcast_like(np.select(condlist, d[y], 0.0), grad)


@tangent(runtime_arrays.unselect)
def unselect_tangent(y, grad, condlist, choicelist):
    d[y] = unselect(d[grad], condlist, choicelist)


nondifferentiable(runtime_arrays.rollaxis_position, runtime_arrays.matching_order, runtime_arrays.select_rest,
                  runtime_stencils.gradient_axes, runtime_factorizations.require_real_eigenvalues,
                  runtime_factorizations.require_no_extra_columns,
                  runtime_factorizations.require_qr_mode,
                  reason="it computes positions, indices or masks, or checks its arguments")
