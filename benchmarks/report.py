"""The report of ``benchmarks/run.py``: the printed tables, plain or as Markdown for the README.

Contract:
- ``report(rows, peers, quick, markdown, threads, malloc_kept)`` returns the
  whole text ``run.py`` prints, from one ``Row`` per function measured (a
  problem's original formulation, named like ``"rnn"``, followed by its other
  formulations, ``"rnn/dot"``, which have no peers' cells): a line noting the
  machine (``machine_note``); the table of grad/f ratios of the originals,
  with the worst ratio over each problem's formulations, the peers and the
  targets; the ratios of every formulation; the absolute medians of the
  originals; srcad's overheads where measured, each the worst over the
  problem's formulations; a sentence on how the peers run when one is
  installed; and numbered notes giving the reason of every cell without a
  time.  ``markdown`` gives Markdown tables ready for the README; else
  aligned plain-text tables.
- srcad's targets live here, the same for every problem and formulation:
  ``TARGET_REVERSE`` (median grad/f), ``TARGET_FORWARD`` (one JVP over f),
  and the transform, disk-load and cached-call targets.  A timed srcad cell
  shows ✓ when it meets its target and ✗ when it misses it.
- ``progress_line(row)`` is the one-line summary of a row the driver logs
  while the run goes on; ``format_seconds`` writes a duration in µs, ms or s.
- It only formats: it measures nothing, and calls a peer only for its
  availability and version.

Example::

    >>> format_seconds(0.0123)
    '12.30 ms'
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

# srcad's targets (issue [speed]), the same for every problem and formulation: median grad/f in reverse mode,
# one JVP over f in forward mode; the first transformation, the load from the disk cache in a new process,
# and what a cached call adds
TARGET_REVERSE = 3.0
TARGET_FORWARD = 2.5
TARGET_TRANSFORM_MS = 100.0
TARGET_LOAD_MS = 10.0
TARGET_CALL_US = 1.5


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
    """A ratio with one decimal (two below 0.1, so it never reads 0.0), none from 100 on."""
    if ratio < 0.1:
        return f"{ratio:.2f}"
    return f"{ratio:.1f}" if ratio < 100 else f"{ratio:.0f}"


def base_name(name: str) -> str:
    """The problem a formulation's name belongs to: ``"rnn/dot"`` -> ``"rnn"``."""
    return name.split("/")[0]


def formulation_label(name: str) -> str:
    """How a worst cell names its formulation: the part after the slash, or ``original``."""
    return name.split("/", 1)[1] if "/" in name else "original"


def cell_text(row: Row, column: str, absolute: bool = False) -> str:
    """A cell as shown: its ratio with ✓/✗ against its target (``absolute``: its seconds), or its status."""
    cell = row.cells.get(column)
    if cell is None:
        return "-"
    if cell.seconds is None:
        return cell.status
    if absolute:
        return format_seconds(cell.seconds)
    text = format_ratio(cell.ratio)
    target = target_of(column)
    if target is not None:
        text += " ✓" if cell.ratio <= target else " ✗"
    return text


def target_of(column: str) -> Optional[float]:
    """srcad's grad/f target for a column (the same for every problem); None for the peers' columns."""
    return {"srcad rev": TARGET_REVERSE, "srcad fwd": TARGET_FORWARD}.get(column)


def worst_text(group: List[Row], column: str) -> str:
    """The worst srcad cell of a problem's formulations and which one it is; '-' for a single formulation.

    A cell without a time (``WRONG``, ``error``, ``unsupported``) is worse than any ratio.
    """
    if len(group) < 2:
        return "-"
    failed = [row for row in group if row.cells.get(column) is not None and row.cells[column].seconds is None]
    timed = [row for row in group if row.ratio(column) is not None]
    if failed:
        worst = failed[0]
    elif timed:
        worst = max(timed, key=lambda row: row.ratio(column))
    else:
        return "-"
    return f"{cell_text(worst, column)} ({formulation_label(worst.problem.name)})"


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


def groups(rows: List[Row]) -> Dict[str, List[Row]]:
    """The rows of each problem, original first, in the run's order."""
    grouped: Dict[str, List[Row]] = {}
    for row in rows:
        grouped.setdefault(base_name(row.problem.name), []).append(row)
    return grouped


def _overhead_cell(group: List[Row], key: str, target: Optional[float]) -> str:
    """The largest overhead ``key`` over a problem's formulations, its mark, and which formulation."""
    measured = [row for row in group if row.overheads.get(key) is not None]
    if not measured:
        return "-"
    worst = max(measured, key=lambda row: row.overheads[key])
    seconds = worst.overheads[key]
    text = format_seconds(seconds)
    if target is not None:
        text += " ✓" if seconds <= target else " ✗"
    return text + (f" ({formulation_label(worst.problem.name)})" if len(group) > 1 else "")


def report(rows: List[Row], peers, quick: bool, markdown: bool, threads: int, malloc_kept: bool) -> str:
    """The whole printed text (see the module's contract)."""
    columns = list(SRCAD_COLUMNS) + [peer.name for peer in peers]
    marks, notes = footnotes(rows)
    grouped = groups(rows)
    originals = [group[0] for group in grouped.values()]

    def with_mark(row, column, text):
        number = marks.get((row.problem.name, column))
        return f"{text} [{number}]" if number else text

    def srcad_cells(row):
        return [with_mark(row, c, cell_text(row, c)) for c in SRCAD_COLUMNS]

    targets = f"≤ {TARGET_REVERSE:g} / ≤ {TARGET_FORWARD:g}"
    ratio_body = [[row.problem.name, format_seconds(row.f_seconds)] + srcad_cells(row)
                  + [worst_text(group, c) for c in SRCAD_COLUMNS]
                  + [with_mark(row, peer.name, cell_text(row, peer.name)) for peer in peers] + [targets]
                  for row, group in zip(originals, grouped.values())]
    formulation_body = [[row.problem.name, "original" if row is group[0] else row.problem.description,
                         format_seconds(row.f_seconds)] + srcad_cells(row)
                        for group in grouped.values() for row in group]
    absolute_body = [[row.problem.name, format_seconds(row.f_seconds)]
                     + [with_mark(row, c, cell_text(row, c, absolute=True)) for c in columns] for row in originals]
    overhead_body = [[name,
                      _overhead_cell(group, "first transform", TARGET_TRANSFORM_MS * 1e-3),
                      _overhead_cell(group, "disk load", TARGET_LOAD_MS * 1e-3),
                      _overhead_cell(group, "rebuild rev", None), _overhead_cell(group, "rebuild fwd", None),
                      _overhead_cell(group, "call overhead", TARGET_CALL_US * 1e-6)]
                     for name, group in grouped.items() if any(row.overheads for row in group)]
    heading = "###" if markdown else "=="
    size = "quick (tiny) sizes" if quick else "full sizes"
    parts = [
        f"Machine: {machine_note(peers, threads, malloc_kept)}.",
        f"Medians over repeated calls, {size}; `python benchmarks/run.py --readme` regenerates these tables."
        if markdown else f"Medians over repeated calls, {size}.",
        "",
        f"{heading} Gradient time / primal time (srcad targets: reverse {targets.split(' / ')[0]}, "
        f"forward {targets.split(' / ')[1]} on every formulation; ✓ met, ✗ missed)",
        "",
        table(["problem", "f (NumPy)"] + list(SRCAD_COLUMNS) + ["worst rev", "worst fwd"]
              + [peer.name for peer in peers] + ["target"], ratio_body, markdown),
        "",
        "Worst rev / fwd: the largest ratio over the problem's formulations (next table) and which one it is. "
        "Peers run the original formulation.",
        "",
        f"{heading} srcad on every formulation (grad time / primal time of the same formulation)",
        "",
        table(["formulation", "spelling", "f (NumPy)"] + list(SRCAD_COLUMNS), formulation_body, markdown),
        "",
        f"{heading} Absolute medians",
        "",
        table(["problem", "f (NumPy)"] + columns, absolute_body, markdown),
    ]
    if overhead_body:
        parts += [
            "",
            f"{heading} srcad overheads (reverse mode; the worst over each problem's formulations)",
            "",
            table(["problem", f"first transform (≤ {TARGET_TRANSFORM_MS:g} ms)",
                   f"disk-cache load, new process (≤ {TARGET_LOAD_MS:g} ms)",
                   "rebuild rev", "rebuild fwd", f"cached-call overhead (≤ {TARGET_CALL_US:g} µs)"],
                  overhead_body, markdown),
            "",
            "First transform and disk-cache load are measured in a new process, without its start-up and "
            "imports; rebuild is a transformation in this process with the disk cache off.",
        ]
    if any(peer.unavailable() is None for peer in peers):
        parts += ["", "Peers run the problems' own source with their NumPy (`autograd.numpy`, `jax.numpy`, torch "
                      "functions); autograd and jax run pool, matmul_loops and gmm without element stores "
                      "(nested lists, a gather), autograd runs conv so too; jax runs lstm's and heat's time "
                      "loops as `lax.scan` and `lax.fori_loop`, and conv as `lax.conv`, as a jax user writes "
                      "them (see `benchmarks/peers.py`). Every "
                      "gradient is checked against finite differences and srcad before it is timed."]
    if notes:
        parts += ["", "Notes:", ""] + [("- " if markdown else "") + note for note in notes]
    return "\n".join(parts)


def progress_line(row: Row) -> str:
    """One line on a function just measured: f's median time and each column as the ratio table shows it."""
    return (f"{row.problem.name}: f {format_seconds(row.f_seconds)}; "
            + ", ".join(f"{name} {cell_text(row, name)}" for name in row.cells))
