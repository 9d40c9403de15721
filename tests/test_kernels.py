"""Tests of the index-notation kernel format (``srcad kernel``), table driven.

Contract checked here:
- every forward kernel (the cases in tests/data/kernel_cases, the gradient
  cases' kernels and the extra kernels below) computes what a NumPy
  reference written independently here computes;
- every generated Python gradient matches central finite differences of
  the forward kernel in float64, along random directions;
- gather form equals scatter form, and vectorised Python equals loops;
- the generated C++, compiled with g++ into one shared library, matches the
  Python gradient (and forward kernel) on inputs uniform in [-10, 10): each
  element within 1e-3 absolute or 1e-4 relative; no store subscript in the
  gather-form C++ contains arithmetic;
- the command line (stdout, ``-o``, ``--target cpp``, parse errors at
  line:column), deterministic output, and the example script.
Only the copy of the case files in tests/data is read.
"""
import ctypes
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from srcad.cli import main
from srcad.kernels import (KernelError, KernelSyntaxError, forward_params, generate, gradient_params,
                           load_case, load_python)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "kernel_cases"
GXX = "/usr/bin/g++"


def _case(name, ins, outs, kernel, grad_to=None, data_type="float"):
    case = {"name": name, "ins": ins, "outs": outs, "data_type": data_type, "kernel": kernel}
    if grad_to is not None:
        case["grad_to"] = grad_to
    return case


def _conv(image, weights):
    windows = sliding_window_view(image, weights.shape[2:], axis=(2, 3))
    return np.einsum("ncpqrs,kcrs->nkpq", windows, weights)


def _pad_shift(x, offset):
    """y[i] = x[i + offset], 0 outside x (first axis)."""
    out = np.zeros_like(x)
    n = x.shape[0]
    lo, hi = max(0, -offset), min(n, n - offset)
    out[lo:hi] = x[lo + offset:hi + offset]
    return out


def _with_diagonal(matrix, diagonal):
    result = np.array(matrix, copy=True)
    np.fill_diagonal(result, diagonal)
    return result


EXTRA = {
    "elementwise": (_case("elementwise", ["X", "Y"], ["E"],
                          "E<5, 6>[i, j] = X<5, 6>[i, j] * Y<5, 6>[i, j] * X<5, 6>[i, j] - Y<5, 6>[i, j] * Y<5, 6>[i, j];",
                          ["X", "Y"]),
                    lambda v: {"E": v["X"] * v["Y"] * v["X"] - v["Y"] ** 2}),
    "matmul": (_case("matmul", ["X", "Y"], ["M"], "M<6, 4>[i, j] = X<6, 5>[i, k] * Y<5, 4>[k, j];", ["X", "Y"]),
               lambda v: {"M": v["X"] @ v["Y"]}),
    "batched": (_case("batched", ["B", "C", "D"], ["A"],
                      "A<6, 7>[i, j] = B<6, 5, 3>[i, k, l] * C<5, 7>[k, j] * D<3, 7>[l, j];", ["B", "C", "D"]),
                lambda v: {"A": np.einsum("ikl,kj,lj->ij", v["B"], v["C"], v["D"])}),
    "conv2d": (_case("conv2d", ["I", "W"], ["O"],
                     "O<2, 3, 4, 5>[n, k, p, q] = I<2, 2, 6, 7>[n, c, p + r, q + s] * W<3, 2, 3, 3>[k, c, r, s];",
                     ["I", "W"]),
               lambda v: {"O": _conv(v["I"], v["W"])}),
    "transpose": (_case("transpose", ["X"], ["T"], "T<3, 5>[i, j] = X<5, 3>[j, i] * 2.0;", ["X"]),
                  lambda v: {"T": 2.0 * v["X"].T}),
    "flatten": (_case("flatten", ["X"], ["F"], "F<48>[i] = X<3, 16>[i//16, i%16] * X<3, 16>[i//16, i%16];", ["X"]),
                lambda v: {"F": v["X"].reshape(48) ** 2}),
    "broadcast": (_case("broadcast", ["a", "w"], ["Out"], "Out<4, 6>[i, j] = a<4>[i] + a<4>[i] * w<6>[j];",
                        ["a", "w"]),
                  lambda v: {"Out": v["a"][:, None] + np.outer(v["a"], v["w"])}),
    "pool": (_case("pool", ["X"], ["P"], "P<6, 7>[i, j] = (X<8, 7>[i, j] + X<8, 7>[i + 1, j] + X<8, 7>[i + 2, j]) / 3.0;",
                   ["X"]),
             lambda v: {"P": (v["X"][:6] + v["X"][1:7] + v["X"][2:8]) / 3.0}),
    "pool2d": (_case("pool2d", ["X"], ["P"],
                     "P<4, 4>[i, j] = X<6, 6>[i, j] * X<6, 6>[i + 1, j + 2] + X<6, 6>[i + 2, j + 1];", ["X"]),
               lambda v: {"P": v["X"][:4, :4] * v["X"][1:5, 2:6] + v["X"][2:6, 1:5]}),
    "gemm_update": (_case("gemm_update", ["B", "C", "D", "alpha", "beta"], ["A"],
                          "A<4, 5>[i, j] = A<4, 5>[i, j] + alpha<1> * (B<4, 3>[i, k] * C<3, 5>[k, j]);\n"
                          "A<4, 5>[i, j] = A<4, 5>[i, j] + beta<1> * D<4, 5>[i, j];",
                          ["A", "alpha", "B", "beta"]),
                    lambda v: {"A": v["A"] + v["alpha"] * v["B"] @ v["C"] + v["beta"] * v["D"]}),
    "temporaries": (_case("temporaries", ["X"], ["Y"],
                          "T<6>[i] = X<6>[i] * X<6>[i];\n"
                          "Y<6>[i] = T<6>[i] * X<6>[i] - T<6>[i] / (X<6>[i] * X<6>[i] + 1.0);", ["X"]),
                    lambda v: {"Y": v["X"] ** 3 - v["X"] ** 2 / (v["X"] ** 2 + 1.0)}),
    "in_place": (_case("in_place", ["X", "Y"], ["Y"],
                       "Y<6>[i] = Y<6>[i] * X<6>[i]; Y<6>[i] = Y<6>[i] * Y<6>[i] + X<6>[i];", ["X", "Y"]),
                 lambda v: {"Y": (v["Y"] * v["X"]) ** 2 + v["X"]}),
    "upsample": (_case("upsample", ["B"], ["A"], "A<12>[i] = B<6>[i//2] * B<6>[i//2];", ["B"]),
                 lambda v: {"A": np.repeat(v["B"], 2) ** 2}),
    "tile": (_case("tile", ["B"], ["A"], "A<10>[i] = B<4>[i%4] * 3.0;", ["B"]),
             lambda v: {"A": 3.0 * np.tile(v["B"], 3)[:10]}),
    "stride": (_case("stride", ["B"], ["A"], "A<5>[i] = B<11>[2*i + 1] - B<11>[2*i];", ["B"]),
               lambda v: {"A": v["B"][1:11:2] - v["B"][0:10:2]}),
    "zero_padding": (_case("zero_padding", ["B"], ["A"], "A<6>[i] = B<6>[i - 1] + B<6>[i + 1] - 2.0 * B<6>[i];",
                           ["B"]),
                     lambda v: {"A": _pad_shift(v["B"], -1) + _pad_shift(v["B"], 1) - 2.0 * v["B"]}),
    "nonlinear_index": (_case("nonlinear_index", ["B", "C"], ["A"],
                              "A<4, 3>[i, j] = B<12>[i * j] * C<3>[j] + B<12>[(i + j) // 2];", ["B", "C"]),
                        lambda v: {"A": v["B"][np.multiply.outer(np.arange(4), np.arange(3))] * v["C"]
                                   + v["B"][np.add.outer(np.arange(4), np.arange(3)) // 2]}),
    "dot": (_case("dot", ["x", "y"], ["s"], "s<1> = x<5>[i] * y<5>[i];", ["x", "y"]),
            lambda v: {"s": np.dot(v["x"], v["y"])}),
    "reverse": (_case("reverse", ["x"], ["y"], "y<5>[i] = x<5>[4 - i] * x<5>[i] / (x<5>[i] * x<5>[i] + 1.0);", ["x"]),
                lambda v: {"y": v["x"][::-1] * v["x"] / (v["x"] ** 2 + 1.0)}),
    "diagonal": (_case("diagonal", ["x"], ["y"], "y<4, 4>[i, i] = x<4, 4>[i, i] * x<4, 4>[i, k];", ["x"]),
                 lambda v: {"y": _with_diagonal(v["y"], np.diag(v["x"]) * v["x"].sum(axis=1))}),
    "scaled_by_sum": (_case("scaled_by_sum", ["B"], ["A"], "A<4>[i] = A<4>[i] * B<4, 3>[i, k] - B<4, 3>[i, k];",
                            ["A", "B"]),
                      lambda v: {"A": v["A"] * v["B"].sum(axis=1) - v["B"].sum(axis=1)}),
    "int_division": (_case("int_division", ["B"], ["A"], "A<9>[i] = (B<9>[i] - 7) / 2 + B<9>[i] * 2.5 - B<9>[i] / 3;",
                           data_type="int"),
                     lambda v: {"A": np.trunc(np.trunc((v["B"] - 7) / 2) + v["B"] * 2.5 - np.trunc(v["B"] / 3))}),
}


def _file_case(path):
    return json.loads(path.read_text())


FORWARD_REFERENCES = {
    "kernel_case1": lambda v: {"A": np.full((32, 16), 2.0)},
    "kernel_case2": lambda v: {"A": v["A"] + 2},
    "kernel_case3": lambda v: {"A": v["B"] + v["C"]},
    "kernel_case4": lambda v: {"A": v["A"] + v["B"] @ v["C"]},
    "kernel_case5": lambda v: {"A": v["A"] + v["alpha"] * (v["B"] @ v["C"]) + v["beta"] * v["D"]},
    "kernel_case6": lambda v: {"A": v["A"] + _conv(v["B"], v["C"])},
    "kernel_case7": lambda v: {"B": v["A"].T},
    "kernel_case8": lambda v: {"A": np.broadcast_to(v["B"][:, None, :], (8, 2, 16))},
    "kernel_case9": lambda v: {"A": v["A"] + np.einsum("ikl,kj,lj->ij", v["B"], v["C"], v["D"])},
    "kernel_case10": lambda v: {"A": (v["B"][0:8, 0:8] + v["B"][1:9, 0:8] + v["B"][2:10, 0:8]) / 3},
    "kernel_example": lambda v: {"A": v["C"] * v["B"]},
    "grad_case1": lambda v: {"C": v["A"] * v["B"] + 1.0},
    "grad_case2": lambda v: {"B": v["A"] * v["A"] + 1.0},
    "grad_case3": lambda v: {"C": v["A"] @ v["B"]},
    "grad_case4": lambda v: {"A": v["B"] @ v["C"]},
    "grad_case5": lambda v: {"A": np.einsum("ikl,kj,lj->ij", v["B"], v["C"], v["D"])},
    "grad_case6": lambda v: {"A": _conv(v["B"], v["C"])},
    "grad_case7": lambda v: {"B": v["A"].T},
    "grad_case8": lambda v: {"B": v["A"].reshape(32)},
    "grad_case9": lambda v: {"B": np.broadcast_to(v["A"][:, None], (4, 6))},
    "grad_case10": lambda v: {"A": (v["B"][:8] + v["B"][1:9] + v["B"][2:10]) / 3.0},
}
FORWARD_REFERENCES.update({name: reference for name, (_, reference) in EXTRA.items()})

GRAD_FILES = sorted((DATA / "grad").glob("*.json"))
FORWARD_FILES = sorted((DATA / "forward").glob("*.json"))


def _with_all_gradients(case):
    """A forward case with grad_to = every input it reads (float cases with inputs only)."""
    kernel = load_case(case)
    if kernel.data_type != "float" or not kernel.inputs:
        return None
    return dict(case, name=f"{case['name']}_grad", grad_to=list(kernel.inputs))


ALL_FORWARD = ([_file_case(p) for p in FORWARD_FILES] + [_file_case(p) for p in GRAD_FILES]
               + [case for case, _ in EXTRA.values()])
ALL_GRADIENT = ([_file_case(p) for p in GRAD_FILES] + [case for case, _ in EXTRA.values() if "grad_to" in case]
                + [c for c in (_with_all_gradients(_file_case(p)) for p in FORWARD_FILES) if c])


def _ids(cases):
    return [case["name"] for case in cases]


def _forward_name(kernel):
    return f"{kernel.name}_forward" if kernel.has_grad else kernel.name


def _random_inputs(kernel, rng, dtype=np.float64):
    values = {}
    for name, shape in forward_params(kernel):
        value = rng.uniform(-10, 10, shape)
        values[name] = np.floor(value).astype(np.int64) if kernel.data_type == "int" else value.astype(dtype)
    return values


def _run_forward(namespace, kernel, values):
    """Call the forward kernel on copies of ``values``; the arrays after the call, by name."""
    arrays = {name: np.array(value, copy=True) for name, value in values.items()}
    namespace[_forward_name(kernel)](*[arrays[name] for name, _ in forward_params(kernel)])
    return arrays


def _gradient_args(kernel, values, seeds, fill=7.0):
    """The gradient's arguments: inputs from ``values``, seeds, gradient arrays full of ``fill``."""
    params = gradient_params(kernel)
    first_seed = len(params) - len(kernel.outs) - len(kernel.grad_to)
    args = [np.array(values[name], copy=True) for name, _ in params[:first_seed]]
    args += [np.array(seeds[o], copy=True) for o in kernel.outs]
    args += [np.full(shape, fill) for _, shape in params[first_seed + len(kernel.outs):]]
    return args


def _problem(case, seed, dtype=np.float64, seed_range=10.0):
    """The analysed case, its random generator, random inputs and random output seeds."""
    kernel = load_case(case)
    rng = np.random.default_rng(seed)
    values = _random_inputs(kernel, rng, dtype)
    seeds = {o: rng.uniform(-seed_range, seed_range, kernel.shapes[o]).astype(dtype) for o in kernel.outs}
    return kernel, rng, values, seeds


def _python_gradient(kernel, values, seeds, **options):
    namespace = load_python(kernel, **options)
    args = _gradient_args(kernel, values, seeds)
    namespace[kernel.name](*args)
    return dict(zip(kernel.grad_to, args[len(args) - len(kernel.grad_to):]))


# --------------------------------------------------------------------------
# forward kernels against references

@pytest.mark.parametrize("case", ALL_FORWARD, ids=_ids(ALL_FORWARD))
@pytest.mark.parametrize("vectorize", [False, True], ids=["loops", "numpy"])
def test_forward_matches_reference(case, vectorize):
    kernel = load_case(case)
    values = _random_inputs(kernel, np.random.default_rng(0))
    result = _run_forward(load_python(kernel, vectorize=vectorize), kernel, values)
    expected = FORWARD_REFERENCES[case["name"]](values)
    assert set(expected) == set(kernel.outs)
    for name, value in expected.items():
        np.testing.assert_allclose(result[name], value, rtol=1e-12, atol=1e-9, err_msg=f"{case['name']}: {name}")


# --------------------------------------------------------------------------
# gradients against finite differences, gather against scatter, numpy against loops

@pytest.mark.parametrize("case", ALL_GRADIENT, ids=_ids(ALL_GRADIENT))
def test_gradient_matches_finite_differences(case):
    kernel, rng, values, seeds = _problem(case, 1, seed_range=1.0)
    forward = load_python(kernel, vectorize=True)

    def weighted_outputs(changed):
        outputs = _run_forward(forward, kernel, changed)
        return sum(float(np.sum(seeds[o] * outputs[o])) for o in kernel.outs)

    gradients = _python_gradient(kernel, values, seeds)
    for name in kernel.grad_to:
        assert gradients[name].shape == np.shape(values[name])
        for _ in range(3):
            direction = rng.standard_normal(np.shape(values[name]))
            step = 1e-6 * max(1.0, float(np.max(np.abs(values[name]))))
            plus, minus = dict(values), dict(values)
            plus[name] = values[name] + step * direction
            minus[name] = values[name] - step * direction
            numeric = (weighted_outputs(plus) - weighted_outputs(minus)) / (2 * step)
            analytic = float(np.sum(gradients[name] * direction))
            assert abs(numeric - analytic) <= 1e-6 * max(1.0, abs(numeric)), \
                f"{case['name']}: d/d{name} along a random direction: finite difference {numeric}, generated {analytic}"


@pytest.mark.parametrize("case", ALL_GRADIENT, ids=_ids(ALL_GRADIENT))
def test_gather_scatter_and_numpy_agree(case):
    kernel, _, values, seeds = _problem(case, 2)
    gathered = _python_gradient(kernel, values, seeds, gather=True)
    scattered = _python_gradient(kernel, values, seeds, gather=False)
    vectorized = _python_gradient(kernel, values, seeds, vectorize=True)
    regrouped = _python_gradient(kernel, values, seeds, vectorize=True, reassociate=True)
    for name in kernel.grad_to:
        np.testing.assert_allclose(gathered[name], scattered[name], rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(vectorized[name], gathered[name], rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(regrouped[name], gathered[name], rtol=1e-12, atol=1e-10)


def test_gradient_leaves_inputs_and_seeds_alone_and_zeroes_gradients():
    case, _ = EXTRA["in_place"]
    kernel = load_case(case)
    rng = np.random.default_rng(3)
    values = _random_inputs(kernel, rng)
    seeds = {"Y": rng.uniform(-1, 1, 6)}
    args = _gradient_args(kernel, values, seeds, fill=np.nan)
    before = [a.copy() for a in args[:-2]]
    load_python(kernel)[kernel.name](*args)
    assert [p for p, _ in gradient_params(kernel)] == ["X", "Y", "dY_out", "dX", "dY"]
    for old, new in zip(before, args):
        np.testing.assert_array_equal(old, new)
    assert np.all(np.isfinite(args[-1])) and np.all(np.isfinite(args[-2]))


def test_parameter_order_follows_the_convention():
    params = {case["name"]: [p for p, _ in gradient_params(case)] for case in map(_file_case, GRAD_FILES)}
    assert params["grad_case1"] == ["B", "dC", "dA"]
    assert params["grad_case4"] == ["B", "C", "dA", "dB", "dC"]
    assert params["grad_case5"] == ["C", "D", "dA", "dB"]
    assert params["grad_case6"] == ["C", "dA", "dB"]
    assert params["grad_case10"] == ["dA", "dB"]


# --------------------------------------------------------------------------
# generated code: gather form, readability, determinism

def test_gather_form_of_the_pooling_kernel():
    code = generate(DATA / "grad" / "case10.json")
    assert "def grad_case10(dA, dB):" in code
    assert "# A<8, 8>[i, j] = (B<10, 8>[i, j] + B<10, 8>[i + 1, j] + B<10, 8>[i + 2, j]) / 3.0;" in code
    assert "for h0 in range(1, 9):\n        i = h0 - 1\n" in code
    assert "dB[h0, j] += dA[i, j] / 3.0" in code
    scatter = generate(DATA / "grad" / "case10.json", gather=False)
    assert "dB[i + 1, j] += dA[i, j] / 3.0" in scatter


def test_gather_form_of_conv_and_flatten():
    conv = generate(DATA / "grad" / "case6.json")
    assert "for r in range(max(0, h2 - 4), min(2, h2) + 1):\n" in conv and "p = h2 - r" in conv
    assert "sum_r_s_k += dA[n, k, p, q] * C[k, c, r, s]" in conv and "dB[n, c, h2, h3] = sum_r_s_k" in conv
    assert " if " not in conv and "dB[...] = 0.0" not in conv
    cpp = generate(DATA / "grad" / "case6.json", target="cpp")
    assert "for (int r = std::max(0, h2 - 4); r <= std::min(2, h2); ++r) {" in cpp and "if (" not in cpp
    flatten = generate(DATA / "grad" / "case8.json")
    assert "i = 16*h0 + h1" in flatten and "dA[h0, h1] = dB[i]" in flatten


_STORE = re.compile(r"^\s*[A-Za-z_]\w*((?:\[[^\]]*\])+)\s*(?:\+=|=)", re.M)


def _store_subscripts(code):
    return [s for match in _STORE.findall(code) for s in re.findall(r"\[([^\]]*)\]", match)]


@pytest.mark.parametrize("case", ALL_GRADIENT, ids=_ids(ALL_GRADIENT))
def test_cpp_stores_have_plain_subscripts(case):
    subscripts = _store_subscripts(generate(case, target="cpp"))
    assert subscripts and all(re.fullmatch(r"\w+", s) for s in subscripts), subscripts


def test_store_check_sees_scatter_arithmetic():
    assert "i + 1" in _store_subscripts(generate(DATA / "grad" / "case10.json", target="cpp", gather=False))


def test_output_is_deterministic():
    case = DATA / "grad" / "case6.json"
    texts = {generate(case, target=t, vectorize=v) for t, v in (("python", False),) * 2}
    assert len(texts) == 1
    script = ("import sys; from srcad.kernels import generate; "
              "sys.stdout.write(generate(sys.argv[1], target='cpp') + generate(sys.argv[1], vectorize=True))")
    runs = {subprocess.run([sys.executable, "-c", script, str(case)], capture_output=True, text=True, cwd=REPO,
                           env=dict(os.environ, PYTHONHASHSEED=seed), check=True).stdout for seed in ("1", "2")}
    assert runs == {generate(case, target="cpp") + generate(case, vectorize=True)}


def test_vectorized_code_uses_numpy():
    code = generate(DATA / "grad" / "case4.json", vectorize=True, reassociate=True)
    assert "A[...] = np.einsum('ik,kj->ij', B, C)" in code
    assert "dC[...] = np.einsum('ij,ik->kj', dA, B)" in code
    pool = generate(DATA / "grad" / "case10.json", vectorize=True)
    assert "dB[1:9, :] += dA / 3.0" in pool
    in_order = generate(DATA / "grad" / "case4.json", vectorize=True)
    assert "einsum" not in in_order and "sum_k += B[i, k] * C[k, j]" in in_order


# --------------------------------------------------------------------------
# errors

@pytest.mark.parametrize("text, where, words", [
    ("A<4>[i] = B<4>[i] +\n  * 2.0;", ":2:3", "expected a number"),
    ("A<4>[i] = B<4>[i]", ":1:18", "expected ';'"),
    ("A<4>[i] = B<4>[i / 2];", ":1:18", "'//'"),
    ("A<4>[i] = B<4, 2>[i];", ":1:11", "2 dimension(s) but 1 subscript"),
    ("A<4>[i] = B<4>[i] $ 2;", ":1:19", "unexpected character"),
])
def test_parse_errors_have_line_and_column(text, where, words):
    with pytest.raises(KernelSyntaxError) as info:
        load_case(_case("bad", ["B"], ["A"], text))
    assert where in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("kernel, words", [
    ("A<4>[i + 1] = B<4>[i];", "plain variables"),
    ("A<4>[i] = C<4>[i];", "neither in 'ins'"),
    ("A<4>[i] = B<4>[i] + B<5>[i];", "has shape <5> here"),
    ("A<4>[i] = A<4>[i + 1] + B<4>[i];", "another element"),
    ("A<4>[i] = B<4>[i + r];", "range of r is unknown"),
])
def test_semantic_errors(kernel, words):
    with pytest.raises(KernelError, match=re.escape(words)):
        load_case(_case("bad", ["B"], ["A"], kernel))


# --------------------------------------------------------------------------
# the command line

def test_cli_prints_python_and_writes_cpp(tmp_path, capsys):
    case = DATA / "grad" / "case1.json"
    assert main(["kernel", str(case)]) == 0
    assert "def grad_case1(B, dC, dA):" in capsys.readouterr().out
    target = tmp_path / "case1.cc"
    assert main(["kernel", str(case), "--target", "cpp", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert "void grad_case1(float (&B)[4][16], float (&dC)[4][16], float (&dA)[4][16]) {" in target.read_text()
    assert main(["kernel", str(DATA / "grad" / "case10.json"), "--scatter"]) == 0
    assert "dB[i + 2, j] +=" in capsys.readouterr().out


def test_cli_reports_parse_errors_without_traceback(tmp_path):
    case = tmp_path / "bad.json"
    case.write_text(json.dumps(_case("bad", ["B"], ["A"], "A<4>[i] = B<4>[i] +\n  * 2.0;")))
    result = subprocess.run([sys.executable, "-m", "srcad", "kernel", str(case)], capture_output=True, text=True,
                            cwd=REPO)
    assert result.returncode == 1 and result.stdout == ""
    assert "bad.json: kernel:2:3" in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------------
# C++ through g++ and ctypes

def _wrapper(name, params, data_type):
    ctype = "float" if data_type == "float" else "int"
    args = ", ".join(f"{ctype} *p{n}" for n in range(len(params)))
    passed = ", ".join(f"*p{n}" if not shape else
                       f"*reinterpret_cast<{ctype} (*)" + "".join(f"[{d}]" for d in shape) + f">(p{n})"
                       for n, (_, shape) in enumerate(params))
    return f'\nextern "C" void call_{name}({args}) {{ {name}({passed}); }}\n'


@pytest.fixture(scope="module")
def cpp_library(tmp_path_factory):
    """Every gradient case and forward kernel in one shared library (one g++ run)."""
    directory = tmp_path_factory.mktemp("kernels_cpp")
    sources = []
    for case in ALL_GRADIENT + [c for c in ALL_FORWARD if "grad_to" not in c]:
        kernel = load_case(case)
        code = generate(kernel, target="cpp")
        code += _wrapper(_forward_name(kernel), forward_params(kernel), kernel.data_type)
        if kernel.has_grad:
            code += _wrapper(kernel.name, gradient_params(kernel), kernel.data_type)
        path = directory / f"{kernel.name}.cc"
        path.write_text(code)
        sources.append(str(path))
    library = directory / "libkernels.so"
    subprocess.run([GXX, "-O1", "-shared", "-fPIC", "-o", str(library)] + sources, check=True,
                   capture_output=True, text=True)
    return ctypes.CDLL(str(library))


def _call_cpp(library, name, arrays, dtype):
    buffers = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
    pointer = ctypes.POINTER(ctypes.c_float if dtype == np.float32 else ctypes.c_int32)
    getattr(library, f"call_{name}")(*[b.ctypes.data_as(pointer) for b in buffers])
    return buffers


def _assert_close(cpp, python, what):
    error = np.abs(cpp.astype(np.float64) - python)
    ok = (error < 1e-3) | (error < 1e-4 * np.abs(python))
    assert ok.all(), f"{what}: worst error {error.max()} at {np.unravel_index(error.argmax(), error.shape)}"


@pytest.mark.parametrize("case", ALL_GRADIENT, ids=_ids(ALL_GRADIENT))
def test_cpp_gradient_matches_python(case, cpp_library):
    kernel, _, values, seeds = _problem(case, 4, np.float32)
    expected = _python_gradient(kernel, {k: v.astype(np.float64) for k, v in values.items()},
                                {k: v.astype(np.float64) for k, v in seeds.items()})
    args = _gradient_args(kernel, values, seeds, fill=np.nan)
    result = _call_cpp(cpp_library, kernel.name, args, np.float32)
    for name, cpp in zip(kernel.grad_to, result[len(result) - len(kernel.grad_to):]):
        _assert_close(cpp, expected[name], f"{kernel.name}: d{name}")


@pytest.mark.parametrize("case", ALL_FORWARD, ids=_ids(ALL_FORWARD))
def test_cpp_forward_matches_python(case, cpp_library):
    kernel = load_case(case)
    dtype = np.float32 if kernel.data_type == "float" else np.int32
    values = _random_inputs(kernel, np.random.default_rng(5))
    values = {k: v.astype(dtype) for k, v in values.items()}
    expected = _run_forward(load_python(kernel), kernel, values)
    result = _call_cpp(cpp_library, _forward_name(kernel), [values[n] for n, _ in forward_params(kernel)], dtype)
    for (name, _), cpp in zip(forward_params(kernel), result):
        if kernel.data_type == "int":
            np.testing.assert_array_equal(cpp, expected[name])
        else:
            _assert_close(cpp, expected[name].astype(np.float64), f"{kernel.name}: {name}")


# --------------------------------------------------------------------------
# the example

def test_kernel_format_example(tmp_path):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, str(REPO / "examples" / "kernel_format.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "def pool(dA, dB):" in out and "dB[h0, j] += dA[i, j] / 3.0" in out
    assert "void pool(float (&dA)[8][8], float (&dB)[10][8]) {" in out
    assert re.search(r"max \|dB - closed form\| = (0\.0|\d\.\d+e-1\d)\n", out), out
