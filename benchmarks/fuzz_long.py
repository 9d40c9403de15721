"""Differential fuzzing of srcad on many random programs (a long run of tests/test_fuzz.py's check).

Usage::

    python benchmarks/fuzz_long.py --count 10000 [--start 0] [--minimise] [--show 5] [--top 5]
    python benchmarks/fuzz_long.py --count 1000 --census

Program ``k`` is drawn from ``random.Random(k)`` by ``tests/fuzz_programs.py``,
so any reported seed can be reproduced alone (``--start SEED --count 1``).
Each program is differentiated in reverse mode (``srcad.grad``/``srcad.vjp``)
and forward mode (``srcad.jvp``) and compared with central finite differences
in float64 and across modes; a program with a redefinition is checked again
after it, with the same derivatives and with new ones.  The summary gives the
count per outcome (ok; skipped, split by reason: f fails or is not finite,
a branch boundary, not smooth, a kink; unsupported construct; refused with AliasingError or
ComplexError, split into refusals by design (a call into another module that
changes its argument, a complex constant, lists joined with ``+`` in reverse
mode, where forward mode is still compared) and others; wrong; crash), the
count per form of ``tests/fuzz_recent.py`` and outcome, the time
per program, the most frequent refusal messages with names and numbers left
out, and every failing seed with its program (minimised with
``--minimise``).  The exit status is 1 when a program failed.  With
``--second-order``, each program whose first-order check passes and whose f
returns a scalar is checked at second order instead: ``srcad.jvp`` of its
``srcad.grad`` against differences of the gradient
(``tests/fuzz_second_order.py``; not minimised).  With
``--census`` nothing is checked: it prints, per construct of
``tests/fuzz_language.py``, ``tests/fuzz_calls.py`` and
``tests/fuzz_recent.py``, the share of the programs that use it
(``tests/fuzz_census.py``).  The disk cache
is off, so a run leaves nothing behind.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import time
from pathlib import Path

os.environ["SRCAD_CACHE"] = "0"
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import srcad.api  # noqa: E402
from fuzz_census import LABELS, census  # noqa: E402
from fuzz_check import check_program, describe, message_key, refusal_by_design  # noqa: E402
from fuzz_minimise import minimise  # noqa: E402
from fuzz_programs import ProgramGenerator, RandomChooser  # noqa: E402
from fuzz_second_order import check_second_order  # noqa: E402

FAILED = ("wrong", "crash")
STATUSES = ("ok", "skipped", "unsupported", "refused", "wrong", "crash")


def _skip_reason(detail: str) -> str:
    """Why a program was skipped, in a few words (f fails, not finite, a branch boundary, not smooth, a kink)."""
    text = detail.split(": ", 1)[-1] if detail.startswith("after the redefinition") else detail
    return text.split(":")[0][:60]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10000, help="number of programs (default 10000)")
    parser.add_argument("--start", type=int, default=0, help="seed of the first program")
    parser.add_argument("--minimise", action="store_true", help="shrink each failing program before showing it")
    parser.add_argument("--show", type=int, default=10, help="failing programs to print in full")
    parser.add_argument("--progress", type=int, default=500, help="print a progress line every N programs")
    parser.add_argument("--top", type=int, default=10, help="refusal and skip reasons to list (default 10)")
    parser.add_argument("--census", action="store_true", help="only count the programs using each construct")
    parser.add_argument("--second-order", action="store_true",
                        help="check Hessian-vector products (forward over reverse) against differences of the gradient")
    options = parser.parse_args(argv)
    check = check_second_order if options.second_order else check_program
    if options.census:
        return print_census(options.start, options.count)

    tally: collections.Counter = collections.Counter()
    failures = []
    refusals: collections.Counter = collections.Counter()
    skips: collections.Counter = collections.Counter()
    recent: collections.Counter = collections.Counter()   # (form of tests/fuzz_recent.py, outcome): programs
    began = time.perf_counter()
    for seed in range(options.start, options.start + options.count):
        program = ProgramGenerator(RandomChooser(random.Random(seed))).program()
        outcome = check(program, seed)
        tally[outcome.status] += 1
        if program.recent:
            recent[program.recent, outcome.status + (" (by design)" if refusal_by_design(outcome) else "")] += 1
        if outcome.status in FAILED:
            failures.append((seed, program, outcome))
        elif outcome.status in ("unsupported", "refused"):
            refusals[f"{outcome.status}: {message_key(outcome.detail)}"] += 1
            if refusal_by_design(outcome):
                tally["refused by design"] += 1
        elif outcome.status == "skipped":
            skips[_skip_reason(outcome.detail)] += 1
        done = seed - options.start + 1
        if options.progress and done % options.progress == 0:
            rate = done / (time.perf_counter() - began)
            print(f"{done} programs, {rate:.1f}/s: {dict(tally)}", file=sys.stderr, flush=True)
            srcad.api._MEMORY.clear()   # keep a long run's memory flat: these programs are never reused
    elapsed = time.perf_counter() - began

    total = sum(tally[status] for status in STATUSES)
    print(f"{total} programs in {elapsed:.0f} s ({total / elapsed:.1f} programs/s, "
          f"{1000 * elapsed / total:.0f} ms per program)")
    for status in STATUSES:
        print(f"  {status:12} {tally[status]:6d}")
        if status == "refused":
            print(f"    by design  {tally['refused by design']:6d}  (calls that change their argument in another "
                  f"module, complex constants; the unsupported .real/.imag reads and list joins are counted here too)")
    for (form, status), count in sorted(recent.items()):
        print(f"  recent form {form:13} {status:24} {count:5d}")
    for reason, count in skips.most_common(options.top):
        print(f"  skipped x{count}: {reason}")
    for message, count in refusals.most_common(options.top):
        print(f"  x{count} {message}")
    if failures:
        print(f"failing seeds: {[seed for seed, _, _ in failures]}")
    for seed, program, outcome in failures[:options.show]:
        if options.minimise and not options.second_order:
            program = minimise(program, seed)
            outcome = check_program(program, seed)
        print(f"\n--- seed {seed}\n{describe(program, outcome, seed)}")
    return 1 if failures else 0


def print_census(start: int, count: int) -> int:
    """Print the share of programs ``start`` to ``start + count - 1`` using each construct; nothing is checked."""
    seeds = range(start, start + count)
    counts = census(ProgramGenerator(RandomChooser(random.Random(seed))).program().source for seed in seeds)
    print(f"{counts['programs']} programs (seeds {start}-{start + count - 1}); share using each construct:")
    for key, label in LABELS.items():
        print(f"  {100.0 * counts[key] / counts['programs']:5.1f}%  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
