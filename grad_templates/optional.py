"""Rule families for optional libraries (SciPy), registered when the library is imported.

Contract:
- Importing srcad never imports SciPy.  Each family module here
  (``FAMILIES``: ``special``, ``scipy_linalg``, ``scipy_stats``...) imports
  the SciPy module it has rules for, and is
  imported (so its rules are registered) as soon as that SciPy module is:
  at once when it is imported already, else right after its import
  finishes, through a finder on ``sys.meta_path`` that answers for those
  module names only and hands every other import on untouched.
- A user's code can only call ``scipy.stats.norm.logpdf`` after importing
  ``scipy.stats``, so every rule it needs is registered before srcad reads
  the code.
- ``load_all()`` imports every watched SciPy module that is installed (and
  so registers every rule): for listings of the registry and for tests.
- Without SciPy nothing happens; a family that fails to load warns and
  registers nothing (a call then has no rule, which srcad reports).

Example::

    >>> import sys, srcad
    >>> "scipy.stats" in sys.modules      # doctest: +SKIP
    False
    >>> from scipy import stats          # registers grad_templates.scipy_stats
"""
from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading
from typing import Dict, List, Tuple

from srcad.user_warnings import warn

FAMILIES: Dict[str, Tuple[str, ...]] = {   # the SciPy module -> the family modules with its rules
    "scipy.special": ("special", "special_incomplete", "special_elementary", "special_bessel"),
    "scipy.linalg": ("scipy_linalg",),
    "scipy.stats": ("scipy_stats", "scipy_stats_shapes", "scipy_stats_multivariate", "scipy_stats_tails"),
    "scipy.signal": ("scipy_signal",),
    "scipy.integrate": ("scipy_integrate", "scipy_integrate_ivp"),
}

_loaded: List[str] = []
_lock = threading.RLock()


def _register(library: str) -> None:
    """Import the family modules of ``library`` (once)."""
    with _lock:
        for family in FAMILIES[library]:
            if family in _loaded:
                continue
            _loaded.append(family)
            try:
                importlib.import_module(f"{__package__}.{family}")
            except Exception as exc:   # pragma: no cover - a broken SciPy: no rules, said once
                warn(f"srcad's rules for {library} could not be registered ({type(exc).__name__}: {exc}); calls "
                     f"to it will have no rule: reinstall {library} (or srcad) so the two import together",
                     RuntimeWarning)


class _ThenRegister(importlib.abc.Loader):
    """A watched module's own loader, followed by registering its family."""

    def __init__(self, loader, library: str):
        self.loader = loader
        self.library = library

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader   # the module keeps its own loader
        self.loader.exec_module(module)
        _register(self.library)


class _WatchImports(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a watched name, takes the spec the next finders give and wraps its loader."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in FAMILIES or set(FAMILIES[fullname]) <= set(_loaded):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _ThenRegister(spec.loader, fullname)
                return spec
        return None


def watch() -> None:
    """Register the families of the SciPy modules imported already, and watch for the others."""
    if not any(isinstance(finder, _WatchImports) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WatchImports())
    for library in FAMILIES:
        if library in sys.modules:
            _register(library)


def load_all() -> List[str]:
    """Import every watched SciPy module that is installed; returns the families now registered.

    Example::

        >>> load_all()          # doctest: +SKIP
        ['special', 'special_incomplete', 'scipy_linalg', 'scipy_stats', ...]
    """
    for library in FAMILIES:
        try:
            importlib.import_module(library)
        except ImportError:
            continue
        _register(library)
    return list(_loaded)
