"""``srcad templates --missing`` and its reference list: the functions autograd differentiates.

Contract:
- ``test_numpy_is_covered``: no NumPy or ``np.linalg`` function of the
  reference list lacks a rule in either mode (the SciPy and ``np.fft`` parts
  are listed, not asserted, here).
- ``test_reference_names_exist``: every NumPy name of the list resolves,
  except those the installed NumPy dropped (``msort``).
- ``test_missing_tells_modes_and_refusals``: a name with a rule in one mode
  only is reported with the missing mode, one without any rule as
  "no rule", and a function srcad refuses (``not_differentiated``) counts as
  missing, while one declared non-differentiable counts as covered.
- ``test_cli_lists_missing_by_module``: ``srcad templates --missing`` prints
  one line per module of the list, in order, with ``missing()``'s count and
  names, then the total.
"""
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad
from grad_templates import reference
from srcad.templates import REGISTRY

ROOT = Path(__file__).resolve().parent.parent


def test_numpy_is_covered():
    gaps = reference.missing()
    assert gaps["numpy"] == [] and gaps["numpy.linalg"] == [], {m: gaps[m] for m in ("numpy", "numpy.linalg")}


def test_reference_names_exist():
    absent = reference.unavailable()["numpy"] + reference.unavailable()["numpy.linalg"]
    assert set(absent) <= {"msort", "row_stack"}, absent
    assert reference.resolve("numpy", "sin") is np.sin
    assert reference.resolve("numpy.linalg", "eig") is np.linalg.eig
    assert reference.resolve("no_such_module_here", "f") is None


@pytest.fixture
def probe_reference(monkeypatch):
    """A reference list of four math and NumPy names, with a reverse-only rule for ``math.ulp``."""
    monkeypatch.setattr(reference, "REFERENCE", {"math": ("sin", "ulp", "nextafter", "floor"),
                                                 "numpy": ("arange",)})

    def ulp_adjoint(y, x):
        srcad.d[x] = srcad.d[y] * 0.0

    srcad.adjoint(math.ulp)(ulp_adjoint)
    yield
    REGISTRY.rules["reverse"].pop(math.ulp, None)
    REGISTRY.version += 1


def test_missing_tells_modes_and_refusals(probe_reference):
    gaps = reference.missing()
    assert gaps["math"] == [("ulp", "no forward rule"), ("nextafter", "no rule")]   # sin: rules; floor: constant
    assert gaps["numpy"] == [("arange", "no rule")]   # refused: a value being differentiated may not reach it


def test_cli_lists_missing_by_module(tmp_path):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "srcad", "templates", "--missing"], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if re.match(r"^[\w.]+ \(\d+\): ", line)]
    gaps = reference.missing()
    assert [line.split(" ")[0] for line in lines] == list(reference.REFERENCE)
    for line in lines:
        module, count = re.match(r"^([\w.]+) \((\d+)\)", line).groups()
        assert int(count) == len(gaps[module])
    assert "numpy (0): none" in lines
    for name, _ in gaps["scipy.stats"][:3]:
        assert name in result.stdout
    assert result.stdout.rstrip().endswith(f"{sum(len(g) for g in gaps.values())} missing")
