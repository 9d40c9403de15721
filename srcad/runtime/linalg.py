"""Helpers that generated derivative code calls for products, norms and matrix decompositions.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name.  ``*_grad`` helpers take the gradient of an
operation's output and return the gradient of one input, shaped like it;
``*_tangent`` helpers take an input tangent and return the output's tangent
(they are linear in it).  Matrices may be stacked: the last two axes are the
matrix, leading axes are a batch.  Decompositions of symmetric matrices
(``cholesky``, ``eigh``, ``eigvalsh``) read one triangle of their input, as
NumPy does, so their gradients live on that triangle.  Real inputs only.

Example::

    >>> import numpy as np
    >>> per_matrix(np.array([1.0, 2.0])).shape
    (2, 1, 1)
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import SrcadError
from .core import unbroadcast
from .decompositions import singular_direction_tangent
from .dispatch import as_array
from .limits import xdivy


def _mT(a):
    return np.swapaxes(a, -1, -2)


def per_matrix(value):
    """``value`` (one number per matrix of a stack) with two trailing axes, to scale each matrix.

    Example: ``per_matrix(np.array([1.0, 2.0])).shape`` is ``(2, 1, 1)``.
    """
    return as_array(value)[..., None, None]


# --------------------------------------------------------------------------
# products

def inner_lhs_grad(grad, a, b):
    """The gradient of ``np.inner(a, b)`` with respect to ``a``.

    Example: ``inner_lhs_grad(2.0, np.zeros(2), np.array([1.0, 3.0]))`` is ``array([2., 6.])``.
    """
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(grad * b, a)
    a_free, b_free = np.ndim(a) - 1, np.ndim(b) - 1
    return np.tensordot(grad, b, axes=(list(range(a_free, a_free + b_free)), list(range(b_free))))


def inner_rhs_grad(grad, a, b):
    """The gradient of ``np.inner(a, b)`` with respect to ``b``.

    Example: ``inner_rhs_grad(2.0, np.array([1.0, 3.0]), np.zeros(2))`` is ``array([2., 6.])``.
    """
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(grad * a, b)
    a_free = np.ndim(a) - 1
    return np.tensordot(grad, a, axes=(list(range(a_free)), list(range(a_free))))


def _tensordot_axes(axes, a_ndim):
    """``axes`` of ``np.tensordot`` as (axes of a, axes of b), non-negative."""
    if isinstance(axes, numbers.Integral):
        return list(range(a_ndim - axes, a_ndim)), list(range(axes))
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, numbers.Integral) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, numbers.Integral) else list(b_axes)
    return a_axes, b_axes


def tensordot_lhs_grad(grad, a, b, axes=2):
    """The gradient of ``np.tensordot(a, b, axes)`` with respect to ``a``.

    Example: ``tensordot_lhs_grad(np.ones(2), np.zeros((2, 3)), np.ones(3), axes=1)``
    is ``array([[1., 1., 1.], [1., 1., 1.]])``.
    """
    a_axes, b_axes = _tensordot_axes(axes, np.ndim(a))
    a_axes, b_axes = [i % np.ndim(a) for i in a_axes], [j % np.ndim(b) for j in b_axes]
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [j for j in range(np.ndim(b)) if j not in b_axes]
    result = np.tensordot(grad, b, axes=(list(range(len(a_free), np.ndim(grad))), b_free))
    order = a_free + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
    return np.transpose(result, np.argsort(order))


def tensordot_rhs_grad(grad, a, b, axes=2):
    """The gradient of ``np.tensordot(a, b, axes)`` with respect to ``b``.

    Example: ``tensordot_rhs_grad(np.ones(2), np.ones((2, 3)), np.zeros(3), axes=1)``
    is ``array([2., 2., 2.])``.
    """
    a_axes, b_axes = _tensordot_axes(axes, np.ndim(a))
    a_axes, b_axes = [i % np.ndim(a) for i in a_axes], [j % np.ndim(b) for j in b_axes]
    a_free = [i for i in range(np.ndim(a)) if i not in a_axes]
    b_free = [j for j in range(np.ndim(b)) if j not in b_axes]
    result = np.tensordot(a, grad, axes=(a_free, list(range(len(a_free)))))
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
    return np.transpose(result, np.argsort(order))


def _kron_shapes(a, b):
    ndim = max(np.ndim(a), np.ndim(b))
    return ((1,) * (ndim - np.ndim(a)) + np.shape(a), (1,) * (ndim - np.ndim(b)) + np.shape(b))


def kron_lhs_grad(grad, a, b):
    """The gradient of ``np.kron(a, b)`` with respect to ``a``.

    Example: ``kron_lhs_grad(np.ones(4), np.zeros(2), np.array([1.0, 2.0]))`` is ``array([3., 3.])``.
    """
    a_shape, b_shape = _kron_shapes(a, b)
    blocks = np.reshape(grad, [n for pair in zip(a_shape, b_shape) for n in pair])
    spread = np.reshape(b, [n for m in b_shape for n in (1, m)])
    return np.reshape(np.sum(blocks * spread, axis=tuple(range(1, 2 * len(a_shape), 2))), np.shape(a))


def kron_rhs_grad(grad, a, b):
    """The gradient of ``np.kron(a, b)`` with respect to ``b``.

    Example: ``kron_rhs_grad(np.ones(4), np.array([1.0, 2.0]), np.zeros(2))`` is ``array([3., 3.])``.
    """
    a_shape, b_shape = _kron_shapes(a, b)
    blocks = np.reshape(grad, [n for pair in zip(a_shape, b_shape) for n in pair])
    spread = np.reshape(a, [n for m in a_shape for n in (m, 1)])
    return np.reshape(np.sum(blocks * spread, axis=tuple(range(0, 2 * len(a_shape), 2))), np.shape(b))


def _cross_grad(grad, a, b, axisa, axisb, axisc, axis, flip):
    """The gradient of ``np.cross(a, b, axisa, axisb, axisc, axis)`` with respect to ``a``; with ``flip``,
    of ``np.cross(b, a, axisb, axisa, axisc, axis)`` (which is minus it)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    moved_a, moved_b = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    if np.shape(moved_a)[-1] == 2 and np.shape(moved_b)[-1] == 2:   # the cross product of 2-vectors is a number
        grad = as_array(grad)[..., None]
        result = grad * np.stack([moved_b[..., 1], -moved_b[..., 0]], axis=-1)
    else:   # 3-vectors (a 2-vector is one with third component 0)
        grad = np.moveaxis(grad, axisc, -1)
        if np.shape(moved_b)[-1] == 2:
            moved_b = np.concatenate([moved_b, np.zeros(np.shape(moved_b)[:-1] + (1,))], axis=-1)
        result = np.cross(moved_b, grad)[..., :np.shape(moved_a)[-1]]
    result = -result if flip else result
    return np.moveaxis(unbroadcast(result, moved_a), -1, axisa)


def cross_lhs_grad(grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The gradient of ``np.cross(a, b, axisa, axisb, axisc, axis)`` with respect to ``a``.

    Example: ``cross_lhs_grad(np.array([0.0, 0.0, 1.0]), np.zeros(3), np.array([0.0, 1.0, 0.0]))``
    is ``array([1., 0., 0.])``.
    """
    return _cross_grad(grad, a, b, axisa, axisb, axisc, axis, False)


def cross_rhs_grad(grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The gradient of ``np.cross(a, b, axisa, axisb, axisc, axis)`` with respect to ``b``.

    Example: ``cross_rhs_grad(np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), np.zeros(3))``
    is ``array([0., 1., 0.])``.
    """
    return _cross_grad(grad, b, a, axisb, axisa, axisc, axis, True)


# --------------------------------------------------------------------------
# einsum

def _einsum_labels(subscripts, ndims):
    """(input label strings, output label string) with ``...`` spelled out as capital letters."""
    if not isinstance(subscripts, str):
        raise SrcadError(f"np.einsum got operand sublists srcad cannot see in the source; {EINSUM_SUBLISTS_HINT}")
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    spare = [c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subscripts]
    ellipsis = max([ndim - (len(s) - 3) for s, ndim in zip(inputs, ndims) if "..." in s] or [0])
    letters = "".join(spare[:ellipsis][::-1])
    spelled = [s.replace("...", letters[len(letters) - (ndim - (len(s) - 3)):]) if "..." in s else s
               for s, ndim in zip(inputs, ndims)]
    if arrow:
        output = output.replace("...", letters)
    else:
        counts = {c: "".join(spelled).count(c) for c in "".join(spelled)}
        output = letters + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in letters))
    return spelled, output


EINSUM_SUBLISTS_HINT = "write the subscripts as a string, np.einsum('ij,jk->ik', a, b), or the sublists in the call"


def einsum_first(value):
    """``value``: np.einsum's first argument where the source does not show if it is the subscripts or an operand.

    Example: ``einsum_first('ij->ji')`` is ``'ij->ji'`` (srcad does not differentiate it).
    """
    return value


def einsum_of(subscripts, a, b=None, c=None):
    """``np.einsum(subscripts, a, b, c)`` with the operands that are not None.

    Example: ``einsum_of('i,i', np.ones(2), np.ones(2))`` is ``2.0``.
    """
    return np.einsum(subscripts, *[op for op in (a, b, c) if op is not None])


def einsum_grad(subscripts, grad, which, a, b=None, c=None):
    """The gradient of ``np.einsum(subscripts, a, b, c)`` with respect to operand number ``which``.

    Handles labels repeated within the operand (diagonals), labels summed
    within it alone (the gradient is broadcast along them), ``...`` and
    broadcasting (an axis of length 1 that einsum stretched gets the sum of
    the gradient along it).

    Example: ``einsum_grad('ii', 1.0, 0, np.zeros((2, 2)))`` is ``array([[1., 0.], [0., 1.]])``.
    """
    operands = [op for op in (a, b, c) if op is not None]
    inputs, output = _einsum_labels(subscripts, [np.ndim(op) for op in operands])
    target, shape = inputs[which], np.shape(operands[which])
    others = [(s, op) for k, (s, op) in enumerate(zip(inputs, operands)) if k != which]
    available = set(output).union(*[set(s) for s, _ in others])
    unique = "".join(dict.fromkeys(target))
    kept = "".join(c for c in unique if c in available)
    spec = ",".join([output] + [s for s, _ in others]) + "->" + kept
    partial = np.einsum(spec, grad, *[op for _, op in others])
    sizes = dict(zip(target, shape))
    stretched = tuple(k for k, c in enumerate(kept) if sizes[c] == 1 and np.shape(partial)[k] != 1)
    if stretched:
        partial = np.sum(partial, axis=stretched, keepdims=True)
    full = np.broadcast_to(np.reshape(partial, [sizes[c] if c in kept else 1 for c in unique]),
                           [sizes[c] for c in unique])
    if unique == target:
        return full
    result = np.zeros(shape, dtype=np.result_type(full))
    np.einsum(f"{target}->{unique}", result)[...] = full   # a writable view of the diagonal
    return result


# --------------------------------------------------------------------------
# norms

def _is_matrix_norm(x, ord, axis):
    if axis is None:
        return ord is not None and np.ndim(x) == 2
    return not isinstance(axis, numbers.Integral) and len(axis) == 2


def norm_direction(x, ord=None, axis=None):
    """The derivative of ``np.linalg.norm(x, ord, axis)`` with respect to each element of ``x``.

    Vector norms: ``None``/2 give ``x / norm``, 1 gives ``sign(x)``, ``p``
    gives ``sign(x) |x|^(p-1) / norm^(p-1)``, ``inf``/``-inf`` split among the
    tied largest/smallest ``|x|``; 0 counts nonzeros and has derivative 0.
    Matrix norms: ``'fro'``, ``'nuc'`` (``U V^T``), 2/-2 (the singular
    vectors of the largest/smallest singular value), 1/-1/inf/-inf (the signs
    of the tied extreme column/row).  At a zero vector (or matrix) a norm has a
    kink and every vector norm and the Frobenius norm take the subgradient 0
    (the odd choice, ``docs/singularities.md``); the spectral and nuclear
    norms take ``u v^T`` of the SVD NumPy returns.

    Example: ``norm_direction(np.array([3.0, 4.0]))`` is ``array([0.6, 0.8])``.
    """
    x = as_array(x)
    if not _is_matrix_norm(x, ord, axis):
        axes = tuple(range(x.ndim)) if axis is None else (axis,)
        norm = np.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
        if ord is None or ord == 2:
            return xdivy(x, norm)
        if ord == 0:
            return np.zeros_like(x)
        if ord in (np.inf, -np.inf):
            magnitude = np.abs(x)
            hit = magnitude == norm
            return np.sign(x) * hit / np.sum(hit, axis=axes, keepdims=True)
        return np.sign(x) * xdivy(np.abs(x), norm) ** (ord - 1)
    rows, columns = (0, 1) if axis is None else tuple(a % x.ndim for a in axis)
    moved = np.moveaxis(x, (rows, columns), (-2, -1))
    if ord in (None, "fro"):
        direction = xdivy(moved, np.linalg.norm(moved, axis=(-2, -1), keepdims=True))
    elif ord in ("nuc", 2, -2):
        u, s, vh = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            direction = u @ vh
        else:
            k = 0 if ord == 2 else -1
            direction = u[..., :, k:k + 1 or None] @ vh[..., k:k + 1 or None, :]
    else:
        over = -2 if ord in (1, -1) else -1   # 1-norms sum down columns, inf-norms along rows
        sums = np.sum(np.abs(moved), axis=over, keepdims=True)
        extreme = np.max(sums, axis=-1 if over == -2 else -2, keepdims=True) if ord in (1, np.inf) else \
            np.min(sums, axis=-1 if over == -2 else -2, keepdims=True)
        hit = sums == extreme
        direction = np.sign(moved) * hit / np.sum(hit, axis=(-2, -1), keepdims=True)
    return np.moveaxis(direction, (-2, -1), (rows, columns))


def norm_direction_tangent(t, x, ord=None, axis=None):
    """The tangent of ``norm_direction(x, ord, axis)`` along ``t``: the Hessian of the norm times ``t``.

    2-norms and Frobenius norms give ``(t - u <u, t>) / norm`` with ``u = x / norm``;
    ``p``-norms their own formula; the 0, 1 and max norms (vector or matrix)
    are piecewise linear, so 0.  The spectral norms 2/-2 give the tangent of
    ``u v^T`` (the extreme singular pair), the nuclear norm that of ``U V^T``,
    from the SVD's tangent (distinct, nonzero singular values needed).

    Example: ``norm_direction_tangent(np.array([1.0, 0.0]), np.array([3.0, 4.0]))`` is ``array([ 0.128, -0.096])``.
    """
    x = as_array(x)
    t = np.broadcast_to(t, x.shape)
    if _is_matrix_norm(x, ord, axis):
        if ord in ("nuc", 2, -2):
            return singular_direction_tangent(t, x, ord, axis)
        if ord not in (None, "fro"):
            return np.zeros(x.shape)
        axes = (0, 1)
        if axis is not None:
            axes = (axis[0] % x.ndim, axis[1] % x.ndim)
    elif ord is not None and ord != 2:
        if ord in (0, 1, np.inf, -np.inf):
            return np.zeros(x.shape)
        direction = norm_direction(x, ord=ord, axis=axis)
        norm = np.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
        along = np.sum(direction * t, axis=axis, keepdims=True)
        return (ord - 1) * (np.abs(x) ** (ord - 2) * t / norm ** (ord - 1) - direction * along / norm)
    else:
        axes = tuple(range(x.ndim)) if axis is None else (axis,)
    norm = np.sqrt(np.sum(x * x, axis=axes, keepdims=True))
    unit = xdivy(x, norm)   # 0 at a zero vector, where the Hessian (t - unit <unit, t>) / norm is infinite
    return (t - unit * np.sum(unit * t, axis=axes, keepdims=True)) / norm


# --------------------------------------------------------------------------
# linear systems

def _vector_rhs(a, b) -> bool:
    """Whether ``np.linalg.solve(a, b)`` treats ``b`` as (a stack of) vectors."""
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        return np.ndim(b) == 1
    return np.ndim(b) == np.ndim(a) - 1


def solve_like(a, rhs, b):
    """``np.linalg.solve(a, rhs)`` with ``rhs`` read as vectors exactly when ``b`` was.

    Example: ``solve_like(2.0 * np.eye(2), np.ones(2), np.ones(2))`` is ``array([0.5, 0.5])``.
    """
    if _vector_rhs(a, b):
        return np.linalg.solve(a, as_array(rhs)[..., None])[..., 0]
    return np.linalg.solve(a, rhs)


def apply_like(m, x, b):
    """``m @ x`` with ``x`` read as vectors exactly when ``b`` of ``np.linalg.solve(a, b)`` was.

    Example: ``apply_like(2.0 * np.eye(2), np.ones(2), np.ones(2))`` is ``array([2., 2.])``.
    """
    if _vector_rhs(m, b):
        return (m @ as_array(x)[..., None])[..., 0]
    return m @ x


def outer_like(g, x, a, b):
    """``g @ x^T`` (the outer product ``g x^T`` for vectors), as ``np.linalg.solve(a, b)`` read ``b``.

    Example: ``outer_like(np.ones(2), np.array([1.0, 2.0]), np.eye(2), np.ones(2))``
    is ``array([[1., 2.], [1., 2.]])``.
    """
    if _vector_rhs(a, b):
        return as_array(g)[..., :, None] * as_array(x)[..., None, :]
    return g @ _mT(x)


def pinv_grad(grad, a, p):
    """The gradient of ``p = np.linalg.pinv(a)`` (constant rank) with respect to ``a``.

    Example: ``pinv_grad(np.ones((1, 1)), np.full((1, 1), 2.0), np.full((1, 1), 0.5))``
    is ``array([[-0.25]])``.
    """
    p_t, g_t = _mT(p), _mT(grad)
    left = np.eye(np.shape(a)[-2]) - a @ p
    right = np.eye(np.shape(a)[-1]) - p @ a
    return -p_t @ grad @ p_t + left @ g_t @ p @ p_t + p_t @ p @ g_t @ right


def pinv_tangent(tangent, a, p):
    """The tangent of ``p = np.linalg.pinv(a)`` (constant rank) for the input tangent ``tangent``.

    Example: ``pinv_tangent(np.ones((1, 1)), np.full((1, 1), 2.0), np.full((1, 1), 0.5))``
    is ``array([[-0.25]])``.
    """
    t_t = _mT(tangent)
    left = np.eye(np.shape(a)[-2]) - a @ p
    right = np.eye(np.shape(a)[-1]) - p @ a
    return -p @ tangent @ p + p @ _mT(p) @ t_t @ left + right @ t_t @ _mT(p) @ p
