"""What generated derivative code imports at run time, and nothing else.

Contract:
- Generated modules import every helper by name from this package
  (``from srcad.runtime import unbroadcast, unreduce``); the helpers live in
  one module per family and are re-exported here:
  - ``core``: unbroadcast, broadcasting and seeds, products, element shares;
  - ``containers``: adjoints of lists, tuples and dicts;
  - ``limits``: formulas with a removable singularity (``xdivy``, ``xlogy``);
  - ``linalg``: products, einsum, norms and solves;
  - ``reductions``: sums, extremes, cumulative operations;
  - ``shapes``: the inverses of joining, splitting, padding and indexing;
  - ``decompositions``: Cholesky, eigh and SVD;
  - ``memory``: which names share memory, and the indices of mutating NumPy calls;
  - ``hooks``: ``insert_grad_of``;
  - ``iteration``: the permutation of ``sorted``, the pairs of ``dict(pairs)``;
  - ``gradients``: ``stop_gradient``;
  - ``guards``: products and quotients in which an exact zero wins, for
    derivatives recomputed after a NaN;
- A helper is a small function of NumPy values (``add_at`` excepted: it
  accumulates into an array the generated code owns) that never reads or
  writes a user's argument in place.  Every helper has rules of its own in
  ``grad_templates/runtime_helpers*.py``, so generated code can be
  differentiated again.
- The runtime imports NumPy and ``srcad.errors`` only: never the rule
  registry, the passes, the pipeline or the API.

Example::

    >>> import numpy as np
    >>> from srcad.runtime import unbroadcast
    >>> unbroadcast(np.ones((2, 3)), np.zeros(3))
    array([2., 2., 2.])
"""
from .core import (
    unbroadcast, broadcast_like, unreduce, reduced_count, cast_gate, keep_last, zeros_like, filled_like,
    add_at, copied, check_seed, transpose_axes_inverse, matmul_lhs_grad, matmul_rhs_grad,
    dot_lhs_grad, dot_rhs_grad, maximum_share, fmax_share, fmin_share, clip_share, digamma,
    polygamma, sinc_slope)
from .containers import add_lists, add_structures
from .limits import xdivy, xlogy
from .linalg import (
    per_matrix, inner_lhs_grad, inner_rhs_grad, tensordot_lhs_grad, tensordot_rhs_grad,
    kron_lhs_grad, kron_rhs_grad, cross_lhs_grad, cross_rhs_grad, einsum_first, einsum_of,
    einsum_grad, norm_direction, norm_direction_tangent, solve_like, apply_like, outer_like,
    matrix_power_grad, matrix_power_tangent, pinv_grad, pinv_tangent)
from .memory import shares, holds, diagonal_index, put_index
from .reductions import (
    extreme_share, ptp_share, prod_others, prod_others_tangent, prod_others_tangent2,
    prod_others_tangent3, logsumexp_weights, nanmean_weights, nan_centered, nan_count, uncumsum,
    cumprod_grad, cumprod_tangent, unsum, extremum_share, extremum_grad, extremum_tangent)
from .shapes import (
    unconcatenate, unstack, unhstack, unvstack, undstack, uncolumn_stack, unrepeat, untile, unpad,
    padding_mask, untake, untake_along_axis, undiag, undiagonal, untrace, unarray, concat_item,
    index_range, linspace_weights, linspace_step_weight, sample_axis)
from .decompositions import (
    cholesky_grad, cholesky_tangent, eigh_grad, eigh_tangent, eigvalsh_grad, eigvalsh_tangent,
    svd_grad, svd_tangent, singular_values_grad, singular_values_tangent)
from .hooks import insert_grad_of
from .iteration import keys_of, sorting_order, permuted, unpermuted, pairs_grad, pairs_tangent

# helpers that give a list or tuple argument a list adjoint, one entry per item (generated code passes
# the adjoint other rules give a list through ``unarray``)
ITEM_ADJOINTS = (unarray, unconcatenate, unstack, unhstack, unvstack, undstack, uncolumn_stack, unsum,
                 extremum_grad, add_lists, add_structures, zeros_like, copied, unpermuted, pairs_grad)
from .gradients import stop_gradient
from .guards import strong_product, strong_quotient

__all__ = ["unbroadcast", "broadcast_like", "unreduce", "reduced_count", "cast_gate", "keep_last", "zeros_like",
           "filled_like", "add_at", "copied", "check_seed", "transpose_axes_inverse",
           "matmul_lhs_grad", "matmul_rhs_grad", "dot_lhs_grad", "dot_rhs_grad", "maximum_share",
           "fmax_share", "fmin_share", "clip_share", "digamma", "polygamma", "sinc_slope",
           "add_lists", "add_structures", "xdivy", "xlogy", "per_matrix", "inner_lhs_grad",
           "inner_rhs_grad", "tensordot_lhs_grad", "tensordot_rhs_grad", "kron_lhs_grad",
           "kron_rhs_grad", "cross_lhs_grad", "cross_rhs_grad", "einsum_first", "einsum_of",
           "einsum_grad", "norm_direction", "norm_direction_tangent", "solve_like", "apply_like",
           "outer_like", "matrix_power_grad", "matrix_power_tangent", "pinv_grad", "pinv_tangent",
           "shares", "holds", "diagonal_index", "put_index", "extreme_share", "ptp_share",
           "prod_others", "prod_others_tangent", "prod_others_tangent2", "prod_others_tangent3",
           "logsumexp_weights", "nanmean_weights", "nan_centered", "nan_count", "uncumsum",
           "cumprod_grad", "cumprod_tangent", "unsum", "extremum_share", "extremum_grad",
           "extremum_tangent", "unconcatenate", "unstack", "unhstack", "unvstack", "undstack",
           "uncolumn_stack", "unrepeat", "untile", "unpad", "padding_mask", "untake",
           "untake_along_axis", "undiag", "undiagonal", "untrace", "unarray", "concat_item",
           "index_range", "linspace_weights", "linspace_step_weight", "sample_axis",
           "cholesky_grad", "cholesky_tangent", "eigh_grad", "eigh_tangent", "eigvalsh_grad",
           "eigvalsh_tangent", "svd_grad", "svd_tangent", "singular_values_grad",
           "singular_values_tangent", "insert_grad_of", "keys_of", "sorting_order", "permuted", "unpermuted",
           "pairs_grad", "pairs_tangent", "stop_gradient",
           "strong_product", "strong_quotient"]
