"""The derivative differentiates the code that runs, always.

Contract checked here, in both modes (reverse through ``srcad.grad``,
forward through ``srcad.jvp`` and a kept ``srcad.autodiff(f, mode="forward")``),
each value against central finite differences of what Python runs:
- a helper redefined after the first derivative (a later notebook cell, an
  assignment to the module's name, a lambda), whether srcad inlined it or
  calls its own derivative, and a helper of a helper, gives the new
  derivative, from a new ``grad`` object and from one kept from before;
- ``from mod import act`` keeps the old binding when ``mod.act`` is
  reassigned (Python runs the old one, and so does the derivative), while
  ``mod.act(x)`` follows the new one; a module name rebound, a class's, a
  package's or an object's attribute rebound (to a Python function or to a
  NumPy one), a global hiding a builtin, a closure cell holding a function
  rebound, and a helper with the same source text but other globals, all
  follow what runs, and so do derivatives of derivatives;
- ``__code__`` replaced (what autoreload does), ``__defaults__`` and
  ``__kwdefaults__`` assigned, and defaults evaluated from a global that was
  rebound after the ``def``, are all what the derivative uses;
- a data global rebound, for the all-scalar variant too;
- a ``.py`` file edited after the import and before the first derivative
  (the text srcad would read is not the code that runs), for f and for an
  inlined or called helper, raises ``StaleSourceError`` naming the file,
  the line and ``importlib.reload``; after the reload the derivative is
  right; a def that only moved (lines added above it, even one holding a
  class) is found at its new place; an edit elsewhere in the file is no
  false alarm, nor are decorators, closures, methods (name mangling,
  ``super()``), ``from __future__ import annotations``, lambdas (one in a
  statement over several lines too) or a module pytest rewrote;
- the disk cache never serves a derivative built for another helper;
- in a real Jupyter kernel: define a helper, take a gradient, redefine the
  helper in a later cell, take it again, edit f and rerun, and autoreload
  replacing a module's code.
"""
from __future__ import annotations

import importlib
import itertools
import json
import linecache
import os
import sys
import textwrap
import types

import numpy as np
import pytest

import srcad
import srcad.api
from srcad.frontend.source import parse_function

MODES = ("reverse", "forward")
X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, -0.5, 0.25])

OPS = "import numpy as np\n\n\ndef act(u):\n    return np.tanh(u)\n"
SIN_ACT = "def act(u):\n    return np.sin(u)\n"   # a later cell redefining act

MODULE = '''\
import numpy as np


def act(u):
    return np.tanh(u)


def loss(x):
    return np.sum(act(x) ** 2)
'''


# --- checking a derivative against what runs ---------------------------------------------------------

def central(f, x, v, eps=1e-6):
    return (f(x + eps * v) - f(x - eps * v)) / (2 * eps)


def expected(f, mode, x=X):
    """Finite differences of f as Python runs it now: the gradient, or the derivative along V."""
    if mode == "reverse":
        return np.array([central(f, x, row) for row in np.eye(x.size)])
    return central(f, x, V)


def fresh(f, mode, x=X):
    """srcad's derivative through a call of the public API made now (jvp takes every parameter:
    a function with defaults goes through autodiff)."""
    if mode == "reverse":
        return srcad.grad(f)(x)
    if getattr(f, "__defaults__", None) or getattr(f, "__kwdefaults__", None):
        return call(srcad.autodiff(f, mode="forward"), mode, x)
    return srcad.jvp(f, (x,), (V,))[1]


def kept(f, mode):
    """A derivative object made now, to be called later."""
    return srcad.grad(f) if mode == "reverse" else srcad.autodiff(f, mode="forward")


def call(derivative, mode, x=X):
    """A kept derivative's value at x: the gradient, or the derivative along V (its tangent by name)."""
    return derivative(x) if mode == "reverse" else derivative(x, **{derivative.parameters[-1]: V})


def assert_right(f, mode, *held, x=X):
    """Fresh and held derivatives of f equal finite differences of f as it runs now."""
    want = expected(f, mode, x)
    np.testing.assert_allclose(fresh(f, mode, x), want, rtol=1e-6, atol=1e-8)
    for derivative in held:
        np.testing.assert_allclose(call(derivative, mode, x), want, rtol=1e-6, atol=1e-8)


def assert_differs(f, mode, old):
    """The derivative now differs from ``old``: the test really changed what runs."""
    assert not np.allclose(expected(f, mode), old, rtol=1e-3), "the change did not change the derivative"


def assert_follows(f, mode, *changes):
    """f's derivative, fresh and from an object kept from the start, is right before and after each
    change, and each change really changes it."""
    held = kept(f, mode)
    assert_right(f, mode, held)
    for change in changes:
        old = expected(f, mode)
        change()
        assert_differs(f, mode, old)
        assert_right(f, mode, held)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """Write and import modules from a private directory, with a private disk cache; forget them after."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SRCAD_CACHE", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)   # an edit within a second must not meet an old .pyc
    names = []

    class Project:
        path = tmp_path

        @staticmethod
        def module(name, text):
            (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
            names.append(name)
            sys.modules.pop(name, None)
            importlib.invalidate_caches()
            return importlib.import_module(name)

        @staticmethod
        def edit(name, text):
            (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))

    yield Project
    for name in names:
        sys.modules.pop(name, None)


_CELLS = itertools.count()


def cell(module, text):
    """Run ``text`` the way a notebook cell runs: in ``module``'s globals, its source in linecache."""
    filename = f"<stale-cell-{next(_CELLS)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    exec(compile(text, filename, "exec"), module.__dict__)


# --- helpers redefined after the first derivative ------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_an_inlined_helper_redefined_in_a_later_cell(project, mode):
    m = project.module("stale_inlined", MODULE)
    assert "dact" not in srcad.source(m.loss, mode=mode)          # inlined: no derivative of act is called
    assert_follows(m.loss, mode, lambda: cell(m, SIN_ACT))
    assert "np.sin" in srcad.source(m.loss, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_helper_assigned_to_the_module_name_from_elsewhere(project, mode):
    m = project.module("stale_assigned", MODULE)

    def act(u):   # another module's function: called through its own derivative, not inlined
        return np.sin(u)
    assert_follows(m.loss, mode, lambda: setattr(m, "act", act))
    assert "dact" in srcad.source(m.loss, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_called_helper_redefined_in_its_own_module(project, mode):
    ops = project.module("stale_ops", OPS)
    m = project.module("stale_caller", '''\
        import numpy as np
        import stale_ops


        def loss(x):
            return np.sum(stale_ops.act(x) ** 2)
        ''')
    assert_follows(m.loss, mode, lambda: cell(ops, SIN_ACT))


@pytest.mark.parametrize("mode", MODES)
def test_from_import_keeps_the_binding_python_runs(project, mode):
    ops = project.module("stale_from_ops", OPS)
    m = project.module("stale_from_caller", '''\
        import numpy as np
        from stale_from_ops import act


        def loss(x):
            return np.sum(act(x) ** 2)
        ''')
    held = kept(m.loss, mode)
    before = expected(m.loss, mode)
    assert_right(m.loss, mode, held)
    cell(ops, SIN_ACT)                                 # stale_from_ops.act is new; m.act is still the old one
    np.testing.assert_allclose(expected(m.loss, mode), before)
    assert_right(m.loss, mode, held)
    m.act = ops.act                                    # now m runs the new one
    assert_differs(m.loss, mode, before)
    assert_right(m.loss, mode, held)


@pytest.mark.parametrize("mode", MODES)
def test_helpers_of_helpers(project, mode):
    ops = project.module("stale_nested_ops", '''\
        import numpy as np


        def inner(u):
            return np.cos(u)


        def outer(u):
            return inner(u) * u
        ''')
    m = project.module("stale_nested", '''\
        import numpy as np
        import stale_nested_ops


        def act(u):
            return np.tanh(u)


        def layer(u):
            return act(u) * 2.0


        def loss(x):
            return np.sum(layer(x) ** 2) + np.sum(stale_nested_ops.outer(x))
        ''')
    assert_follows(m.loss, mode, lambda: cell(m, SIN_ACT),                  # inlined into an inlined helper
                   lambda: cell(ops, "def inner(u):\n    return np.exp(u)\n"))   # inlined into a called one


@pytest.mark.parametrize("mode", MODES)
def test_a_lambda_helper_redefined(project, mode):
    m = project.module("stale_lambda", '''\
        import numpy as np

        act = lambda u: np.tanh(u)


        def loss(x):
            return np.sum(act(x) ** 2)
        ''')
    assert_follows(m.loss, mode, lambda: cell(m, "act = lambda u: np.sin(u)\n"))


@pytest.mark.parametrize("mode", MODES)
def test_same_source_text_with_other_globals(project, mode):
    m = project.module("stale_same_text", '''\
        import numpy as np

        S = 1.0


        def act(u):
            return np.tanh(u) * S


        def loss(x):
            return np.sum(act(x) ** 2)
        ''')
    # the same code, file, name and text, but globals where S is 3: Python runs it with S = 3
    other = types.FunctionType(m.act.__code__, {"np": np, "S": 3.0}, "act")
    assert_follows(m.loss, mode, lambda: setattr(m, "act", other))


@pytest.mark.parametrize("mode", MODES)
def test_a_module_name_rebound(project, mode):
    project.module("stale_ops_a", OPS)
    project.module("stale_ops_b", OPS.replace("tanh", "sin"))
    m = project.module("stale_rebound", '''\
        import numpy as np
        import stale_ops_a as ops


        def loss(x):
            return np.sum(ops.act(x) ** 2)
        ''')
    assert_follows(m.loss, mode, lambda: setattr(m, "ops", sys.modules["stale_ops_b"]))


@pytest.mark.parametrize("mode", MODES)
def test_attributes_of_classes_packages_and_objects_and_builtins_rebound(project, mode):
    (project.path / "stale_pkg").mkdir()
    (project.path / "stale_pkg" / "__init__.py").write_text("")
    (project.path / "stale_pkg" / "sub.py").write_text(OPS + "\n\nufunc = np.tanh\n")
    m = project.module("stale_attributes", '''\
        import types

        import numpy as np
        import stale_pkg.sub


        class Helpers:
            @staticmethod
            def act(u):
                return np.tanh(u)


        def by_class(x):
            return np.sum(Helpers.act(x) ** 2)


        def by_package(x):
            return np.sum(stale_pkg.sub.act(x) ** 2)


        def by_builtin(x):
            return sum(np.tanh(x) ** 2)


        def by_ufunc(x):
            return np.sum(stale_pkg.sub.ufunc(x) ** 2)


        settings = types.SimpleNamespace(act=np.tanh)


        def by_object(x):
            return np.sum(settings.act(x) ** 2)
        ''')
    sin = lambda u: np.sin(u)  # noqa: E731   (a lambda: its derivative is bound under a made-up name)
    changes = [(m.by_class, lambda: setattr(m.Helpers, "act", staticmethod(sin))),
               (m.by_package, lambda: setattr(sys.modules["stale_pkg.sub"], "act", sin)),
               (m.by_builtin, lambda: setattr(m, "sum", lambda v: np.sum(v) * 3.0)),   # a global hides sum
               (m.by_ufunc, lambda: setattr(sys.modules["stale_pkg.sub"], "ufunc", np.sin)),   # a rule's function
               (m.by_object, lambda: setattr(m.settings, "act", np.sin))]
    try:
        for loss, change in changes:
            assert_follows(loss, mode, change)
    finally:
        for name in ("stale_pkg", "stale_pkg.sub"):
            sys.modules.pop(name, None)


@pytest.mark.parametrize("mode", MODES)
def test_a_closure_cell_holding_a_function(project, mode):
    m = project.module("stale_closure", '''\
        import numpy as np


        def make():
            act = np.tanh

            def loss(x):
                return np.sum(act(x) ** 2)

            def use(new):
                nonlocal act
                act = new
            return loss, use
        ''')
    loss, use = m.make()
    assert_follows(loss, mode, lambda: use(np.sin))


def test_derivatives_of_derivatives_follow_a_redefined_helper(project):
    m = project.module("stale_higher", MODULE)
    tanh_second = lambda x: 2 * ((1 - np.tanh(x) ** 2) ** 2 - 2 * np.tanh(x) ** 2 * (1 - np.tanh(x) ** 2))  # noqa: E731
    sin_second = lambda x: 2 * np.cos(2 * x)  # noqa: E731   (the Hessian of sum(act(x) ** 2) is diagonal)
    forward_over_reverse = srcad.autodiff(srcad.grad(m.loss), mode="forward")
    np.testing.assert_allclose(srcad.hvp(m.loss, X, V), tanh_second(X) * V, rtol=1e-8)
    np.testing.assert_allclose(call(forward_over_reverse, "forward"), tanh_second(X) * V, rtol=1e-8)
    cell(m, SIN_ACT)
    np.testing.assert_allclose(srcad.hvp(m.loss, X, V), sin_second(X) * V, rtol=1e-8)
    np.testing.assert_allclose(np.diag(srcad.hessian(m.loss)(X)), sin_second(X), rtol=1e-8)
    np.testing.assert_allclose(call(forward_over_reverse, "forward"), sin_second(X) * V, rtol=1e-8)


# --- code objects and defaults replaced -------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_code_replaced_as_autoreload_does(project, mode):
    m = project.module("stale_autoreload", MODULE)
    act, loss = m.act, m.loss

    def edit(text):
        """Edit the file and reload; the old function objects get the new code, as autoreload does."""
        def change():
            project.edit("stale_autoreload", text)
            reloaded = importlib.reload(m)
            for function in (act, loss):
                function.__code__ = getattr(reloaded, function.__name__).__code__
            m.act, m.loss = act, loss
        return change
    sine = MODULE.replace("np.tanh(u)", "np.sin(u)")
    assert_follows(loss, mode, edit(sine), edit(sine.replace("** 2", "** 3")))


def test_code_replaced_with_other_parameters(project):
    m = project.module("stale_parameters", '''\
        import numpy as np


        def loss(x, w):
            return np.sum(np.sin(x) * w ** 2)


        def swapped(w, x):
            return np.sum(np.sin(x) * w ** 2)
        ''')
    w = np.array([0.5, 2.0, -1.0])
    first = (lambda x: m.loss(x, w))
    derivative = srcad.grad(m.loss)                      # wrt=0: the first parameter, whatever its name
    np.testing.assert_allclose(derivative(X, w), expected(first, "reverse"), rtol=1e-6)
    m.loss.__code__ = m.swapped.__code__
    np.testing.assert_allclose(derivative(X, w), expected(lambda x: m.loss(x, w), "reverse"), rtol=1e-6)
    forward = srcad.autodiff(m.loss, mode="forward")
    np.testing.assert_allclose(forward(X, w, V), central(lambda x: m.loss(x, w), X, V), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_defaults_assigned_after_the_def(project, mode):
    m = project.module("stale_defaults", '''\
        import numpy as np

        K = 1.0


        def act(u, k=1.0):
            return np.tanh(u * k)


        def loss(x, scale=K):
            return np.sum(act(x) ** 2) * scale


        def keyword(x, *, scale=1.0):
            return np.sum(np.sin(x) ** 2) * scale

        K = 5.0
        ''')
    np.testing.assert_allclose(m.loss(X), np.sum(np.tanh(X) ** 2))   # scale is the K of the def, 1.0
    assert_follows(m.loss, mode, lambda: setattr(m.act, "__defaults__", (3.0,)),   # an inlined helper's
                   lambda: setattr(m.loss, "__defaults__", (2.0,)))                  # f's own
    assert_follows(m.keyword, mode, lambda: setattr(m.keyword, "__kwdefaults__", {"scale": 4.0}))


def test_defaults_given_to_a_def_without_them_are_refused(project):
    m = project.module("stale_new_defaults", "import numpy as np\n\n\ndef f(x, w):\n    return np.sum(x * w)\n")
    m.f.__defaults__ = (2.0,)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(m.f)(X)
    assert "__defaults__" in str(info.value) and "def f(..., name=value)" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_a_data_global_rebound(project, mode):
    m = project.module("stale_data", '''\
        import numpy as np

        W = np.array([1.0, 2.0, 3.0])
        K = 2.0


        def loss(x):
            return np.sum(np.sin(x * W))


        def scalar(x):
            return x * K
        ''')
    assert_follows(m.loss, mode, lambda: setattr(m, "W", m.W * -2.0))
    derivative = srcad.grad(m.scalar) if mode == "reverse" else srcad.autodiff(m.scalar, mode="forward")
    arguments = (1.5,) if mode == "reverse" else (1.5, 1.0)
    assert derivative(*arguments) == 2.0                 # the all-scalar variant
    m.K = 7.0
    assert derivative(*arguments) == 7.0


# --- the file edited after the import ----------------------------------------------------------------

ADDED_ABOVE = MODULE.replace("import numpy as np\n", "import numpy as np\n\n\ndef b(x):\n    return np.sum(np.cos(x))\n")


@pytest.mark.parametrize("mode", MODES)
def test_a_def_added_above_moves_the_text_not_the_code(project, mode):
    m = project.module("stale_moved", MODULE)
    project.edit("stale_moved", ADDED_ABOVE)               # loss's text is now 4 lines lower, unchanged
    assert_right(m.loss, mode)                             # loss's derivative, not b's
    assert "(stale_moved.py:12)" in srcad.source(m.loss, mode=mode).splitlines()[0]


def test_a_moved_def_holding_a_class(project):
    text = "def boxed(x):\n    class Box:\n        pass\n    return x * 2.0\n"
    m = project.module("stale_moved_class", text)
    project.edit("stale_moved_class", "import numpy as np\n\n\n" + text)   # Python 3.13 keeps Box's line
    parsed = parse_function(m.boxed)
    assert (parsed.first_line, parsed.tree.name) == (4, "boxed")


@pytest.mark.parametrize("mode", MODES)
def test_a_file_edited_before_the_first_derivative(project, mode):
    m = project.module("stale_edited", MODULE)
    project.edit("stale_edited", ADDED_ABOVE.replace("** 2", "** 3"))   # loss runs its old code
    with pytest.raises(srcad.StaleSourceError) as info:
        fresh(m.loss, mode)
    message = str(info.value)
    path = str(project.path / "stale_edited.py")
    assert message.startswith(f"{path}:12:1\n    def loss(x):\n"), message
    assert "`loss`" in message and "not the code that runs" in message, message
    assert "import importlib, stale_edited; importlib.reload(stale_edited)" in message, message
    assert isinstance(info.value, srcad.SourceUnavailableError)
    m = importlib.reload(m)
    assert_right(m.loss, mode, kept(m.loss, mode))


@pytest.mark.parametrize("mode", MODES)
def test_an_edited_helper_file(project, mode):
    m = project.module("stale_edited_helper", MODULE)
    project.edit("stale_edited_helper", MODULE.replace("def act(u):\n    return np.tanh(u)",
                                                        "def act(u):\n    return np.cos(u)"))
    with pytest.raises(srcad.StaleSourceError) as info:  # the inlined helper's text is not its code
        fresh(m.loss, mode)
    assert "`act`" in str(info.value) and "stale_edited_helper.py:4:1" in str(info.value), str(info.value)
    ops = project.module("stale_edited_ops", "import numpy as np\n\n\ndef act(u):\n    return np.tanh(u)\n")
    caller = project.module("stale_edited_caller", '''\
        import numpy as np
        import stale_edited_ops


        def loss(x):
            return np.sum(stale_edited_ops.act(x) ** 2)
        ''')
    project.edit("stale_edited_ops", "import numpy as np\n\n\ndef act(u):\n    return np.cos(u) * 1.0\n")
    with pytest.raises(srcad.StaleSourceError) as info:  # a called helper's too
        fresh(caller.loss, mode)
    assert "stale_edited_ops.py:4:1" in str(info.value) and "importlib.reload(stale_edited_ops)" in str(info.value)
    importlib.reload(ops)
    assert_right(caller.loss, mode)


def test_a_file_that_no_longer_parses(project):
    m = project.module("stale_broken", MODULE)
    project.edit("stale_broken", MODULE.replace("def loss(x):", "def loss(x:"))
    with pytest.raises(srcad.StaleSourceError) as info:
        srcad.grad(m.loss)(X)
    assert "no longer parses" in str(info.value) and "importlib.reload(stale_broken)" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_an_edit_elsewhere_in_the_file_is_no_false_alarm(project, mode):
    m = project.module("stale_elsewhere", MODULE + "\n\ndef other(x):\n    return x\n")
    project.edit("stale_elsewhere", MODULE + "\n\ndef other(x):\n    return x * 3.0  # edited\n")
    assert_right(m.loss, mode)


LEGITIMATE = '''\
from __future__ import annotations

import functools

import numpy as np


def traced(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapper


@traced
def decorated(x: np.ndarray) -> float:
    return np.sum(np.sin(x) ** 2)


def make_closure(scale: float):
    def inner(x: np.ndarray) -> float:
        return np.sum(np.tanh(x) * scale)
    return inner


closure = make_closure(2.0)
square = lambda x: np.sum(x * x)  # noqa: E731
PAIRS = [
    (1.0, lambda x: np.sum(x * 2.0)),
    (2.0, lambda x: np.sum(np.cos(x))),   # inspect gives this line alone, which does not parse
]


class Model:
    __scale = 3.0

    def loss(self, x):
        return np.sum(np.sin(x)) * self.__scale

    def scaled(self, x):
        return np.sum(np.cos(x)) * 3.0

    def nested(self, x):
        def inner(v):
            return v * 2.0
        return [inner(v) for v in x]


class Child(Model):
    def loss(self, x):
        return super().loss(x) * 2.0


def outer():
    class Local:
        def method(self, x):
            return np.sum(x)
    return Local
'''


@pytest.mark.parametrize("mode", MODES)
def test_what_is_not_stale_is_not_refused(project, mode):
    m = project.module("stale_legitimate", LEGITIMATE)
    for function in (m.decorated, m.closure, m.square, m.PAIRS[1][1], m.Model.loss, m.Model.nested,
                     m.Child.loss, m.outer, m.outer().method):
        assert parse_function(function).tree is not None     # the text is the code: no StaleSourceError
    for function in (m.decorated, m.closure, m.square, m.PAIRS[0][1], m.PAIRS[1][1]):
        assert_right(function, mode)
    np.testing.assert_allclose(srcad.grad(m.Model().scaled)(X), expected(m.Model().scaled, "reverse"), rtol=1e-6)


def checked_square(x):
    assert x.shape == (3,), "three values"   # pytest rewrote this module's asserts before compiling it
    return np.sum(x * x)


@pytest.mark.parametrize("mode", MODES)
def test_a_function_of_a_module_pytest_rewrote(project, mode):
    assert type(sys.modules[__name__].__spec__.loader).__name__ == "AssertionRewritingHook"
    assert_right(checked_square, mode)


# --- the disk cache ----------------------------------------------------------------------------------

def test_the_disk_cache_never_serves_a_derivative_built_for_another_helper(project):
    m = project.module("stale_disk", MODULE)
    assert_right(m.loss, "reverse")
    cell(m, "def act(u):\n    return np.sin(u)\n")
    srcad.api._MEMORY.clear()                              # a new process's memory; the disk stays
    srcad.api._BY_FUNCTION.clear()
    assert_right(m.loss, "reverse")
    assert len(list((project.path / "cache").glob("loss_*.py"))) == 2


# --- a real Jupyter kernel ---------------------------------------------------------------------------

NOTEBOOK = [
    '''\
    import json, os, sys
    import numpy as np
    import srcad
    X = np.array([0.3, -0.7, 1.1])
    V = np.array([1.0, -0.5, 0.25])
    errors = []

    def check(f, x=X):
        eps = 1e-6
        want = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])
        errors.append(float(np.max(np.abs(srcad.grad(f)(x) - want))))
        along = (f(x + eps * V) - f(x - eps * V)) / (2 * eps)
        errors.append(abs(float(srcad.jvp(f, (x,), (V,))[1]) - along))
        return want
    ''',
    "def act(u):\n    return np.tanh(u)\n",
    "def loss(x):\n    return np.sum(act(x) ** 2)\n",
    "first = check(loss)\nheld = srcad.grad(loss)\n",
    "def act(u):\n    return np.sin(u)\n",                                  # the helper redefined
    "second = check(loss)\nerrors.append(float(np.max(np.abs(held(X) - second))))\n",
    "def loss(x):\n    return np.sum(act(x) ** 3)\n",                        # f itself edited and rerun
    "third = check(loss)\n",
    '''\
    %load_ext autoreload
    %autoreload 2
    sys.path.insert(0, os.getcwd())
    import nb_helpers
    def uses(x):
        return np.sum(nb_helpers.act(x) ** 2)
    fourth = check(uses)
    ''',
    "with open('nb_helpers.py', 'w') as f:\n    f.write(EDITED)\nos.utime('nb_helpers.py', (1e9 + 100, 1e9 + 100))\n",
    "fifth = check(uses)\n",                                                  # autoreload replaced the code
    '''\
    changes = [float(np.max(np.abs(a - b))) for a, b in [(first, second), (second, third), (fourth, fifth)]]
    print(json.dumps({"errors": errors, "changes": changes}))
    ''',
]


def test_in_a_jupyter_kernel(tmp_path, monkeypatch):
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    helpers = "import numpy as np\n\n\ndef act(u):\n    return np.tanh(u)\n"
    (tmp_path / "nb_helpers.py").write_text(helpers)
    os.utime(tmp_path / "nb_helpers.py", (1e9, 1e9))
    # a kernel spec for this very interpreter, so the test needs no installed spec and no network
    spec_dir = tmp_path / "kernels" / "srcad-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "srcad test", "language": "python"}))
    for variable, folder in (("IPYTHONDIR", "ipython"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                             ("JUPYTER_DATA_DIR", "data"), ("SRCAD_CACHE_DIR", "cache")):
        monkeypatch.setenv(variable, str(tmp_path / folder))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    cells = [textwrap.dedent(source) for source in NOTEBOOK]
    cells[0] += f"EDITED = {helpers.replace('tanh', 'sin')!r}\n"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    manager = KernelManager(kernel_name="srcad-test",
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")]))
    NotebookClient(notebook, km=manager, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = notebook.cells[-1].outputs[0]["text"]
    result = json.loads(printed)
    assert len(result["errors"]) == 11 and max(result["errors"]) < 1e-6, result
    assert min(result["changes"]) > 1e-2, result     # each change really changed the derivative
