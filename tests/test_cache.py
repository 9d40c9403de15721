"""The derivative cache: in memory per process, and on disk across processes.

Contract checked here: a derivative is transformed once per process; a new
process finds it on disk and does not transform again; editing the function's
source makes a new entry; ``SRCAD_CACHE=0`` writes nothing; a damaged cache
file is ignored and rewritten; generated source is byte-identical across
processes; and tracebacks through a derivative point at readable lines of the
generated file.  Every test uses its own cache directory.
"""
import linecache
import os
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

import srcad
import srcad.api
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
    return calls


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
    frames = _traceback_of(lambda: srcad.grad(model.f)("not an array"))
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
    frames = _traceback_of(lambda: srcad.grad(model.f)("not an array"))
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
