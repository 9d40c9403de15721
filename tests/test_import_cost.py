"""``import srcad`` stays cheap: built-in rules are parsed when first used, optional packages load lazily.

Contract:
- In a fresh interpreter, ``import srcad`` parses none of the built-in rules
  (each is parsed the first time a derivative needs it) and imports none of
  the optional dependencies (SciPy, numba, Dask, Pygments) nor the compiler
  (the pipeline's passes, the emitter, astor, ``srcad.optim``).
- Creating a derivative object (``srcad.grad(f)``) imports no compiler
  either; calling it builds the derivative and imports the passes; in a
  second process, a derivative the disk cache holds is called without
  importing any pass.
- A built-in rule parsed on use gives the same template as an eager parse,
  and a rule a user registers is parsed at once, so a mistake in it is
  reported at the decorator.
- The time itself is measured by ``benchmarks/import_time.py``, never here.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.templates import REGISTRY, Template, d, parse_template

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PROBE = """
import json, sys
import srcad
from srcad.templates import REGISTRY
parsed = sorted({t.rule.__qualname__ for rules in REGISTRY.rules.values() for t in rules.values()
                 if t._parsed._done})
optional = [m for m in ("scipy", "numba", "dask", "distributed", "pygments") if m in sys.modules]
compiler = [m for m in COMPILER if m in sys.modules]
print(json.dumps({"parsed": parsed, "optional": optional, "compiler": compiler,
                  "rules": sum(len(r) for r in REGISTRY.rules.values())}))
"""
# Modules only building a derivative needs: the passes of the pipeline (a few pieces of
# srcad/passes/ serve the API too: receivers, object_walk, star_arguments), the emitter, astor.
COMPILER = ("astor", "srcad.passes.reverse", "srcad.passes.forward",
            "srcad.passes.activity", "srcad.passes.simplify", "srcad.passes.normalize", "srcad.passes.derivatives",
            "srcad.analysis.sharing", "srcad.optim")
_PROBE = "COMPILER = " + repr(COMPILER) + "\n" + _PROBE
_MODEL = """
import numpy as np


def f(x):
    return np.sum(np.tanh(x) ** 2)
"""
_CALL = """
import json, sys
import numpy as np
import srcad, model
derivative = srcad.grad(model.f)
created = [m for m in COMPILER if m in sys.modules]
gradient = derivative(np.linspace(-1.0, 1.0, 3))
print(json.dumps({"created": created, "called": [m for m in COMPILER if m in sys.modules],
                  "gradient": gradient.tolist()}))
"""


def test_import_parses_no_built_in_rule_and_loads_no_optional_package():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert report["rules"] > 500
    assert report["parsed"] == []
    assert report["optional"] == []
    assert report["compiler"] == []


def test_import_registers_every_rule_a_pass_module_declares():
    """The registry (and so the disk cache's keys) is the same before and after the passes load."""
    from srcad import pipeline
    probe = ("import srcad\nfrom srcad import pipeline\nfrom srcad.templates import REGISTRY\n"
             "def state():\n"
             "    return (sorted(map(repr, REGISTRY.refused)), sorted(map(repr, REGISTRY.nondiff)),\n"
             "            {m: sorted(map(repr, r)) for m, r in REGISTRY.rules.items()})\n"
             "before = state()\n"
             "for name in pipeline.PASSES:\n"
             "    pipeline.PASSES[name]\n"
             "print(before == state())\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True,
                         cwd=ROOT).stdout.split()
    assert out == ["True"]
    assert len(pipeline.PASSES) == len(set(pipeline.PASSES)) and all(pipeline.PASSES[n].name == n
                                                                        for n in pipeline.PASSES)


def test_a_derivative_object_needs_no_compiler_and_a_cached_one_needs_none_to_run(tmp_path):
    (tmp_path / "model.py").write_text(_MODEL)
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT, os.environ.get("PYTHONPATH", "")]))
    code = "COMPILER = " + repr(COMPILER) + "\n" + _CALL
    reports = [json.loads(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                                         text=True, cwd=str(tmp_path)).stdout.strip().splitlines()[-1])
               for _ in range(2)]
    x = np.linspace(-1.0, 1.0, 3)
    for report in reports:
        assert report["created"] == []
        np.testing.assert_allclose(report["gradient"], 2 * np.tanh(x) * (1 - np.tanh(x) ** 2), rtol=1e-13)
    assert "srcad.passes.reverse" in reports[0]["called"] and "astor" in reports[0]["called"]   # built
    assert reports[1]["called"] == []                                                            # read from disk


def test_a_lazily_parsed_rule_equals_an_eager_parse():
    template = REGISTRY.rules["reverse"][np.tanh]
    eager = parse_template(template.rule, np.tanh, "reverse")
    assert template.output == eager.output and template.parameters == eager.parameters
    assert [type(s).__name__ for s in template.body] == [type(s).__name__ for s in eager.body]
    assert template.digest == eager.digest and len(template.digest) == 16


def test_rules_sharing_a_function_share_one_parse():
    shared = [t for t in REGISTRY.rules["reverse"].values() if t.rule is REGISTRY.rules["reverse"][np.add].rule]
    assert len(shared) >= 1
    assert len({id(t._parsed) for t in shared}) == 1


def _no_parameters():
    pass


def test_a_users_rule_with_a_mistake_fails_at_the_decorator():
    primal = object.__new__(type("Primal", (), {"__call__": lambda self, x: x}))
    with pytest.raises(SrcadError, match="needs the primal output as its first parameter"):
        srcad.adjoint(primal)(_no_parameters)
    for mode in ("reverse", "forward"):
        REGISTRY.rules[mode].pop(primal, None)


def _rule_from_text(default: str, body: str):
    namespace = {"d": d}
    exec(compile(f"def rule(y, x, factor={default}):\n    d[x] = {body}\n", "<rule>", "exec"), namespace)
    return namespace["rule"]


def test_a_rules_digest_follows_its_code_and_defaults():
    rules = [_rule_from_text("2.0", "d[y] * factor"), _rule_from_text("3.0", "d[y] * factor"),
             _rule_from_text("2.0", "d[y] * factor * 1.0"), _rule_from_text("2.0", "d[y] * factor")]
    digests = [Template(np.multiply, rule, "reverse").digest for rule in rules]
    assert digests[0] == digests[3]            # the same code and defaults
    assert len(set(digests[:3])) == 3          # a new default or a new body is a new digest
