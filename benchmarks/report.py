"""The report of ``benchmarks/run.py``: the printed tables, plain or as Markdown for the README.

Contract:
- ``report(rows, peers, quick, markdown, threads, malloc_kept)`` returns the
  whole text ``run.py`` prints: a line noting the machine
  (``machine_note``), the table of grad/f ratios with srcad's targets, the
  table of absolute medians, srcad's overheads where measured, a sentence on
  how the peers run when one is installed, and numbered notes giving the
  reason of every cell without a time.  ``markdown`` gives Markdown tables
  ready for the README; else aligned plain-text tables.
- srcad's targets live here: ``TARGETS_REVERSE`` per problem (median grad/f),
  ``TARGET_FORWARD`` (one JVP over f), and the transform, disk-load and
  cached-call targets.  A timed srcad cell shows ✓ when it meets its target
  and ✗ when it misses it.
- ``progress_line(row)`` is the one-line summary of a row the driver logs
  while the run goes on; ``format_seconds`` writes a duration in µs, ms or s.
- It only formats: it measures nothing, and calls a peer only for its
  availability and version.
"""
from __future__ import annotations

import contextlib
import os
import platform
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

import srcad
from timing import SRCAD_COLUMNS, Row

# srcad's targets, median grad/f (issue [speed]; pool and matmul_loops: issue [kernels]); forward mode: one JVP
TARGETS_REVERSE = {"logistic": 5, "helmholtz_50": 4, "helmholtz_1000": 3, "rosenbrock": 3, "mlp": 2.5,
                   "rnn": 4, "gmm": 4, "lstm": 5, "pool": 3, "matmul_loops": 3}
TARGET_FORWARD = 3.0
TARGET_TRANSFORM_MS = 100.0
TARGET_CALL_US = 2.0
TARGET_LOAD_MS = 20.0


def machine_note(peers, threads: int, malloc_kept: bool) -> str:
    """CPU, cores, system, thread and malloc settings, and the versions of Python, NumPy, srcad and the peers."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = []
    for peer in peers:
        if peer.unavailable() is None:
            versions.append(f"{peer.distribution} {peer.version()}")
    peers_text = ", ".join(dict.fromkeys(versions)) or ("no peer installed" if peers else "no peers run")
    threads_text = f"{threads} thread per library" if threads == 1 else (
        f"{threads} threads per library" if threads else "libraries' default threads")
    if malloc_kept:
        threads_text += ", malloc keeps freed memory"
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()}, {threads_text}; Python {platform.python_version()}, "
            f"NumPy {np.__version__}, srcad {srcad.__version__}; {peers_text}")


def format_seconds(seconds: Optional[float]) -> str:
    """A duration in µs, ms or s; '-' for None."""
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def format_ratio(ratio: float) -> str:
    """A ratio with one decimal, none from 100 on."""
    return f"{ratio:.1f}" if ratio < 100 else f"{ratio:.0f}"


def cell_text(row: Row, column: str, absolute: bool = False) -> str:
    """A cell as shown: its ratio with ✓/✗ against its target (``absolute``: its seconds), or its status."""
    cell = row.cells.get(column)
    if cell is None:
        return "-"
    if cell.seconds is None:
        return cell.status
    if absolute:
        return format_seconds(cell.seconds)
    ratio = cell.ratio
    text = format_ratio(ratio)
    target = target_of(row.problem.name, column)
    if target is not None:
        text += " ✓" if ratio <= target else " ✗"
    return text


def target_of(problem: str, column: str) -> Optional[float]:
    """srcad's grad/f target for a problem's column; None for the peers' columns."""
    if column == "srcad rev":
        return TARGETS_REVERSE.get(problem)
    if column == "srcad fwd":
        return TARGET_FORWARD
    return None


def footnotes(rows: List[Row]) -> Tuple[Dict[Tuple[str, str], int], List[str]]:
    """A number per distinct reason a cell has no time, and the notes' lines."""
    numbers: Dict[str, int] = {}
    marks: Dict[Tuple[str, str], int] = {}
    for row in rows:
        for column, cell in row.cells.items():
            if cell.seconds is None and cell.reason:
                reason = f"{cell.status} ({column}): {cell.reason}"
                if cell.status == "n/a" and cell.reason.startswith("ModuleNotFoundError"):
                    reason = f"n/a ({column}): not installed ({cell.reason})"
                number = numbers.setdefault(reason, len(numbers) + 1)
                marks[(row.problem.name, column)] = number
    lines = [f"[{n}] {reason}" for reason, n in numbers.items()]
    return marks, lines


def table(headers: List[str], body: List[List[str]], markdown: bool) -> str:
    """A Markdown table, or a plain one with the first column left-aligned and the others right-aligned."""
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
              for cells in body]
    return "\n".join(lines)


def report(rows: List[Row], peers, quick: bool, markdown: bool, threads: int, malloc_kept: bool) -> str:
    """The whole printed text (see the module's contract)."""
    columns = list(SRCAD_COLUMNS) + [peer.name for peer in peers]
    marks, notes = footnotes(rows)

    def with_mark(row, column, text):
        number = marks.get((row.problem.name, column))
        return f"{text} [{number}]" if number else text

    ratio_body = []
    for row in rows:
        target = TARGETS_REVERSE.get(row.problem.name)
        ratio_body.append([row.problem.name, format_seconds(row.f_seconds)]
                          + [with_mark(row, c, cell_text(row, c)) for c in columns]
                          + [f"≤ {target:g} / ≤ {TARGET_FORWARD:g}" if target is not None else "-"])
    absolute_body = [[row.problem.name, format_seconds(row.f_seconds)]
                     + [with_mark(row, c, cell_text(row, c, absolute=True)) for c in columns] for row in rows]
    overhead_rows = [row for row in rows if row.overheads]
    overhead_body = []
    for row in overhead_rows:
        o = row.overheads
        overhead_body.append([
            row.problem.name,
            _with_target(o.get("first transform"), TARGET_TRANSFORM_MS * 1e-3),
            _with_target(o.get("disk load"), TARGET_LOAD_MS * 1e-3),
            format_seconds(o.get("rebuild rev")), format_seconds(o.get("rebuild fwd")),
            _with_target(o.get("call overhead"), TARGET_CALL_US * 1e-6),
        ])
    heading = "###" if markdown else "=="
    size = "quick (tiny) sizes" if quick else "full sizes"
    parts = [
        f"Machine: {machine_note(peers, threads, malloc_kept)}.",
        f"Medians over repeated calls, {size}; `python benchmarks/run.py` regenerates these tables."
        if markdown else f"Medians over repeated calls, {size}.",
        "",
        f"{heading} Gradient time / primal time (srcad targets: reverse / forward; ✓ met, ✗ missed)",
        "",
        table(["problem", "f (NumPy)"] + columns + ["target"], ratio_body, markdown),
        "",
        f"{heading} Absolute medians",
        "",
        table(["problem", "f (NumPy)"] + columns, absolute_body, markdown),
    ]
    if overhead_body:
        parts += [
            "",
            f"{heading} srcad overheads (reverse mode)",
            "",
            table(["problem", f"first transform (< {TARGET_TRANSFORM_MS:g} ms)",
                   f"disk-cache load, new process (< {TARGET_LOAD_MS:g} ms)",
                   "rebuild rev", "rebuild fwd", f"cached-call overhead (< {TARGET_CALL_US:g} µs)"],
                  overhead_body, markdown),
            "",
            "First transform and disk-cache load are measured in a new process, without its start-up and "
            "imports; rebuild is a transformation in this process with the disk cache off.",
        ]
    if any(peer.unavailable() is None for peer in peers):
        parts += ["", "Peers run the problems' own source with their NumPy (`autograd.numpy`, `jax.numpy`, torch "
                      "functions); autograd and jax run pool, matmul_loops and gmm without element stores "
                      "(nested lists, a gather), and jax runs lstm's time loop as `lax.scan` (see `benchmarks/peers.py`). Every "
                      "gradient is checked against finite differences and srcad before it is timed."]
    if notes:
        parts += ["", "Notes:", ""] + [("- " if markdown else "") + note for note in notes]
    return "\n".join(parts)


def _with_target(seconds: Optional[float], target: float) -> str:
    if seconds is None:
        return "-"
    return format_seconds(seconds) + (" ✓" if seconds <= target else " ✗")


def progress_line(row: Row) -> str:
    """One line on a problem just measured: f's median time and each column as the ratio table shows it."""
    return (f"{row.problem.name}: f {format_seconds(row.f_seconds)}; "
            + ", ".join(f"{name} {cell_text(row, name)}" for name in row.cells))
