"""Minimising a failing generated program (benchmarks/fuzz_long.py --minimise).

Contract: ``minimise(program, seed)`` drops statements and blocks of
``program`` (tests/fuzz_programs.py) while ``fuzz_check.check_program`` still
gives the same failure (same status, and for a crash the same exception
type), and returns the shorter program; a program that does not fail comes
back unchanged.  A ``while`` loop's counter update is never dropped (the
loop would not end).

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> program = ProgramGenerator(RandomChooser(random.Random(0))).program()
    >>> minimise(program, seed=0).source == program.source   # doctest: +SKIP
    True
"""
from __future__ import annotations

import dataclasses
from typing import List, Tuple

from fuzz_check import Outcome, check_program
from fuzz_programs import Program


def _block_end(lines: List[str], start: int) -> int:
    """The index after the statement starting at ``start`` (its indented body included)."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    return end


def _is_loop_counter(line: str) -> bool:
    """A ``while`` loop's counter update: dropping it would make the loop endless."""
    words = line.split()
    return len(words) == 5 and words[0].startswith("k") and words[1:4] == ["=", words[0], "+"]


def _signature(outcome: Outcome) -> Tuple[str, str]:
    """What must stay the same while minimising: the status and the last line of a crash."""
    lines = outcome.detail.strip().splitlines()
    return outcome.status, (lines[-1].split(":")[0] if outcome.status == "crash" and lines else "")


def minimise(program: Program, seed: int, budget: int = 400) -> Program:
    """A shorter program failing the same way: statements and blocks are dropped while it still does."""
    target = _signature(check_program(program, seed))
    if target[0] == "ok":
        return program
    lines = program.source.splitlines()
    attempts = 0
    changed = True
    while changed and attempts < budget:
        changed = False
        for start in range(len(lines) - 1, -1, -1):
            if start >= len(lines) or attempts >= budget:
                continue
            if not lines[start].startswith((" ", "def helper")) or _is_loop_counter(lines[start]):
                continue
            for end in sorted({start + 1, _block_end(lines, start)}, reverse=True):
                candidate = lines[:start] + lines[end:]
                text = "\n".join(candidate) + "\n"
                try:
                    compile(text, "<candidate>", "exec")
                except SyntaxError:
                    continue
                attempts += 1
                trial = dataclasses.replace(program, source=text)
                try:
                    outcome = check_program(trial, seed)
                except Exception:   # noqa: BLE001 -- a candidate that f itself cannot run
                    continue
                if _signature(outcome) == target:
                    lines, changed = candidate, True
                    break
    return dataclasses.replace(program, source="\n".join(lines) + "\n")
