"""Rules for ``np.linalg``'s inverse, solve, determinants, decompositions and least squares.

Matrices may be stacked (the last two axes are the matrix).  Functions that
return several arrays (``slogdet``, ``eigh``, ``svd``) return a tuple ``t``:
the adjoint reads ``d[t]`` as a list with one gradient per output (zeros for
outputs the function did not use), and the tangent builds a tuple.

Domains: ``inv``, ``solve``, ``det`` and ``slogdet`` need a nonsingular
matrix; ``pinv`` and ``lstsq`` need its rank to stay constant nearby
(``pinv(a, hermitian=True)`` reads the lower triangle, as NumPy's eigh
does); ``cholesky`` a symmetric positive definite one; ``eigh``/``eigvalsh``
distinct eigenvalues; ``eig``/``eigvals`` real distinct eigenvalues
(complex ones raise ValueError when the derivative runs); ``qr`` full
rank (modes 'reduced', 'complete', 'r'); ``svd`` distinct nonzero singular
values.  Eigenvectors, singular vectors and the factors of ``qr`` are
determined up to signs; the derivatives are those of the signs NumPy chose,
held fixed nearby.  ``cholesky``, ``eigh`` and
``eigvalsh`` read one triangle of their input (as NumPy does), so their
gradients are zero on the other strict triangle.  ``slogdet``'s sign has
derivative zero.
"""
import numpy as np

from srcad.runtime import filled_like, unbroadcast, zeros_like
from srcad.runtime.decompositions import (cholesky_grad, cholesky_tangent, eigh_grad, eigh_tangent,
                                          eigvalsh_grad, eigvalsh_tangent, singular_values_grad,
                                          singular_values_tangent, svd_grad, svd_tangent)
from srcad.runtime.factorizations import (eig_grad, eig_tangent, eigvals_grad, eigvals_tangent, lstsq_grads,
                                          lstsq_residuals_tangent, lstsq_residuals_tangent_rhs,
                                          lstsq_singular_values_tangent, lstsq_x_tangent, lstsq_x_tangent_rhs,
                                          pinv_hermitian_grad, pinv_hermitian_tangent, qr_grad, qr_tangent)
from srcad.runtime.linalg import apply_like, outer_like, per_matrix, pinv_grad, pinv_tangent, solve_like
from srcad.templates import adjoint, d, tangent


@adjoint(np.linalg.inv)
def inv_adjoint(y, a):
    d[a] = -np.swapaxes(y, -1, -2) @ filled_like(d[y], y) @ np.swapaxes(y, -1, -2)   # d[y] may still be 0.0


@tangent(np.linalg.inv)
def inv_tangent(y, a):
    d[y] = -y @ d[a] @ y


@adjoint(np.linalg.solve)
def solve_adjoint(x, a, b):
    d[b] = unbroadcast(solve_like(np.swapaxes(a, -1, -2), d[x], b), b)
    d[a] = -unbroadcast(outer_like(solve_like(np.swapaxes(a, -1, -2), d[x], b), x, a, b), a)


@tangent(np.linalg.solve)
def solve_tangent(x, a, b):
    d[x] = solve_like(a, d[b], b) - solve_like(a, apply_like(d[a], x, b), b)


@adjoint(np.linalg.det)
def det_adjoint(y, a):
    d[a] = per_matrix(d[y] * y) * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(np.linalg.det)
def det_tangent(y, a):
    d[y] = y * np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1)


@adjoint(np.linalg.slogdet)
def slogdet_adjoint(t, a):
    d[a] = per_matrix(d[t][1]) * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(np.linalg.slogdet)
def slogdet_tangent(t, a):
    d[t] = (zeros_like(t[0]), np.trace(np.linalg.solve(a, d[a]), axis1=-2, axis2=-1))


@adjoint(np.linalg.pinv)
def pinv_adjoint(y, a, rcond=None, hermitian=False):
    if hermitian:   # eigh reads the lower triangle
        d[a] = pinv_hermitian_grad(d[y], a, y)
    else:
        d[a] = pinv_grad(d[y], a, y)


@tangent(np.linalg.pinv)
def pinv_tangent_rule(y, a, rcond=None, hermitian=False):
    if hermitian:
        d[y] = pinv_hermitian_tangent(d[a], a, y)
    else:
        d[y] = pinv_tangent(d[a], a, y)


@adjoint(np.linalg.cholesky)
def cholesky_adjoint(factor, a, upper=False):
    d[a] = cholesky_grad(d[factor], factor, upper=upper)


@tangent(np.linalg.cholesky)
def cholesky_tangent_rule(factor, a, upper=False):
    d[factor] = cholesky_tangent(d[a], factor, upper=upper)


@adjoint(np.linalg.eigh)
def eigh_adjoint(t, a, UPLO="L"):
    d[a] = eigh_grad(d[t], t, UPLO=UPLO)


@tangent(np.linalg.eigh)
def eigh_tangent_rule(t, a, UPLO="L"):
    d[t] = eigh_tangent(d[a], t, UPLO=UPLO)


@adjoint(np.linalg.eigvalsh)
def eigvalsh_adjoint(w, a, UPLO="L"):
    d[a] = eigvalsh_grad(d[w], a, UPLO=UPLO)


@tangent(np.linalg.eigvalsh)
def eigvalsh_tangent_rule(w, a, UPLO="L"):
    d[w] = eigvalsh_tangent(d[a], a, UPLO=UPLO)


@adjoint(np.linalg.svd)
def svd_adjoint(t, a, full_matrices=True, compute_uv=True):
    if compute_uv:
        d[a] = svd_grad(d[t], t, a)
    else:
        d[a] = singular_values_grad(d[t], a)


@tangent(np.linalg.svd)
def svd_tangent_rule(t, a, full_matrices=True, compute_uv=True):
    if compute_uv:
        d[t] = svd_tangent(d[a], t, a)
    else:
        d[t] = singular_values_tangent(d[a], a)


@adjoint(np.linalg.eig)
def eig_adjoint(t, a):
    d[a] = eig_grad(d[t], t, a)


@tangent(np.linalg.eig)
def eig_tangent_rule(t, a):
    d[t] = eig_tangent(d[a], t, a)


@adjoint(np.linalg.eigvals)
def eigvals_adjoint(w, a):
    d[a] = eigvals_grad(d[w], a)


@tangent(np.linalg.eigvals)
def eigvals_tangent_rule(w, a):
    d[w] = eigvals_tangent(d[a], a)


@adjoint(np.linalg.qr)
def qr_adjoint(t, a, mode="reduced"):
    d[a] = qr_grad(d[t], t, a, mode=mode)


@tangent(np.linalg.qr)
def qr_tangent_rule(t, a, mode="reduced"):
    d[t] = qr_tangent(d[a], t, a, mode=mode)


@adjoint(np.linalg.lstsq)
def lstsq_adjoint(t, a, b, rcond=None):
    grads = lstsq_grads(d[t], t, a, b, rcond=rcond)
    d[a] = grads[0]
    d[b] = grads[1]


@tangent(np.linalg.lstsq)
def lstsq_tangent(t, a, b, rcond=None):
    d[t] = (lstsq_x_tangent(d[a], t, a, b, rcond=rcond) + lstsq_x_tangent_rhs(d[b], a, rcond=rcond),
            lstsq_residuals_tangent(d[a], t, a, b) + lstsq_residuals_tangent_rhs(d[b], t, a, b),
            zeros_like(t[2]), lstsq_singular_values_tangent(d[a], a) + zeros_like(t[3]))
