"""The ``srcad`` command line, run as a separate process (``python -m srcad``).

Contract checked here: ``srcad show TARGET`` prints the generated derivative
(the same text as ``srcad.source``); ``--wrt`` accepts positions and names,
comma-separated; ``--passes`` prints stage headers in pipeline order; a bad
target exits non-zero with exactly one line on stderr and no traceback; a
``SrcadError`` prints its located message and exits 1.  Every subprocess gets
its own ``SRCAD_CACHE_DIR`` so the tests never touch ``~/.cache``.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from srcad import pipeline
from srcad.cli import parse_wrt

REPO = Path(__file__).resolve().parent.parent

MODEL = '''\
import numpy as np

SCALE = 3


def energy(x, y):
    s = np.sin(x) * y
    return np.sum(s ** 2)


def not_supported(x):
    del x[0]
    return 0.0


class Physics:
    @staticmethod
    def potential(q):
        return np.sum(np.tanh(q))

    def __init__(self):
        self.mass = 2.0

    def kinetic(self, v):
        return 0.5 * self.mass * np.sum(v ** 2)

    @classmethod
    def scaled(cls, q, k):
        return k * np.sum(q ** 3)
'''


@pytest.fixture
def workdir(tmp_path):
    """A directory holding ``model.py``, ``pkg/dyn.py`` and a few broken modules."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "dyn.py").write_text(MODEL)
    (tmp_path / "broken.py").write_text("def f(x)\n    return x\n")
    (tmp_path / "explodes.py").write_text("raise RuntimeError('first line\\nsecond line')\n")
    return tmp_path


def run_cli(*args, cwd, cache):
    """Run ``python -m srcad ARGS``; the completed process (text mode)."""
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "srcad", *args], cwd=str(cwd), env=env,
                          capture_output=True, text=True, timeout=120)


def test_show_prints_the_generated_derivative(workdir, tmp_path):
    result = run_cli("show", "model.py:energy", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("# srcad ")
    assert "reverse-mode derivative of energy (model.py:6) with respect to x" in out
    assert "def denergy(x, y, dout=1.0):" in out
    assert "    # s = np.sin(x) * y\n" in out          # each block is headed by its source line
    assert "    # return np.sum(s ** 2)\n" in out
    assert "sin_x = np.sin(x)" in out                 # ANF temporaries are named after the expression
    compile(out, "<cli output>", "exec")              # and the whole output is valid Python
    assert result.stderr == ""


def test_show_matches_srcad_source_and_writes_only_to_the_given_cache(workdir, tmp_path):
    cache = tmp_path / "cache"
    result = run_cli("show", str(workdir / "model.py") + ":energy", "--wrt", "y", cwd=REPO, cache=cache)
    assert result.returncode == 0, result.stderr
    cached = list(cache.glob("*.py"))
    assert len(cached) == 1
    key_line, _, body = cached[0].read_text().partition("\n")
    assert key_line.startswith("# srcad-key: ")
    assert body == result.stdout


def test_output_printed_at_import_goes_to_stderr(workdir, tmp_path):
    (workdir / "noisy.py").write_text("print('loading noisy')\n" + MODEL)
    result = run_cli("show", "noisy.py:energy", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# srcad ")
    assert "loading noisy" not in result.stdout
    assert "loading noisy" in result.stderr


def test_wrt_by_name_and_by_position_agree(workdir, tmp_path):
    cache = tmp_path / "cache"
    by_position = run_cli("show", "model.py:energy", "--wrt", "1", cwd=workdir, cache=cache)
    by_name = run_cli("show", "model.py:energy", "--wrt", "y", cwd=workdir, cache=cache)
    assert by_position.returncode == by_name.returncode == 0
    assert by_position.stdout == by_name.stdout
    assert "with respect to y" in by_name.stdout
    assert "return writable(dy)" in by_name.stdout or "return dy" in by_name.stdout


def test_several_wrt_return_a_tuple(workdir, tmp_path):
    cache = tmp_path / "cache"
    by_position = run_cli("show", "model.py:energy", "--wrt", "0,1", cwd=workdir, cache=cache)
    by_name = run_cli("show", "model.py:energy", "--wrt", "x, y", cwd=workdir, cache=cache)
    assert by_position.returncode == 0, by_position.stderr
    assert by_position.stdout == by_name.stdout
    assert "with respect to x, y" in by_name.stdout
    last = [line for line in by_name.stdout.splitlines() if line.strip().startswith("return ")][-1]
    assert "dx" in last and "dy" in last


def test_passes_prints_stage_headers_in_pipeline_order(workdir, tmp_path):
    result = run_cli("show", "model.py:energy", "--passes", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    headers = [line for line in result.stdout.splitlines() if line.startswith("# ---- ")]
    assert headers[0] == "# ---- source ----"
    assert headers[-1] == "# ---- generated module ----"
    order = {}
    for index, stage in enumerate(pipeline.PIPELINES["reverse"]):
        for name in (stage if isinstance(stage, tuple) else (stage,)):
            order[name] = index
    stages = [h[len("# ---- after "):-len(" ----")] for h in headers[1:-1]]
    assert {"normalize", "reverse"} <= set(stages)
    assert all(stage in order for stage in stages), stages
    positions = [order[stage] for stage in stages]
    assert positions == sorted(positions), stages
    assert "def energy(x, y):" in result.stdout      # the source as parsed
    assert "def denergy(x, y, dout=1.0):" in result.stdout


def test_no_optimize_skips_the_optimisation_passes(workdir, tmp_path):
    cache = tmp_path / "cache"
    plain = run_cli("show", "model.py:energy", "--no-optimize", "--passes", cwd=workdir, cache=cache)
    assert plain.returncode == 0, plain.stderr
    optimised = pipeline.OPTIMIZE
    assert not any(f"# ---- after {name} ----" in plain.stdout for name in optimised)
    raw = run_cli("show", "model.py:energy", "--no-optimize", cwd=workdir, cache=cache)
    assert raw.returncode == 0 and "def denergy(" in raw.stdout
    compile(raw.stdout, "<raw>", "exec")


def test_forward_mode_is_passed_through(workdir, tmp_path):
    result = run_cli("show", "model.py:energy", "--mode", "forward", cwd=workdir, cache=tmp_path / "c")
    if "forward" not in pipeline.PIPELINES:
        assert result.returncode == 1 and "forward mode is not available" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert "forward-mode derivative of energy" in result.stdout
    assert "def denergy(x, y, dx):" in result.stdout


def test_module_target_and_class_qualname(workdir, tmp_path):
    cache = tmp_path / "cache"
    result = run_cli("show", "pkg.dyn:energy", cwd=workdir, cache=cache)
    assert result.returncode == 0, result.stderr
    assert "def denergy(x, y, dout=1.0):" in result.stdout
    method = run_cli("show", "model.py:Physics.potential", cwd=workdir, cache=cache)
    assert method.returncode == 0, method.stderr
    assert "derivative of Physics.potential" in method.stdout
    assert "def dpotential(q, dout=1.0):" in method.stdout


@pytest.mark.parametrize("target, header, signature", [
    ("model.py:Physics.kinetic", "derivative of Physics.kinetic (model.py:24) with respect to v",
     "def dkinetic(self, v, dout=1.0):"),
    ("pkg.dyn:Physics.kinetic", "derivative of Physics.kinetic (dyn.py:24) with respect to v",
     "def dkinetic(self, v, dout=1.0):"),
    ("model.py:Physics.scaled", "derivative of Physics.scaled (model.py:27) with respect to q",
     "def dscaled(cls, q, k, dout=1.0):"),
])
def test_method_targets_differentiate_the_first_parameter_after_self(workdir, tmp_path, target, header,
                                                                       signature):
    result = run_cli("show", target, cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert header in result.stdout and signature in result.stdout
    if "scaled" in target:   # a name picks any other parameter
        named = run_cli("show", target, "--wrt", "k", cwd=workdir, cache=tmp_path / "cache")
        assert named.returncode == 0, named.stderr
        assert "with respect to k" in named.stdout and "def dscaled(cls, q, k, dout=1.0):" in named.stdout


def test_diff_alone_implies_passes(workdir, tmp_path):
    result = run_cli("show", "model.py:energy", "--diff", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "# ---- source ----" in result.stdout and "+++ normalize" in result.stdout
    assert "# ---- generated module ----" in result.stdout


@pytest.mark.parametrize("target, message", [
    ("missing.py:energy", "no such file"),
    ("model.py:nothing_here", "has no attribute 'nothing_here'"),
    ("model.py:SCALE", "not a Python function"),
    ("model.py:Physics", "is a class"),
    ("broken.py:f", "SyntaxError"),
    ("explodes.py:f", "RuntimeError: first line"),
    ("no_such_package.mod:f", "no module named 'no_such_package'"),
    ("model.py", "is not of the form"),
    ("model.py:energy(x)", "not a (dotted) Python name"),
])
def test_bad_target_is_one_line_on_stderr(workdir, tmp_path, target, message):
    result = run_cli("show", target, cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_srcad_error_prints_located_message_without_traceback(workdir, tmp_path):
    result = run_cli("show", "model.py:not_supported", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{workdir / 'model.py'}:12:" in result.stderr     # file:line:col of the `del`
    assert "del x" in result.stderr and "^" in result.stderr


def test_bad_wrt_is_a_srcad_error(workdir, tmp_path):
    result = run_cli("show", "model.py:energy", "--wrt", "z", cwd=workdir, cache=tmp_path / "cache")
    assert result.returncode == 1
    assert "'z' is neither a parameter of energy(x, y)" in result.stderr
    assert "Traceback" not in result.stderr


def test_console_script_matches_python_m(workdir, tmp_path):
    script = shutil.which("srcad", path=os.path.dirname(sys.executable))
    if script is None:  # not installed (a plain checkout): check what pip would install instead
        assert 'srcad = "srcad.cli:main"' in (REPO / "pyproject.toml").read_text()
        return
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    via_script = subprocess.run([script, "show", "model.py:energy"], cwd=str(workdir), env=env,
                                capture_output=True, text=True, timeout=120)
    via_module = run_cli("show", "model.py:energy", cwd=workdir, cache=tmp_path / "cache")
    assert via_script.returncode == 0, via_script.stderr
    assert via_script.stdout == via_module.stdout


def test_quickstart_example_runs_from_the_readme(tmp_path):
    result = run_cli("show", "examples/quickstart.py:loss", cwd=REPO, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "def dloss(W, b, x, y, dout=1.0):" in result.stdout


def test_parse_wrt():
    assert parse_wrt("0") == 0
    assert parse_wrt("-1") == -1
    assert parse_wrt("x") == "x"
    assert parse_wrt("0,1") == (0, 1)
    assert parse_wrt(" x , 1") == ("x", 1)
    with pytest.raises(Exception, match="empty entry"):
        parse_wrt("x,,y")


def _readme_blocks():
    text = (REPO / "README.md").read_text()
    blocks = text.split("```")[1::2]
    return [block.partition("\n")[2] for block in blocks]


@pytest.mark.parametrize("args, marker", [
    (("--wrt", "w"), "reverse-mode derivative of f (example.py:4) with respect to w\n"),
    (("--wrt", "x,w", "--mode", "forward"), "forward-mode derivative of f (example.py:4) with respect to x, w\n"),
])
def test_readme_shows_real_output(tmp_path, args, marker):
    """The generated code pasted in README.md is what ``srcad show`` prints today."""
    blocks = _readme_blocks()
    [example] = [b for b in blocks if b.startswith("# example.py\n")]
    [shown] = [b for b in blocks if marker in b]
    (tmp_path / "example.py").write_text(example.partition("\n")[2])
    result = run_cli("show", "example.py:f", *args, cwd=tmp_path, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown, "README.md is out of date: paste this output into it:\n" + result.stdout


def test_templates_lists_rules_with_their_modes_and_totals(tmp_path):
    """``srcad templates`` names every rule readably, gives its modes, counts at least 150 per mode, and lists
    the non-differentiable functions and those srcad does not differentiate (np.arange, np.random)."""
    result = run_cli("templates", cwd=tmp_path, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    table, _, rest = result.stdout.partition("\n\n")
    header, *lines = table.splitlines()
    assert header.split() == ["function", "modes"]
    rows = dict(re.split(r"\s{2,}", line, maxsplit=1) for line in lines)
    for name in ("np.sin", "math.sin", "np.linalg.svd", "scipy.special.expit", "sum", "abs", "operator.mul (*)"):
        if name.startswith("scipy") and "scipy.special" not in sys.modules:
            continue
        assert rows[name] == "reverse forward", (name, rows.get(name))
    constant_part, _, refused_part = rest.partition("not differentiated")
    assert "np.argmax" in constant_part.partition("non-differentiable")[2]
    assert "np.arange" in refused_part and "np.random.normal" in refused_part
    totals = re.search(r"^(\d+) functions with rules: (\d+) reverse, (\d+) forward; (\d+) non-differentiable, "
                       r"(\d+) not differentiated$", rest, re.MULTILINE)
    assert totals, rest[-300:]
    total, reverse, forward, constant, refused = map(int, totals.groups())
    assert refused > 0
    assert total == len(rows)
    assert reverse == sum("reverse" in modes for modes in rows.values()) >= 150
    assert forward == sum("forward" in modes for modes in rows.values()) >= 150
    assert constant > 0


def test_passes_with_diff_shows_what_each_stage_changed(workdir, tmp_path):
    """``--passes --diff`` prints each stage after the first as a unified diff against the one before."""
    (tmp_path / "tiny.py").write_text("def cube(x):\n    return x * x * 3.0\n")
    result = run_cli("show", "tiny.py:cube", "--passes", "--diff", cwd=tmp_path, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "# ---- source ----\ndef cube(x):" in text
    normalize = text[text.index("# ---- after normalize ----"):]
    assert "--- before\n+++ normalize" in normalize and "+    x_times_x = x * x" in normalize
    assert "# ---- generated module ----" in text


def test_show_ranks_prints_the_variant_for_those_ranks(tmp_path):
    result = run_cli("show", "benchmarks/problems.py:matmul_loops", "--wrt", "B,C", "--ranks", "2,2",
                     cwd=REPO, cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert "# the variant for arguments B 2-D, C 2-D\n" in result.stdout
    assert "tape" not in result.stdout   # an element loop nest needs no tape
    general = run_cli("show", "benchmarks/problems.py:matmul_loops", "--wrt", "B,C", cwd=REPO,
                      cache=tmp_path / "cache")
    assert "tape.pop()" in general.stdout   # without the ranks, B[i, k] might be a row


def test_show_refuses_ranks_that_are_not_numbers(tmp_path):
    result = run_cli("show", "benchmarks/problems.py:pool", "--ranks", "2,x", cwd=REPO, cache=tmp_path / "cache")
    assert result.returncode == 2
    assert "--ranks '2,x'" in result.stderr
