"""The README's rule counts and table of rule families are the registry's, as ``benchmarks/rules_table.py`` renders them.

Contract:
- ``test_readme_rules_table_is_generated``: the block between the markers in
  README.md is exactly what ``python benchmarks/rules_table.py`` prints, run in
  a fresh interpreter (other tests register rules and declarations of their
  own); when it fails, run ``python benchmarks/rules_table.py --write`` and
  read the diff.
- ``test_table_counts_every_family_rule``: the table's per-family counts add
  up to the total it states, which is the number of functions with a rule
  defined in ``grad_templates/``, and the families it lists are the modules
  of ``grad_templates/`` that define rules.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

from srcad.templates import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import rules_table  # noqa: E402


def test_readme_rules_table_is_generated(tmp_path):
    block = rules_table.readme_block((ROOT / "README.md").read_text())
    assert block, "README.md lost the markers of the rules table"
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    fresh = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rules_table.py")], cwd=str(tmp_path), env=env,
                           capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    assert block == fresh.stdout, (
        "README.md's rules table is out of date: run `python benchmarks/rules_table.py --write`")


def test_table_counts_every_family_rule():
    text = rules_table.render()
    total = int(re.search(r"counts (\d+) functions with rules", text).group(1))
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \|", text, re.MULTILINE)
    assert sum(int(count) for _, count in rows) == total
    rules = [t for mode in ("reverse", "forward") for t in REGISTRY.rules[mode].values()
             if t.rule.__module__.startswith("grad_templates.")]
    assert total == len({rules_table.display_name(t.primal) for t in rules})
    assert {family for family, _ in rows} == {t.rule.__module__.split(".", 1)[1] for t in rules}
