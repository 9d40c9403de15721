"""Many threads and many processes asking for the same derivative at once.

- Threads: sixteen threads take their first gradient of the same function at
  the same moment (a barrier releases them together, and the build is slowed
  down so that they all arrive while it runs): it is built once, and every
  thread gets the same, right answer.
- Processes: eight processes sharing one empty cache directory build the
  same derivatives at the same moment: the directory ends with one complete
  file per derivative (written to a temporary file, then renamed), no
  temporary file is left, and every process gets the same, right answer.
"""
import os
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pytest

import srcad
import srcad.api
import srcad.derivative
from srcad import cache
from gradcheck import fd_directional, inner
from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
import pickle_functions as pf

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
X, Y = np.linspace(-1.0, 1.5, 5), np.linspace(0.5, -0.5, 5)
W = np.outer(X, Y) * 0.3 + np.eye(5)


@pytest.fixture
def builds(monkeypatch):
    """The functions built (a fresh process's memory: nothing built yet), each build slowed down."""
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    monkeypatch.setattr(srcad.derivative, "_BY_FUNCTION", weakref.WeakKeyDictionary())
    built, real = [], srcad.api.build

    def slow_build(func, *args, **kwargs):
        built.append(func.__qualname__)
        time.sleep(0.05)   # wide enough for every thread to arrive while the first one builds
        return real(func, *args, **kwargs)

    monkeypatch.setattr(srcad.api, "build", slow_build)
    return built


def _at_once(count, task):
    """``task()`` on ``count`` threads released together; their results, in thread order."""
    barrier, results, errors = threading.Barrier(count), [None] * count, []

    def run(index):
        barrier.wait()
        try:
            results[index] = task()
        except Exception as error:   # noqa: BLE001  (reported below, with the thread)
            errors.append((index, error))

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    return results


def _assert_fd(f, args, position, gradient):
    direction = np.cos(np.arange(np.size(args[position]))).reshape(np.shape(args[position]))
    [fd] = fd_directional(f, args, (position,), [direction])
    product = inner(gradient, direction)
    assert abs(product - float(fd)) <= 1e-6 * (1.0 + abs(product)), (product, float(fd))


def test_sixteen_threads_build_a_shared_derivative_once(builds):
    results = _at_once(16, lambda: srcad.grad(pf.loss)(X))
    assert builds == ["loss"]
    for result in results:
        np.testing.assert_array_equal(result, results[0])
    _assert_fd(pf.loss, (X,), 0, results[0])


def test_sixteen_threads_with_their_own_derivative_objects_build_once(builds):
    model = pf.Model(W, Y)   # a bound method's derivative is one per call of srcad.grad, not shared
    results = _at_once(16, lambda: srcad.grad(model.loss, wrt="self.W")(X))
    assert builds == ["Model.loss"]
    for result in results:
        np.testing.assert_array_equal(result, results[0])
    _assert_fd(lambda w: pf.Model(w, Y).loss(X), (W,), 0, results[0])


def test_sixteen_threads_of_forward_and_reverse_get_their_own_answers(builds):
    tangent = np.ones(5)
    results = _at_once(16, lambda: (srcad.autodiff(pf.vector, mode="forward")(X, tangent),
                                    srcad.value_and_grad(pf.weighted, wrt=(0, 1))(X, Y)))
    assert sorted(builds) == ["vector", "weighted"]
    for result in results:
        np.testing.assert_array_equal(result[0], results[0][0])
        np.testing.assert_array_equal(result[1][1][0], results[0][1][1][0])
    [fd] = fd_directional(pf.vector, (X,), (0,), [tangent])
    np.testing.assert_allclose(results[0][0], fd, rtol=1e-6, atol=1e-9)
    _assert_fd(lambda x: pf.weighted(x, Y), (X,), 0, results[0][1][1][0])


WORKER = """
import os, sys, time
import numpy as np
start = sys.argv[1]
deadline = time.monotonic() + 60
while not os.path.exists(start) and time.monotonic() < deadline:   # wait for the others
    time.sleep(0.005)
import srcad
import pickle_functions as pf
x, y = np.linspace(-1.0, 1.5, 5), np.linspace(0.5, -0.5, 5)
results = [srcad.grad(pf.loss)(x), srcad.grad(pf.weighted, wrt=(0, 1))(x, y),
           srcad.autodiff(pf.vector, mode="forward")(x, np.ones(5))]
print(repr([np.asarray(r).tolist() for r in results]))
"""


def test_eight_processes_share_one_cache_directory(tmp_path):
    directory, start = tmp_path / "cache", tmp_path / "start"
    env = dict(os.environ, SRCAD_CACHE="1", SRCAD_CACHE_DIR=str(directory), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(p for p in [str(TESTS), str(REPO), os.environ.get("PYTHONPATH")] if p))
    processes = [subprocess.Popen([sys.executable, "-c", WORKER, str(start)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(8)]
    time.sleep(0.5)
    start.touch()   # all eight import srcad and build at once
    outputs = []
    for process in processes:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err
        outputs.append(out)
    assert len(set(outputs)) == 1   # the same answers, bit for bit
    files = sorted(path.name for path in directory.iterdir())
    assert [name for name in files if name.startswith(".tmp-")] == []   # no temporary file left behind
    derivatives = [name for name in files if name.endswith(".py")]   # and the digest of srcad's own code
    assert len(derivatives) == 3 and len({name.rsplit("_", 1)[0] for name in derivatives}) == 3, files
    assert [name for name in files if not name.endswith(".py")] == [
        name for name in files if name.startswith("srcad_own_code_") and name.endswith(".digest")], files
    assert len(files) == 4, files
    for path in directory.iterdir():   # each one complete: its key line carries the digest of the rest
        text = path.read_text()
        key = text.partition("\n")[0].split()[2]
        assert cache.file_text(key, text.partition("\n")[2]) == text
        assert path.name.endswith((f"_{key[:24]}.py", f"_{key[:24]}.digest"))
    gradient, (gx, gy), tangent = (np.array(r) for r in eval(outputs[0]))
    _assert_fd(pf.loss, (X,), 0, gradient)
    _assert_fd(pf.weighted, (X, Y), 1, gy)
    [fd] = fd_directional(pf.vector, (X,), (0,), [np.ones(5)])
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-9)


def test_a_forked_child_loads_while_a_parent_thread_is_loading(builds):
    import multiprocessing
    import threading as threads
    holding, release = threads.Event(), threads.Event()

    def load_slowly():   # another thread of the parent is inside a load when the children are forked
        with srcad.api._LOADING:
            holding.set()
            release.wait(60)

    holder = threads.Thread(target=load_slowly)
    holder.start()
    holding.wait(60)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            result = pool.map_async(pf.gradient_of_loss, [X]).get(timeout=30)[0]
    finally:
        release.set()
        holder.join(60)
    _assert_fd(pf.loss, (X,), 0, result)
