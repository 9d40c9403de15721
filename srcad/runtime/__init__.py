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
  - ``arrays``: rollaxis, partition and select;
  - ``numerical``: differences, integrals, interpolation, polynomials, convolutions;
  - ``stencils``: ``np.gradient``;
  - ``factorizations``: eig, eigvals, qr, lstsq, the Hermitian pinv and matrix powers;
  - ``factors``: triangles, packed Cholesky and LU factors and Fréchet
    blocks, for ``scipy.linalg``;
  - ``distributions``: ratios of densities, Dirichlet components and the
    multivariate normal's derivatives, for ``scipy.stats``;
  - ``convolution``: the padding of ``scipy.signal``'s convolutions;
  - ``ode``: state layouts and item gradients for ``scipy.integrate``;
  - ``callbacks``: the derivative service for helpers that differentiate a
    function at run time (``odeint``'s ``func``);
  - ``memory``: which names share memory, and the indices of mutating NumPy calls;
  - ``hooks``: ``insert_grad_of``;
  - ``iteration``: the permutation of ``sorted``, the pairs of ``dict(pairs)``;
  - ``gradients``: ``stop_gradient``;
  - ``spectral``: complex parts and the transposes of ``numpy.fft``'s transforms;
  - ``guards``: products and quotients in which an exact zero wins, for
    derivatives recomputed after a NaN;
  - ``dispatch``: which values are Dask or CuPy arrays, and the conversions
    that leave them alone (helpers use it; generated code does not import it);
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
    add_at, copied, array_copy, check_seed, transpose_axes_inverse, matmul_lhs_grad, matmul_rhs_grad,
    dot_lhs_grad, dot_rhs_grad, maximum_share, fmax_share, fmin_share, clip_share, digamma,
    polygamma, sinc_slope)
from .containers import add_lists, add_structures, item_before, restore_item
from .limits import xdivy, xlogy
from .linalg import (
    per_matrix, inner_lhs_grad, inner_rhs_grad, tensordot_lhs_grad, tensordot_rhs_grad,
    kron_lhs_grad, kron_rhs_grad, cross_lhs_grad, cross_rhs_grad, einsum_first, einsum_of,
    einsum_grad, norm_direction, norm_direction_tangent, solve_like, apply_like, outer_like,
    pinv_grad, pinv_tangent)
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
from .arrays import rollaxis_position, matching_order, select_rest, unselect
from .numerical import (
    undiff, undiff_piece, diff_piece, trapezoid_weights, trapezoid_x_grad, trapezoid_x_tangent, interp_slope,
    interp_fp_tangent, interp_fp_grad, interp_xp_grad, interp_xp_tangent, polyval_slope, polyval_coefficient_grad,
    convolve_grad, correlate_grad)
from .stencils import (
    gradient_axes, gradient_weights, gradient_weight_partials, gradient_stack, gradient_unstack, gradient_restack,
    gradient_transpose, gradient_spacing_grad, gradient_spacing_stack)
from .factorizations import (
    eigenvalue_gaps, eig_grad, eig_tangent, eigvals_grad, eigvals_tangent, qr_grad, qr_tangent, lstsq_grads,
    lstsq_x_tangent, lstsq_x_tangent_rhs, lstsq_residuals_tangent, lstsq_residuals_tangent_rhs,
    lstsq_singular_values_tangent, matrix_power_grad, matrix_power_tangent, pinv_hermitian_grad, pinv_hermitian_tangent, require_real_eigenvalues,
    require_no_extra_columns, require_qr_mode)
from .hooks import insert_grad_of
from .factors import (
    triangle, as_columns, from_columns, cho_factor_grad, cho_factor_tangent, cho_solve_grad, cho_solve_moved,
    lu_rows, lu_factor_grad, lu_factor_tangent, lu_solve_grad, lu_solve_moved, real_root, sylvester_rhs, frechet_block,
    upper_right)
from .distributions import (
    exp_difference, dirichlet_components, normal_x_grad, normal_mean_grad, normal_cov_grad, normal_x_tangent,
    normal_cov_tangent)
from .convolution import full_padding
from .ode import item_gradients, pack, unpack
from .iteration import keys_of, sorting_order, permuted, unpermuted, pairs_grad, pairs_tangent

# helpers that give a list or tuple argument a list adjoint, one entry per item (generated code passes
# the adjoint other rules give a list through ``unarray``)
ITEM_ADJOINTS = (unarray, unconcatenate, unstack, unhstack, unvstack, undstack, uncolumn_stack, unsum,
                 extremum_grad, add_lists, add_structures, zeros_like, copied, unselect, item_gradients,
                 unpermuted, pairs_grad)
# of those, the helpers whose result is a list whatever their arguments: a second contribution to an adjoint
# adds to it entry by entry
LIST_ADJOINTS = (unconcatenate, unstack, unhstack, unvstack, undstack, uncolumn_stack, add_lists, item_gradients,
                 unselect)
from .gradients import stop_gradient
from .spectral import (real_input, like_real, like_kind, close_real, unit_phase, complex_abs, real_part, imag_part,
                       conjugate, phase, fft_transpose, fft_fitted, rfft_transpose, rfft_fitted,
                       irfft_transpose, irfft_fitted)
from .guards import strong_product, strong_quotient

__all__ = ["unbroadcast", "broadcast_like", "unreduce", "reduced_count", "cast_gate", "keep_last", "zeros_like",
           "filled_like", "add_at", "copied", "array_copy", "check_seed", "transpose_axes_inverse", "matmul_lhs_grad",
           "matmul_rhs_grad", "dot_lhs_grad", "dot_rhs_grad", "maximum_share", "fmax_share", "fmin_share",
           "clip_share", "digamma", "polygamma", "sinc_slope", "add_lists", "add_structures", "item_before", "restore_item", "xdivy", "xlogy",
           "per_matrix", "inner_lhs_grad", "inner_rhs_grad", "tensordot_lhs_grad", "tensordot_rhs_grad",
           "kron_lhs_grad", "kron_rhs_grad", "cross_lhs_grad", "cross_rhs_grad", "einsum_first", "einsum_of",
           "einsum_grad", "norm_direction", "norm_direction_tangent", "solve_like", "apply_like", "outer_like",
           "matrix_power_grad", "matrix_power_tangent", "pinv_grad", "pinv_tangent", "shares", "holds",
           "diagonal_index", "put_index", "extreme_share", "ptp_share", "prod_others", "prod_others_tangent",
           "prod_others_tangent2", "prod_others_tangent3", "logsumexp_weights", "nanmean_weights", "nan_centered",
           "nan_count", "uncumsum", "cumprod_grad", "cumprod_tangent", "unsum", "extremum_share", "extremum_grad",
           "extremum_tangent", "unconcatenate", "unstack", "unhstack", "unvstack", "undstack", "uncolumn_stack",
           "unrepeat", "untile", "unpad", "padding_mask", "untake", "untake_along_axis", "undiag", "undiagonal",
           "untrace", "unarray", "concat_item", "index_range", "linspace_weights", "linspace_step_weight",
           "sample_axis", "cholesky_grad", "cholesky_tangent", "eigh_grad", "eigh_tangent", "eigvalsh_grad",
           "eigvalsh_tangent", "svd_grad", "svd_tangent", "singular_values_grad", "singular_values_tangent",
           "rollaxis_position", "matching_order", "select_rest", "unselect", "undiff", "undiff_piece",
           "diff_piece", "trapezoid_weights", "trapezoid_x_grad", "trapezoid_x_tangent", "interp_slope",
           "interp_fp_tangent", "interp_fp_grad", "interp_xp_grad", "interp_xp_tangent", "polyval_slope",
           "polyval_coefficient_grad", "convolve_grad", "correlate_grad", "gradient_axes", "gradient_weights",
           "gradient_weight_partials", "gradient_stack", "gradient_unstack", "gradient_restack",
           "gradient_transpose", "gradient_spacing_grad", "gradient_spacing_stack", "eigenvalue_gaps", "eig_grad",
           "eig_tangent", "eigvals_grad", "eigvals_tangent", "qr_grad", "qr_tangent", "lstsq_grads",
           "lstsq_x_tangent", "lstsq_x_tangent_rhs", "lstsq_residuals_tangent", "lstsq_residuals_tangent_rhs",
           "lstsq_singular_values_tangent", "pinv_hermitian_grad", "pinv_hermitian_tangent",
           "require_real_eigenvalues", "require_no_extra_columns", "require_qr_mode", "insert_grad_of",
           "stop_gradient", "strong_product", "strong_quotient", "triangle", "as_columns", "from_columns",
           "cho_factor_grad", "cho_factor_tangent", "cho_solve_grad", "cho_solve_moved", "lu_rows",
           "lu_factor_grad", "lu_factor_tangent", "lu_solve_grad", "lu_solve_moved", "real_root", "sylvester_rhs",
           "frechet_block", "upper_right", "exp_difference", "dirichlet_components", "normal_x_grad",
           "normal_mean_grad", "normal_cov_grad", "normal_x_tangent", "normal_cov_tangent", "full_padding",
           "item_gradients", "pack", "unpack", "keys_of", "sorting_order", "permuted",
           "unpermuted", "pairs_grad", "pairs_tangent", "real_input", "like_real", "like_kind", "close_real",
           "unit_phase", "complex_abs", "real_part", "imag_part", "conjugate", "phase", "fft_transpose", "fft_fitted",
           "rfft_fitted", "irfft_fitted",
           "rfft_transpose", "irfft_transpose"]
