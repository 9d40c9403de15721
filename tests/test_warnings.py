"""Every warning srcad issues names the user's line and says what to do.

Contract:
- A cache warning (a directory that cannot be written, a directory or file
  others may write) is attributed to the test's own line that called the
  derivative, whether it is called directly, through ``srcad.jacobian``, or
  from inside another derivative's generated code; its message names a fix
  (``SRCAD_CACHE_DIR``, ``SRCAD_CACHE=0``, ``chmod``).
- A SciPy family that fails to register warns at the caller too.
- ``user_warnings.user_stacklevel`` skips srcad's packages and generated modules, never the user's.
- The derivatives stay right in every case (checked against finite differences).
"""
import contextlib
import os
import textwrap
import warnings

import numpy as np
import pytest

import srcad
import srcad.api
import srcad.derivative
from srcad import cache
from srcad import user_warnings
from tests.gradcheck import check_values

HERE = os.path.abspath(__file__)


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    """An empty memory cache, no warning said yet, and the disk cache under ``tmp_path``."""
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    monkeypatch.setattr(srcad.derivative, "_BY_FUNCTION", srcad.derivative._BY_FUNCTION.__class__())
    monkeypatch.setattr(cache, "_warned", set())
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _model(tmp_path, name):
    """A fresh module (so no derivative of it is cached anywhere) with f and a caller of f's derivative."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent("""\
        import numpy as np
        import srcad


        def f(x):
            return np.sum(np.sin(x) * x)


        def outer(x):
            return srcad.grad(f)(x)
        """))
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unwritable(tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory should be")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(blocker / "cache"))
    return "SRCAD_CACHE"


def _shared_directory(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    directory.chmod(0o770)
    return "chmod 700"


_PROBLEMS = {"unwritable directory": _unwritable, "directory writable by group": _shared_directory}


def _expected(x):
    return np.sin(x) + x * np.cos(x)


@pytest.mark.parametrize("problem", sorted(_PROBLEMS))
def test_a_cache_warning_names_the_line_that_called_the_derivative(fresh_cache, monkeypatch, problem):
    advice = _PROBLEMS[problem](fresh_cache, monkeypatch)
    model = _model(fresh_cache, "warned_direct")
    x = np.linspace(-1.0, 2.0, 4)
    with _srcad_warnings() as ours:
        gradient = srcad.grad(model.f)(x); line = _line_of_this()   # noqa: E702 - the call's own line
    assert len(ours) == 1, [str(w.message) for w in ours]
    assert ours[0].filename == HERE and ours[0].lineno == line
    assert advice in str(ours[0].message)
    np.testing.assert_allclose(gradient, _expected(x))
    check_values(model.f, (x,))


@contextlib.contextmanager
def _srcad_warnings():
    """Record warnings in the block; the list holds, after it, those srcad issued."""
    ours = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield ours
    ours.extend(w for w in caught if "srcad" in str(w.message))


def _line_of_this():
    import sys
    return sys._getframe(1).f_lineno


def test_through_a_transform_the_warning_still_names_the_users_line(fresh_cache, monkeypatch):
    _unwritable(fresh_cache, monkeypatch)
    model = _model(fresh_cache, "warned_jacobian")
    x = np.linspace(-1.0, 2.0, 3)
    with _srcad_warnings() as ours:
        hessian = srcad.hessian(model.f)(x)
    assert ours and all(w.filename == HERE for w in ours), [(w.filename, w.lineno) for w in ours]
    np.testing.assert_allclose(hessian, np.diag(2 * np.cos(x) - x * np.sin(x)), atol=1e-12)


def test_a_warning_raised_inside_the_users_own_function_names_that_function(fresh_cache, monkeypatch):
    """``outer`` calls a derivative: the warning names outer's line (the user's code), not srcad's."""
    _unwritable(fresh_cache, monkeypatch)
    model = _model(fresh_cache, "warned_nested")
    x = np.linspace(-1.0, 2.0, 3)
    with _srcad_warnings() as ours:
        gradient = model.outer(x)
    assert len(ours) == 1
    assert ours[0].filename == model.__file__ and ours[0].lineno == 10   # return srcad.grad(f)(x)
    np.testing.assert_allclose(gradient, _expected(x))


def test_a_scipy_family_that_fails_to_register_warns_at_the_caller(monkeypatch):
    from grad_templates import optional
    monkeypatch.setitem(optional.FAMILIES, "scipy.nonexistent", ("no_such_family_module",))
    monkeypatch.setattr(optional, "_loaded", list(optional._loaded))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optional._register("scipy.nonexistent")
    assert len(caught) == 1
    assert caught[0].filename == HERE
    assert "reinstall scipy.nonexistent" in str(caught[0].message)


def test_user_stacklevel_stops_at_the_first_frame_outside_srcad():
    def issue():
        warnings.warn("probe", UserWarning, stacklevel=user_warnings.user_stacklevel())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        issue()
    # issue() is itself the user's frame: the warning names the line inside it
    assert caught[0].filename == HERE and caught[0].lineno == issue.__code__.co_firstlineno + 1


@pytest.mark.parametrize("filename, internal", [
    (cache.__file__, True), (user_warnings.__file__, True), ("<srcad df-0123>", True),
    ("<frozen importlib._bootstrap>", True), (HERE, False), ("<stdin>", False), ("<ipython-input-1>", False)])
def test_which_frames_count_as_srcads_own(filename, internal):
    assert user_warnings._is_internal(filename) is internal
