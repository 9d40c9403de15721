"""srcad's public API is typed: ``py.typed`` ships, and a strictly typed user module passes ``mypy --strict``.

Contract checked here:
- ``srcad/py.typed`` exists and ``pyproject.toml`` ships it as package data.
- ``tests/data/typing/typed_user.py`` uses every name in ``srcad.__all__``
  and passes ``mypy --strict`` with srcad as an installed package would be
  checked (errors inside srcad's own modules are not the user's); and the
  same mypy run does report a misspelt export and arguments of the wrong
  type, so the types are real, not ``Any``.  Skipped only when mypy is not
  importable (``pip install '.[test]'`` installs it).
- Annotated functions differentiate in both modes, against finite
  differences, whether or not their module uses
  ``from __future__ import annotations`` and whatever names the annotations
  use: the generated derivative does not copy them.
"""
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import srcad
from tests.gradcheck import check_both_modes, make_function

REPO = Path(__file__).resolve().parent.parent
TYPED_USER = REPO / "tests" / "data" / "typing" / "typed_user.py"
_MYPY_CONFIG = """\
[mypy]
strict = True
warn_unused_configs = True

[mypy-srcad.*]
ignore_errors = True

[mypy-grad_templates.*]
ignore_errors = True
"""
_MISTAKES = """\
import numpy as np
import srcad


def loss(x: np.ndarray) -> float:
    return float(np.sum(x))


misspelt = srcad.gradd(loss)
wrong_wrt = srcad.grad(loss, wrt=1.5)
count: int = srcad.source(loss)
"""


def test_py_typed_ships_with_the_package():
    assert (REPO / "srcad" / "py.typed").is_file()
    assert re.search(r'\[tool\.setuptools\.package-data\]\s*\nsrcad = \[[^]]*"py\.typed"',
                     (REPO / "pyproject.toml").read_text())


def test_the_typed_user_module_uses_every_export():
    text = TYPED_USER.read_text()
    unused = [name for name in srcad.__all__ if not re.search(rf"\b{re.escape(name)}\b", text)]
    assert unused == []


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    """Run mypy on ``typed_user.py`` and on a file of mistakes: ``{file name: error lines}``."""
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install '.[test]'")
    folder = tmp_path_factory.mktemp("typing")
    (folder / "mypy.ini").write_text(_MYPY_CONFIG)
    (folder / "typed_user.py").write_text(TYPED_USER.read_text())
    (folder / "mistakes.py").write_text(_MISTAKES)
    stdout, stderr, _ = api.run(["--config-file", str(folder / "mypy.ini"), "--cache-dir", str(folder / "cache"),
                                 str(folder / "typed_user.py"), str(folder / "mistakes.py")])
    errors = {}
    for line in stdout.splitlines():
        if ": error:" in line:
            errors.setdefault(Path(line.split(":", 1)[0]).name, []).append(line)
    return errors, stdout + stderr


def test_a_strictly_typed_user_module_passes_mypy_strict(mypy_run):
    errors, output = mypy_run
    assert "typed_user.py" not in errors, output


def test_mypy_reports_a_misspelt_export_and_a_wrong_argument_type(mypy_run):
    errors, output = mypy_run
    found = "\n".join(errors.get("mistakes.py", []))
    assert 'Module has no attribute "gradd"' in found, output
    assert re.search(r'mistakes\.py:10: error: Argument "wrt" to "grad" has incompatible type "float"', found), output
    assert re.search(r'mistakes\.py:11: error: Incompatible types in assignment \(expression has type "str"', found), \
        output


def test_the_typed_user_module_runs(monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("typed_user", TYPED_USER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        assert np.isfinite(module.main())
        w, x = np.linspace(-1.0, 1.0, 3), np.linspace(0.0, 1.0, 6).reshape(2, 3)
        check_both_modes(module.loss, (w, x), wrt=(0, 1))    # annotated, under `from __future__ import annotations`
        check_both_modes(module.softsign, (np.linspace(-2.0, 2.0, 5),))   # through the user's typed rules
    finally:
        for mode in ("reverse", "forward"):
            srcad.templates.REGISTRY.rules[mode].pop(module.softsign, None)
        srcad.templates.REGISTRY.nondiff.pop(module.rounded, None)


class _Vector:
    """A type the generated module cannot name."""


def test_annotations_naming_the_users_types_are_not_copied_into_the_derivative():
    f = make_function("def scaled(x: Vector, k: float = 2.0) -> Vector:\n    return np.sum(np.sin(x) * k)\n",
                      {"np": np, "Vector": _Vector})
    text = srcad.source(f, wrt=("x", "k"))
    assert "Vector" not in text and "def dscaled(x, k=2.0, *, dout=1.0):" in text
    check_both_modes(f, (np.linspace(-1.0, 1.0, 4), 1.5), wrt=(0, 1))
