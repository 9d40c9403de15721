"""The operation set of a small tape-based autograd library, differentiated by srcad.

Contract checked here: each operation of that set, written as the NumPy call
it stands for, has derivatives that agree with central finite differences
(float64) in reverse mode (vector-Jacobian products, gradients shaped like
their arguments) and in forward mode (Jacobian-vector products):

- power by a scalar (``x ** 3``, ``np.power(x, 2.5)``); elementwise divide,
  with broadcasting; elementwise power ``a ** b`` with broadcasting;
- matrix products, batched and broadcast: ``(6,6,5,4) @ (4,3)``,
  ``(5,4) @ (6,6,4,3)``, ``(2,1,3,4) @ (5,4,2)``, vector operands;
- summation over all axes, one axis, several axes, with ``keepdims``;
- broadcast_to from ``(3,1)``, ``(1,)``, ``()`` and ``(5,4,1)``;
- reshape, negate, transpose (all axes reversed, a permutation, a swap of
  two axes); log, exp and relu (``np.maximum(x, 0.0)``);
- a composite: a two-layer relu network with a softmax cross-entropy loss.

Every case is a module-level function so srcad can read its source.  A case
fails, rather than being skipped, when srcad has no rule for its operation.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_forward, check_reverse, no_disk_cache  # noqa: F401  (autouse fixture)


def power_scalar(x):
    return x ** 3


def power_scalar_float(x):
    return np.power(x, 2.5)


def ewise_div(a, b):
    return a / b


def ewise_pow(a, b):
    return a ** b


def np_power(a, b):
    return np.power(a, b)


def matmul(a, b):
    return a @ b


def np_matmul(a, b):
    return np.matmul(a, b)


def summation(x):
    return np.sum(x)


def summation_axis(x):
    return np.sum(x, axis=1)


def summation_axes(x):
    return np.sum(x, axis=(0, 2))


def summation_keepdims(x):
    return np.sum(x, axis=(1, 2), keepdims=True)


def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def reshape(x, shape):
    return np.reshape(x, shape)


def reshape_method(x):
    return x.reshape(-1, 2)


def negate(x):
    return -x


def np_negate(x):
    return np.negative(x)


def transpose(x):
    return np.transpose(x)


def transpose_axes(x):
    return np.transpose(x, axes=(1, 2, 0))


def transpose_last_two(x):
    return np.transpose(x, (0, 2, 1))


def swap_axes(x):
    return np.swapaxes(x, 0, 2)


def log(x):
    return np.log(x)


def exp(x):
    return np.exp(x)


def relu(x):
    return np.maximum(x, 0.0)


def two_layer_loss(X, W1, W2, y_onehot):
    h = np.maximum(X @ W1, 0.0)
    z = h @ W2
    log_p = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(log_p * y_onehot) / X.shape[0]


def _draw(shape, domain, rng):
    if domain == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if domain == "nonzero":   # away from 0, so relu and division have no kink or pole nearby
        return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return rng.standard_normal(shape)


def case(function, shapes, domains="real", extra=(), label=None):
    """A pytest param: ``function`` on random inputs of ``shapes`` plus fixed ``extra`` arguments."""
    domains = (domains,) * len(shapes) if isinstance(domains, str) else domains
    shape_text = "x".join("(" + ",".join(map(str, s)) + ")" for s in shapes)
    return pytest.param(function, shapes, domains, extra, id=label or f"{function.__name__}-{shape_text}")


CASES = [
    case(power_scalar, [(3, 4)]),
    case(power_scalar, [()]),
    case(power_scalar_float, [(2, 3)], "positive"),
    case(ewise_div, [(3, 4), (3, 4)], ("real", "nonzero")),
    case(ewise_div, [(3, 4), (4,)], ("real", "nonzero")),
    case(ewise_div, [(2, 1, 4), (3, 1)], ("real", "nonzero")),
    case(ewise_pow, [(3, 4), (3, 4)], "positive"),
    case(ewise_pow, [(3, 1), (1, 4)], "positive"),
    case(ewise_pow, [(2, 3), ()], "positive"),
    case(np_power, [(4,), (2, 4)], "positive"),
    case(matmul, [(5, 4), (4, 3)]),
    case(matmul, [(6, 6, 5, 4), (4, 3)]),
    case(matmul, [(5, 4), (6, 6, 4, 3)]),
    case(matmul, [(6, 6, 5, 4), (6, 6, 4, 3)]),
    case(matmul, [(2, 1, 3, 4), (5, 4, 2)]),
    case(matmul, [(4,), (2, 4, 3)]),
    case(matmul, [(2, 5, 4), (4,)]),
    case(np_matmul, [(3, 5, 4), (1, 4, 2)]),
    case(summation, [(5, 4)]),
    case(summation_axis, [(5, 4)]),
    case(summation_axes, [(2, 3, 4)]),
    case(summation_keepdims, [(2, 3, 4)]),
    case(broadcast_to, [(3, 1)], extra=((3, 3),)),
    case(broadcast_to, [(1,)], extra=((3, 3, 3),)),
    case(broadcast_to, [()], extra=((3, 3, 3),)),
    case(broadcast_to, [(5, 4, 1)], extra=((5, 4, 3),)),
    case(broadcast_to, [(5, 4, 1)], extra=((2, 5, 4, 3),), label="broadcast_to-(5,4,1)-to-(2,5,4,3)"),
    case(reshape, [(5, 4)], extra=((4, 5),)),
    case(reshape, [(5, 4)], extra=((20,),)),
    case(reshape, [(2, 3, 4)], extra=((4, 6),)),
    case(reshape_method, [(3, 4)]),
    case(negate, [(3, 4)]),
    case(np_negate, [(2, 3, 4)]),
    case(transpose, [(3, 4)]),
    case(transpose, [(2, 3, 4)]),
    case(transpose_axes, [(2, 3, 4)]),
    case(transpose_last_two, [(2, 3, 4)]),
    case(swap_axes, [(2, 3, 4)]),
    case(log, [(3, 4)], "positive"),
    case(exp, [(3, 4)]),
    case(exp, [()]),
    case(relu, [(3, 4)], "nonzero"),
    case(relu, [(2, 3, 4)], "nonzero"),
]


def _inputs(shapes, domains, extra, seed):
    rng = np.random.default_rng(seed)
    return tuple(_draw(s, d, rng) for s, d in zip(shapes, domains)) + tuple(extra)


@pytest.mark.parametrize("function, shapes, domains, extra", CASES)
def test_reverse_mode(function, shapes, domains, extra):
    args = _inputs(shapes, domains, extra, seed=len(shapes) * 7 + sum(map(len, shapes)))
    check_reverse(function, args, wrt=tuple(range(len(shapes))))


@pytest.mark.parametrize("function, shapes, domains, extra", CASES)
def test_forward_mode(function, shapes, domains, extra):
    args = _inputs(shapes, domains, extra, seed=len(shapes) * 7 + sum(map(len, shapes)))
    check_forward(function, args, wrt=tuple(range(len(shapes))))


def test_matmul_batch_gradients_have_operand_shapes():
    """The broadcast batch axes are summed out of each operand's gradient."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((6, 6, 4, 3))
    seed = rng.standard_normal((6, 6, 5, 3))
    da, db = srcad.autodiff(matmul, wrt=(0, 1))(a, b, seed)
    np.testing.assert_allclose(da, np.einsum("bcij,bckj->ik", seed, b), rtol=1e-12)
    np.testing.assert_allclose(db, np.einsum("ik,bcij->bckj", a, seed), rtol=1e-12)


def _network_inputs():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((6, 4))
    W1 = rng.standard_normal((4, 5)) * 0.5
    W2 = rng.standard_normal((5, 3)) * 0.5
    y = np.eye(3)[[0, 2, 1, 1, 0, 2]]
    return X, W1, W2, y


def test_two_layer_network_reverse():
    check_reverse(two_layer_loss, _network_inputs(), wrt=(1, 2))


def test_two_layer_network_forward():
    check_forward(two_layer_loss, _network_inputs(), wrt=(1, 2))
