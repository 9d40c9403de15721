"""Time srcad's gradients against the NumPy primal and against other AD tools.

Run ``python benchmarks/run.py [--quick] [--problems a,b/c] [--originals] [--peers p,q] [--markdown]
[--readme [PATH]]``.

Contract:
- For every problem of ``benchmarks/problems.py`` and every other
  formulation of it (``benchmarks/formulations.py``; ``--originals``: none)
  it times, in this one process and on the same inputs: the NumPy primal
  ``f``; srcad's reverse mode gradient (``srcad.grad(f, wrt=...)``); srcad's forward mode, one JVP
  with a random tangent per ``wrt`` parameter
  (``srcad.autodiff(f, wrt=..., mode='forward')``); and, for the original
  formulation, the gradient from every peer of ``benchmarks/peers.py`` that
  imports (autograd, jax eager, ``jax.jit``, torch eager, tangent-ad).
  ``--problems`` takes problem names (each with its formulations) and
  single formulations (``rnn/dot``).  Each callable runs in a loop long
  enough to time (at least 50 ms), once per round, for 7 rounds (at least 3,
  fewer for calls over half a second; ``--quick``: tiny sizes, 3 short
  rounds), every callable of a problem in each round, with Python's garbage
  collector on, as a program runs.  A ratio is the median over rounds of
  grad time / f time in the same round, so a change in the machine's load
  affects both alike; absolute times are medians over rounds.
- Nothing is timed before it is checked.  Every gradient is compared with a
  central finite difference of ``f`` along a random direction; the peers and
  srcad's forward mode are then compared with a reference gradient (srcad's
  reverse mode if it passes, else the first peer that does) to 1e-6
  relative.  A failed check shows ``WRONG`` (srcad) or ``mismatch`` (peer) in
  the table instead of a time, and the exit status is 1 (also when srcad's
  derivative crashes).
- A problem srcad cannot differentiate yet shows ``unsupported`` (a
  ``srcad.SrcadError``), one whose derivative crashes shows ``error``, each
  with the error's class and message in a footnote; a peer that is not
  installed or cannot run a problem shows ``n/a`` with its reason.  The run goes on.
- It prints (``report.py``): the table of grad/f ratios with srcad's
  targets (from the issue) and the worst formulation of each problem, the
  ratios of every formulation, the table of absolute medians, and srcad's
  overheads per problem (the worst over its formulations):
  the transformation in a new process with an empty disk cache ("first
  transform"), the time a new process takes to load the derivative from the
  disk cache, the transformation in this process with the disk cache off
  and templates already parsed ("rebuild"), and the cost of a cached call
  (the ``srcad.grad`` object calling a no-op instead of the generated
  function, minus calling the no-op).  A first line notes the machine: CPU
  model, cores, Python, NumPy, srcad and peer versions.
- Every library runs on one thread (BLAS, OpenMP, XLA), set before they
  are imported: on a 2-core machine the idle, spinning thread pools of one
  library otherwise slow down the next one timed in the same process.
  ``--threads N`` sets N; ``--threads 0`` keeps the libraries' defaults.
- On Linux, glibc's malloc is told to keep freed memory (``mallopt``: mmap
  threshold 32 MB, trim threshold 1 GB), so large temporaries do not pay
  page faults on some calls and not others; ``--default-malloc`` skips it.
- ``--markdown`` prints the same as Markdown tables, ready for the README;
  ``--readme`` also writes them into ``README.md`` (or ``PATH``) between
  its two benchmark-table markers (``readme_section.py``), in place.
- It asserts nothing about speed and writes nothing but a temporary cache
  directory, removed at the end, and the README when asked.

Modules: ``problems.py`` (the problems), ``formulations.py`` (their other
spellings), ``checks.py`` (the correctness checks), ``timing.py`` (checking
then timing one problem), ``overheads.py`` (srcad's own costs), ``peers.py``
(the other AD tools), ``report.py`` (the tables), ``readme_section.py`` (the
README's copy); this file reads the options, runs them in order and prints.

Example::

    $ python benchmarks/run.py --quick --problems rosenbrock,logistic/np
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def _threads_argument(argv: Sequence[str]) -> int:
    """The ``--threads`` value, read before NumPy and the peers are imported (their pools read it then)."""
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--threads=") else (
            argv[i + 1] if arg == "--threads" and i + 1 < len(argv) else None)
        if value is not None:
            try:
                return max(0, int(value))
            except ValueError:
                return 1
    return 1


# set before the modules below import NumPy, srcad and the peers
THREADS = _threads_argument(sys.argv[1:]) if __name__ == "__main__" else 0
if THREADS:
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[_variable] = str(THREADS)
    if THREADS == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                   + " --xla_cpu_multi_thread_eigen=false").strip()

from formulations import EVERY_FUNCTION, formulations_of  # noqa: E402
from overheads import environment, measure_overheads  # noqa: E402
from problems import PROBLEMS  # noqa: E402
from readme_section import replace_section, write_readme  # noqa: E402
from report import progress_line, report  # noqa: E402
from timing import SRCAD_COLUMNS, run_problem, steady_allocator  # noqa: E402


def main(argv: Optional[List[str]] = None) -> int:
    """Run the benchmark as the command line ``argv`` says and print the report; 1 if a gradient was wrong."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats (a smoke test)")
    parser.add_argument("--problems", help=f"comma-separated problems (each with its formulations) or single "
                                           f"formulations like rnn/dot; problems: {', '.join(PROBLEMS)}")
    parser.add_argument("--originals", action="store_true", help="only the problems as problems.py writes them")
    parser.add_argument("--peers", help="comma-separated subset of the peers, or 'none'")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables for the README")
    parser.add_argument("--readme", nargs="?", const=str(HERE.parent / "README.md"), metavar="PATH",
                        help="also write the Markdown tables into the README (default README.md) between its "
                             "benchmark-table markers")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per library (BLAS, OpenMP, XLA); 0 keeps the libraries' defaults "
                             "(default 1: on a small machine, idle pools of one library slow the others)")
    parser.add_argument("--default-malloc", action="store_true",
                        help="leave glibc's malloc thresholds alone (timings of large arrays then vary)")
    parser.add_argument("--no-overheads", action="store_true",
                        help="skip the transform, disk-cache and call-overhead measurements")
    options = parser.parse_args(argv)

    names = list(PROBLEMS) if not options.problems else [n.strip() for n in options.problems.split(",") if n.strip()]
    unknown = [n for n in names if n not in EVERY_FUNCTION]
    if unknown:
        parser.error(f"unknown problem(s) {', '.join(unknown)}; choose from {', '.join(EVERY_FUNCTION)}")
    if options.readme:   # refuse a README without the markers now, not after the run
        try:
            replace_section(Path(options.readme).read_text(encoding="utf-8"), "")
        except (OSError, ValueError) as error:
            parser.error(f"--readme {options.readme}: {error}")
    functions = []
    for name in names:
        chosen = formulations_of(name) if name in PROBLEMS and not options.originals else [EVERY_FUNCTION[name]]
        functions += [p for p in chosen if p not in functions]
    import peers as peers_module
    peers = list(peers_module.PEERS)
    if options.peers:
        wanted = [] if options.peers.strip() == "none" else [p.strip() for p in options.peers.split(",")]
        known = [peer.name for peer in peers]
        if any(p not in known for p in wanted):
            parser.error(f"unknown peer in {options.peers!r}; choose from {', '.join(known)} or 'none'")
        peers = [peer for peer in peers if peer.name in wanted]

    def log(message):
        print(message, file=sys.stderr, flush=True)

    malloc_kept = not options.default_malloc and steady_allocator()

    rows = []
    with tempfile.TemporaryDirectory(prefix="srcad-bench-") as tmp:
        with environment(SRCAD_CACHE_DIR=str(Path(tmp) / "this-process")):
            for problem in functions:
                rows.append(run_problem(problem, peers if problem.name in PROBLEMS else [], options.quick))
                log(progress_line(rows[-1]))
            if not options.no_overheads:
                for row in rows:
                    measure_overheads(row, Path(tmp) / "new-process", options.quick)
    print(report(rows, peers, options.quick, options.markdown, THREADS, malloc_kept))
    if options.readme:
        write_readme(Path(options.readme), report(rows, peers, options.quick, True, THREADS, malloc_kept))
        log(f"wrote the tables into {options.readme}")
    wrong = any(cell.status in ("WRONG", "mismatch") or (cell.status == "error" and column in SRCAD_COLUMNS)
                for row in rows for column, cell in row.cells.items())
    return 1 if wrong else 0


if __name__ == "__main__":
    gc.enable()
    sys.exit(main())
