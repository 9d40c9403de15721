"""Rules for ``scipy.linalg``, registered when ``scipy.linalg`` is imported (``optional.py``).

Covered: ``solve_triangular``, ``solve_banded``, ``cholesky``, ``cho_factor``/``cho_solve``,
``lu_factor``/``lu_solve``, ``eigh``, ``inv``, ``det``, ``expm``,
``sqrtm`` and ``solve_sylvester``.  The helpers they call are in
``srcad/runtime/factors.py`` and ``srcad/runtime/decompositions.py``.

What each rule reads, as SciPy does: ``solve_triangular`` one triangle of
``a`` (without its diagonal when ``unit_diagonal``), so the gradient of
``a`` is zero on the rest; ``solve_banded`` the band of ``ab`` (its unread
corners get gradient zero); ``cholesky`` and ``cho_factor`` the upper
triangle (the lower with ``lower=True``), and ``cho_factor``'s ``c`` keeps
``a``'s entries in its other triangle, which the rule passes through;
``eigh`` the lower triangle (the upper with ``lower=False``).  Domains:
``inv``, ``det``, the solves and ``lu_factor`` need a nonsingular matrix (and
``lu_factor`` a square one, its pivots fixed nearby, which they are unless
two candidates tie); ``cholesky`` and ``cho_factor`` a symmetric positive
definite one; ``eigh`` distinct eigenvalues; ``sqrtm`` a matrix whose square
root is real (no eigenvalue on the negative real axis): a complex ``sqrtm``
makes the derivative raise ``ComplexError``; ``solve_sylvester`` no
eigenvalue of ``a`` the negative of one of ``b``, and a matrix ``q`` (SciPy
reads a number ``q`` as ``q`` times its Schur vectors: refused).

``expm``'s derivative is the top-right block of ``expm([[a, e], [0, a]])``
(Mathias' block formula), exact in exact arithmetic and itself built from
``expm``, so every order of derivative follows.  ``sqrtm``'s solves the
Sylvester equation ``X dX + dX X = dA``.

Arguments that let SciPy overwrite its input (``overwrite_a``,
``overwrite_b``), ``eigh``'s generalized problem (``b``) and subsets
(``subset_by_index``, ``subset_by_value``), and ``inv``'s ``assume_a`` are
not rule parameters: a call that passes them is refused at its line.
``trans``, ``eigvals_only`` and ``eigh``'s ``lower`` must be constants when
given; ``lower`` of the Cholesky functions may be a value (``cho_factor``
returns it).
"""
import numpy as np
from scipy import linalg

from srcad.runtime import filled_like, per_matrix, unbroadcast
from srcad.runtime.decompositions import (cholesky_grad, cholesky_tangent, eigh_grad, eigh_tangent, eigvalsh_grad,
                                          eigvalsh_tangent)
from srcad.runtime import factors
from srcad.runtime.factors import (as_columns, band_to_dense, cho_factor_grad, dense_to_band, transposed_band, cho_factor_tangent, cho_solve_grad,
                                   cho_solve_moved, frechet_block, from_columns, lu_factor_grad, lu_factor_tangent,
                                   lu_rows, lu_solve_grad, lu_solve_moved, real_root, sylvester_rhs,
                                   triangle, upper_right)
from srcad.templates import adjoint, d, literal, nondifferentiable, tangent


@adjoint(linalg.solve_triangular)
def solve_triangular_adjoint(x, a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
    if trans in (0, "N"):
        solved = linalg.solve_triangular(a, as_columns(d[x], b), trans=1, lower=lower, unit_diagonal=unit_diagonal,
                                         check_finite=check_finite)
        d[a] = -unbroadcast(triangle(solved @ np.swapaxes(as_columns(x, b), -1, -2), lower, unit_diagonal), a)
    else:
        solved = linalg.solve_triangular(a, as_columns(d[x], b), lower=lower, unit_diagonal=unit_diagonal,
                                         check_finite=check_finite)
        d[a] = -unbroadcast(triangle(as_columns(x, b) @ np.swapaxes(solved, -1, -2), lower, unit_diagonal), a)
    d[b] = unbroadcast(from_columns(solved, b), b)


@tangent(linalg.solve_triangular)
def solve_triangular_tangent(x, a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
    if trans in (0, "N"):
        d[x] = from_columns(linalg.solve_triangular(
            a, as_columns(d[b], b) - triangle(d[a], lower, unit_diagonal) @ as_columns(x, b), lower=lower,
            unit_diagonal=unit_diagonal, check_finite=check_finite), b)
    else:
        d[x] = from_columns(linalg.solve_triangular(
            a, as_columns(d[b], b) - np.swapaxes(triangle(d[a], lower, unit_diagonal), -1, -2) @ as_columns(x, b),
            trans=trans, lower=lower, unit_diagonal=unit_diagonal, check_finite=check_finite), b)


@adjoint(linalg.cholesky)
def cholesky_adjoint(factor, a, lower=False, check_finite=True):
    if literal(lower):
        if lower:
            d[a] = cholesky_grad(d[factor], factor)
        else:
            d[a] = cholesky_grad(d[factor], factor, upper=True)
    else:
        d[a] = cholesky_grad(d[factor], factor, upper=not lower)


@tangent(linalg.cholesky)
def cholesky_tangent_rule(factor, a, lower=False, check_finite=True):
    if literal(lower):
        if lower:
            d[factor] = cholesky_tangent(d[a], factor)
        else:
            d[factor] = cholesky_tangent(d[a], factor, upper=True)
    else:
        d[factor] = cholesky_tangent(d[a], factor, upper=not lower)


@adjoint(linalg.cho_factor)
def cho_factor_adjoint(t, a, lower=False, check_finite=True):
    d[a] = cho_factor_grad(d[t][0], t[0], bool(t[1]))


@tangent(linalg.cho_factor)
def cho_factor_tangent_rule(t, a, lower=False, check_finite=True):
    d[t] = (cho_factor_tangent(d[a], t[0], bool(t[1])), 0.0)


@adjoint(linalg.cho_solve)
def cho_solve_adjoint(x, c_and_lower, b, check_finite=True):
    solved = linalg.cho_solve(c_and_lower, d[x], check_finite=check_finite)
    d[b] = solved
    d[c_and_lower] = [cho_solve_grad(solved, x, c_and_lower[0], bool(c_and_lower[1])), 0.0]


@tangent(linalg.cho_solve)
def cho_solve_tangent(x, c_and_lower, b, check_finite=True):
    d[x] = linalg.cho_solve(c_and_lower, d[b] - cho_solve_moved(d[c_and_lower][0], x, c_and_lower[0],
                                                                bool(c_and_lower[1])), check_finite=check_finite)


@adjoint(linalg.lu_factor)
def lu_factor_adjoint(t, a, check_finite=True):
    d[a] = lu_factor_grad(d[t][0], t[0], lu_rows(t[1]))


@tangent(linalg.lu_factor)
def lu_factor_tangent_rule(t, a, check_finite=True):
    d[t] = (lu_factor_tangent(d[a], t[0], lu_rows(t[1])), np.zeros(np.shape(t[1])))


@adjoint(linalg.lu_solve)
def lu_solve_adjoint(x, lu_and_piv, b, trans=0, check_finite=True):
    if trans in (0, "N"):
        solved = linalg.lu_solve(lu_and_piv, d[x], trans=1, check_finite=check_finite)
    else:
        solved = linalg.lu_solve(lu_and_piv, d[x], check_finite=check_finite)
    d[b] = solved
    d[lu_and_piv] = [lu_solve_grad(solved, x, lu_and_piv[0], lu_rows(lu_and_piv[1]), trans=trans), 0.0]


@tangent(linalg.lu_solve)
def lu_solve_tangent(x, lu_and_piv, b, trans=0, check_finite=True):
    d[x] = linalg.lu_solve(lu_and_piv, d[b] - lu_solve_moved(d[lu_and_piv][0], x, lu_and_piv[0],
                                                             lu_rows(lu_and_piv[1]), trans=trans), trans=trans, check_finite=check_finite)


@adjoint(linalg.eigh)
def eigh_adjoint(t, a, *, lower=True, eigvals_only=False, check_finite=True, driver=None):
    if eigvals_only:
        if literal(lower):
            if lower:
                d[a] = eigvalsh_grad(d[t], a)
            else:
                d[a] = eigvalsh_grad(d[t], a, UPLO="U")
        else:
            d[a] = eigvalsh_grad(d[t], a, UPLO="L" if lower else "U")
    elif literal(lower):
        if lower:
            d[a] = eigh_grad(d[t], t)
        else:
            d[a] = eigh_grad(d[t], t, UPLO="U")
    else:
        d[a] = eigh_grad(d[t], t, UPLO="L" if lower else "U")


@tangent(linalg.eigh)
def eigh_tangent_rule(t, a, *, lower=True, eigvals_only=False, check_finite=True, driver=None):
    if eigvals_only:
        if literal(lower):
            if lower:
                d[t] = eigvalsh_tangent(d[a], a)
            else:
                d[t] = eigvalsh_tangent(d[a], a, UPLO="U")
        else:
            d[t] = eigvalsh_tangent(d[a], a, UPLO="L" if lower else "U")
    elif literal(lower):
        if lower:
            d[t] = eigh_tangent(d[a], t)
        else:
            d[t] = eigh_tangent(d[a], t, UPLO="U")
    else:
        d[t] = eigh_tangent(d[a], t, UPLO="L" if lower else "U")


@adjoint(linalg.inv)
def inv_adjoint(y, a, check_finite=True):
    d[a] = -np.swapaxes(y, -1, -2) @ filled_like(d[y], y) @ np.swapaxes(y, -1, -2)   # d[y] may still be 0.0


@tangent(linalg.inv)
def inv_tangent(y, a, check_finite=True):
    d[y] = -y @ d[a] @ y


@adjoint(linalg.det)
def det_adjoint(y, a, check_finite=True):
    d[a] = per_matrix(d[y] * y) * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(linalg.det)
def det_tangent(y, a, check_finite=True):
    d[y] = y * np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1)


@adjoint(linalg.expm)
def expm_adjoint(y, A):
    d[A] = upper_right(linalg.expm(frechet_block(np.swapaxes(A, -1, -2), d[y])))


@tangent(linalg.expm)
def expm_tangent(y, A):
    d[y] = upper_right(linalg.expm(frechet_block(A, d[A])))


@adjoint(linalg.sqrtm)
def sqrtm_adjoint(y, A):
    root = np.swapaxes(real_root(y), -1, -2)
    d[A] = linalg.solve_sylvester(root, root, d[y])


@tangent(linalg.sqrtm)
def sqrtm_tangent(y, A):
    root = real_root(y)
    d[y] = linalg.solve_sylvester(root, root, d[A])


@adjoint(linalg.solve_banded)
def solve_banded_adjoint(x, l_and_u, ab, b, check_finite=True):
    solved = linalg.solve_banded(tuple(l_and_u)[::-1], transposed_band(l_and_u, ab), d[x], check_finite=check_finite)
    columns = (np.shape(x)[0], -1)   # b and x as matrices with one column per right-hand side
    d[ab] = -dense_to_band(l_and_u, np.reshape(solved, columns) @ np.reshape(x, columns).T)
    d[b] = solved


@tangent(linalg.solve_banded)
def solve_banded_tangent(x, l_and_u, ab, b, check_finite=True):
    d[x] = linalg.solve_banded(l_and_u, ab, d[b] - band_to_dense(l_and_u, d[ab]) @ x, check_finite=check_finite)


@adjoint(factors.band_to_dense)
def band_to_dense_adjoint(y, l_and_u, ab):
    d[ab] = dense_to_band(l_and_u, d[y])


@tangent(factors.band_to_dense)
def band_to_dense_tangent(y, l_and_u, ab):
    d[y] = band_to_dense(l_and_u, d[ab])


@adjoint(factors.dense_to_band)
def dense_to_band_adjoint(y, l_and_u, a):
    d[a] = band_to_dense(l_and_u, d[y])


@tangent(factors.dense_to_band)
def dense_to_band_tangent(y, l_and_u, a):
    d[y] = dense_to_band(l_and_u, d[a])


@adjoint(factors.transposed_band)
def transposed_band_adjoint(y, l_and_u, ab):
    d[ab] = transposed_band(tuple(l_and_u)[::-1], d[y])


@tangent(factors.transposed_band)
def transposed_band_tangent(y, l_and_u, ab):
    d[y] = transposed_band(l_and_u, d[ab])


@adjoint(factors.sylvester_rhs)
def sylvester_rhs_adjoint(y, value, q):
    d[value] = d[y]


@tangent(factors.sylvester_rhs)
def sylvester_rhs_tangent(y, value, q):
    d[y] = d[value]


@adjoint(factors.real_root)
def real_root_adjoint(y, root):
    d[root] = d[y]


@tangent(factors.real_root)
def real_root_tangent(y, root):
    d[y] = d[root]


@adjoint(linalg.solve_sylvester)
def solve_sylvester_adjoint(x, a, b, q):
    solved = linalg.solve_sylvester(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), sylvester_rhs(d[x], q))
    d[q] = unbroadcast(solved, q)
    d[a] = -unbroadcast(solved @ np.swapaxes(x, -1, -2), a)
    d[b] = -unbroadcast(np.swapaxes(x, -1, -2) @ solved, b)


@tangent(linalg.solve_sylvester)
def solve_sylvester_tangent(x, a, b, q):
    d[x] = linalg.solve_sylvester(a, b, sylvester_rhs(d[q] - d[a] @ x - x @ d[b], q))


nondifferentiable(lu_rows, reason="pivots are integers")
