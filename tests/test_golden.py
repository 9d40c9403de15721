"""Golden tests: the exact source srcad generates for the functions in ``golden_functions``.

Contract:
- ``srcad.source(f, wrt=..., mode=...)`` equals ``tests/golden/<name>.py`` byte
  for byte for every case in ``golden_functions.GOLDEN_CASES``.  After an
  intended change to the generator, run ``python tests/regen_golden.py`` and
  review the diff of ``tests/golden/``.
- Generation is deterministic: building the same derivative twice from scratch
  gives identical text, in this process and in processes with different hash
  seeds.
- Every golden derivative is also numerically right (checked against finite
  differences), so a regenerated golden file cannot pin a wrong derivative.
All sources are generated with the disk cache off, so they reflect the current
generator and not a cached file from an older one.
"""
import difflib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
import srcad.api

from gradcheck import check_forward, check_reverse, no_disk_cache  # noqa: F401 (autouse)
from golden_functions import GOLDEN_CASES
from regen_golden import GOLDEN_DIR, generate, golden_path

IDS = [case[0] for case in GOLDEN_CASES]


@pytest.mark.parametrize("name,function,wrt,mode", GOLDEN_CASES, ids=IDS)
def test_generated_source_matches_golden(name, function, wrt, mode):
    path = golden_path(name)
    assert os.path.exists(path), f"{path} is missing; run python tests/regen_golden.py"
    with open(path, encoding="utf-8") as stream:
        expected = stream.read()
    actual = generate(function, wrt, mode)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"golden/{name}.py", "generated"))
        pytest.fail(f"the generated source of {name} changed; if intended, run "
                    f"python tests/regen_golden.py and review the diff:\n{diff}")


def test_every_golden_file_has_a_case():
    files = {f[:-3] for f in os.listdir(GOLDEN_DIR) if f.endswith(".py")}
    assert files == set(IDS), f"golden files without a case: {sorted(files - set(IDS))}; " \
                              f"cases without a file: {sorted(set(IDS) - files)}"


@pytest.mark.parametrize("name,function,wrt,mode", GOLDEN_CASES, ids=IDS)
def test_generation_is_deterministic(name, function, wrt, mode):
    first = generate(function, wrt, mode)
    srcad.api._MEMORY.clear()
    second = srcad.source(function, wrt=wrt, mode=mode)
    assert first.encode() == second.encode()


_CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
from golden_functions import GOLDEN_CASES
from regen_golden import generate
print(json.dumps({{name: generate(f, wrt, mode) for name, f, wrt, mode in GOLDEN_CASES}}))
"""


def test_generation_does_not_depend_on_the_hash_seed():
    here = os.path.dirname(os.path.abspath(__file__))
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, SRCAD_CACHE="0")
        done = subprocess.run([sys.executable, "-c", _CHILD.format(tests=here)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0] == {name: generate(f, wrt, mode) for name, f, wrt, mode in GOLDEN_CASES}


GOLDEN_INPUTS = {
    "cube_scale": lambda rng: (rng.standard_normal(3),),
    "tanh_loss": lambda rng: (rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)),
    "broadcast_product": lambda rng: (rng.standard_normal((3, 1)), rng.standard_normal((1, 4))),
    "unpack_reassign": lambda rng: (rng.standard_normal(4) * 0.5,),
    "subscript_read": lambda rng: (rng.standard_normal((3, 2)), 1),
    "math_scalars": lambda rng: (float(rng.uniform(0.5, 2.0)), float(rng.standard_normal())),
    "dense_layer": lambda rng: (rng.standard_normal((4, 3)), rng.standard_normal((3, 2)),
                                rng.standard_normal(2)),
    "logistic_map": lambda rng: (float(rng.uniform(0.2, 0.4)), 4),
    "piecewise": lambda rng: (rng.standard_normal(3),),
    "smooth_rows": lambda rng: (rng.standard_normal((4, 3)),),
    "halve_until_small": lambda rng: (rng.standard_normal(3) * 2.0,),
    "gated": lambda rng: (rng.standard_normal(3), rng.standard_normal(3)),
}


@pytest.mark.parametrize("name,function,wrt,mode", GOLDEN_CASES, ids=IDS)
def test_golden_derivatives_are_right(name, function, wrt, mode):
    args = GOLDEN_INPUTS[function.__name__](np.random.default_rng(8))
    (check_reverse if mode == "reverse" else check_forward)(function, args, wrt)
