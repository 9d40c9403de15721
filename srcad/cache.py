"""Where generated derivatives are kept: in memory and as .py files on disk.

Contract:
- ``disk_key(...)`` hashes everything a generated module depends on:
  ``wrt``, mode, options, srcad's own code (``code_fingerprint``: its files'
  content, which the directory keeps in a ``srcad_own_code_*.digest`` file
  under their paths, sizes, inodes and modification and change times), the
  rule registry, and
  ``dependencies.collect(func).material()``: the source text, code, defaults,
  file and name of the function and of every helper it may inline or call,
  transitively, and what each name they read denotes (module, function or
  data).  Same inputs, same key, in any process.
- ``load(key, name)`` returns ``(text, path)`` from disk or None.  A file
  counts as missing when it cannot be read, when its first line does not
  carry ``key`` and the digest of the rest of the file (so a truncated or
  edited file is never run), or when it or the directory is not owned by the
  current user or is writable by group or others (then srcad warns once and
  builds the derivative in memory).
- ``store(key, name, source)`` writes atomically (a private temporary file,
  then rename) and returns the path, or None when the disk cache is off, not
  writable or not trusted (then the caller keeps the source in memory only,
  after one warning per directory).
- The directory is ``$SRCAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/srcad``, else
  ``~/.cache/srcad``, created with mode 0700; ``SRCAD_CACHE=0`` turns the
  disk cache off.  It holds Python source only, never pickles: whoever can
  write the directory can run code as its owner, as with ``__pycache__``.

Example::

    key = disk_key(f, ("x",), "reverse", {})
    hit = load(key) or (source, store(key, "df", source))
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from .errors import AliasingError, SrcadError
from .frontend import loader, tracebacks
from .dependencies import Dependencies, collect, describe
from .frontend.source import unwrap
from .templates import REGISTRY
from .user_warnings import warn
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
    """A digest of every registered rule (changes when any rule is added or replaced, not with their order)."""
    version = REGISTRY.version
    if version not in _fingerprint_cache:
        entries = [f"{mode}:{describe(template.primal)}:{template.digest};"
                   for mode in REGISTRY.rules for template in REGISTRY.rules[mode].values()]
        entries += [f"nondiff:{describe(key)};" for key in REGISTRY.nondiff]
        entries += [f"refused:{describe(key)};" for key in REGISTRY.refused]
        _fingerprint_cache.clear()   # the same rules give the same digest in whatever order they came
        _fingerprint_cache[version] = hashlib.sha256("".join(sorted(entries)).encode()).hexdigest()
    return _fingerprint_cache[version]


_CODE_FINGERPRINT = []


def code_fingerprint() -> str:
    """A digest of srcad's own source and its built-in rules, by content (an upgrade changes every key, and
    the same release installed anywhere gives the same digest: a pickled derivative's key holds on a
    cluster's workers).  Once per process; reading every file is kept for the first process after an
    install or an edit: the disk cache keeps the digest under the files' paths, sizes, inodes and
    modification and change times, which take a fifth of that to read (an edit, even one that keeps the
    size and puts the modification time back, changes the change time, which no one can set)."""
    if not _CODE_FINGERPRINT:
        files = _own_files()
        signature = hashlib.sha256(__version__.encode())
        for root, relative in files:
            status = os.stat(os.path.join(root, relative))
            signature.update(f"{root}\0{relative}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ino}\0"
                             f"{status.st_ctime_ns}\0".encode())
        key = signature.hexdigest()
        found = load(key, _OWN_CODE, ".digest")
        digest = _DIGEST.fullmatch(found[0].partition("\n")[2]) if found else None
        if digest:
            digest = digest.group(1)
        else:
            content = hashlib.sha256(__version__.encode())
            for root, relative in files:
                content.update(relative.replace(os.sep, "/").encode() + b"\0")   # the same on every system
                with open(os.path.join(root, relative), "rb") as stream:
                    content.update(stream.read())
            digest = content.hexdigest()
            store(key, _OWN_CODE, f'DIGEST = "{digest}"\n', ".digest")
        _CODE_FINGERPRINT.append(digest)
    return _CODE_FINGERPRINT[0]


_OWN_CODE = "srcad_own_code"   # the cache file (``.digest``, not a derivative's ``.py``) of code_fingerprint()
_DIGEST = re.compile(r'DIGEST = "([0-9a-f]{64})"\n')


def _own_files() -> List[Tuple[str, str]]:
    """(folder, path in it) of every ``.py`` file of srcad and of its built-in rules, in a fixed order."""
    import grad_templates
    files = []
    for folder in (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(grad_templates.__file__))):
        for root, directories, names in os.walk(folder):
            directories.sort()
            inside = root[len(folder) + 1:]   # the folder's own path below it, '' at the top
            files += [(folder, os.path.join(inside, name)) for name in sorted(names) if name.endswith(".py")]
    return files


def disk_key(func, wrt: Tuple[str, ...], mode: str, options: Dict,
             dependencies: Optional[Dependencies] = None, material: Optional[str] = None) -> str:
    """The hash that names ``func``'s derivative on disk (``dependencies``: ``collect(func)``, given
    when the caller has it already; ``material``: its ``material()``, given when the caller changed it)."""
    func = unwrap(func)
    if material is None:
        material = (dependencies or collect(func)).material()
    material = "\n".join([
        code_fingerprint(), registry_fingerprint(), mode, repr(tuple(wrt)), repr(sorted(options.items())),
        material,
    ])
    return hashlib.sha256(material.encode()).hexdigest()


def _path_for(directory: Path, key: str, name: str, suffix: str = ".py") -> Path:
    return directory / f"{name}_{key[:24]}{suffix}"


def _untrusted(status: os.stat_result) -> Optional[str]:
    """Why a file or directory with this ``stat`` must not be trusted, or None."""
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        return f"it belongs to user id {status.st_uid}, not to you (user id {os.getuid()})"
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"it is writable by group or others (mode {stat.S_IMODE(status.st_mode):o})"
    return None


def _warn_once(subject: str, reason: str, consequence: str) -> None:
    if subject not in _warned:
        _warned.add(subject)
        warn(f"srcad: not using the derivative cache {subject}: {reason}; {consequence}", RuntimeWarning)


def _trusted_directory(directory: Path) -> bool:
    """Whether ``directory`` exists and is safe to read code from (warns once when it is not)."""
    try:
        reason = _untrusted(os.stat(directory))
    except OSError:
        return False
    if reason:
        _warn_once(f"directory {directory}", reason, "keeping derivatives in memory only "
                   "(make it private with chmod 700, or set SRCAD_CACHE_DIR or SRCAD_CACHE=0)")
    return reason is None


def _open_checked(path: Path):
    """``(binary stream, None)`` for a file we may run, ``(None, reason)`` if not, ``(None, None)`` if absent."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None, None
    stream = os.fdopen(handle, "rb")
    status = os.fstat(stream.fileno())
    reason = "it is not a regular file" if not stat.S_ISREG(status.st_mode) else _untrusted(status)
    if reason:
        stream.close()
        return None, reason
    return stream, None


def _read_trusted(path: Path) -> Optional[str]:
    """The text of ``path`` if it is a regular file we own that only we can write (warns once if not)."""
    stream, reason = _open_checked(path)
    if reason:
        _warn_once(f"file {path}", reason, "building the derivative in memory instead "
                   "(delete that file if you did not make it, or point SRCAD_CACHE_DIR to a private place)")
    if stream is None:
        return None
    with stream:
        try:
            return stream.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def _digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:32]


def load(key: str, name: str, suffix: str = ".py") -> Optional[Tuple[str, str]]:
    """The cached file's text (key line first) and its path, or None (``suffix``: of the file's name)."""
    directory = cache_dir()
    if directory is None or not _trusted_directory(directory):
        return None
    path = _path_for(directory, key, name, suffix)
    text = _read_trusted(path)
    if text is None:
        return None
    first, _, rest = text.partition("\n")
    if first != KEY_LINE + key + " " + _digest(rest):
        return None
    return text, str(path)


def file_text(key: str, source: str) -> str:
    """What a cache file holds: the key line (the key and a digest of the source), then the source."""
    return KEY_LINE + key + " " + _digest(source) + "\n" + source


def store(key: str, name: str, source: str, suffix: str = ".py") -> Optional[str]:
    """Write ``file_text(key, source)``; the file's path, or None if it could not be written."""
    directory = cache_dir()
    if directory is None:
        return None
    path = _path_for(directory, key, name, suffix)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _trusted_directory(directory):
            return None
        stream, reason = _open_checked(path)
        if stream is not None:
            stream.close()
        if reason:
            return None   # someone else's file: leave it alone, the derivative stays in memory
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".py")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(file_text(key, source))
            os.replace(temporary, path)
        except BaseException:
            _remove_quietly(temporary)
            raise
    except OSError as exc:
        _warn_once(f"directory {directory}", f"it cannot be written ({exc})", "keeping derivatives in memory only "
                   "(set SRCAD_CACHE_DIR to a writable directory, or SRCAD_CACHE=0 to stop using the disk)")
        return None
    return str(path)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


_BUILDING = threading.local()   # .building: functions this thread is building derivatives of


def _for_the_user(error: SrcadError, func) -> SrcadError:
    """``error``, raised at a line of srcad's own generated code (a derivative differentiated again), with
    the user's line that code comes from and what to do."""
    head = str(error).split("\n", 1)[0]
    filename, _, rest = head.rpartition(":")
    filename, _, line = filename.rpartition(":")
    place = tracebacks.user_line(filename, int(line)) if line.isdigit() and rest.isdigit() else None
    if place is None:
        return error
    file, lineno, text, name = place
    example = (" (for example, compute the value into a new array instead of storing into a row you also read)"
               if isinstance(error, AliasingError) else "")
    return type(error)(f"{error}\nThat is srcad's derivative of {name}, being differentiated again, at the code for "
                       f"your line {file}:{lineno}: `{text}`.  Write that line another way so the derivative "
                       f"of it avoids what is named above{example}, or take one derivative fewer of {name}")


def compiled_entry(func: Callable, key: str, wrt, mode: str, options: Dict, build: Callable, fresh: bool = False):
    """``(source, code, function name, injected names, injected values)`` of the derivative under ``key``:
    read from disk (unless ``fresh``), else made by ``build(func, wrt, mode, options)`` and stored.

    A recursive function's derivative calls itself: a call of f inside f names the derivative being built
    (``passes/frame.py``), so the same key is never built twice at once on a thread.

    Example::

        entry = compiled_entry(f, key, ("x",), "reverse", {}, pipeline.build)
    """
    function_label = func.__name__
    if not fresh:
        hit = load(key, function_label)
        if hit is not None:
            text, path = hit
            source = text.partition("\n")[2]
            meta = loader.read_meta(source)
            if meta is not None:
                name, injected = meta
                try:
                    return source, loader.compile_text(text, path, key[:12]), name, injected, {}
                except (SyntaxError, ValueError):   # a damaged file: build it again
                    pass
    building = _BUILDING.__dict__.setdefault("building", [])
    if key in building:   # a recursive call finds the derivative being built through passes/frame.py: not here
        raise SrcadError(f"srcad was asked for the derivative of {func.__name__} while building it; "
                         f"report this, with the function, as a bug in srcad")
    building.append(key)
    try:
        generated = build(func, wrt, mode, options)
    except SrcadError as error:
        raise _for_the_user(error, func) from None
    finally:
        building.pop()
    source = generated.source
    path = store(key, function_label, source)
    text = file_text(key, source)
    code = loader.compile_text(text, path, f"{function_label}-{key[:12]}")
    return source, code, generated.function_name, tuple(sorted(generated.injected)), generated.injected
