"""The derivative cache: in memory per process, and on disk across processes.

Contract checked here: a derivative is transformed once per process; a new
process finds it on disk and does not transform again; editing the function's
source, upgrading srcad or registering a rule makes a new entry; ``SRCAD_CACHE=0``
writes nothing; a damaged cache file (garbage, wrong key, truncated or edited
body) is ignored and rewritten; a cache directory that cannot be created or
written makes srcad keep derivatives in memory after exactly one warning;
concurrent processes and threads get one consistent result and leave one
complete file; generated source is byte-identical across processes; and
tracebacks through a derivative point at readable lines of the generated file.
Security: srcad imports no serialiser that runs code (pickle, marshal...);
the cache directory is created 0700 and files 0600; a file or directory not
owned by the user or writable by group or others is never run (one warning,
the derivative is built in memory, the file is left alone).  Every test uses
its own cache directory.
"""
import linecache
import os
import subprocess
import sys
import traceback
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

import srcad
import srcad.api
import srcad.derivative
from srcad import cache

REPO = Path(__file__).resolve().parent.parent

MODULE = '''\
import numpy as np


def f(x):
    y = np.sin(x) * x
    return np.sum(y * y)
'''

# Computes the gradient of model.f at a fixed point and prints it.  With
# FORBID_BUILD set, any transformation in this process raises instead.
SCRIPT = '''\
import os, sys
import numpy as np
import srcad, srcad.api
if os.environ.get("FORBID_BUILD"):
    def build(*args, **kwargs):
        raise AssertionError("transformed although the disk cache holds this derivative")
    srcad.api.build = build
import model
print(repr(srcad.grad(model.f)(np.linspace(-1.0, 2.0, 4)).tolist()))
'''


@pytest.fixture
def project(tmp_path):
    """A directory with ``model.py`` and ``script.py``, and an empty cache directory beside it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(MODULE)
    (tmp_path / "src" / "script.py").write_text(SCRIPT)
    return tmp_path


def run(project, *, code=None, cwd=None, **env_overrides):
    """Run ``script.py`` (or ``code``) in a fresh interpreter; its stdout."""
    env = dict(os.environ, SRCAD_CACHE_DIR=str(project / "cache"), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project / "src"), str(REPO),
                                                       os.environ.get("PYTHONPATH")]))
    env.update(env_overrides)
    command = [sys.executable, "-c", code] if code else [sys.executable, str(project / "src" / "script.py")]
    result = subprocess.run(command, cwd=str(cwd or project), env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def cache_files(project):
    directory = project / "cache"
    return sorted(directory.glob("*.py")) if directory.exists() else []


def expected_gradient(x):
    y = np.sin(x) * x
    return 2 * y * (np.cos(x) * x + np.sin(x))


def load_model(project, name="model"):
    """Import ``src/model.py`` in this process under a fresh module name."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"{name}_{abs(hash(str(project)))}",
                                                  project / "src" / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def counted_build(monkeypatch, project):
    """Count calls of ``srcad.api.build``, with an empty memory cache and a private disk cache."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(project / "cache"))
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    calls = []
    real = srcad.api.build

    def build(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(srcad.api, "build", build)
    monkeypatch.setattr(srcad.derivative, "_BY_FUNCTION", weakref.WeakKeyDictionary())   # the shared ones
    return calls


def forget_derivatives():
    """A fresh process's memory: no built module, no shared derivative object (the disk stays)."""
    srcad.api._MEMORY.clear()
    srcad.derivative._BY_FUNCTION.clear()


def test_memory_cache_transforms_once_per_process(project, counted_build):
    model = load_model(project)
    x = np.linspace(-1.0, 2.0, 4)
    df = srcad.grad(model.f)
    first = df(x)
    second = df(x)
    again = srcad.grad(model.f)(x)          # a new Derivative object for the same function
    text = srcad.source(model.f)
    assert len(counted_build) == 1
    np.testing.assert_allclose(first, expected_gradient(x))
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, again)
    assert "def df(x, dout=1.0):" in text


def test_memory_cache_works_with_disk_cache_off(project, counted_build, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    model = load_model(project)
    df = srcad.grad(model.f)
    df(np.ones(3))
    df(np.ones(3))
    srcad.grad(model.f)(np.ones(3))
    assert len(counted_build) == 1
    assert cache_files(project) == []


def test_new_process_reuses_disk_cache_without_transforming(project):
    first = run(project)
    assert len(cache_files(project)) == 1
    second = run(project, FORBID_BUILD="1")
    assert second == first
    np.testing.assert_allclose(eval(first), expected_gradient(np.linspace(-1.0, 2.0, 4)))
    assert len(cache_files(project)) == 1


def test_forbidding_build_really_forbids_it(project):
    """The check above is meaningful: with an empty cache, FORBID_BUILD makes the script fail."""
    env = dict(os.environ, SRCAD_CACHE_DIR=str(project / "cache"), FORBID_BUILD="1",
               PYTHONPATH=os.pathsep.join([str(project / "src"), str(REPO)]))
    result = subprocess.run([sys.executable, str(project / "src" / "script.py")], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "transformed although the disk cache holds" in result.stderr


def test_editing_the_source_invalidates(project):
    before = run(project)
    [old_file] = cache_files(project)
    model = project / "src" / "model.py"
    model.write_text(MODULE.replace("return np.sum(y * y)", "return np.sum(y * y * y)"))
    after = run(project)
    assert after != before
    x = np.linspace(-1.0, 2.0, 4)
    y = np.sin(x) * x
    np.testing.assert_allclose(eval(after), 3 * y * y * (np.cos(x) * x + np.sin(x)))
    files = cache_files(project)
    assert len(files) == 2 and old_file in files
    new_file = next(path for path in files if path != old_file)
    assert "y * y * y" in new_file.read_text()
    assert run(project, FORBID_BUILD="1") == after      # and the new entry is reused in turn


def test_cache_off_writes_nothing(project):
    home = project / "home"
    home.mkdir()
    out = run(project, SRCAD_CACHE="0", HOME=str(home), XDG_CACHE_HOME=str(project / "xdg"))
    np.testing.assert_allclose(eval(out), expected_gradient(np.linspace(-1.0, 2.0, 4)))
    assert not (project / "cache").exists()
    assert not (project / "xdg").exists()
    assert list(home.iterdir()) == []


@pytest.mark.parametrize("damage", ["garbage", "wrong key", "truncated"])
def test_damaged_cache_file_is_ignored_and_rebuilt(project, damage):
    good = run(project)
    [path] = cache_files(project)
    text = path.read_text()
    if damage == "garbage":
        path.write_bytes(b"\x00\xff not python at all (((\n")
    elif damage == "wrong key":
        path.write_text(cache.KEY_LINE + "0" * 64 + "\n" + text.partition("\n")[2])
    else:
        path.write_text("")
    again = run(project)
    assert again == good
    assert path.read_text() == text                        # rewritten with the right content
    assert run(project, FORBID_BUILD="1") == good


def test_generated_source_is_identical_across_processes(project, tmp_path):
    code = "import model, srcad; print(srcad.source(model.f), end='')"
    other_cwd = tmp_path / "elsewhere"
    other_cwd.mkdir()
    first = run(project, code=code, SRCAD_CACHE="0", PYTHONHASHSEED="1")
    second = run(project, code=code, cwd=other_cwd, SRCAD_CACHE="0", PYTHONHASHSEED="2")
    assert first.encode() == second.encode()
    assert "def df(x, dout=1.0):" in first
    # and what a process reads back from the disk cache is the same text again
    run(project)
    third = run(project, code=code, FORBID_BUILD="1")
    assert third.encode() == first.encode()


def _traceback_of(call):
    with pytest.raises(Exception) as info:
        call()
    return traceback.extract_tb(info.value.__traceback__)


def test_traceback_points_into_the_cached_file(project, counted_build):
    model = load_model(project)
    frames = _traceback_of(lambda: srcad.autodiff(model.f)(np.ones(2), np.ones(3)))   # the seed: wrong shape
    [path] = cache_files(project)
    generated = [frame for frame in frames if frame.filename == str(path)]
    assert generated, [frame.filename for frame in frames]
    frame = generated[-1]
    assert frame.name == "df"
    line = linecache.getline(frame.filename, frame.lineno)
    assert line.strip() and line.strip() == frame.line
    assert line in path.read_text().splitlines(keepends=True)


def test_traceback_is_readable_without_disk_cache(project, counted_build, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    model = load_model(project)
    frames = _traceback_of(lambda: srcad.autodiff(model.f)(np.ones(2), np.ones(3)))   # the seed: wrong shape
    generated = [frame for frame in frames if frame.name == "df"]
    assert generated
    frame = generated[-1]
    assert frame.filename.startswith("<srcad ")
    line = linecache.getline(frame.filename, frame.lineno)
    assert line.strip() and line in srcad.source(model.f)


def test_cache_directory_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("SRCAD_CACHE", raising=False)
    monkeypatch.delenv("SRCAD_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "srcad"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "srcad"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache.cache_dir() == tmp_path / "explicit"
    for off in ("0", "false", "off", "no"):
        monkeypatch.setenv("SRCAD_CACHE", off)
        assert cache.cache_dir() is None


# --------------------------------------------------------------------------
# robustness: damaged files, unusable directories, concurrency, stale entries


def test_a_damaged_body_under_a_valid_key_line_is_not_run(project, counted_build):
    """The key line carries a digest of the rest: a truncated or edited body is rebuilt, never run."""
    model = load_model(project)
    x = np.linspace(-1.0, 2.0, 4)
    srcad.grad(model.f)(x)
    [path] = cache_files(project)
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    for damaged in ("".join(lines[:len(lines) // 2]),                      # cut at a line boundary
                    text.replace("dout=1.0", "dout=2.0")):                 # still valid Python
        path.write_text(damaged)
        forget_derivatives()
        before = len(counted_build)
        np.testing.assert_allclose(srcad.grad(model.f)(x), expected_gradient(x))
        assert len(counted_build) == before + 1
        assert path.read_text() == text


def _two_functions(project):
    (project / "src" / "pair.py").write_text(MODULE + "\n\ndef g(x):\n    return np.sum(np.cos(x) * x)\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"pair_{abs(hash(str(project)))}", project / "src" / "pair.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gradients_with_warnings(module, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = (srcad.grad(module.f)(x), srcad.grad(module.g)(x), srcad.grad(module.f)(x))
    return results, [w for w in caught if "srcad" in str(w.message)]


def _check_memory_fallback(module, x):
    (df1, dg, df2), caught = _gradients_with_warnings(module, x)
    np.testing.assert_allclose(df1, expected_gradient(x))
    np.testing.assert_allclose(df2, expected_gradient(x))
    np.testing.assert_allclose(dg, -np.sin(x) * x + np.cos(x))
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert issubclass(caught[0].category, RuntimeWarning)
    assert "in memory" in str(caught[0].message)


def test_a_cache_directory_that_cannot_be_created_falls_back_to_memory(project, counted_build, monkeypatch):
    blocker = project / "not-a-directory"
    blocker.write_text("a file where the cache directory's parent should be")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(cache, "_warned", set())
    _check_memory_fallback(_two_functions(project), np.linspace(-1.0, 2.0, 4))
    assert len(counted_build) == 2


def test_a_read_only_cache_directory_falls_back_to_memory(project, counted_build, monkeypatch):
    directory = project / "cache"
    directory.mkdir(mode=0o700)
    directory.chmod(0o500)
    monkeypatch.setattr(cache, "_warned", set())
    if os.geteuid() == 0:   # root writes anywhere: make the write fail as it would for a user
        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied", str(directory))
        monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    try:
        _check_memory_fallback(_two_functions(project), np.linspace(-1.0, 2.0, 4))
        assert list(directory.iterdir()) == []
    finally:
        directory.chmod(0o700)


def test_concurrent_processes_agree_and_leave_one_complete_file(project):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(project / "cache"), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([str(project / "src"), str(REPO)]))
    processes = [subprocess.Popen([sys.executable, str(project / "src" / "script.py")], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert err == ""
        outputs.append(out)
    assert len(set(outputs)) == 1
    np.testing.assert_allclose(eval(outputs[0]), expected_gradient(np.linspace(-1.0, 2.0, 4)))
    assert len(cache_files(project)) == 1
    assert [p.name for p in (project / "cache").iterdir() if p.name.startswith(".tmp")] == []
    assert run(project, FORBID_BUILD="1") == outputs[0]


def test_concurrent_threads_get_one_consistent_result(project, monkeypatch):
    import threading
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(project / "cache"))
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    monkeypatch.setattr(srcad.derivative, "_BY_FUNCTION", weakref.WeakKeyDictionary())   # the shared ones
    model = load_model(project, "threads")
    x = np.linspace(-1.0, 2.0, 4)
    barrier = threading.Barrier(8)
    results, errors = [None] * 8, []

    def work(slot):
        try:
            barrier.wait()
            results[slot] = (srcad.grad(model.f)(x), srcad.source(model.f))
        except Exception as error:   # noqa: BLE001 -- reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    for gradient, text in results:
        np.testing.assert_array_equal(gradient, results[0][0])
        assert text == results[0][1]
    np.testing.assert_allclose(results[0][0], expected_gradient(x))
    assert len(cache_files(project)) == 1


def test_an_upgrade_of_srcad_never_uses_old_entries(project, counted_build, monkeypatch):
    model = load_model(project)
    x = np.linspace(-1.0, 2.0, 4)
    srcad.grad(model.f)(x)
    [old] = cache_files(project)
    old.write_text(old.read_text())   # the old entry stays valid for the old version
    monkeypatch.setattr(cache, "_CODE_FINGERPRINT", ["a different srcad"])
    forget_derivatives()
    np.testing.assert_allclose(srcad.autodiff(model.f)(x, 1.0), expected_gradient(x))
    assert len(counted_build) == 2
    assert len(cache_files(project)) == 2 and old in cache_files(project)


def test_registering_a_rule_never_uses_old_entries(project, counted_build):
    from srcad.templates import REGISTRY
    (project / "src" / "ruled.py").write_text(
        "import numpy as np\n\n\ndef inner(x):\n    return np.sin(x)\n\n\n"
        "def f(x):\n    return np.sum(inner(x))\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("ruled_cache_test", project / "src" / "ruled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(-1.0, 2.0, 4)
    df = srcad.grad(module.f)
    np.testing.assert_allclose(df(x), np.cos(x))
    files_before = len(cache_files(project))

    def doubled_adjoint(y, x):
        srcad.d[x] = 2.0 * srcad.d[y] * np.cos(x)

    try:
        srcad.adjoint(module.inner)(doubled_adjoint)
        np.testing.assert_allclose(df(x), 2.0 * np.cos(x))        # the same Derivative object rebuilds
        assert len(cache_files(project)) > files_before
    finally:
        REGISTRY.rules["reverse"].pop(module.inner, None)
        REGISTRY.version += 1
    np.testing.assert_allclose(df(x), np.cos(x))


# --------------------------------------------------------------------------
# security: source only, a private directory, untrusted files are never run

FORBIDDEN_MODULES = {"pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}


def test_srcad_never_imports_a_serialiser_that_runs_code():
    import ast
    found = []
    for path in sorted((REPO / "srcad").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [node.value] if node.value in FORBIDDEN_MODULES else []
            found += [f"{path.name}:{node.lineno}: {name}" for name in names
                      if name.split(".")[0] in FORBIDDEN_MODULES]
    assert found == []


def test_the_cache_directory_is_private_and_files_are_owner_only(project, counted_build):
    model = load_model(project)
    srcad.grad(model.f)(np.ones(3))
    directory = project / "cache"
    assert directory.stat().st_mode & 0o777 == 0o700
    [path] = cache_files(project)
    assert path.stat().st_mode & 0o777 == 0o600


def _plant(path, marker):
    """Replace a cache file by one with a valid key line whose code would leave ``marker``."""
    key = path.read_text().partition("\n")[0].split()[2]
    body = (f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n\n\n"
            "def df(x, dout=1.0):\n    return 'planted'\n")
    path.write_text(cache.file_text(key, body))


def _planted_run(project, model, counted_build, x):
    """Plant a file, then compute the gradient in a fresh memory cache; (gradient, warnings)."""
    srcad.grad(model.f)(x)
    [path] = cache_files(project)
    marker = project / "marker"
    _plant(path, marker)
    forget_derivatives()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = srcad.autodiff(model.f)(x, 1.0)
        again = srcad.grad(model.f)(x)
    return gradient, again, marker, [str(w.message) for w in caught if "srcad" in str(w.message)]


def test_a_planted_file_is_run_when_trusted(project, counted_build, monkeypatch):
    """Why the checks matter: a file with a valid key line in a trusted directory is code srcad runs."""
    monkeypatch.setattr(cache, "_warned", set())
    model = load_model(project)
    gradient, _, marker, caught = _planted_run(project, model, counted_build, np.ones(3))
    assert gradient == "planted" and marker.exists() and caught == []


@pytest.mark.parametrize("problem", ["file owned by someone else", "file writable by others",
                                     "directory owned by someone else", "directory writable by group"])
def test_untrusted_files_are_refused_with_one_warning(project, counted_build, monkeypatch, problem):
    monkeypatch.setattr(cache, "_warned", set())
    model = load_model(project)
    x = np.linspace(-1.0, 2.0, 4)
    srcad.grad(model.f)(x)
    [path] = cache_files(project)
    directory = project / "cache"
    real_fstat, real_stat = os.fstat, os.stat

    def foreign(status):
        fields = list(status)
        fields[4] = os.getuid() + 1000   # st_uid
        return os.stat_result(fields)

    if problem == "file owned by someone else":
        monkeypatch.setattr(cache.os, "fstat", lambda fd: foreign(real_fstat(fd)))
    elif problem == "file writable by others":
        path.chmod(0o666)
    elif problem == "directory owned by someone else":
        monkeypatch.setattr(cache.os, "stat", lambda p, *a, **k: foreign(real_stat(p, *a, **k))
                            if str(p) == str(directory) else real_stat(p, *a, **k))
    else:
        directory.chmod(0o770)
    marker = project / "marker"
    _plant(path, marker)
    planted = path.read_text()
    forget_derivatives()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = srcad.autodiff(model.f)(x, 1.0)
        second = srcad.grad(model.f)(x)
    messages = [str(w.message) for w in caught if "srcad" in str(w.message)]
    np.testing.assert_allclose(first, expected_gradient(x))
    np.testing.assert_allclose(second, expected_gradient(x))
    assert not marker.exists(), "srcad ran an untrusted cache file"
    assert len(messages) == 1, messages
    assert ("directory" in problem) == ("directory" in messages[0])
    assert path.read_text() == planted         # someone else's file is left alone
    directory.chmod(0o700)


def test_srcads_own_code_is_digested_by_content_and_kept_by_file_times(tmp_path, monkeypatch):
    """The digest of srcad's own files: by their content (the same release anywhere gives the same keys, as
    a pickled derivative on another machine needs); kept in the cache directory under the files' paths,
    sizes, inodes and times, so a new process reads one small file instead of every source file; any edit
    changes it, even one that keeps the size and puts the modification time back, and a kept digest that
    is damaged is computed again."""
    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "a.py").write_text("A = 1\n")
    (folder / "b.py").write_text("B = 2\n")
    monkeypatch.setattr(cache, "_own_files", lambda: [(str(folder), "a.py"), (str(folder), "b.py")])
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))

    def fingerprint():
        monkeypatch.setattr(cache, "_CODE_FINGERPRINT", [])
        return cache.code_fingerprint()

    first = fingerprint()
    [kept] = (tmp_path / "cache").glob("srcad_own_code_*.digest")
    assert first in kept.read_text() and not list((tmp_path / "cache").glob("*.py"))   # no derivative file
    assert fingerprint() == first
    kept_time = os.stat(folder / "b.py").st_mtime_ns
    (folder / "b.py").write_text("B = 3\n")   # the same size, the modification time put back
    os.utime(folder / "b.py", ns=(kept_time, kept_time))
    edited = fingerprint()
    assert edited != first
    (folder / "b.py").write_text("B = 2\n")   # the same text, a new modification time: the same digest
    os.utime(folder / "b.py", ns=(1, 1))
    assert fingerprint() == first
    for digest in (tmp_path / "cache").glob("srcad_own_code_*.digest"):
        digest.write_text(digest.read_text().replace(first[:8], "zz"))   # damaged: its key line no longer holds
    assert fingerprint() == first
    monkeypatch.setenv("SRCAD_CACHE", "0")
    assert fingerprint() == first
