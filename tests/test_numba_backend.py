"""The numba backend: ``srcad.grad(f, backend="numba")`` gives the NumPy backend's derivative, compiled.

Every loop problem of ``benchmarks/problems.py`` (and a loop heat stencil)
is checked in reverse and forward mode against the NumPy backend's result,
against central finite differences, and by ``<u, Jv> = <J^T u, v>``; the
scalar rows of the spec table either give the NumPy backend's numbers or are
refused with ``NumbaBackendError`` (never another number); and each refusal
names the user's line and ``backend="numpy"``.  A new process loads the
compiled derivative from numba's cache, and ``import srcad`` imports no numba.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import srcad  # noqa: E402
from srcad.backends.numba_derivative import NumbaBackendError  # noqa: E402
from gradcheck import no_disk_cache  # noqa: E402,F401 (autouse fixture)
from gradcheck import PYFLOAT, fd_directional, inner, like, make_function, norm, random_directions  # noqa: E402
from specs import SPECS, cases  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from problems import PROBLEMS  # noqa: E402

LOOP_PROBLEMS = ("logistic", "pool", "matmul_loops")
RTOL = 1e-6


def heat(u, k):
    """Explicit 1-D heat steps written as a loop over cells; the objective is the final energy."""
    n = len(u)
    for _ in range(20):
        v = u.copy()
        for i in range(1, n - 1):
            v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = v
    return np.sum(u * u)


def heat_boundaries_apart(u, k):
    """The same stencil with the boundary cells stored apart: its derivative needs helpers numba lacks."""
    n = len(u)
    v = np.zeros(n)
    v[0] = u[0]
    v[n - 1] = u[n - 1]
    for i in range(1, n - 1):
        v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return np.sum(v * v)


def running_max_product(x, r):
    """A while loop, a branch and math calls inside the loop, on scalars."""
    total = 0.0
    count = 0
    while count < 12:
        if x > 0.5:
            x = x - r * math.sin(x)
        else:
            x = x + r * math.exp(-x)
        total = total + x * x
        count = count + 1
    return total


def stencil_sum(x):
    """Element reads with neighbours, an accumulator and a product, on a vector."""
    total = 0.0
    for i in range(1, len(x) - 1):
        total += x[i] * (x[i - 1] - x[i + 1]) + np.tanh(x[i]) ** 2
    return total


import math  # noqa: E402  (read by running_max_product as a global)

EXTRA = {
    "heat": (heat, lambda rng: (rng.uniform(0.0, 1.0, 12), 0.2), (0, 1)),
    "running_max_product": (running_max_product, lambda rng: (0.7, 0.3), (0, 1)),
    "stencil_sum": (stencil_sum, lambda rng: (rng.normal(0.0, 1.0, 7),), 0),
}


def _loop_cases():
    rng = np.random.default_rng(0)
    found = [(name, PROBLEMS[name].function, PROBLEMS[name].make_inputs("quick", rng), tuple(PROBLEMS[name].wrt))
             for name in LOOP_PROBLEMS]
    found += [(name, function, make(rng), wrt) for name, (function, make, wrt) in EXTRA.items()]
    return found


LOOP_CASES = _loop_cases()
IDS = [case[0] for case in LOOP_CASES]


def _as_tuple(result, wrt):
    return result if isinstance(wrt, tuple) else (result,)


def _positions(function, wrt):
    names = list(function.__code__.co_varnames[:function.__code__.co_argcount])
    return tuple(names.index(w) if isinstance(w, str) else w for w in (wrt if isinstance(wrt, tuple) else (wrt,)))


def _assert_same(got, expected, what):
    got, expected = (got if isinstance(got, tuple) else (got,)), (expected if isinstance(expected, tuple) else (expected,))
    assert len(got) == len(expected), f"{what}: {len(got)} results, the NumPy backend gives {len(expected)}"
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e), f"{what}: shape {np.shape(g)}, the NumPy backend gives {np.shape(e)}"
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-13, err_msg=what)


@pytest.mark.parametrize("name, function, args, wrt", LOOP_CASES, ids=IDS)
def test_reverse_matches_numpy_and_finite_differences(name, function, args, wrt):
    compiled = srcad.grad(function, wrt=wrt, backend="numba")(*args)
    _assert_same(compiled, srcad.grad(function, wrt=wrt)(*args), f"{name}: numba gradient")
    rng = np.random.default_rng(1)
    positions = _positions(function, wrt)
    directions = random_directions(args, positions, rng)
    finite = fd_directional(function, args, positions, directions)[0]
    projected = sum(inner(g, d) for g, d in zip(_as_tuple(compiled, wrt), directions))
    scale = norm(finite) + sum(norm(g) * norm(d) for g, d in zip(_as_tuple(compiled, wrt), directions))
    assert abs(projected - float(finite)) <= RTOL * scale, (name, projected, float(finite))


@pytest.mark.parametrize("name, function, args, wrt", LOOP_CASES, ids=IDS)
def test_forward_matches_numpy_finite_differences_and_reverse(name, function, args, wrt):
    rng = np.random.default_rng(2)
    positions = _positions(function, wrt)
    directions = random_directions(args, positions, rng)
    tangent = srcad.autodiff(function, wrt, mode="forward", backend="numba")(*args, *directions)
    expected = srcad.autodiff(function, wrt, mode="forward")(*args, *directions)
    _assert_same(tangent, expected, f"{name}: numba tangent")
    finite = float(fd_directional(function, args, positions, directions)[0])
    assert abs(float(tangent) - finite) <= RTOL * max(1.0, abs(finite)), (name, tangent, finite)
    seed = like(function(*args), rng)
    pulled = _as_tuple(srcad.autodiff(function, wrt, backend="numba")(*args, seed), wrt)
    reverse = sum(inner(g, d) for g, d in zip(pulled, directions))
    assert abs(reverse - seed * float(tangent)) <= 1e-10 * (abs(reverse) + abs(seed * float(tangent)) + 1e-300)


@pytest.mark.parametrize("name, function, args, wrt", LOOP_CASES[:3], ids=IDS[:3])
def test_value_and_grad(name, function, args, wrt):
    value, gradient = srcad.value_and_grad(function, wrt=wrt, backend="numba")(*args)
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    _assert_same(gradient, srcad.grad(function, wrt=wrt)(*args), f"{name}: value_and_grad's gradient")


def test_njit_function_is_differentiated_from_its_python_source():
    jitted = numba.njit(PROBLEMS["logistic"].function)
    derivative = srcad.grad(jitted, wrt=1, backend="numba")
    np.testing.assert_allclose(derivative(0.3, 2.9), srcad.grad(PROBLEMS["logistic"].function, wrt=1)(0.3, 2.9),
                               rtol=1e-12)
    assert "@numba.njit(cache=True)" in derivative.compiled_for((0.3, 2.9)).source


def test_the_generated_module_is_numba_code_named_after_the_users_variables():
    source = srcad.grad(PROBLEMS["logistic"].function, wrt=1, backend="numba").compiled_for((0.3, 2.9)).source
    assert "tape_x[tape_x_top] = as_float(x)" in source and "x = tape_x[tape_x_top]" in source
    assert "reversed(" not in source and "from srcad.backends.numba_runtime import" in source
    assert "# x = r * x * (1.0 - x)" in source


SCALAR_CASES = [case for case in cases(SPECS) if all(shape is PYFLOAT for shape in case.shapes)
                and case.id.split("-")[0].split(".")[0] in ("op", "math", "abs", "pow", "max", "min", "float")]


@pytest.mark.parametrize("case", SCALAR_CASES, ids=[case.id for case in SCALAR_CASES])
def test_scalar_spec_rows_give_numpys_numbers_or_a_refusal(case):
    args = case.inputs()
    wrt = tuple(range(len(args)))
    expected = srcad.grad(case.function, wrt=wrt)(*args)
    try:
        got = srcad.grad(case.function, wrt=wrt, backend="numba")(*args)
    except NumbaBackendError as refusal:
        assert 'backend="numpy"' in str(refusal)
        return
    _assert_same(got, expected, case.id)


# the scalar rows numba refuses today, and why: a rule's helper with no numba version (digamma, unsum,
# extremum_grad), what numba lacks (the two-argument math.log, math.cbrt, math.pow of the 0-d array np.where
# gives on scalars), complex arguments
REFUSED_ROWS = {"math.log-base-float", "math.pow-floatxfloat", "math.gamma-float", "math.lgamma-float", "math.cbrt-float",
                "math.fsum-floatxfloat", "max-floatxfloat", "max-list-floatxfloatxfloat", "min-floatxfloat",
                "min-list-floatxfloatxfloat", "max-three-floatxfloatxfloat", "op.mul-complex-floatxfloat",
                "op.pow-complex-literal-float"}


def test_the_scalar_rows_numba_refuses_are_the_known_ones():
    refused = set()
    for case in SCALAR_CASES:
        try:
            srcad.grad(case.function, wrt=tuple(range(len(case.shapes))), backend="numba")(*case.inputs())
        except NumbaBackendError:
            refused.add(case.id)
    assert refused == REFUSED_ROWS


GLOBAL_SCALE = 2.0
GLOBAL_TABLE = np.ones(3)


def scaled(x):
    return GLOBAL_SCALE * x * x


def reads_a_global_array(x):
    return np.sum(GLOBAL_TABLE * x)


def test_a_global_infinity_is_compiled_in():
    plain = make_function("def to_limit(x):\n    return x * x - 1.0 / LIMIT\n", {"LIMIT": float("inf")})
    assert srcad.grad(plain, backend="numba")(3.0) == pytest.approx(6.0)


def test_a_rebound_global_number_is_compiled_again():
    global GLOBAL_SCALE
    derivative = srcad.grad(scaled, backend="numba")
    assert derivative(3.0) == pytest.approx(12.0)
    GLOBAL_SCALE = 5.0
    try:
        assert derivative(3.0) == pytest.approx(30.0)
    finally:
        GLOBAL_SCALE = 2.0


def test_refuses_a_global_array_naming_the_line_and_the_fix():
    with pytest.raises(NumbaBackendError, match=r"test_numba_backend\.py:\d+: .*GLOBAL_TABLE.*backend=\"numpy\""):
        srcad.grad(reads_a_global_array, backend="numba")(np.ones(3))


def test_refuses_a_runtime_helper_numba_lacks_at_the_users_line():
    with pytest.raises(NumbaBackendError, match=r"test_numba_backend\.py:\d+: numba cannot compile `v\[n - 1\] = "
                                                r"u\[n - 1\]`.*backend=\"numpy\""):
        srcad.grad(heat_boundaries_apart, wrt=(0, 1), backend="numba")(np.linspace(0.0, 1.0, 6), 0.2)


def test_refuses_what_numba_cannot_compile_at_the_users_line():
    function = make_function(textwrap.dedent("""
        def uses_a_dict(x):
            table = {"a": x, "b": 2.0 * x}
            total = 0.0
            for key in sorted(table):
                total = total + table[key] * x
            return total
    """), {"np": np})
    assert srcad.grad(function)(1.5) == pytest.approx(9.0)   # the NumPy backend differentiates it
    with pytest.raises(NumbaBackendError) as refusal:
        srcad.grad(function, backend="numba")(1.5)
    message = str(refusal.value)
    assert re.match(r"<gradcheck-\d+-uses_a_dict>:5: numba cannot compile `for key in sorted\(table\):`", message)
    assert message.endswith('use srcad.grad(uses_a_dict, backend="numpy") (the NumPy backend differentiates it)')


@pytest.mark.parametrize("call, pattern", [
    (lambda: srcad.grad(scaled, backend="jax"), "no backend"),
    (lambda: srcad.grad(scaled, has_aux=True, backend="numba"), "has_aux"),
    (lambda: srcad.grad(scaled, backend="numba")([1.0, 2.0]), "float arrays"),
    (lambda: srcad.grad(scaled, backend="numba")(np.arange(3)), "float arrays"),
    (lambda: srcad.grad(len, backend="numba"), "not one"),
    (lambda: srcad.grad(scaled, backend="numba")(3), "pass float"),
    (lambda: srcad.grad(scaled, backend="numba")(np.array(3.0)), "pass float"),
])
def test_refusals(call, pattern):
    with pytest.raises(srcad.SrcadError, match=pattern):
        call()


def test_decorator_form():
    @srcad.grad(wrt=1, backend="numba")
    def logistic(x, r):
        for _ in range(5):
            x = r * x * (1.0 - x)
        return x
    assert logistic(0.3, 2.9) == pytest.approx(srcad.grad(logistic.func, wrt=1)(0.3, 2.9), rel=1e-12)


_PROCESS = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {benchmarks!r})
    import srcad
    from problems import logistic
    df = srcad.grad(logistic, wrt=1, backend="numba")
    print(repr(df(0.3, 2.9)))
    print(sum(df.compiled_for((0.3, 2.9)).dispatcher.stats.cache_hits.values()))
""")


def test_a_new_process_loads_the_compiled_derivative_from_the_cache(tmp_path):
    script = _PROCESS.format(benchmarks=str(ROOT / "benchmarks"))
    environment = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path), SRCAD_CACHE="1", PYTHONPATH=str(ROOT))
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.splitlines()[0] == second.stdout.splitlines()[0]
    hits = int(second.stdout.splitlines()[1])
    assert hits >= 1, f"the second process compiled again: {second.stdout}"
    assert list((tmp_path / "numba").glob("dlogistic_*.py"))


def test_import_srcad_does_not_import_numba():
    result = subprocess.run([sys.executable, "-c", "import sys, srcad; print('numba' in sys.modules)"],
                            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.stdout.strip() == "False", result.stderr


def test_source_shows_the_module_numba_compiles():
    shown = srcad.source(PROBLEMS["pool"].function, backend="numba", ranks=(2,))
    assert "@numba.njit(cache=True)" in shown and "# the variant for arguments B 2-D" in shown
    scalar = srcad.source(PROBLEMS["logistic"].function, wrt=1, backend="numba")
    assert "tape_x[tape_x_top] = as_float(x)" in scalar


def test_srcad_show_backend_numba(capsys):
    from srcad import cli
    status = cli.main(["show", f"{ROOT / 'benchmarks' / 'problems.py'}:pool", "--ranks", "2", "--backend", "numba"])
    assert status == 0
    assert "@numba.njit(cache=True)" in capsys.readouterr().out


def root_product(x):
    return np.sum(x * np.sqrt(x))


def test_a_nan_is_settled_by_the_numpy_backend():
    """At 0, 0 * (1 / (2 sqrt(0))) is NaN in the compiled sweep: the NumPy backend's answer is returned."""
    x = np.array([0.0, 4.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = srcad.grad(root_product)(x)
        np.testing.assert_equal(srcad.grad(root_product, backend="numba")(x), expected)
    assert np.isfinite(expected[1])


def test_a_division_by_zero_raises_as_with_python_floats():
    with pytest.raises(ZeroDivisionError):
        srcad.grad(scaled_root, backend="numba")(0.0)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(scaled_root)(0.0)


def scaled_root(x):
    return x * math.sqrt(x)


_TAPED = textwrap.dedent("""
    def df(x, n, dy=1.0):
        tape = []
        for i in range(n):
            tape.append(x)
            x = x * 2.0
        for j in range(count(n)):
            tape.append(x)
            x = x * 2.0
        x = tape.pop()
        x = tape.pop()
        return x
""")


def test_room_is_made_before_a_range_loop_whose_bounds_can_be_read_twice():
    from srcad.backends.numba_lowering import lower
    lowered = lower(_TAPED, "df")
    assert "tape_x = reserved(tape_x, tape_x_top + trip_count(0, n, 1))\n    for i in range(n):" in lowered
    assert lowered.count("trip_count(") == 1   # only range(n): count(n) may not be called twice
    assert "    for j in range(count(n)):\n        if tape_x_top == len(tape_x):" in lowered


def test_a_stack_named_a_list_stays_a_list():
    from srcad.backends.numba_lowering import lower
    lowered = lower(_TAPED, "df", frozenset({"tape_x"}))
    assert "tape_x = []" in lowered and lowered.count("tape_x.append(x)") == 2 and "reserved" not in lowered
