"""``srcad doctor``: what this installation is made of, for a bug report or a puzzling result.

Contract:
- ``report(out)`` writes: srcad's version and where it is imported from; the
  Python version and executable; the required packages (NumPy, gast, astor)
  with their versions; the derivative cache (its directory, how it was
  chosen, whether it is off, missing, private or refused, how many files it
  holds and their size); and each optional package (SciPy, numba, Dask,
  distributed, CuPy, Pygments) with its version and what srcad uses it for,
  or why it cannot be imported.
- Optional packages are imported here (that is the test of being usable);
  a failing import is reported in one line, never raised.
- The exit status is 0, or 1 when a required package cannot be imported.

Example::

    $ srcad doctor
    srcad 0.1.0 (/path/to/srcad)
    ...
"""
from __future__ import annotations

import importlib
import os
import platform
import stat
import sys
from pathlib import Path
from typing import List, Optional, TextIO, Tuple

from . import cache
from .version import __version__

REQUIRED = ("numpy", "gast", "astor")
OPTIONAL: Tuple[Tuple[str, str], ...] = (
    ("scipy", "rules for scipy.special, .linalg, .stats, .signal, .integrate (registered when imported)"),
    ("numba", "compiled derivatives (the numba backend)"),
    ("dask", "Dask arrays through derivatives, lazily"),
    ("distributed", "derivatives sent to a Dask cluster"),
    ("cupy", "CuPy arrays on the GPU"),
    ("pygments", "colour in `srcad show` (pip install srcad[color])"),
)


def _probe(module_name: str) -> Tuple[Optional[str], Optional[str]]:
    """(version, None) when ``module_name`` imports, else (None, why not) in one line."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        missing = getattr(exc, "name", None) == module_name
        return None, "not installed" if missing else f"cannot be imported ({type(exc).__name__}: {exc})"
    except Exception as exc:   # a broken installation: say so, in one line
        return None, f"cannot be imported ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return str(getattr(module, "__version__", "installed")), None


def _cache_source() -> str:
    if os.environ.get("SRCAD_CACHE_DIR"):
        return "SRCAD_CACHE_DIR"
    return "XDG_CACHE_HOME" if os.environ.get("XDG_CACHE_HOME") else "the default"


def cache_state(directory: Optional[Path]) -> List[str]:
    """Lines describing the disk cache at ``directory`` (None: turned off).

    Example::

        >>> cache_state(None)
        ['off (SRCAD_CACHE=0): derivatives are kept in memory only']
    """
    if directory is None:
        return ["off (SRCAD_CACHE=0): derivatives are kept in memory only"]
    try:
        status = os.stat(directory)
    except OSError:
        return ["not created yet (srcad creates it, private, on the first derivative it builds)"]
    if not stat.S_ISDIR(status.st_mode):
        return ["not a directory: derivatives are kept in memory only (set SRCAD_CACHE_DIR elsewhere)"]
    refused = cache._untrusted(status)
    files = [path for path in directory.glob("*.py") if path.is_file()]
    size = sum(path.stat().st_size for path in files)
    lines = [f"{len(files)} derivative file{'s' if len(files) != 1 else ''}, {size / 1024:.1f} KiB"]
    if refused:
        lines.append(f"refused: {refused}; srcad keeps derivatives in memory only (chmod 700 it, or set "
                     f"SRCAD_CACHE_DIR)")
    elif not os.access(directory, os.W_OK):
        lines.append("read-only: new derivatives are kept in memory only")
    else:
        lines.append(f"private and writable (mode {stat.S_IMODE(status.st_mode):o})")
    return lines


def report(out: TextIO) -> int:
    """Write the installation report to ``out``; the exit status (1 when a required package is missing).

    Example::

        >>> import io
        >>> buffer = io.StringIO()
        >>> report(buffer)                          # doctest: +SKIP
        0
        >>> buffer.getvalue().startswith("srcad ")   # doctest: +SKIP
        True
    """
    here = os.path.dirname(os.path.abspath(__file__))
    out.write(f"srcad {__version__} ({here})\n")
    out.write(f"python {platform.python_version()} ({sys.executable}) on {platform.platform()}\n")
    status = 0
    out.write("required:\n")
    for name in REQUIRED:
        version, problem = _probe(name)
        status |= problem is not None
        out.write(f"  {name:<12} {version or problem}\n")
    directory = cache.cache_dir()
    where = f"{directory} (from {_cache_source()})" if directory is not None else "none"
    out.write(f"cache: {where}\n")
    for line in cache_state(directory):
        out.write(f"  {line}\n")
    out.write("optional:\n")
    for name, purpose in OPTIONAL:
        version, problem = _probe(name)
        out.write(f"  {name:<12} {version:<12} {purpose}\n" if version else f"  {name:<12} {problem}\n")
    return int(status)
