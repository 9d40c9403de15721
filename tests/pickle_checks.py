"""(Run in a fresh interpreter by tests/test_pickle.py.) Derivatives pickle, and work in other processes: pools, executors, a Dask cluster.

Every kind of object srcad returns is sent with ``pickle`` and with
``cloudpickle`` and must give, in the receiving process, exactly what it
gives here (the same generated code runs on the same floats), and what it
gives is checked against central finite differences.  The functions live in
``tests/pickle_functions.py`` so that workers can import them by name; the
``workers_find_tests`` fixture puts ``tests/`` on their ``PYTHONPATH``.
"""
import concurrent.futures
import dataclasses
import functools
import importlib
import multiprocessing
import os
import pickle
import subprocess
import sys
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

import srcad
from gradcheck import fd_directional, inner
from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
import pickle_functions as pf

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
RNG = np.random.default_rng(7)
X, Y = RNG.standard_normal(5), RNG.standard_normal(5)
W = RNG.standard_normal((5, 5))


def _kinds():
    """(label, the object srcad returns, the arguments to call it with): one row per kind of object."""
    return [
        ("grad", srcad.grad(pf.loss), (X,)),
        ("grad of two, with a default", srcad.grad(pf.weighted, wrt=(0, 1)), (X, Y)),
        ("autodiff reverse", srcad.autodiff(pf.vector), (X, Y)),
        ("autodiff forward", srcad.autodiff(pf.vector, mode="forward"), (X, Y)),
        ("value_and_grad", srcad.value_and_grad(pf.loss), (X,)),
        ("has_aux", srcad.grad(pf.with_aux, has_aux=True), (X,)),
        ("variadic", srcad.grad(pf.total, wrt="xs"), (X, Y, X)),
        ("jacobian", srcad.jacobian(pf.vector), (X,)),
        ("hessian", srcad.hessian(pf.loss), (X,)),
        ("partial", srcad.grad(functools.partial(pf.weighted, scale=3.0)), (X, Y)),
        ("bound method, wrt self.W", srcad.grad(pf.Model(W, Y).loss, wrt="self.W"), (X,)),
        ("bound method", srcad.grad(pf.Model(W, Y).loss), (X,)),
        ("a dataclass argument", srcad.grad(pf.params_loss), (pf.Params(W, Y), X)),
        ("vjp's pullback", srcad.vjp(pf.vector, X)[1], (Y,)),
        ("decorator form", srcad.grad(wrt=0)(pf.loss), (X,)),
        ("a derivative of a derivative", srcad.grad(srcad.grad(pf.cubic)), (0.7,)),
    ]


KINDS = _kinds()
LABELS = [label for label, _, _ in KINDS]


def _arrays(value):
    """The arrays of a result (tuples, dicts, dataclasses, numbers), in a fixed order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _arrays(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _arrays(value[key])]
    if dataclasses.is_dataclass(value):
        return [leaf for field in dataclasses.fields(value) for leaf in _arrays(getattr(value, field.name))]
    return [np.asarray(value, dtype=np.float64)]


def assert_identical(result, expected, what):
    """Bit for bit: the receiving process runs the same generated code on the same floats."""
    got, want = _arrays(result), _arrays(expected)
    assert len(got) == len(want), f"{what}: {len(got)} arrays, expected {len(want)}"
    for a, b in zip(got, want):
        assert a.shape == b.shape and np.array_equal(a, b), f"{what}: {a} != {b}"


def assert_fd(f, args, positions, gradients):
    """<gradient, v> equals the central difference of f along random v (f scalar-valued)."""
    directions = [RNG.standard_normal(np.shape(args[p])) for p in positions]
    [fd] = fd_directional(f, args, positions, directions)
    product = sum(inner(g, d) for g, d in zip(gradients, directions))
    assert abs(product - float(fd)) <= 1e-6 * (1.0 + abs(product)), (product, float(fd))


@pytest.fixture(autouse=True)
def workers_find_tests(monkeypatch):
    """Processes started by a test import ``pickle_functions`` and this srcad (spawned ones too)."""
    paths = [str(TESTS), str(REPO), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))


def _from_tests(value) -> bool:
    """Whether ``value`` (a rule, or the function a rule is for) is defined in a file under tests/."""
    code = getattr(value, "__code__", None)
    if code is not None:
        return Path(code.co_filename).resolve().is_relative_to(TESTS)
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    return bool(getattr(module, "__file__", None)) and Path(module.__file__).resolve().is_relative_to(TESTS)


@pytest.fixture
def rules_of_a_new_process(monkeypatch):
    """The registry without the rules other test modules registered when the suite imported them: a worker
    does not import those modules, and a derivative pickled where the rules differ is refused as stale."""
    from srcad.templates import REGISTRY
    monkeypatch.setattr(REGISTRY, "rules", {mode: {key: rule for key, rule in by_key.items()
                                                   if not _from_tests(rule.rule) and not _from_tests(rule.primal)}
                                            for mode, by_key in REGISTRY.rules.items()})
    for table in ("nondiff", "refused", "refused_arguments"):
        monkeypatch.setattr(REGISTRY, table, {key: value for key, value in getattr(REGISTRY, table).items()
                                              if not _from_tests(key)})
    monkeypatch.setattr(REGISTRY, "version", REGISTRY.version + 1_000_000)   # the fingerprints are computed anew


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
@pytest.mark.parametrize("label", LABELS)
def test_every_kind_round_trips(label, dumps):
    _, made, args = KINDS[LABELS.index(label)]
    sent = dumps(made)
    assert b"CodeType" not in sent and b"marshal" not in sent   # the function by name, never code
    assert_identical(pickle.loads(sent)(*args), made(*args), label)


def test_a_round_trip_in_the_same_process_gives_the_shared_derivative():
    df = srcad.grad(pf.loss)
    assert pickle.loads(pickle.dumps(df)) is df
    assert pickle.loads(pickle.dumps(srcad.autodiff(pf.vector, mode="forward"))) is \
        srcad.autodiff(pf.vector, mode="forward")


def test_unpickled_derivatives_agree_with_finite_differences():
    gradient = pickle.loads(pickle.dumps(srcad.grad(pf.weighted, wrt=(0, 1))))
    assert_fd(pf.weighted, (X, Y), (0, 1), gradient(X, Y))
    pullback = pickle.loads(pickle.dumps(srcad.vjp(pf.vector, X)[1]))
    assert_fd(lambda x: np.dot(Y, pf.vector(x)), (X,), (0,), pullback(Y))
    model = pf.Model(W, Y)
    by_weights = pickle.loads(cloudpickle.dumps(srcad.grad(model.loss, wrt="self.W")))
    assert_fd(lambda w: pf.Model(w, Y).loss(X), (W,), (0,), (by_weights(X),))


@pytest.mark.parametrize("function", [pf.square, pf.make_local(3)], ids=["lambda", "local function"])
def test_a_function_pickle_cannot_name_is_refused_with_the_fix_and_sent_by_cloudpickle(function):
    df = srcad.grad(function)
    with pytest.raises(srcad.SrcadError) as refused:
        pickle.dumps(df)
    message = str(refused.value)
    assert function.__qualname__ in message and "pickle_functions.py:" in message
    assert "top level of an importable module" in message and "cloudpickle.dumps(df)" in message
    for kind in (srcad.vjp(function, X)[1], srcad.hessian(function), srcad.jacobian(function)):
        with pytest.raises(srcad.SrcadError, match="cloudpickle"):
            pickle.dumps(kind)
    copy = pickle.loads(cloudpickle.dumps(df))
    assert copy is not df
    assert_identical(copy(X), df(X), function.__qualname__)
    assert_fd(function, (X,), (0,), (copy(X),))


def _module(directory, name, body):
    path = directory / f"{name}.py"
    path.write_text(f"import numpy as np\n\n\ndef f(x):\n    return {body}\n")
    return path


def test_an_unpickled_derivative_of_edited_source_raises_stale(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path = _module(tmp_path, "edited_model", "np.sum(np.sin(x) * x)")
    module = importlib.import_module("edited_model")
    sent = pickle.dumps(srcad.grad(module.f))
    path.write_text(path.read_text().replace("np.sin(x) * x", "np.cos(x) * x * x"))
    importlib.reload(module)   # the receiver has the edited file
    received = pickle.loads(sent)
    with pytest.raises(srcad.StaleSourceError, match=r"f \(.*edited_model\.py\)"):
        received(X)
    with pytest.raises(srcad.StaleSourceError):
        received.source
    assert_fd(module.f, (X,), (0,), (srcad.grad(module.f)(X),))   # the new function's own derivative works
    with pytest.raises(srcad.StaleSourceError):   # nor is a derivative of it taken
        srcad.hessian(received)


RECEIVER = """
import pickle, sys
import numpy as np
import srcad, srcad.api

def build(*args, **kwargs):
    raise AssertionError("built although the disk cache holds this derivative")

srcad.api.build = build
fresh, edited = pickle.loads(open(sys.argv[1], "rb").read())
print(repr(fresh(np.linspace(-1.0, 1.0, 5)).tolist()))
try:
    edited(np.ones(5))
except srcad.StaleSourceError as error:
    print("stale:", str(error).splitlines()[0])
"""


def test_a_new_process_loads_from_the_disk_cache_and_refuses_edited_source(tmp_path, monkeypatch,
                                                                          rules_of_a_new_process):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SRCAD_CACHE", "1")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    fresh = importlib.import_module(_module(tmp_path, "fresh_model", "np.sum(np.tanh(x) ** 3)").stem)
    path = _module(tmp_path, "changed_model", "np.sum(np.exp(x) * x)")
    changed = importlib.import_module(path.stem)
    x = np.linspace(-1.0, 1.0, 5)
    expected = srcad.grad(fresh.f)(x)   # built here, and written to the disk cache
    srcad.grad(changed.f)(x)
    (tmp_path / "sent.pickle").write_bytes(pickle.dumps((srcad.grad(fresh.f), srcad.grad(changed.f))))
    path.write_text(path.read_text().replace("np.exp(x) * x", "np.exp(x) + x"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ["PYTHONPATH"]]))
    run = subprocess.run([sys.executable, "-c", RECEIVER, str(tmp_path / "sent.pickle")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    gradient, stale = run.stdout.splitlines()
    np.testing.assert_array_equal(np.array(eval(gradient)), expected)
    assert stale.startswith("stale: the derivative of f was pickled") and "changed_model.py" in stale


INPUTS = [np.linspace(-1.0, 1.0, 5) * scale for scale in (0.5, 1.0, 2.0, 3.0)]
SENT = [(made, args) for label, made, args in KINDS if label not in ("hessian", "jacobian")] + [
    (srcad.jvp, (pf.vector, (X,), (Y,))),   # jvp returns values: computed over there
]


def _expected():
    return [srcad.grad(pf.loss)(x) for x in INPUTS], [made(*args) for made, args in SENT]


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_a_multiprocessing_pool(method, rules_of_a_new_process):
    gradients, results = _expected()
    with multiprocessing.get_context(method).Pool(2) as pool:
        got = pool.map(srcad.grad(pf.loss), INPUTS)
        sent = pool.starmap(pf.call, [(made, *args) for made, args in SENT])
        built_there = pool.map(pf.gradient_of_loss, INPUTS)
    for result, expected in zip(got + built_there, gradients + gradients):
        assert_identical(result, expected, f"{method} pool")
    for result, expected in zip(sent, results):
        assert_identical(result, expected, f"{method} pool")


def test_a_process_pool_executor(rules_of_a_new_process):
    gradients, results = _expected()
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as executor:
        got = list(executor.map(srcad.grad(pf.loss), INPUTS))
        sent = [executor.submit(pf.call, made, *args) for made, args in SENT]
        sent = [future.result() for future in sent]
        refused = executor.submit(pf.call, srcad.grad(pf.square), X)
        with pytest.raises(srcad.SrcadError, match="cloudpickle"):
            refused.result()
    for result, expected in zip(got, gradients):
        assert_identical(result, expected, "executor")
    for result, expected in zip(sent, results):
        assert_identical(result, expected, "executor")


def test_a_dask_local_cluster(rules_of_a_new_process):
    import distributed   # the test extra installs it
    gradients, _ = _expected()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        got = client.gather(client.map(srcad.grad(pf.loss), INPUTS))
        by_value = client.gather(client.map(srcad.grad(pf.square), INPUTS))   # a lambda: cloudpickle
        weights = client.gather(client.map(srcad.grad(pf.Model(W, Y).loss, wrt="self.W"), INPUTS))
    for result, expected in zip(got, gradients):
        assert_identical(result, expected, "dask")
    for result, x in zip(by_value, INPUTS):
        assert_identical(result, srcad.grad(pf.square)(x), "dask, a lambda")
    for result, x in zip(weights, INPUTS):
        assert_identical(result, srcad.grad(pf.Model(W, Y).loss, wrt="self.W")(x), "dask, wrt self.W")


SCRIPT = """
import multiprocessing
import numpy as np
import srcad


def helper(x):
    return np.sin(x) * x


def f(x):
    return np.sum(helper(x) ** 2)


if __name__ == "__main__":   # the children import this file as __mp_main__: the same functions
    xs = [np.linspace(-1.0, 1.0, 4) * scale for scale in (1.0, 2.0)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(srcad.grad(f), xs)
        print(all(np.array_equal(a, srcad.grad(f)(x)) for a, x in zip(got, xs)))
        try:
            pool.map(srcad.grad(lambda x: np.sum(x * x)), xs)
        except srcad.SrcadError as error:
            print(str(error).split(":")[0])
"""


def test_a_script_sends_the_derivatives_of_its_own_functions_to_a_spawn_pool(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    run = subprocess.run([sys.executable, str(tmp_path / "script.py")], capture_output=True, text=True,
                         timeout=120, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["True", f"cannot pickle the derivative of <lambda> ({tmp_path / 'script.py'}"]


SENDER = """
import sys
import cloudpickle
import numpy as np
import srcad

SCALE = 1.5


def helper(x):
    return np.sin(x) * x * SCALE


def f(x):
    return np.sum(helper(x) ** 2) + np.sum([v * v for v in x])


x = np.linspace(-1.0, 1.0, 4)
np.save(sys.argv[2], srcad.grad(f)(x))
open(sys.argv[1], "wb").write(cloudpickle.dumps((srcad.grad(f), srcad.hessian(f))))
"""

LOADER = """
import pickle, sys
import numpy as np
import srcad
df, hessian = pickle.loads(open(sys.argv[1], "rb").read())
x = np.linspace(-1.0, 1.0, 4)
try:
    np.save(sys.argv[2], df(x))
    np.save(sys.argv[3], hessian(x))
    print(df.source.splitlines()[0])
except srcad.StaleSourceError as error:
    print("stale:", str(error)[:120])
"""


def _script_sent_by_value(tmp_path, receiver_has):
    """Run SENDER as a script (its functions are __main__'s: cloudpickle sends them by value), then load
    its derivatives in a new process where the script is missing (``receiver_has`` None) or edited."""
    script, sent = tmp_path / "notebook_like.py", tmp_path / "sent.pickle"
    script.write_text(SENDER)
    env = dict(os.environ, SRCAD_CACHE="0")
    run = subprocess.run([sys.executable, str(script), str(sent), str(tmp_path / "here.npy")], env=env,
                         capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    script.unlink() if receiver_has is None else script.write_text(receiver_has)
    (tmp_path / "loader.py").write_text(LOADER)
    run = subprocess.run([sys.executable, str(tmp_path / "loader.py"), str(sent), str(tmp_path / "there.npy"),
                          str(tmp_path / "hessian.npy")], env=env, capture_output=True, text=True, timeout=120,
                         cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_cloudpickle_sends_the_source_of_functions_it_sends_by_value(tmp_path):
    # the receiving process cannot read the script: the source travels with the derivative
    out = _script_sent_by_value(tmp_path, receiver_has=None)
    assert "reverse-mode derivative of f (notebook_like.py:" in out, out
    here, there = np.load(tmp_path / "here.npy"), np.load(tmp_path / "there.npy")
    assert np.array_equal(here, there)

    def f(x):
        return np.sum((np.sin(x) * x * 1.5) ** 2) + np.sum(x * x)

    x = np.linspace(-1.0, 1.0, 4)
    assert_fd(f, (x,), (0,), (there,))
    hessian = np.load(tmp_path / "hessian.npy")
    for column, direction in enumerate(np.eye(4)):   # each column against differences of the gradient
        step = 1e-6
        difference = (srcad.grad(f)(x + step * direction) - srcad.grad(f)(x - step * direction)) / (2 * step)
        np.testing.assert_allclose(hessian[:, column], difference, rtol=1e-6, atol=1e-8)


def test_a_receiver_with_another_file_at_that_path_refuses_as_stale(tmp_path):
    out = _script_sent_by_value(tmp_path, receiver_has=SENDER.replace("np.sin(x) * x", "np.cos(x) * x"))
    assert out.startswith("stale:") and "derivative of f was pickled" in out, out
