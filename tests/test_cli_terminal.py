"""``srcad show`` on a terminal: colour, ``--rules``, and ``srcad doctor``.

Contract checked here:
- ``--color never`` and ``auto`` on a pipe print no escape code; ``always``
  prints colour whose text, without the codes, is exactly the plain output;
  ``auto`` colours a terminal unless ``NO_COLOR`` is set or ``TERM=dumb``;
  ``--diff`` is coloured (added lines green, removed red); without Pygments,
  Python is printed plain and diffs still coloured.
- ``--rules`` prints the derivative ``srcad.source`` gives, plus
  ``# rule: file:line name`` comment lines only, for every benchmark problem
  in both modes; each names a real rule, at the line of its decorator or
  ``def``; the rule of each operation of a small function is named in each
  mode; a rule the user registers is named by the user's file; and the
  printed module, run, gives the gradient finite differences give.
- ``srcad doctor`` prints the versions, the cache directory and its state
  (off, not created, refused, private) and a line per optional package.
"""
import io
import os
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad import cli, display
from srcad.rule_comments import annotated_source
from tests.gradcheck import check_reverse

REPO = Path(__file__).resolve().parent.parent
_RULE_LINE = re.compile(r"^\s*# rule: (\S+):(\d+) (\S+)$")

MODEL = '''\
import numpy as np


def energy(x, y):
    s = np.tanh(x) * y
    return np.sum(np.exp(s) + s ** 2)
'''


@pytest.fixture
def model(tmp_path, monkeypatch):
    """``model.py`` in a fresh directory, with a private disk cache."""
    (tmp_path / "model.py").write_text(MODEL)
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path / "model.py"


def shown(capsys, *args):
    """``srcad ARGS`` run in this process: its stdout (the exit status must be 0)."""
    status = cli.main(list(args))
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_never_and_a_pipe_print_no_colour_and_always_colours_the_same_text(model, capsys):
    plain = shown(capsys, "show", f"{model}:energy", "--color", "never")
    assert "\x1b[" not in plain and plain == srcad.source(_load(model).energy, 0)
    assert shown(capsys, "show", f"{model}:energy") == plain   # auto, and stdout is not a terminal here
    coloured = shown(capsys, "show", f"{model}:energy", "--color", "always")
    assert "\x1b[" in coloured and display.strip_ansi(coloured) == plain


@pytest.mark.parametrize("environment, expected", [({}, True), ({"NO_COLOR": "1"}, False),
                                                   ({"NO_COLOR": ""}, True), ({"TERM": "dumb"}, False)])
def test_auto_colours_a_terminal_unless_told_not_to(monkeypatch, environment, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert display.wants_color("auto", _Terminal()) is expected
    assert display.wants_color("auto", io.StringIO()) is False
    assert display.wants_color("always", io.StringIO()) is True    # an explicit choice beats NO_COLOR
    assert display.wants_color("never", _Terminal()) is False


def test_diff_is_coloured_and_the_same_text_without_colour(model, capsys):
    plain = shown(capsys, "show", f"{model}:energy", "--diff", "--color", "never")
    coloured = shown(capsys, "show", f"{model}:energy", "--diff", "--color", "always")
    assert display.strip_ansi(coloured) == plain
    added = [line for line in coloured.splitlines() if line.startswith("\x1b[32m+")]
    removed = [line for line in coloured.splitlines() if line.startswith("\x1b[31m-")]
    assert added and removed
    assert {display.strip_ansi(line) for line in added} <= {line for line in plain.splitlines() if line[:1] == "+"}


def test_without_pygments_python_is_plain_and_diffs_still_coloured(model, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)   # import pygments raises ImportError
    assert display.pygments_version() is None
    plain = shown(capsys, "show", f"{model}:energy", "--color", "never")
    assert shown(capsys, "show", f"{model}:energy", "--color", "always") == plain
    diff = shown(capsys, "show", f"{model}:energy", "--diff", "--color", "always")
    assert "\x1b[32m+" in diff


def _load(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"model_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rule_lines(text):
    return [_RULE_LINE.match(line) for line in text.splitlines() if "# rule: " in line]


def _check_rule_line(match):
    """The named file's line is the rule's decorator or ``def``, and the function there has that name."""
    path = Path(match.group(1))
    path = path if path.is_absolute() else REPO / path if (REPO / path).exists() else Path.cwd() / path
    lines = path.read_text().splitlines()
    start = int(match.group(2)) - 1
    assert lines[start].lstrip().startswith(("@", "def ")), match.group(0)
    following = next(line for line in lines[start:] if line.lstrip().startswith("def "))
    assert f"def {match.group(3).rpartition('.')[2]}(" in following, match.group(0)


def _without_rules(text):
    return "".join(line for line in text.splitlines(keepends=True) if not _RULE_LINE.match(line))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_rules_adds_only_comments_for_every_benchmark_problem(mode):
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks.problems import PROBLEMS
    finally:
        sys.path.remove(str(REPO))
    named = 0
    for problem in PROBLEMS.values():
        wrt = tuple(problem.wrt)
        names, as_tuple = srcad.api.resolve_wrt(problem.function, wrt)
        text = annotated_source(problem.function, names, mode, {"optimize": True, "tuple_result": as_tuple})
        assert _without_rules(text) == srcad.source(problem.function, wrt=wrt, mode=mode), problem.name
        for match in _rule_lines(text):
            assert match is not None
            _check_rule_line(match)
            named += 1
    assert named > 3 * len(PROBLEMS)


def test_rules_adds_only_comments_for_every_golden_case():
    from tests.golden_functions import GOLDEN_CASES
    for name, function, wrt, mode in GOLDEN_CASES:
        names, as_tuple = srcad.api.resolve_wrt(function, wrt)
        text = annotated_source(function, names, mode, {"optimize": True, "tuple_result": as_tuple})
        assert _without_rules(text) == srcad.source(function, wrt=wrt, mode=mode), name
        for match in _rule_lines(text):
            _check_rule_line(match)


@pytest.mark.parametrize("mode, expected", [
    ("reverse", {"tanh_adjoint", "mul_adjoint", "exp_adjoint", "pow_adjoint", "add_adjoint", "sum_adjoint"}),
    ("forward", {"tanh_tangent", "mul_tangent", "exp_tangent", "pow_tangent", "add_tangent", "sum_tangent"}),
])
def test_rules_names_the_rule_of_each_operation(model, capsys, mode, expected):
    """Unoptimised, every rule's code is there to name; optimised, a rule whose code was simplified
    away (add_adjoint's unbroadcast of a same-shape value) may go unnamed, and no other appears."""
    raw = shown(capsys, "show", f"{model}:energy", "--rules", "--mode", mode, "--color", "never", "--no-optimize")
    names = {match.group(3) for match in _rule_lines(raw)}
    assert expected <= names, names
    assert all(match.group(1).startswith("grad_templates/") for match in _rule_lines(raw))
    optimized = shown(capsys, "show", f"{model}:energy", "--rules", "--mode", mode, "--color", "never")
    assert set() < {match.group(3) for match in _rule_lines(optimized)} <= names


def test_the_module_printed_with_rules_runs_and_gives_the_gradient(model, capsys):
    text = shown(capsys, "show", f"{model}:energy", "--rules", "--wrt", "x,y", "--color", "never")
    module = _load(model)
    namespace = {}
    exec(compile(text, "<shown>", "exec"), namespace)
    x, y = np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 2.0, 4)
    printed = namespace["denergy"](x, y)
    expected = srcad.grad(module.energy, wrt=(0, 1))(x, y)
    for got, want in zip(printed, expected):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    check_reverse(module.energy, (x, y), wrt=(0, 1))


def test_a_users_rule_is_named_by_the_users_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ruled.py").write_text(textwrap.dedent('''\
        import numpy as np
        import srcad


        def softplus(x):
            return np.log1p(np.exp(x))


        @srcad.adjoint(softplus)
        def softplus_adjoint(y, x):
            srcad.d[x] = srcad.d[y] / (1.0 + np.exp(-x))


        def loss(x):
            return np.sum(softplus(x))
        '''))
    try:
        text = shown(capsys, "show", "ruled.py:loss", "--rules", "--color", "never")
    finally:
        module = sys.modules.get("ruled")
        if module is not None:
            srcad.templates.REGISTRY.rules["reverse"].pop(module.softplus, None)
    assert "# rule: ruled.py:9 softplus_adjoint" in text


def test_rules_with_passes_annotates_the_generated_module(model, capsys):
    text = shown(capsys, "show", f"{model}:energy", "--rules", "--passes", "--color", "never")
    module = text.partition("# ---- generated module ----\n")[2]
    assert _rule_lines(module) and not _rule_lines(text.partition("# ---- generated module ----")[0])


def test_doctor_prints_versions_cache_and_optional_packages(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    text = shown(capsys, "doctor")
    assert text.startswith(f"srcad {srcad.__version__} (")
    assert f"numpy        {np.__version__}" in text
    assert f"cache: {tmp_path / 'cache'} (from SRCAD_CACHE_DIR)\n  not created yet" in text
    for name in ("scipy", "numba", "dask", "distributed", "cupy", "pygments"):
        assert re.search(rf"^  {name} ", text, re.MULTILINE), name
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache" / "f_0123.py").write_text("x = 1\n")
    assert "1 derivative file, " in shown(capsys, "doctor") and "private and writable" in shown(capsys, "doctor")
    os.chmod(tmp_path / "cache", 0o770)
    assert "refused: it is writable by group or others" in shown(capsys, "doctor")
    monkeypatch.setenv("SRCAD_CACHE", "0")
    assert "cache: none\n  off (SRCAD_CACHE=0)" in shown(capsys, "doctor")


def test_doctor_reports_a_package_that_fails_to_import(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    assert re.search(r"^  numba +not installed$", shown(capsys, "doctor"), re.MULTILINE)
