"""Rules that gave a silently wrong derivative (issue [trust], item 3), in both modes.

Contract:
- Every reproducer of the issue is a module-level function here: ``np.r_``
  and ``np.c_`` (an array twice, scalars, slices as ranges, directives, 1-d
  inputs to ``np.c_``); ``np.einsum`` in every calling form (operand
  sublists for one to four operands, ellipses, implicit outputs, ``optimize=``,
  subscripts held in a variable); ``np.linspace`` in ``start`` and ``stop``
  (``endpoint``, ``num=1``, broadcast bounds, ``axis``, ``retstep``),
  ``np.logspace``, ``np.geomspace``; and ``np.heaviside`` in its second
  argument (once declared non-differentiable).
- For each, in reverse and forward mode: the full Jacobian (``srcad.jacobian``
  with ``mode='reverse'`` and ``'forward'``) equals the central
  finite-difference Jacobian, and where the derivative has a closed form it
  equals that too; functions returning tuples are checked with the gradcheck
  VJP/JVP checks and the ``<u, Jv> = <J^T u, v>`` identity.
- What srcad cannot make exact raises ``SrcadError``: at compile time with
  ``file:line`` at the construct and a fix (an ``np.r_`` matrix directive or
  a misplaced one, ``np.arange``, ``np.random`` or ``np.mgrid`` fed a value
  being differentiated, a slice of ``np.r_`` whose step is not in the source,
  ``np.einsum(..., out=)``, ``np.linspace(..., dtype=)``), or when the
  derivative runs (a directive or einsum sublists held in variables).  The same
  calls with no derivative flowing through them run as NumPy does.
"""
import inspect
import os

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse

THIS_FILE = os.path.abspath(__file__)
RNG = np.random.default_rng(3)
W = RNG.standard_normal(12)


def fd_jacobian(f, args, index, h=1e-6):
    """The central finite-difference Jacobian of ``f`` with respect to argument ``index``: out.shape + arg.shape."""
    arg = np.asarray(args[index], dtype=float)
    columns = []
    for position in np.ndindex(arg.shape):
        step = np.zeros_like(arg)
        step[position] = h
        plus = list(args)
        minus = list(args)
        plus[index], minus[index] = arg + step, arg - step
        columns.append((np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * h))
    out_shape = np.shape(f(*args))
    return np.moveaxis(np.array(columns), 0, -1).reshape(out_shape + arg.shape)


def assert_jacobians(f, args, wrt=0, expected=None):
    """Both modes' Jacobians with respect to ``wrt`` match finite differences (and ``expected`` when given)."""
    for mode in ("reverse", "forward"):
        jacobian = srcad.jacobian(f, wrt=wrt, mode=mode)(*args)
        np.testing.assert_allclose(jacobian, fd_jacobian(f, args, wrt), rtol=1e-6, atol=1e-8,
                                   err_msg=f"{f.__name__}, {mode} mode")
        if expected is not None:
            np.testing.assert_allclose(jacobian, expected, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{f.__name__}, {mode} mode, closed form")


def assert_every_argument(f, shapes):
    """On random inputs of ``shapes``: the Jacobians with respect to each argument, and the gradcheck checks."""
    args = tuple(RNG.standard_normal(shape) for shape in shapes)
    for position in range(len(args)):
        assert_jacobians(f, args, wrt=position)
    assert_checks(f, args)


def assert_checks(f, args, wrt=None):
    check_reverse(f, args, wrt)
    check_forward(f, args, wrt)
    check_forward_reverse(f, args, wrt)


def raises_at(match, f, args, wrt=0, mode="reverse", line_of=None, seed=1.0):
    """Building (and running) the derivative raises SrcadError matching ``match``, at ``line_of``'s line if given."""
    with pytest.raises(srcad.SrcadError, match=match) as info:
        srcad.autodiff(f, wrt, mode=mode)(*args, np.ones_like(args[wrt]) if mode == "forward" else seed)
    if line_of is not None:
        lines, first = inspect.getsourcelines(f)
        lineno = first + next(i for i, text in enumerate(lines) if line_of in text)
        assert f"{THIS_FILE}:{lineno}:" in str(info.value), str(info.value)
    return str(info.value)


# ==========================================================================
# np.r_ and np.c_

def r_twice(x):
    return np.r_[x, x]


def r_scalars_and_ranges(x):
    return np.r_[x, 2.0, 0:3, x[1], 1:7:2] * W[:11]


def r_count_slice(x):
    return np.r_[x[0]:x[1]:5j, x]


def r_directive(x, y):
    return np.r_['0,2', x, y]


def r_directive_trans1d(x, y):
    return np.r_['1,2,0', x, y, 0:3]


DIRECTIVE = '-1,2'


def r_module_level_directive(x, y):
    return np.r_[DIRECTIVE, x, y]


def c_columns(x, y):
    return np.c_[x, y]


def c_mixed(x, m):
    return np.c_[x, m, 2.0 * x]


def r_as_index(x):
    return x[np.r_[0:2, 3]] * x[np.r_[-1]]


def test_r_twice_is_two_identities():
    x = RNG.standard_normal(3)
    assert_jacobians(r_twice, (x,), expected=np.vstack([np.eye(3), np.eye(3)]))


def test_r_scalars_and_ranges():
    x = RNG.standard_normal(3)
    expected = np.zeros((11, 3))
    expected[[0, 1, 2], [0, 1, 2]] = W[:3]
    expected[7, 1] = W[7]   # x[1], after 2.0 and 0, 1, 2
    assert_jacobians(r_scalars_and_ranges, (x,), expected=expected)
    np.testing.assert_allclose(r_scalars_and_ranges(x)[3:] / W[3:11], [2.0, 0.0, 1.0, 2.0, x[1], 1.0, 3.0, 5.0])


def test_r_count_slice_is_linspace():
    x = np.array([0.5, 2.0, -1.0])
    jacobian = np.zeros((8, 3))
    jacobian[:5, 0], jacobian[:5, 1] = 1.0 - np.arange(5) / 4, np.arange(5) / 4
    jacobian[5:, :] = np.eye(3)
    assert_jacobians(r_count_slice, (x,), expected=jacobian)


@pytest.mark.parametrize("f, shapes", [(r_directive, [(3,), (3,)]), (r_directive, [(2, 3), (3,)]),
                                       (r_directive_trans1d, [(3,), (3,)]), (r_directive_trans1d, [(3, 2), (3,)]),
                                       (r_module_level_directive, [(2,), (3,)]), (c_columns, [(3,), (3,)]),
                                       (c_columns, [(), (1, 2)]), (c_mixed, [(3,), (3, 2)])])
def test_directives_and_c(f, shapes):
    assert_every_argument(f, shapes)


def test_c_of_vectors_is_columns():
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    expected = np.zeros((3, 2, 3))
    expected[:, 0, :] = np.eye(3)
    assert_jacobians(c_columns, (x, y), wrt=0, expected=expected)


def test_r_as_an_index():
    x = RNG.standard_normal(4)
    assert_jacobians(r_as_index, (x,))


def r_directive_in_variable(x):
    directive = '0,2'
    return np.r_[directive, x, x]


def r_matrix(x):
    return np.r_['r', x, x]


def r_directive_second(x):
    return np.r_[x, '0,2', x]


def r_unknown_directive(x):
    return np.r_['0;2', x, x]


def r_range_of_x(x):
    return np.r_[x, x[0]:x[0] + 3.0]


def r_unseen_step(x, step):
    return np.r_[x, 0.0:x[1]:step]


def r_unseen_step_constant_bounds(x, step):
    return np.r_[x, 0.0:3.0:step] * x[0]


def r_items_in_a_tuple(x):
    items = (x, 2.0 * x)
    return np.r_[items]


def r_one_array(x):
    return np.r_[x] * np.r_[x[0]]


def test_r_directives_srcad_cannot_see_raise():
    x = RNG.standard_normal(3)
    message = raises_at("directive '0,2' from a variable", r_directive_in_variable, (x,))
    assert "np.r_['0,2', a, b]" in message
    raises_at("items as one tuple from a variable", r_items_in_a_tuple, (x,))
    assert_jacobians(r_one_array, (x,), expected=x[0] * np.eye(3) + np.outer(x, [1.0, 0.0, 0.0]))
    raises_at("np.matrix", r_matrix, (x,), line_of="np.r_['r'")
    raises_at("must be the first item", r_directive_second, (x,), line_of="np.r_[x, '0,2'")
    raises_at("unknown directive '0;2'", r_unknown_directive, (x,), line_of="np.r_['0;2'")


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_r_ranges_of_differentiated_values_raise(mode):
    x = RNG.standard_normal(3)
    message = raises_at("np.arange gets a value that is being differentiated", r_range_of_x, (x,), mode=mode,
                        line_of="x[0]:x[0] + 3.0")
    assert "start + step * np.arange(n)" in message
    raises_at("slice of np.r_", r_unseen_step, (x, 4j), mode=mode, line_of="0.0:x[1]:step")


def test_r_unseen_step_with_constant_bounds_runs_as_numpy():
    x = RNG.standard_normal(3)
    for step in (4j, 0.5):
        np.testing.assert_allclose(r_unseen_step_constant_bounds(x, step), np.r_[x, 0.0:3.0:step] * x[0])
        assert_checks(r_unseen_step_constant_bounds, (x, step), wrt=0)


# ==========================================================================
# np.einsum

def einsum_transpose(x):
    return np.einsum(x, (0, 1), (1, 0))


def einsum_sublists_two(x, y):
    return np.einsum(x, [0, 1], y, [1, 2], [0, 2])


def einsum_sublists_three(x, y, z):
    return np.einsum(x, [0, 1], y, [1, 2], z, [2], [0])


def einsum_sublists_ellipsis(x, y):
    return np.einsum(x, [Ellipsis, 0, 1], y, [..., 1], optimize=True)


def einsum_sublists_trace(x):
    return np.einsum(x, [0, 0])


def einsum_sublists_implicit_order(x):
    return np.einsum(x, [30, 1])


def einsum_four(x, y):
    return np.einsum('ij,jk,kl,li->', x, y, x, y, optimize='greedy')


def einsum_five_sublists(x, y):
    return np.einsum(x, [0, 1], y, [1, 2], x, [2, 3], y, [3, 4], x, [4, 5], [0, 5])


def einsum_broadcast(x, y):
    return np.einsum('...i,...i->...', x, y)


def einsum_subscripts_in_variable(x, subscripts):
    return np.einsum(subscripts, x, x)


def test_einsum_sublists_one_operand_is_a_transpose():
    x = RNG.standard_normal((2, 3))
    assert_jacobians(einsum_transpose, (x,), expected=np.eye(6).reshape(2, 3, 2, 3).transpose(1, 0, 2, 3))


def test_einsum_sublists_trace():
    x = RNG.standard_normal((3, 3))
    assert_jacobians(einsum_sublists_trace, (x,), expected=np.eye(3))


@pytest.mark.parametrize("f, shapes", [
    (einsum_sublists_two, [(2, 3), (3, 4)]), (einsum_sublists_three, [(2, 3), (3, 4), (4,)]),
    (einsum_sublists_ellipsis, [(2, 2, 3), (3,)]), (einsum_sublists_ellipsis, [(2, 3), (2, 1, 3)]),
    (einsum_sublists_implicit_order, [(2, 3)]), (einsum_four, [(2, 3), (3, 2)]),
    (einsum_five_sublists, [(2, 2), (2, 2)]), (einsum_broadcast, [(3, 2), (1, 2)]),
    (einsum_broadcast, [(2,), (3, 2)])])
def test_einsum_forms(f, shapes):
    assert_every_argument(f, shapes)


def test_einsum_sublists_two_is_a_matrix_product():
    x, y = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    assert_jacobians(einsum_sublists_two, (x, y), wrt=0, expected=np.einsum('ac,bd->abcd', np.eye(2), y.T))


def einsum_subscripts_local(x):
    subscripts = 'ij,jk->ik'
    return np.einsum(subscripts, x, np.sin(x))


def test_einsum_subscripts_in_a_variable():
    x = RNG.standard_normal((2, 2))
    assert_jacobians(einsum_subscripts_in_variable, (x, "ij,jk->ik"))
    assert_jacobians(einsum_subscripts_local, (x,))


def einsum_sublists_in_variables(x, y, first, second):
    return np.einsum(x, first, y, second)


def einsum_out(x, buffer):
    return np.einsum('ij->ji', x, out=buffer)


def einsum_sublists_in_variables_constant(x, y, first, second):
    return x * np.sum(np.einsum(y, first, y, second))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_einsum_sublists_in_variables(mode):
    x, y = RNG.standard_normal((2, 2)), RNG.standard_normal((2, 2))
    # the first operand would otherwise get no derivative at all: refused where the derivative is built
    raises_at("sublists srcad cannot see", einsum_sublists_in_variables, (x, y, [0, 1], [1, 2]), wrt=0,
              mode=mode, line_of="np.einsum(x, first")
    if mode == "reverse":   # the second operand's gradient cannot be read off the call: refused when it runs
        raises_at("operand sublists srcad cannot see", einsum_sublists_in_variables, (x, y, [0, 1], [1, 2]), wrt=1,
                  seed=np.ones((2, 2)))
    else:   # a tangent is the call itself, with the operand's tangent in its place
        jacobian = srcad.jacobian(einsum_sublists_in_variables, wrt=1, mode="forward")(x, y, [0, 1], [1, 2])
        np.testing.assert_allclose(jacobian, np.einsum('ac,bd->abcd', x, np.eye(2)), rtol=1e-12)
    # no derivative through the call: it runs as NumPy does
    jacobian = srcad.jacobian(einsum_sublists_in_variables_constant, wrt=0, mode=mode)(x, y, [0, 1], [1, 2])
    np.testing.assert_allclose(jacobian, np.sum(y @ y) * np.eye(4).reshape(2, 2, 2, 2), rtol=1e-12)


def test_einsum_out_is_a_store_into_the_buffer():
    """``out=`` becomes ``buffer[...] = np.einsum(...)`` (pass ``mutating_calls``): exact, the transpose's Jacobian."""
    x = RNG.standard_normal((2, 2))
    transpose = np.einsum("il,jk->ijkl", np.eye(2), np.eye(2))   # d out[i, j] / d x[k, l] = [k == j][l == i]
    for mode in ("reverse", "forward"):   # (finite differences would read one buffer, rewritten by each call)
        buffer = np.zeros((2, 2))
        np.testing.assert_array_equal(srcad.jacobian(einsum_out, mode=mode)(x, buffer), transpose)
        np.testing.assert_array_equal(buffer, 0.0)   # the caller's buffer is left alone


# ==========================================================================
# np.linspace, np.logspace, np.geomspace

def linspace_bounds(a, b):
    return np.linspace(a, b, 5)


def linspace_no_endpoint(a, b):
    return np.linspace(a, b, 4, endpoint=False)


def linspace_one(a, b):
    return np.linspace(a, b, 1)


def linspace_axis(a, b):
    return np.linspace(a, b, 3, axis=-1)


def linspace_count_in_variable(a, b, n):
    return np.linspace(a, b, n, axis=1)


def linspace_with_step(a, b):
    return np.linspace(a, b, 5, retstep=True)


def linspace_step_only(a, b):
    samples, step = np.linspace(a, b, 5, retstep=True)
    return step


def linspace_samples_only(a, b):
    samples, step = np.linspace(a, b, 5, endpoint=False, retstep=True)
    return samples * samples


def logspace_bounds(a, b, base):
    return np.logspace(a, b, 4, base=base)


def geomspace_bounds(a, b):
    return np.geomspace(a, b, 4, axis=-1)


def geomspace_one(a, b):
    return np.geomspace(a, b, 1)


def _weights(num, endpoint=True):
    return np.arange(num) / ((num - 1) if endpoint else num) if num > 1 or not endpoint else np.zeros(num)


@pytest.mark.parametrize("f, num, endpoint", [(linspace_bounds, 5, True), (linspace_no_endpoint, 4, False),
                                              (linspace_one, 1, True)])
def test_linspace_is_a_weighted_mean_of_its_bounds(f, num, endpoint):
    a, b = 0.3, -1.7
    w = _weights(num, endpoint)
    assert_jacobians(f, (a, b), wrt=0, expected=1.0 - w)
    assert_jacobians(f, (a, b), wrt=1, expected=w)


@pytest.mark.parametrize("shapes", [[(3,), ()], [(2, 3), (3,)], [(), (2, 1)]])
def test_linspace_broadcast_bounds_and_axis(shapes):
    a, b = (RNG.standard_normal(s) for s in shapes)
    for f in (linspace_bounds, linspace_axis):
        for position in (0, 1):
            assert_jacobians(f, (a, b), wrt=position)
    a2, b2 = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    assert_jacobians(linspace_count_in_variable, (a2, b2, 4), wrt=0)
    assert_jacobians(linspace_count_in_variable, (a2, b2, 4), wrt=1)


def test_linspace_step():
    a, b = RNG.standard_normal(3), RNG.standard_normal((2, 3))
    assert_checks(linspace_with_step, (a, b))
    assert_jacobians(linspace_step_only, (0.5, 2.0), wrt=0, expected=-0.25)
    assert_jacobians(linspace_step_only, (0.5, 2.0), wrt=1, expected=0.25)
    assert_jacobians(linspace_samples_only, (0.5, 2.0), wrt=1)
    assert_checks(linspace_step_only, (a, b))
    assert_checks(linspace_samples_only, (a, b))


def test_logspace_and_geomspace():
    a, b, base = RNG.uniform(-0.9, 0.9, 3), 0.4, RNG.uniform(0.5, 2.0, (2, 1))
    for position in (0, 1, 2):
        assert_jacobians(logspace_bounds, (a, b, base), wrt=position)
    assert_jacobians(logspace_bounds, (0.0, 1.0, 10.0), wrt=1,
                     expected=np.log(10.0) * np.logspace(0.0, 1.0, 4) * _weights(4))
    for start, stop in ((RNG.uniform(0.5, 2.0, (2, 1)), RNG.uniform(0.5, 2.0, 3)), (-0.5, -4.0)):
        assert_jacobians(geomspace_bounds, (start, stop), wrt=0)
        assert_jacobians(geomspace_bounds, (start, stop), wrt=1)
    assert_jacobians(geomspace_bounds, (2.0, 8.0), wrt=0, expected=(1.0 - _weights(4)) * np.geomspace(2.0, 8.0, 4) / 2)
    assert_jacobians(geomspace_one, (2.0, 8.0), wrt=0, expected=[1.0])
    assert_jacobians(geomspace_one, (2.0, 8.0), wrt=1, expected=[0.0])


def linspace_integer_samples(a, b):
    return np.linspace(a, b, 5, dtype=int) * a


def test_linspace_dtype_raises():
    raises_at("dtype", linspace_integer_samples, (0.5, 7.0), line_of="np.linspace(a, b, 5, dtype=int)")


# ==========================================================================
# the rest of the non-differentiable list

def heaviside_value_at_zero(x, h):
    return np.heaviside(x, h)


def test_heaviside_is_differentiable_in_its_value_at_zero():
    x, h = np.array([0.0, 1.5, -2.0, 0.0]), RNG.standard_normal(4)
    assert_jacobians(heaviside_value_at_zero, (x, h), wrt=1, expected=np.diag([1.0, 0.0, 0.0, 1.0]))
    np.testing.assert_array_equal(srcad.jacobian(heaviside_value_at_zero, wrt=0)(x, h), np.zeros((4, 4)))
    check_forward_reverse(heaviside_value_at_zero, (x, h))


def arange_from_x(x):
    return np.arange(x, 4.0) ** 2


def arange_of_shape(x):
    return x * np.arange(x.shape[0]) + np.arange(1.0, 2.0, 0.5)[0]


def random_draw(x):
    return np.random.normal(x, 1.0) * x


def random_shuffle(x):
    y = x * 1.0
    np.random.shuffle(y)
    return y


def random_draw_stopped(x):
    return np.random.standard_normal(3) + np.random.normal(srcad.stop_gradient(x), 0.0) * 0.0 + x


def mgrid_from_x(x):
    return np.mgrid[0.0:x:4j]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_differentiated_values_into_undifferentiated_functions_raise(mode):
    x = np.array([0.5, 1.0, 2.0])
    message = raises_at("np.arange gets a value that is being differentiated", arange_from_x, (0.5,), mode=mode,
                        line_of="np.arange(x, 4.0)")
    assert "np.linspace(start, stop, n)" in message
    message = raises_at("np.random.normal gets a value", random_draw, (x,), mode=mode,
                        line_of="np.random.normal(x, 1.0)")
    assert "loc + scale * np.random.standard_normal(shape)" in message
    raises_at("shuffle.*changes its first argument in place", random_shuffle, (x,), mode=mode, line_of="shuffle(y)")
    raises_at("np.mgrid gets a value", mgrid_from_x, (1.5,), mode=mode, line_of="np.mgrid[0.0:x:4j]")


def test_undifferentiated_functions_of_constants_still_run():
    x = RNG.standard_normal(3)
    assert_jacobians(arange_of_shape, (x,), expected=np.diag(np.arange(3.0)))
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(srcad.jacobian(random_draw_stopped, mode=mode)(x), np.eye(3))


# ==========================================================================
# casts to an integer dtype round: no derivative flows through them

def astype_int_times(x):
    return x.astype(int) * x


def array_int_dtype(x):
    return np.array(x * 3.0, dtype=np.int64) + np.asarray(x, int) * x


def astype_bool_then_float(x):
    return (x > 0.5).astype(float) * x + x.astype(np.float64)


@pytest.mark.parametrize("f", [astype_int_times, array_int_dtype, astype_bool_then_float])
def test_integer_casts_carry_no_derivative(f):
    x = np.array([0.7, 1.6, -2.3])   # no rounding boundary within a finite-difference step
    rounded = np.trunc(x)
    expected = {astype_int_times: np.diag(rounded), array_int_dtype: np.diag(rounded),
                astype_bool_then_float: np.diag((x > 0.5) + 1.0)}[f]
    assert_jacobians(f, (x,), expected=expected)
