"""Pickled derivatives, checked in a fresh interpreter (``tests/pickle_checks.py``).

Contract:
- ``tests/pickle_checks.py`` holds the pickling tests: round trips of every
  kind of derivative through ``pickle`` and ``cloudpickle``, new processes
  loading from the disk cache, spawn and fork pools, a process pool executor
  and a Dask ``LocalCluster``.  A receiving process compares what the
  derivative was built from, the registered rules included, with what it has.
- This test runs them with pytest in a new interpreter: in this one, earlier
  test modules have registered rules of their own (and changed other process
  state) that a fresh worker does not have, and such a derivative is rightly
  refused there as stale.  Every assertion of ``pickle_checks.py`` must hold.
"""
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_pickling_checks_pass_in_a_fresh_interpreter(tmp_path):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(TESTS / "pickle_checks.py")], capture_output=True, text=True, env=env,
                         cwd=str(TESTS.parent), timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " failed" not in run.stdout, run.stdout[-2000:]
