"""The benchmark's plumbing, not its timings: the report's tables and the README writer of ``benchmarks/``.

Contract:
- ``report.py``: the worst cell over a problem's formulations is a failed
  one (``WRONG``, ``error``, ``unsupported``) if any, else the largest
  ratio, and names its formulation; a ratio exactly at its target is met
  (✓), above it missed (✗); the overheads table shows the worst value over
  a problem's formulations; every formulation gets a row of its own, the
  peers' tables only the originals.  Checked on made-up rows, so no timing
  is involved.
- ``readme_section.py`` replaces exactly the lines between its two markers,
  keeps everything else byte for byte, and refuses (``ValueError``, nothing
  written) a text without both markers once each, in order; the README has
  them.
- ``run.py --readme PATH`` writes the tables into a copy of the README, and
  refuses a README without the markers before measuring anything;
  ``--problems`` takes a single formulation and refuses unknown names.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import report  # noqa: E402
from formulations import EVERY_FUNCTION, formulations_of  # noqa: E402
from readme_section import BEGIN, END, replace_section, write_readme  # noqa: E402
from timing import Cell, Row  # noqa: E402


def _row(name, f_seconds=1e-3, rev=None, fwd=2.0, status="", overheads=None):
    """A made-up row for ``EVERY_FUNCTION[name]``: ratios (or a status for reverse mode) and overheads."""
    row = Row(EVERY_FUNCTION[name], f_seconds=f_seconds, overheads=dict(overheads or {}))
    row.cells["srcad rev"] = (Cell(status=status, reason="made up") if status
                              else Cell(seconds=rev * f_seconds, ratio=rev))
    row.cells["srcad fwd"] = Cell(seconds=fwd * f_seconds, ratio=fwd)
    return row


def _rnn_rows(original=2.0, dot=5.8, einsum=1.5, status=""):
    return [_row("rnn", rev=original), _row("rnn/dot", rev=dot, status=status), _row("rnn/einsum", rev=einsum),
            _row("rnn/zip", rev=1.0)]


def test_the_worst_formulation_is_the_largest_ratio_named():
    assert report.worst_text(_rnn_rows(), "srcad rev") == "5.8 ✗ (dot)"
    assert report.worst_text(_rnn_rows(original=6.0), "srcad rev") == "6.0 ✗ (original)"
    assert report.worst_text(_rnn_rows(), "srcad fwd").endswith("(original)")   # all equal: the first


def test_a_failed_formulation_is_worse_than_any_ratio():
    assert report.worst_text(_rnn_rows(status="WRONG"), "srcad rev") == "WRONG (dot)"


def test_a_single_formulation_has_no_worst():
    assert report.worst_text([_row("rnn", rev=2.0)], "srcad rev") == "-"


@pytest.mark.parametrize("ratio, mark", [(report.TARGET_REVERSE, "✓"), (report.TARGET_REVERSE + 0.01, "✗"),
                                         (0.5, "✓")])
def test_a_ratio_at_its_target_meets_it(ratio, mark):
    assert report.cell_text(_row("rnn", rev=ratio), "srcad rev").endswith(mark)


def test_targets_are_the_issues():
    assert (report.TARGET_REVERSE, report.TARGET_FORWARD) == (3.0, 2.5)
    assert (report.TARGET_TRANSFORM_MS, report.TARGET_LOAD_MS, report.TARGET_CALL_US) == (100.0, 10.0, 1.5)


def test_overheads_show_the_worst_formulation():
    rows = _rnn_rows()
    for row, load in zip(rows, [0.004, 0.012, 0.006, 0.005]):
        row.overheads.update({"first transform": 0.03, "disk load": load, "call overhead": 1e-6})
    text = report._overhead_cell(rows, "disk load", report.TARGET_LOAD_MS * 1e-3)
    assert text == "12.00 ms ✗ (dot)"
    assert report._overhead_cell(rows, "rebuild rev", None) == "-"


def test_the_report_has_a_row_per_formulation_and_peers_only_for_originals():
    rows = _rnn_rows() + [_row("pool", rev=2.0)] + [_row(p.name, rev=1.0) for p in formulations_of("pool")[1:]]
    text = report.report(rows, [], quick=True, markdown=True, threads=1, malloc_kept=False)
    lines = text.splitlines()
    for row in rows:
        assert sum(line.startswith(f"| {row.problem.name} |") for line in lines) == (3 if "/" not in row.problem.name
                                                                                      else 1), row.problem.name
    ratio_row = next(line for line in lines if line.startswith("| rnn |"))
    assert "5.8 ✗ (dot)" in ratio_row and "≤ 3 / ≤ 2.5" in ratio_row


def test_replace_section_keeps_everything_outside_the_markers():
    text = f"# title\n\nbefore\n{BEGIN}\nold table\nmore\n{END}\nafter\n"
    replaced = replace_section(text, "| new |\n")
    assert replaced == f"# title\n\nbefore\n{BEGIN}\n| new |\n{END}\nafter\n"
    assert replace_section(replaced, "| new |") == replaced   # idempotent


@pytest.mark.parametrize("text", ["no markers\n", f"{BEGIN}\nonly the first\n", f"{END}\n{BEGIN}\n",
                                  f"{BEGIN}\n{BEGIN}\n{END}\n"])
def test_replace_section_refuses_a_text_without_its_markers(text, tmp_path):
    with pytest.raises(ValueError, match="README"):
        replace_section(text, "x")
    path = tmp_path / "README.md"
    path.write_text(text)
    with pytest.raises(ValueError):
        write_readme(path, "x")
    assert path.read_text() == text


def test_the_readme_has_the_markers_once_each():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1 and text.index(BEGIN) < text.index(END)
    assert "srcad rev" in text[text.index(BEGIN):text.index(END)]


def _run(*arguments, timeout=300):
    return subprocess.run([sys.executable, str(BENCHMARKS / "run.py"), *arguments],
                          capture_output=True, text=True, timeout=timeout)


def test_run_readme_writes_the_tables_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    original = (REPO / "README.md").read_text(encoding="utf-8")
    readme.write_text(original, encoding="utf-8")
    result = _run("--quick", "--peers", "none", "--no-overheads", "--problems", "logistic", "--readme", str(readme))
    assert result.returncode == 0, result.stderr
    written = readme.read_text(encoding="utf-8")
    assert written.split(BEGIN)[0] == original.split(BEGIN)[0]
    assert written.split(END)[1] == original.split(END)[1]
    inside = written[written.index(BEGIN):written.index(END)]
    assert "Machine: " in inside and "NumPy " + np.__version__ in inside
    for problem in formulations_of("logistic"):
        assert f"| {problem.name} |" in inside


def test_run_takes_a_single_formulation_and_refuses_unknown_names():
    result = _run("--quick", "--peers", "none", "--no-overheads", "--problems", "rnn/dot")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("rnn/dot ") for line in lines)
    assert not any(line.startswith(("rnn ", "rnn/zip ")) for line in lines)
    refused = _run("--quick", "--problems", "rnn/nonesuch")
    assert refused.returncode == 2 and "rnn/nonesuch" in refused.stderr


def test_run_refuses_a_readme_without_markers_before_running(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no tables here\n", encoding="utf-8")
    refused = _run("--quick", "--peers", "none", "--problems", "rosenbrock", "--readme", str(readme), timeout=60)
    assert refused.returncode == 2 and "exactly once" in refused.stderr and "rosenbrock:" not in refused.stderr
    assert readme.read_text(encoding="utf-8") == "# no tables here\n"
