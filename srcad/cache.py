"""Where generated derivatives are kept: in memory and as .py files on disk.

Contract:
- ``disk_key(...)`` hashes everything a generated module depends on: the
  function's source text, file and name, what each name it reads from its
  scope denotes (module, function or data), ``wrt``, mode, options, the srcad
  version and the rule registry.  Same inputs, same key, in any process.
- ``load(key)`` returns ``(source, path)`` from disk or None; a file whose
  embedded key does not match, or that cannot be read, counts as missing.
- ``store(key, name, source)`` writes atomically (temporary file, then
  rename) and returns the path, or None when the disk cache is off or not
  writable (then the caller keeps the source in memory only).
- The directory is ``$SRCAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/srcad``, else
  ``~/.cache/srcad``; ``SRCAD_CACHE=0`` turns the disk cache off.  It holds
  Python source only, never pickles.

Example::

    key = disk_key(f, ("x",), "reverse", {})
    hit = load(key) or (source, store(key, "df", source))
"""
from __future__ import annotations

import builtins
import hashlib
import os
import tempfile
import types
import warnings
from pathlib import Path
from typing import Dict, Optional, Tuple

from .source import source_fingerprint, unwrap
from .templates import REGISTRY
from .version import __version__

KEY_LINE = "# srcad-key: "
_fingerprint_cache: Dict[int, str] = {}
_warned = set()


def cache_dir() -> Optional[Path]:
    """The disk cache directory, or None when the disk cache is off."""
    if os.environ.get("SRCAD_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    explicit = os.environ.get("SRCAD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "srcad"


def registry_fingerprint() -> str:
    """A digest of every registered rule (changes when any rule is added or replaced)."""
    version = REGISTRY.version
    if version not in _fingerprint_cache:
        digest = hashlib.sha256()
        for mode in sorted(REGISTRY.rules):
            for template in REGISTRY.rules[mode].values():
                digest.update(f"{mode}:{_describe_object(template.primal)}:{template.digest};".encode())
        for key in REGISTRY.nondiff:
            digest.update(f"nondiff:{_describe_object(key)};".encode())
        _fingerprint_cache.clear()
        _fingerprint_cache[version] = digest.hexdigest()
    return _fingerprint_cache[version]


def _describe_object(value) -> str:
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if callable(value):
        module = getattr(value, "__module__", None) or type(value).__module__
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
        return f"callable:{module}.{name}"
    return f"value:{type(value).__module__}.{type(value).__qualname__}"


def scope_signature(func) -> str:
    """What each outside name ``func`` reads denotes now (modules and callables by name)."""
    func = unwrap(func)
    code = func.__code__
    parts = []
    closure = dict(zip(code.co_freevars, func.__closure__ or ()))
    for name in sorted(set(code.co_names) | set(code.co_freevars)):
        if name in closure:
            try:
                parts.append(f"{name}={_describe_object(closure[name].cell_contents)}")
            except ValueError:
                parts.append(f"{name}=<empty>")
        elif name in func.__globals__:
            parts.append(f"{name}={_describe_object(func.__globals__[name])}")
        elif hasattr(builtins, name):
            parts.append(f"{name}=builtin")
    return ";".join(parts)


_CODE_FINGERPRINT = []


def code_fingerprint() -> str:
    """A digest of srcad's own source and its built-in rules: an upgrade changes every key."""
    if not _CODE_FINGERPRINT:
        import grad_templates
        digest = hashlib.sha256(__version__.encode())
        for folder in (Path(__file__).parent, Path(grad_templates.__file__).parent):
            for path in sorted(folder.rglob("*.py")):
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
        _CODE_FINGERPRINT.append(digest.hexdigest())
    return _CODE_FINGERPRINT[0]


def disk_key(func, wrt: Tuple[str, ...], mode: str, options: Dict) -> str:
    """The hash that names ``func``'s derivative on disk."""
    func = unwrap(func)
    material = "\n".join([
        code_fingerprint(), registry_fingerprint(), mode, repr(tuple(wrt)), repr(sorted(options.items())),
        func.__code__.co_filename, func.__qualname__, source_fingerprint(func), scope_signature(func),
    ])
    return hashlib.sha256(material.encode()).hexdigest()


def _path_for(directory: Path, key: str, name: str) -> Path:
    return directory / f"{name}_{key[:24]}.py"


def load(key: str, name: str) -> Optional[Tuple[str, str]]:
    """The cached file's text (key line first) and its path, or None."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _path_for(directory, key, name)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    first, _, rest = text.partition("\n")
    if first != KEY_LINE + key:
        return None
    return text, str(path)


def file_text(key: str, source: str) -> str:
    """What a cache file holds: the key line, then the source."""
    return KEY_LINE + key + "\n" + source


def store(key: str, name: str, source: str) -> Optional[str]:
    """Write ``file_text(key, source)``; the file's path, or None if it could not be written."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _path_for(directory, key, name)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".py")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(file_text(key, source))
        os.replace(temporary, path)
    except OSError as exc:
        if str(directory) not in _warned:
            _warned.add(str(directory))
            warnings.warn(f"srcad: cannot write the derivative cache in {directory} ({exc}); "
                          f"keeping derivatives in memory only", RuntimeWarning, stacklevel=4)
        return None
    return str(path)
