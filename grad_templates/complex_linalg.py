"""Rules for ``np.linalg.eigh``, ``eigvalsh``, ``svd``, ``norm`` and ``np.sort`` in functions that compute with
complex numbers.

There the derivative pass calls these functions by the names in
``srcad.runtime.complex_linalg`` (``hermitian_eigh`` for ``np.linalg.eigh``...),
so real-only code keeps its own rules and derivatives.  An adjoint ``g``
pairs with a tangent ``t`` by ``Re(sum(g * t))``; eigenvalues, singular
values and norms are real, so only the real part of their adjoints is used.

What the rules give (``srcad/runtime/complex_linalg.py`` has the formulas):

- ``eigh``/``eigvalsh`` of a Hermitian matrix: the derivative of the
  Hermitian matrix read from one triangle and the real part of the
  diagonal.  Eigenvectors carry a free phase each: the derivative keeps
  NumPy's phase fixed to first order, and is exact for functions of the
  outputs that do not depend on the phases (eigenvalues, ``|v|``,
  ``v v^H``...).  Distinct eigenvalues are needed.
- ``svd``: the same for singular vectors (the pair ``u_k, v_k`` shares one
  phase), exact for phase-free functions (singular values, ``u v^H``,
  ``|u|``...); distinct, nonzero singular values are needed, and with
  ``full_matrices=True`` a non-square matrix's extra vectors carry no
  derivative (as for real matrices).
- ``norm`` with every ``ord``/``axis`` NumPy accepts for complex arrays:
  at a zero entry and at ties the real rules' one-sided choices.
- ``np.sort``: a permutation by NumPy's order (real part, then imaginary
  part), which is fixed where the real parts differ; where two entries have
  equal real parts and different imaginary parts the sorted array jumps (no
  derivative) and the derivative raises ``UnsupportedValueError`` naming the gather to
  write (``z[np.argsort(z)]``, the order held fixed).  It is differentiated
  to any order.

Second derivatives: the helpers these rules call (``eigh_grad_hermitian``...)
are written with operations whose rules hold for complex numbers (products,
transposes, masks for triangles, the SVD and eigh themselves), so srcad
differentiates their source again, in both modes; like the first
derivative, a second derivative is exact for functions of the outputs that
do not depend on the phases of eigenvectors and singular vectors
(``tests/test_second_order_complex_linalg.py``).

Example: the gradient of ``np.linalg.norm(z)`` is ``conj(z) / |z|``
(``df/dx - i df/dy``), autograd's value.
"""
import numpy as np

from srcad.runtime import complex_linalg, unreduce
from srcad.runtime.complex_linalg import (complex_sort_order, eigh_grad_hermitian, eigh_tangent_hermitian,
                                          eigvalsh_grad_hermitian, eigvalsh_tangent_hermitian,
                                          norm_direction_complex, singular_values_grad_complex,
                                          singular_values_tangent_complex, svd_grad_complex, svd_tangent_complex)
from srcad.runtime.shapes import untake_along_axis
from srcad.runtime.spectral import like_real
from srcad.templates import adjoint, d, nondifferentiable, tangent


@adjoint(complex_linalg.hermitian_eigh)
def hermitian_eigh_adjoint(t, a, UPLO="L"):
    d[a] = like_real(eigh_grad_hermitian(d[t], t, UPLO=UPLO), a)


@tangent(complex_linalg.hermitian_eigh)
def hermitian_eigh_tangent(t, a, UPLO="L"):
    d[t] = eigh_tangent_hermitian(d[a], t, UPLO=UPLO)


@adjoint(complex_linalg.hermitian_eigvalsh)
def hermitian_eigvalsh_adjoint(w, a, UPLO="L"):
    d[a] = like_real(eigvalsh_grad_hermitian(d[w], a, UPLO=UPLO), a)


@tangent(complex_linalg.hermitian_eigvalsh)
def hermitian_eigvalsh_tangent(w, a, UPLO="L"):
    d[w] = eigvalsh_tangent_hermitian(d[a], a, UPLO=UPLO)


@adjoint(complex_linalg.complex_svd)
def complex_svd_adjoint(t, a, full_matrices=True, compute_uv=True):
    if compute_uv:
        d[a] = like_real(svd_grad_complex(d[t], t, a), a)
    else:
        d[a] = like_real(singular_values_grad_complex(d[t], a), a)


@tangent(complex_linalg.complex_svd)
def complex_svd_tangent(t, a, full_matrices=True, compute_uv=True):
    if compute_uv:
        d[t] = svd_tangent_complex(d[a], t, a)
    else:
        d[t] = singular_values_tangent_complex(d[a], a)


@adjoint(complex_linalg.complex_norm)
def complex_norm_adjoint(y, x, ord=None, axis=None, keepdims=False):
    d[x] = like_real(unreduce(np.real(d[y]), x, axis=axis, keepdims=keepdims)
                     * norm_direction_complex(x, ord=ord, axis=axis), x)


@tangent(complex_linalg.complex_norm)
def complex_norm_tangent(y, x, ord=None, axis=None, keepdims=False):
    d[y] = np.real(np.sum(d[x] * norm_direction_complex(x, ord=ord, axis=axis), axis=axis, keepdims=keepdims))


@adjoint(complex_linalg.complex_sort)
def complex_sort_adjoint(y, a, axis=-1, kind=None, order=None):
    d[a] = untake_along_axis(d[y], a, complex_sort_order(a, axis=axis, kind=kind), axis=axis)


@tangent(complex_linalg.complex_sort)
def complex_sort_tangent(y, a, axis=-1, kind=None, order=None):
    d[y] = np.take_along_axis(d[a], complex_sort_order(a, axis=axis, kind=kind), axis)


nondifferentiable(complex_sort_order, reason="it is an order: integers")
