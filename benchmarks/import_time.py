"""What ``import srcad`` costs on top of ``import numpy``, in fresh interpreters.

Contract:
- Each sample is a new ``python`` process that imports NumPy, then srcad,
  and reports both times (``time.perf_counter``); the report gives the
  medians of ``--runs`` samples and the difference, against the target of
  60 ms.  Interpreter start-up is not counted.
- Byte-code caching is on (in a temporary ``PYTHONPYCACHEPREFIX``, warmed by
  one untimed run), as it is for an installed package.
- It also lists the srcad modules that cost most (``python -X importtime``,
  self time) and fails (exit 1) if an optional dependency (SciPy, numba,
  Dask, Pygments) was imported, since those must load only when a rule or a
  backend needs them.

Usage::

    python benchmarks/import_time.py            # 15 runs
    python benchmarks/import_time.py --runs 31
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

TARGET_SECONDS = 0.060
OPTIONAL = ("scipy", "numba", "dask", "distributed", "pygments")
_PROBE = (
    "import sys, time\n"
    "t0 = time.perf_counter(); import numpy; t1 = time.perf_counter()\n"
    "import srcad; t2 = time.perf_counter()\n"
    "loaded = [m for m in {optional!r} if m in sys.modules]\n"
    "print(t1 - t0, t2 - t1, ','.join(loaded))\n"
)


def _environment(pycache: str) -> Dict[str, str]:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def sample(env: Dict[str, str]) -> Tuple[float, float, List[str]]:
    """One fresh interpreter: (numpy seconds, srcad seconds on top, optional modules it loaded)."""
    out = subprocess.run([sys.executable, "-c", _PROBE.format(optional=OPTIONAL)], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), (out[2].split(",") if len(out) > 2 else [])


def costliest_modules(env: Dict[str, str], count: int = 10) -> List[Tuple[int, str]]:
    """The srcad and grad_templates modules with the largest self import time (microseconds)."""
    stderr = subprocess.run([sys.executable, "-X", "importtime", "-c", "import numpy, srcad"], env=env,
                            check=True, capture_output=True, text=True).stderr
    rows = []
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].startswith("import time:") and parts[0].split(":")[1].strip().isdigit():
            name = parts[2].strip()
            if name.split(".")[0] in ("srcad", "grad_templates"):
                rows.append((int(parts[0].split(":")[1]), name))
    return sorted(rows, reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh interpreters to time (default 15)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as pycache:
        env = _environment(pycache)
        sample(env)   # writes the byte-code caches
        samples = [sample(env) for _ in range(args.runs)]
        numpy_s = statistics.median(s[0] for s in samples)
        srcad_s = statistics.median(s[1] for s in samples)
        loaded = sorted({m for s in samples for m in s[2]})
        print(f"import numpy: {numpy_s * 1e3:.1f} ms; import srcad on top: {srcad_s * 1e3:.1f} ms "
              f"(target <= {TARGET_SECONDS * 1e3:.0f} ms: {'met' if srcad_s <= TARGET_SECONDS else 'MISSED'}); "
              f"median of {args.runs} fresh interpreters")
        print("costliest srcad modules (self time, -X importtime):")
        for micros, name in costliest_modules(env):
            print(f"  {micros / 1e3:7.1f} ms  {name}")
    if loaded:
        print(f"optional dependencies imported by `import srcad`: {', '.join(loaded)} (they must load lazily)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
