"""Evaluation order of generated kernels: the written order, checked to the last bit, and goldens.

Contract checked here:
- the course's project-1 grader, mirrored: every float forward kernel of the
  course cases (tests/data/kernel_cases, forward and gradient files), in
  C++ (g++ -O2) and in Python fed float32 arrays, matches a float32 golden
  computed the way that grader computes it (for each element, the summed
  variables' loops in the order they appear, ``golden = golden + term``)
  within its absolute tolerance of 1e-5; results near 1.5e4 have a float32
  spacing of 1e-3, so only the same operations in the same order pass.
  With ``--reassociate`` cases 5 and 9 fail that check, as they should;
- every generated kernel, forward and gradient, of the course cases and
  the extra kernels of test_kernels: the C++ in float32 equals the Python
  fed float32 arrays bit for bit (the two targets run the same operations
  in the same order), and both lie within float32 rounding of that order:
  the generated Python run on numbers that carry a float64 value and a
  bound on the float32 evaluation's error (each +, -, *, / adds a relative
  2**-24 of its result to the propagated bounds);
- the generated Python and C++ of the course cases equal the golden files
  in tests/golden/kernels (``python tests/test_kernel_order.py --regen``
  rewrites them; review the diff);
- gradient arrays written once are not zeroed (``=``), accumulated ones are;
  like terms are combined only where that rounds exactly; the header says
  when ``--reassociate`` was used.
"""
import ctypes
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from srcad.kernels import forward_params, generate, gradient_params, load_case, load_python
from srcad.kernels.parser import parse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from test_kernels import ALL_GRADIENT, EXTRA, GXX, _wrapper  # noqa: E402

DATA = HERE / "data" / "kernel_cases"
GOLDEN = HERE / "golden" / "kernels"
COURSE = sorted((DATA / "forward").glob("*.json")) + sorted((DATA / "grad").glob("*.json"))
COURSE_CASES = [json.loads(p.read_text()) for p in COURSE]
FLOAT_FORWARD = [c for c in COURSE_CASES if c["data_type"] == "float"]
EXTRA_FORWARD = [case for case, _ in EXTRA.values() if case["data_type"] == "float"]
UNIT = 2.0 ** -24


def _forward_name(kernel):
    return f"{kernel.name}_forward" if kernel.has_grad else kernel.name


# --------------------------------------------------------------------------
# the course grader's golden, written independently of srcad's evaluation order

def _vars_in(node, found):
    """Index variables of a parsed value expression, in order of appearance."""
    if hasattr(node, "indices"):
        for index in node.indices:
            _index_vars(index, found)
    for child in ("operand", "left", "right"):
        if hasattr(node, child):
            _vars_in(getattr(node, child), found)
    return found


def _index_vars(index, found):
    if hasattr(index, "name"):
        found.setdefault(index.name, None)
    for child in ("left", "right"):
        if hasattr(index, child):
            _index_vars(getattr(index, child), found)


def _index(index, env):
    if hasattr(index, "value"):
        return index.value
    if hasattr(index, "name"):
        return env[index.name]
    a, b = _index(index.left, env), _index(index.right, env)
    if index.op in ("//", "%"):
        return a // b if index.op == "//" else a % b
    return a + b if index.op == "+" else a - b if index.op == "-" else a * b


def _evaluate(node, env, arrays, dtype):
    """A parsed value at one point, in ``dtype`` arithmetic, operations in the order written."""
    if hasattr(node, "indices"):
        if not node.shape:
            return dtype(arrays[node.name])
        position = tuple(_index(i, env) for i in node.indices)
        inside = all(0 <= p < n for p, n in zip(position, node.shape))
        return arrays[node.name][position] if inside else dtype(0)
    if hasattr(node, "value"):
        return dtype(node.value)
    if hasattr(node, "operand"):
        return -_evaluate(node.operand, env, arrays, dtype)
    a, b = _evaluate(node.left, env, arrays, dtype), _evaluate(node.right, env, arrays, dtype)
    if node.op in "+-":
        return a + b if node.op == "+" else a - b
    return a * b if node.op == "*" else a / b


def course_golden(case, values, dtype=np.float32):
    """What the course's graders compute: per element, ``golden = golden + term`` over the summed loops."""
    kernel = load_case(case)
    arrays = {name: np.array(value, dtype=dtype, copy=True) for name, value in values.items()}
    for parsed, statement in zip(parse(case["kernel"]), kernel.statements):
        target = parsed.target
        target_vars = [i.name for i in target.indices]
        summed = [v for v in _vars_in(parsed.rhs, {}) if v not in target_vars]
        rhs, start = parsed.rhs, None
        if summed and getattr(rhs, "op", None) == "+" and rhs.left == target:
            rhs, start = rhs.right, target            # A = A + term: the golden starts at A
        assert not summed or set(_vars_in(rhs, {})) >= set(summed), "every term must use every summed variable"
        for point in itertools.product(*(range(statement.extents[v]) for v in target_vars)):
            env = dict(zip(target_vars, point))
            if not summed:
                value = _evaluate(rhs, env, arrays, dtype)
            else:
                value = _evaluate(start, env, arrays, dtype) if start is not None else dtype(0)
                for inner in itertools.product(*(range(statement.extents[v]) for v in summed)):
                    value = value + _evaluate(rhs, dict(env, **dict(zip(summed, inner))), arrays, dtype)
            arrays[target.name][point] = value
    return arrays


# --------------------------------------------------------------------------
# numbers that carry a float32 error bound through the generated Python

class Bounded:
    """A float64 value and a bound on |float32 evaluation - exact value| of the same operations."""
    __slots__ = ("value", "error")

    def __init__(self, value, error=0.0):
        self.value, self.error = float(value), float(error)

    @staticmethod
    def of(x):
        if isinstance(x, Bounded):
            return x
        x = float(x)
        return Bounded(x, abs(x - float(np.float32(x))))      # a literal is rounded to float32 in C++

    def _rounded(self, value, propagated):
        return Bounded(value, propagated + UNIT * (abs(value) + propagated) + 2.0 ** -52 * abs(value))

    def __add__(self, other):
        other = Bounded.of(other)
        return self._rounded(self.value + other.value, self.error + other.error)

    def __sub__(self, other):
        other = Bounded.of(other)
        return self._rounded(self.value - other.value, self.error + other.error)

    def __mul__(self, other):
        other = Bounded.of(other)
        propagated = abs(self.value) * other.error + abs(other.value) * self.error + self.error * other.error
        return self._rounded(self.value * other.value, propagated)

    def __truediv__(self, other):
        other = Bounded.of(other)
        if abs(other.value) <= other.error:
            return Bounded(self.value / other.value, float("inf"))
        quotient = self.value / other.value
        return self._rounded(quotient, (self.error + abs(quotient) * other.error) / (abs(other.value) - other.error))

    def __radd__(self, other):
        return Bounded.of(other) + self

    def __rsub__(self, other):
        return Bounded.of(other) - self

    def __rmul__(self, other):
        return Bounded.of(other) * self

    def __rtruediv__(self, other):
        return Bounded.of(other) / self

    def __neg__(self):
        return Bounded(-self.value, self.error)


class _NumPyWithZeros:
    """``np`` for a generated module, with ``zeros`` making arrays of ``fill`` (local arrays)."""

    def __init__(self, make):
        self.make = make

    def __getattr__(self, name):
        return getattr(np, name)

    def zeros(self, shape, dtype=None):
        return self.make(shape)


def _bounded_array(value):
    array = np.empty(np.shape(value), dtype=object)
    for position in np.ndindex(array.shape):
        array[position] = Bounded(float(np.asarray(value)[position]))
    return array


def _object_zeros(shape):
    array = np.empty(shape, dtype=object)
    for position in np.ndindex(array.shape):
        array[position] = Bounded(0.0)
    return array


def _run(kernel, function, params, args, mode):
    """Call the generated Python ``function`` on ``args``: 'float32' arrays or 'bounded' objects."""
    namespace = load_python(kernel)
    if mode == "bounded":
        namespace["np"] = _NumPyWithZeros(_object_zeros)
        written = {name for name, shape in params if not shape and (name in kernel.outs or name.startswith("d"))}
        args = [_bounded_array(a) if (np.shape(a) or name in written) else Bounded(float(a))
                for (name, _), a in zip(params, args)]
    else:
        namespace["np"] = _NumPyWithZeros(lambda shape: np.zeros(shape, dtype=np.float32))
        args = [np.array(a, dtype=np.float32, copy=True) for a in args]
    namespace[function](*args)
    return args


def _values(array):
    return np.vectorize(lambda b: b.value if isinstance(b, Bounded) else float(b), otypes=[float])(array)


def _errors(array):
    return np.vectorize(lambda b: b.error if isinstance(b, Bounded) else 0.0, otypes=[float])(array)


# --------------------------------------------------------------------------
# C++ of every kernel, compiled once

@pytest.fixture(scope="module")
def library(tmp_path_factory):
    directory = tmp_path_factory.mktemp("kernel_order")
    sources = []
    cases = ALL_GRADIENT + [c for c in FLOAT_FORWARD + EXTRA_FORWARD if "grad_to" not in c]
    for case in cases:
        kernel = load_case(case)
        for variant, reassociate in (("", False), ("_reassociated", True)):
            code = generate(kernel, target="cpp", reassociate=reassociate).replace(
                f"void {_forward_name(kernel)}(", f"void {_forward_name(kernel)}{variant}(")
            if kernel.has_grad:
                code = code.replace(f"void {kernel.name}(", f"void {kernel.name}{variant}(")
            code += _wrapper(_forward_name(kernel) + variant, forward_params(kernel), "float")
            if kernel.has_grad:
                code += _wrapper(kernel.name + variant, gradient_params(kernel), "float")
            path = directory / f"{kernel.name}{variant}.cc"
            path.write_text(code)
            sources.append(str(path))
    target = directory / "libkernel_order.so"
    subprocess.run([GXX, "-O2", "-shared", "-fPIC", "-o", str(target)] + sources, check=True,
                   capture_output=True, text=True)
    return ctypes.CDLL(str(target))


def _call(library, name, arrays):
    buffers = [np.array(a, dtype=np.float32, copy=True) for a in arrays]
    pointer = ctypes.POINTER(ctypes.c_float)
    getattr(library, f"call_{name}")(*[b.ctypes.data_as(pointer) for b in buffers])
    return buffers


def _inputs(params, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-10, 10, shape).astype(np.float32) for _, shape in params]


# --------------------------------------------------------------------------
# the project-1 grader, mirrored

@pytest.mark.parametrize("case", FLOAT_FORWARD, ids=[c["name"] for c in FLOAT_FORWARD])
def test_forward_kernels_pass_the_course_grader(case, library):
    kernel = load_case(case)
    params = forward_params(kernel)
    args = _inputs(params, 11)
    golden = course_golden(case, dict(zip((n for n, _ in params), args)))
    cpp = _call(library, _forward_name(kernel), args)
    python = _run(kernel, _forward_name(kernel), params, args, "float32")
    for (name, _), from_cpp, from_python in zip(params, cpp, python):
        for target, result in (("C++", from_cpp), ("Python", from_python)):
            error = np.max(np.abs(np.asarray(result, dtype=np.float32) - golden[name]), initial=0.0)
            assert error < 1e-5, f"{case['name']} ({target}): {name} is {error} from the grader's golden"


@pytest.mark.parametrize("name", ["kernel_case5", "kernel_case9"])
def test_reassociated_kernels_fail_the_course_grader(name, library):
    case = next(c for c in FLOAT_FORWARD if c["name"] == name)
    kernel = load_case(case)
    params = forward_params(kernel)
    args = _inputs(params, 11)
    golden = course_golden(case, dict(zip((n for n, _ in params), args)))["A"]
    regrouped = _call(library, f"{name}_reassociated", args)[[n for n, _ in params].index("A")]
    assert np.max(np.abs(regrouped - golden)) >= 1e-5       # the grader would reject it
    assert "Built with --reassociate" in generate(case, reassociate=True)
    assert "--reassociate" in generate(case, target="cpp", reassociate=True)
    assert "reassociate" not in generate(case) + generate(case, target="cpp")


# --------------------------------------------------------------------------
# every kernel: C++ == Python bit for bit, both within float32 rounding of the written order

def _kernel_functions():
    for case in COURSE_CASES + [c for c, _ in EXTRA.values()]:
        if case["data_type"] != "float":
            continue
        yield pytest.param(case, "forward", id=f"{case['name']}-forward")
        if "grad_to" in case:
            yield pytest.param(case, "gradient", id=f"{case['name']}-gradient")


@pytest.mark.parametrize("case, part", list(_kernel_functions()))
def test_float32_results_are_the_written_order_rounded(case, part, library):
    kernel = load_case(case)
    if part == "forward":
        function, params = _forward_name(kernel), forward_params(kernel)
    else:
        function, params = kernel.name, gradient_params(kernel)
    args = _inputs(params, 12)
    cpp = _call(library, function, args)
    python = _run(kernel, function, params, args, "float32")
    bounded = _run(kernel, function, params, args, "bounded")
    for (name, _), from_cpp, from_python, reference in zip(params, cpp, python, bounded):
        from_python = np.asarray(from_python, dtype=np.float32)
        assert np.array_equal(from_cpp, from_python), f"{function}: {name} differs between C++ and Python"
        exact, bound = _values(reference), _errors(reference)
        error = np.abs(from_cpp.astype(np.float64) - exact)
        assert np.all(error <= bound), \
            f"{function}: {name} is {np.max(error - bound)} beyond float32 rounding of the written order"


# --------------------------------------------------------------------------
# goldens of the course cases

def _golden_files():
    for path in COURSE:
        for target, suffix in (("python", "py"), ("cpp", "cc")):
            yield path, target, GOLDEN / f"{path.parent.name}_{path.stem}.{suffix}"


@pytest.mark.parametrize("path, target, golden", list(_golden_files()),
                         ids=[g.name for _, _, g in _golden_files()])
def test_generated_code_matches_golden(path, target, golden):
    assert golden.exists(), f"missing {golden}: run python tests/test_kernel_order.py --regen"
    assert generate(path, target=target) == golden.read_text(), \
        f"{golden.name} changed: review it, then python tests/test_kernel_order.py --regen"


# --------------------------------------------------------------------------
# what the gradients do not do

@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 6, 7, 8, 9])
def test_gradients_written_once_are_not_zeroed(number):
    code = generate(DATA / "grad" / f"case{number}.json", target="cpp")
    gradient = code[code.index(f"void grad_case{number}("):]
    assert not re.search(r"\]\s*(=\s*0\.0f|\+=)", gradient), gradient      # no zeroing, no array updated twice


def test_accumulated_gradients_keep_their_zeroing():
    pool = generate(DATA / "grad" / "case10.json")
    assert "dB[...] = 0.0" in pool and "dB[h0, j] += dA[i, j] / 3.0" in pool


def test_like_terms_are_combined_exactly():
    square = generate(DATA / "grad" / "case2.json")
    assert "dA[i, j] = 2.0 * (dB[i, j] * A[i, j])" in square
    cube = generate({"name": "cube", "ins": ["A"], "outs": ["B"], "data_type": "float", "grad_to": ["A"],
                     "kernel": "B<3>[i] = A<3>[i] * A<3>[i] * A<3>[i];"})
    assert "3.0 * (" not in cube      # (x*y)*z: the three terms are different products
    fourth = generate({"name": "fourth", "ins": ["A", "C"], "outs": ["B"], "data_type": "float", "grad_to": ["A"],
                       "kernel": "B<3>[i] = A<3>[i] * C<3>[i] + A<3>[i] * C<3>[i] + A<3>[i] * C<3>[i]"
                                 " + A<3>[i] * C<3>[i];"})
    assert "3.0 * (dB[i] * C[i]) + dB[i] * C[i]" in fourth     # 4x is not 3x + x once 3x is rounded


def regenerate() -> None:
    """Rewrite the golden files from what srcad generates now."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for path, target, golden in _golden_files():
        text = generate(path, target=target)
        if not golden.exists() or golden.read_text() != text:
            golden.write_text(text)
            print(f"wrote {golden.relative_to(HERE.parent)}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--regen"]:
        regenerate()
    else:
        print("usage: python tests/test_kernel_order.py --regen")
