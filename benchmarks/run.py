"""Time srcad's gradients against the NumPy primal and against other AD tools.

Run ``python benchmarks/run.py [--quick] [--problems a,b] [--peers p,q] [--markdown]``.

Contract:
- For every problem of ``benchmarks/problems.py`` it times, in this one
  process and on the same inputs: the NumPy primal ``f``; srcad's reverse
  mode gradient (``srcad.grad(f, wrt=...)``); srcad's forward mode, one JVP
  with a random tangent per ``wrt`` parameter
  (``srcad.autodiff(f, wrt=..., mode='forward')``); and the gradient from
  every peer of ``benchmarks/peers.py`` that imports (autograd, jax eager,
  ``jax.jit``, torch eager, tangent-ad).  Each callable runs in a loop long
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
  with the error's class and message in a footnote; a peer that is not installed or
  cannot run a problem shows ``n/a`` with its reason.  The run goes on.
- It prints: the table of grad/f ratios with srcad's targets (from the
  issue), the table of absolute medians, and srcad's overheads per problem:
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
- ``--markdown`` prints the same as Markdown tables, ready for the README.
- It asserts nothing about speed and writes nothing but a temporary cache
  directory, removed at the end.

Example::

    $ python benchmarks/run.py --quick --problems rosenbrock,logistic
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


THREADS = _threads_argument(sys.argv[1:]) if __name__ == "__main__" else 0
if THREADS:
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[_variable] = str(THREADS)
    if THREADS == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                   + " --xla_cpu_multi_thread_eigen=false").strip()

import numpy as np  # noqa: E402

import srcad  # noqa: E402
import srcad.api  # noqa: E402
from problems import PROBLEMS, Problem  # noqa: E402

# srcad's targets, median grad/f (issue [speed]; pool and matmul_loops: issue [kernels]); forward mode: one JVP
TARGETS_REVERSE = {"logistic": 5, "helmholtz_50": 4, "helmholtz_1000": 3, "rosenbrock": 3, "mlp": 2.5,
                   "rnn": 4, "gmm": 4, "lstm": 5, "pool": 3, "matmul_loops": 3}
TARGET_FORWARD = 3.0
TARGET_TRANSFORM_MS = 100.0
TARGET_CALL_US = 2.0
TARGET_LOAD_MS = 20.0

FD_STEP = 1e-6      # relative step of the finite-difference check
FD_RTOL = 1e-4      # finite differences against a directional derivative
AGREE_RTOL = 1e-6   # two AD gradients of the same function

SRCAD_COLUMNS = ("srcad rev", "srcad fwd")


# --------------------------------------------------------------------------
# timing


@dataclass
class Timed:
    """One callable being timed: its loop length and its per-call seconds, one per round."""
    call: Callable[[], Any]
    number: int = 1
    rounds: int = 7
    samples: List[float] = field(default_factory=list)


def calibrate(call: Callable[[], Any], quick: bool) -> Timed:
    """Warm ``call`` up and pick a loop length that takes at least one repeat's worth of time."""
    per_repeat = 0.002 if quick else 0.05
    budget = 0.05 if quick else 4.0           # seconds of repeats for one callable, roughly
    call()                                     # warm-up (caches, lazy imports, jit)
    number = 1
    while True:
        elapsed = _loop(call, number)
        if elapsed >= per_repeat:
            break
        number = max(number + 1, int(number * 1.5 * per_repeat / max(elapsed, 1e-9)))
    rounds = 3 if quick else max(3, min(7, int(budget / elapsed)))
    return Timed(call, number, rounds, [elapsed / number])


def time_rounds(timed: Dict[str, Timed]) -> None:
    """Time every callable once per round, round after round, so a change of machine load hits all alike."""
    for round_index in range(1, max(t.rounds for t in timed.values())):
        for item in timed.values():
            if round_index < item.rounds:
                item.samples.append(_loop(item.call, item.number) / item.number)


def median_ratio(item: Timed, primal: Timed) -> float:
    """Median over rounds of the callable's time over the primal's time in the same round."""
    return statistics.median(s / f for s, f in zip(item.samples, primal.samples))


def _loop(call, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        call()
    return time.perf_counter() - start


# --------------------------------------------------------------------------
# checking


def _directions(problem: Problem, args, rng) -> List[Any]:
    """A random direction per wrt argument, shaped like it (a float for a float)."""
    out = []
    for position in problem.wrt_positions():
        value = args[position]
        out.append(float(rng.normal()) if np.ndim(value) == 0 else rng.normal(size=np.shape(value)))
    return out


def finite_difference(problem: Problem, args, directions) -> float:
    """Central finite difference of ``f`` along ``directions``."""
    positions = problem.wrt_positions()
    scale = max([1.0] + [float(np.max(np.abs(args[p]))) for p in positions])
    step = FD_STEP * scale

    def at(sign):
        moved = list(args)
        for position, direction in zip(positions, directions):
            moved[position] = args[position] + sign * step * direction
        return float(problem.function(*moved))
    return (at(1.0) - at(-1.0)) / (2.0 * step)


def directional(gradient: Sequence, directions) -> float:
    return float(sum(np.sum(np.asarray(g) * d) for g, d in zip(gradient, directions)))


def close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-12)


def same_gradient(gradient: Sequence, reference: Sequence) -> Optional[str]:
    """None when the gradients agree to AGREE_RTOL, else the worst relative difference."""
    worst = 0.0
    for g, r in zip(gradient, reference):
        g, r = np.asarray(g, dtype=float), np.asarray(r, dtype=float)
        if g.shape != r.shape:
            return f"shape {g.shape} != {r.shape}"
        scale = max(float(np.max(np.abs(r))) if r.size else 0.0, 1e-300)
        worst = max(worst, float(np.max(np.abs(g - r))) / scale if r.size else 0.0)
    return None if worst <= AGREE_RTOL else f"max |diff| / max |ref| = {worst:.1e}"


def error_summary(error: BaseException) -> str:
    """The error's class, message line and innermost place in the user's code, on one line."""
    text = str(error)
    place, message = "", ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or line[0].isspace() or not any(c.isalnum() for c in stripped):
            continue
        head = stripped.rsplit(":", 2)
        if len(head) == 3 and head[1].isdigit() and head[2].isdigit():
            place = f"{os.path.basename(head[0])}:{head[1]}"
            continue
        if stripped.startswith("while differentiating"):
            inner = stripped.rsplit(": ", 1)[-1].rsplit(":", 2)
            if len(inner) == 3:
                place = f"{os.path.basename(inner[0])}:{inner[1]}"
            continue
        if stripped in ("Tangent Error",):            # tangent-ad's banner
            continue
        message = stripped
        break
    if len(message) > 200:
        message = message[:197] + "..."
    return f"{type(error).__name__}: {message}" + (f" ({place})" if place else "")


def failure_status(error: BaseException) -> str:
    """'unsupported' for srcad's own report that it cannot do something; 'error' for a crash."""
    return "unsupported" if isinstance(error, srcad.SrcadError) else "error"


# --------------------------------------------------------------------------
# one problem


@dataclass
class Cell:
    seconds: Optional[float] = None
    ratio: Optional[float] = None   # median over rounds of seconds / f's seconds
    status: str = ""          # "" when timed; else "unsupported", "n/a", "WRONG", "mismatch"
    reason: str = ""
    setup_seconds: Optional[float] = None


@dataclass
class Row:
    problem: Problem
    f_seconds: float = float("nan")
    cells: Dict[str, Cell] = field(default_factory=dict)
    overheads: Dict[str, Optional[float]] = field(default_factory=dict)

    def ratio(self, column: str) -> Optional[float]:
        cell = self.cells.get(column)
        return None if cell is None else cell.ratio


def srcad_wrt(problem: Problem):
    return problem.wrt


def run_problem(problem: Problem, peers, quick: bool, log) -> Row:
    """Check f, srcad (both modes) and the peers on one problem, then time those that passed."""
    rng = np.random.default_rng(0)
    args = problem.make_inputs("quick" if quick else "full", rng)
    directions = _directions(problem, args, np.random.default_rng(1))
    fd = finite_difference(problem, args, directions)
    calls: Dict[str, Callable[[], Any]] = {"f": lambda: problem.function(*args)}
    row = Row(problem)

    reference = None
    # srcad, reverse mode
    cell = row.cells["srcad rev"] = Cell()
    try:
        start = time.perf_counter()
        gradient_of = srcad.grad(problem.function, wrt=srcad_wrt(problem))
        gradient = gradient_of(*args)
        cell.setup_seconds = time.perf_counter() - start
    except Exception as error:   # srcad cannot do this problem (yet), or crashed: report it and go on
        cell.status, cell.reason = failure_status(error), error_summary(error)
    else:
        value = directional(gradient, directions)
        if close(value, fd, FD_RTOL):
            reference = gradient
            calls["srcad rev"] = lambda: gradient_of(*args)
        else:
            cell.status, cell.reason = "WRONG", f"<grad, v> = {value!r} but finite differences give {fd!r}"
    # peers
    for peer in peers:
        cell = row.cells[peer.name] = Cell()
        reason = peer.unavailable()
        if reason is not None:
            cell.status, cell.reason = "n/a", reason
            continue
        try:
            start = time.perf_counter()
            call, to_numpy = peer.prepare(problem, args)
            gradient = to_numpy(call())
            cell.setup_seconds = time.perf_counter() - start
        except Exception as error:   # the peer cannot run this problem: n/a with its reason
            cell.status, cell.reason = "n/a", error_summary(error)
            continue
        value = directional(gradient, directions)
        if not close(value, fd, FD_RTOL):
            cell.status, cell.reason = "mismatch", f"<grad, v> = {value!r} but finite differences give {fd!r}"
            continue
        if reference is None:
            reference = gradient
        problem_text = same_gradient(gradient, reference)
        if problem_text is not None:
            cell.status, cell.reason = "mismatch", problem_text
            continue
        calls[peer.name] = call
    # srcad, forward mode (one JVP)
    cell = row.cells["srcad fwd"] = Cell()
    try:
        start = time.perf_counter()
        jvp = srcad.autodiff(problem.function, wrt=srcad_wrt(problem), mode="forward")
        tangent = jvp(*args, *directions)
        cell.setup_seconds = time.perf_counter() - start
    except Exception as error:   # as above
        cell.status, cell.reason = failure_status(error), error_summary(error)
    else:
        expected = fd if reference is None else directional(reference, directions)
        rtol = FD_RTOL if reference is None else AGREE_RTOL
        if close(float(np.sum(tangent)), expected, rtol):
            calls["srcad fwd"] = lambda: jvp(*args, *directions)
        else:
            cell.status, cell.reason = "WRONG", f"JVP = {float(np.sum(tangent))!r} but expected {expected!r}"

    timed = {name: calibrate(call, quick) for name, call in calls.items()}
    time_rounds(timed)
    primal = timed.pop("f")
    row.f_seconds = statistics.median(primal.samples)
    for name, item in timed.items():
        row.cells[name].seconds = statistics.median(item.samples)
        row.cells[name].ratio = median_ratio(item, primal)
    log(f"{problem.name}: f {format_seconds(row.f_seconds)}; "
        + ", ".join(f"{name} {cell_text(row, name)}" for name in row.cells))
    return row


# --------------------------------------------------------------------------
# srcad's overheads


@contextlib.contextmanager
def environment(**values):
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def rebuild_seconds(problem: Problem, mode: str) -> Optional[float]:
    """Seconds to transform ``problem`` again in this process: disk cache off, memory cache cleared."""
    memory = getattr(srcad.api, "_MEMORY", None)
    if memory is None:
        return None
    with environment(SRCAD_CACHE="0"):
        memory.clear()
        start = time.perf_counter()
        srcad.source(problem.function, wrt=srcad_wrt(problem), mode=mode)
        return time.perf_counter() - start


def call_overhead_seconds(problem: Problem, args) -> Optional[float]:
    """What a call of the ``srcad.grad`` object adds to calling its generated function.

    The object is made to call a no-op instead of the generated function, so
    the difference of the two timings is the object's own work.
    """
    derivative = srcad.grad(problem.function, wrt=srcad_wrt(problem))
    derivative(*args)
    generated = getattr(derivative, "_compiled", None)
    if generated is None:
        return None

    def noop(*_args, **_kwargs):
        return None
    # all-scalar calls, and calls of a function with element loops, dispatch to a variant generated
    # for scalars or for the arguments' ranks: stub whichever the object calls
    scalar = getattr(derivative, "_scalar_function", None)
    variants = getattr(derivative, "_rank_variants", None) or {}
    ranked = {key: variant._compiled for key, variant in variants.items()}
    derivative._compiled = noop
    if scalar is not None:
        derivative._scalar_function = noop
    for variant in variants.values():
        variant._compiled = noop
    try:
        number = 20000
        wrapped = min(_loop(lambda: derivative(*args), number) for _ in range(5)) / number
        direct = min(_loop(lambda: noop(*args), number) for _ in range(5)) / number
    finally:
        derivative._compiled = generated
        if scalar is not None:
            derivative._scalar_function = scalar
        for key, variant in variants.items():
            variant._compiled = ranked[key]
    return max(wrapped - direct, 0.0)


CHILD = """\
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import srcad
from problems import PROBLEMS
problem = PROBLEMS[sys.argv[2]]
args = problem.make_inputs("quick", np.random.default_rng(0))   # the code does not depend on sizes
problem.function(*args)                      # NumPy's own first-call costs are not srcad's
start = time.perf_counter()
derivative = srcad.grad(problem.function, wrt=problem.wrt)
derivative.source                            # transform, or load from the disk cache
ready = time.perf_counter()
derivative(*args)
first = time.perf_counter() - ready
times = []
for _ in range(3):
    t = time.perf_counter(); derivative(*args); times.append(time.perf_counter() - t)
print(json.dumps({"get": ready - start, "first_call": first, "call": min(times)}))
"""


def new_process_seconds(problem: Problem, cache: Path) -> Optional[float]:
    """Seconds a new process spends getting the derivative ready: transform or disk load, then first call.

    The first call's excess over a steady call counts (it builds the function
    object from the module); interpreter start-up and imports do not.  The
    calls run on the problem's tiny inputs (the generated code is the same
    for every size), so the excess is not lost in the noise of a long call.
    """
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache))
    env.pop("SRCAD_CACHE", None)
    result = subprocess.run([sys.executable, "-c", CHILD, str(HERE), problem.name],
                            env=env, capture_output=True, text=True)
    if result.returncode != 0:
        return None
    times = json.loads(result.stdout.strip().splitlines()[-1])
    return times["get"] + max(0.0, times["first_call"] - times["call"])


def measure_overheads(row: Row, cache_root: Path, quick: bool) -> None:
    problem = row.problem
    if row.cells["srcad rev"].status in ("unsupported", "error"):
        return
    args = problem.make_inputs("quick" if quick else "full", np.random.default_rng(0))
    cache = cache_root / problem.name
    row.overheads["first transform"] = new_process_seconds(problem, cache)
    row.overheads["disk load"] = new_process_seconds(problem, cache)
    rebuilds = [rebuild_seconds(problem, "reverse") for _ in range(1 if quick else 3)]
    row.overheads["rebuild rev"] = None if None in rebuilds else statistics.median(rebuilds)
    if row.cells["srcad fwd"].status not in ("unsupported", "error"):
        rebuilds = [rebuild_seconds(problem, "forward") for _ in range(1 if quick else 3)]
        row.overheads["rebuild fwd"] = None if None in rebuilds else statistics.median(rebuilds)
    row.overheads["call overhead"] = call_overhead_seconds(problem, args)


def steady_allocator() -> bool:
    """Make glibc's malloc keep freed memory instead of returning it to the system; True if it could.

    By default glibc serves each large array (over 128 kB at first) with a
    fresh mmap and gives it back on free, so every temporary of a vectorised
    problem pays page faults, and whether it does changes with the process's
    history (the threshold moves).  Timings of the same code then differ by
    up to 3x within one process.  With an mmap threshold of 32 MB and a high
    trim threshold, f and every gradient reuse memory alike.
    """
    if platform.system() != "Linux":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(libc.mallopt(m_mmap_threshold, 32 * 2 ** 20)) and bool(libc.mallopt(m_trim_threshold, 2 ** 30))
    except (OSError, AttributeError):
        return False


STEADY_ALLOCATOR = False

# --------------------------------------------------------------------------
# output


def machine_note(peers) -> str:
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
    threads = f"{THREADS} thread per library" if THREADS == 1 else (
        f"{THREADS} threads per library" if THREADS else "libraries' default threads")
    if STEADY_ALLOCATOR:
        threads += ", malloc keeps freed memory"
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()}, {threads}; Python {platform.python_version()}, "
            f"NumPy {np.__version__}, srcad {srcad.__version__}; {peers_text}")


def format_seconds(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def format_ratio(ratio: float) -> str:
    return f"{ratio:.1f}" if ratio < 100 else f"{ratio:.0f}"


def cell_text(row: Row, column: str, absolute: bool = False) -> str:
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


def report(rows: List[Row], peers, quick: bool, markdown: bool) -> str:
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
        f"Machine: {machine_note(peers)}.",
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


# --------------------------------------------------------------------------
# main


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats (a smoke test)")
    parser.add_argument("--problems", help=f"comma-separated subset of: {', '.join(PROBLEMS)}")
    parser.add_argument("--peers", help="comma-separated subset of the peers, or 'none'")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables for the README")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per library (BLAS, OpenMP, XLA); 0 keeps the libraries' defaults "
                             "(default 1: on a small machine, idle pools of one library slow the others)")
    parser.add_argument("--default-malloc", action="store_true",
                        help="leave glibc's malloc thresholds alone (timings of large arrays then vary)")
    parser.add_argument("--no-overheads", action="store_true",
                        help="skip the transform, disk-cache and call-overhead measurements")
    options = parser.parse_args(argv)

    names = list(PROBLEMS) if not options.problems else [n.strip() for n in options.problems.split(",") if n.strip()]
    unknown = [n for n in names if n not in PROBLEMS]
    if unknown:
        parser.error(f"unknown problem(s) {', '.join(unknown)}; choose from {', '.join(PROBLEMS)}")
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

    global STEADY_ALLOCATOR
    STEADY_ALLOCATOR = not options.default_malloc and steady_allocator()

    rows = []
    with tempfile.TemporaryDirectory(prefix="srcad-bench-") as tmp:
        with environment(SRCAD_CACHE_DIR=str(Path(tmp) / "this-process")):
            for name in names:
                rows.append(run_problem(PROBLEMS[name], peers, options.quick, log))
            if not options.no_overheads:
                for row in rows:
                    measure_overheads(row, Path(tmp) / "new-process", options.quick)
    print(report(rows, peers, options.quick, options.markdown))
    wrong = any(cell.status in ("WRONG", "mismatch") or (cell.status == "error" and column in SRCAD_COLUMNS)
                for row in rows for column, cell in row.cells.items())
    return 1 if wrong else 0


if __name__ == "__main__":
    gc.enable()
    sys.exit(main())
