"""srcad as users get it: a wheel, installed (not editable) into a fresh virtual environment.

Contract checked here: the wheel built from this checkout contains every
package srcad needs at run time (``srcad``, ``srcad.passes`` and the
``grad_templates`` family modules) plus the ``srcad`` console script; once
installed, srcad works from a directory outside the checkout, importing its
rules from the environment's site-packages rather than from the checkout.

The build runs on a copy of the checkout, so the tests leave no ``build/``
directory behind.  The fresh environment reaches numpy, gast and astor
through a ``.pth`` file naming the directories they are installed in (written
after srcad is installed), which works whether the tests themselves run in a
virtual environment or not, and keeps any srcad installed there out of reach.
"""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
RUNTIME_PACKAGES = ("srcad", "srcad/passes", "grad_templates")
DEPENDENCIES = ("numpy", "gast", "astor")


def _python_files(directory: Path):
    return sorted(p.relative_to(REPO).as_posix() for p in directory.glob("*.py"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The path of a wheel built from a copy of this checkout."""
    pytest.importorskip("setuptools", reason="building a wheel needs the test extra: pip install '.[test]'")
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    ignore = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".hypothesis")
    shutil.copytree(REPO, source, ignore=ignore)
    out = root / "wheelhouse"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-q", "-w", str(out)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    [built] = out.glob("srcad-*.whl")
    return built


def test_wheel_contains_every_runtime_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for package in RUNTIME_PACKAGES:
        files = _python_files(REPO / package)
        assert files, package
        expected.update(files)
    assert "grad_templates/__init__.py" in expected
    assert {"srcad/cli.py", "srcad/__main__.py", "srcad/passes/__init__.py"} <= expected
    missing = expected - names
    assert not missing, f"missing from the wheel: {sorted(missing)}"
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "srcad = srcad.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    assert not any(n.startswith(("tests/", "benchmarks/", "examples/")) for n in names)


def _make_venv(root: Path) -> Path:
    """A fresh virtual environment; its python."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bindir = "Scripts" if os.name == "nt" else "bin"
    return venv / bindir / ("python.exe" if os.name == "nt" else "python")


def _share_dependencies(python: Path) -> None:
    """Let ``python``'s environment import numpy, gast and astor from this one, after its own packages.

    Done after installing srcad: had pip seen this environment's packages, it
    could have taken an srcad installed here for the one it was asked to install.
    """
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    outer = [str(Path(__import__(name).__file__).resolve().parent.parent) for name in DEPENDENCIES]
    (Path(purelib) / "srcad_test_dependencies.pth").write_text("\n".join(dict.fromkeys(outer)) + "\n")


def test_installed_wheel_works_outside_the_checkout(wheel, tmp_path):
    python = _make_venv(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    # (a PYTHONPATH reaching a checkout would make pip think srcad is installed already, and skip it)
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                              "--disable-pip-version-check", "-q", str(wheel)],
                             capture_output=True, text=True, timeout=300, env=env)
    assert install.returncode == 0, install.stdout + install.stderr
    _share_dependencies(python)

    work = tmp_path / "work"
    work.mkdir()
    (work / "model.py").write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x)\n")
    script = (
        "import os, sysconfig\n"
        "import numpy as np\n"
        "import srcad, grad_templates, model\n"
        "site = os.path.realpath(sysconfig.get_paths()['purelib'])\n"
        "for module in (srcad, grad_templates):\n"
        "    where = os.path.realpath(module.__file__)\n"
        "    assert where.startswith(site + os.sep), (module.__name__, where, site)\n"
        "x = np.linspace(0.0, 1.0, 3)\n"
        "print(repr(srcad.grad(model.f)(x).tolist()))\n"
    )
    env["SRCAD_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run([str(python), "-c", script], cwd=str(work), env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    x = np.linspace(0.0, 1.0, 3)
    np.testing.assert_allclose(eval(result.stdout), np.cos(x) * x + np.sin(x))
    assert list((tmp_path / "cache").glob("f_*.py")), "the installed srcad uses SRCAD_CACHE_DIR"

    script_path = python.parent / ("srcad.exe" if os.name == "nt" else "srcad")
    shown = subprocess.run([str(script_path), "show", "model.py:f"], cwd=str(work), env=env,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "def df(x, dout=1.0):" in shown.stdout


def test_readme_opens_with_the_commands_ci_runs():
    readme = (REPO / "README.md").read_text()
    blocks = [b.partition("\n")[2].strip() for b in readme.split("```")[1::2]]
    install, test = blocks[0], blocks[1]
    assert readme.index(install) < 400, "the install command opens the README"
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && srcad show ")
    assert test == ("python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' "
                    "&& python -m pytest -q")
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert "pip install -q '.[test]'" in ci
    assert "python -m pytest -q || status=$?" in ci
    assert os.access(REPO / ".ci" / "run", os.X_OK)
    target = install.rsplit(" ", 1)[1]
    assert (REPO / target.split(":")[0]).is_file()
