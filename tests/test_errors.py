"""Every problem srcad reports is one clear message of the right ``SrcadError`` subclass.

Contract:
- Unsupported syntax raises ``srcad.UnsupportedSyntaxError`` in both modes.  Its
  message starts with ``file:line:col`` (the real place in this file), then
  quotes the source line, then a caret under the offending construct, then
  ``what; what to do instead``.
- A function without readable source raises ``srcad.SourceUnavailableError``
  saying how to fix it.
- A call with no rule raises ``srcad.MissingTemplateError`` naming the callee,
  pointing at the call and showing how to register a rule.
- A bad ``wrt`` raises ``srcad.WrtError``.
- Errors are raised when the derivative is called or its ``.source`` read,
  never later, and for source and syntax problems not before either (so
  ``@srcad.grad`` can decorate at import time).  Messages carry no traceback
  text or internals (``gast``, srcad's own files), and no chained exception.
- Building a derivative emits no warnings.
"""
import inspect
import math
import os
import warnings

import numpy as np
import pytest

import srcad
import srcad.api
from srcad.templates import REGISTRY

from gradcheck import check_reverse, make_function, no_disk_cache  # noqa: F401 (autouse)

# --------------------------------------------------------------------------
# functions with unsupported syntax (the needle marks the offending construct)

G = 1.0


def try_statement(x):
    try:
        try:  # inside another
            y = x * 2.0
        except ValueError:
            y = x
    except TypeError:
        y = x
    return y


def inner_lambda(x):
    functions = [lambda v: v * 2.0]
    return x


def delete(x):
    y = [x, x * 2.0]
    del y[0]
    return x


def global_statement(x):
    global G
    return x * G


def with_statement(x):
    with Recorder(x):
        y = np.log(x)
    return y


class Recorder:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def comprehension(x):
    squares = (v * 2.0 for v in x)
    return np.sum(np.array(list(squares))) + max(squares)   # consumed twice: max gets nothing


def nested_def(x):
    def inner(*v):
        return v[0] * 2.0
    return inner(x)


def walrus(x):
    return x * 2.0 if x[0] > 0 else (y := x * 2.0) + y


def generator(x):
    yield x * 2.0


def format_string(x):
    print(f"{x}")
    return sorted(x, key=abs)[0] * 2.0


def local_import(x):
    import math as m
    return m.sin(x)


SYNTAX_CASES = [
    (try_statement, "try:  # inside"),
    (inner_lambda, "lambda v"),
    (delete, "del y"),
    (global_statement, "global G"),
    (with_statement, "Recorder(x)"),
    (comprehension, "(v * 2.0"),
    (nested_def, "def inner"),
    (walrus, "y := x"),
    (generator, "yield x"),
    (format_string, "sorted(x"),
    (local_import, "import math"),
]

THIS_FILE = os.path.abspath(__file__)


def real_place(function, needle):
    """(line number, 1-based column, line text) of ``needle`` in ``function``'s source."""
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if needle in text:
            return first + offset, text.index(needle) + 1, text.rstrip("\n")
    raise AssertionError(f"{needle!r} is not in the source of {function.__name__}")


def assert_clean(error):
    """One message, no internals, no chained exception for Python to print."""
    message = str(error)
    for noise in ("Traceback", "gast", "File \"", os.path.join("srcad", "passes"), "<rule>"):
        assert noise not in message, f"the message shows {noise!r}:\n{message}"
    assert error.__cause__ is None, f"the error chains {error.__cause__!r}"
    assert error.__context__ is None or error.__suppress_context__, (
        f"the error is raised while handling {error.__context__!r}")


def raised(derivative_factory, error_type):
    """The error ``error_type`` raised by building a derivative, calling ``.source``, then calling it."""
    with pytest.raises(error_type) as info:
        derivative = derivative_factory()
        derivative.source  # noqa: B018  (the error may be raised on first access)
    return info.value


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,needle", SYNTAX_CASES, ids=[f.__name__ for f, _ in SYNTAX_CASES])
def test_unsupported_syntax_points_at_the_line(function, needle, mode):
    derivative = srcad.autodiff(function, wrt=0, mode=mode)  # building must not raise yet
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        derivative.source  # noqa: B018
    error = info.value
    assert_clean(error)
    line, col, text = real_place(function, needle)
    lines = str(error).splitlines()
    assert len(lines) >= 4, f"expected place, line, caret and explanation:\n{error}"
    assert lines[0] == f"{THIS_FILE}:{line}:{col}", f"wrong place: {lines[0]!r}, expected line {line} col {col}"
    assert lines[1].strip() == text.strip(), f"the quoted line is {lines[1]!r}, not {text.strip()!r}"
    assert lines[2].strip() == "^", f"no caret line: {lines[2]!r}"
    assert lines[2].index("^") == lines[1].index(needle), (
        f"the caret is not under {needle!r}:\n{lines[1]}\n{lines[2]}")
    what, _, hint = " ".join(lines[3:]).partition("; ")
    assert what and len(hint) > 10, f"the message needs a problem and a hint after '; ':\n{error}"


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_unsupported_syntax_is_raised_at_call_time_too(mode):
    derivative = srcad.autodiff(try_statement, mode=mode)
    arguments = (np.ones(2),) if mode == "reverse" else (np.ones(2), np.ones(2))
    with pytest.raises(srcad.UnsupportedSyntaxError):
        derivative(*arguments)


# --------------------------------------------------------------------------
# missing source


def _lambda_function():
    return eval("lambda x: x * 2.0")  # a lambda with no source file


def _exec_without_linecache():
    namespace = {"np": np}
    exec(compile("def made(x):\n    return x * 2.0\n", "<no-such-file>", "exec"), namespace)
    return namespace["made"]


SOURCELESS = [
    ("numpy-ufunc", lambda: np.sin),
    ("builtin", lambda: math.sin),
    ("lambda", _lambda_function),
    ("exec-without-linecache", _exec_without_linecache),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("name,factory", SOURCELESS, ids=[n for n, _ in SOURCELESS])
def test_missing_source_raises_source_unavailable(name, factory, mode):
    function = factory()
    error = raised(lambda: srcad.autodiff(function, wrt=0, mode=mode), srcad.SourceUnavailableError)
    assert_clean(error)
    message = str(error)
    assert "source" in message
    assert "def" in message or ".py" in message, f"the message does not say how to fix it:\n{message}"


def test_grad_of_a_builtin_raises_source_unavailable():
    with pytest.raises(srcad.SourceUnavailableError) as info:
        srcad.grad(np.sin)(np.ones(2))
    assert_clean(info.value)


def test_linecache_registered_source_is_readable():
    """The fix for exec'd functions works: register the text in linecache (what make_function does)."""
    function = make_function("def made(x):\n    return x * 2.0\n", {"np": np})
    np.testing.assert_allclose(srcad.autodiff(function)(np.ones(2), np.array([1.0, 3.0])), [2.0, 6.0])


# --------------------------------------------------------------------------
# missing rules


def calls_helper(x):
    y = np.sin(x)
    return np.nextafter(y, 2.0) + 1.0


def calls_fft(x):
    return np.abs(np.fft.hfft(x))


@pytest.mark.parametrize("mode,decorator", [("reverse", "@srcad.adjoint"), ("forward", "@srcad.tangent")])
@pytest.mark.parametrize("function,callee,shown", [
    (calls_helper, "np.nextafter(", "np.nextafter"),
    (calls_fft, "np.fft.hfft(", "np.fft.hfft"),
], ids=["ufunc-without-rule", "np.fft.hfft"])
def test_missing_rule_names_the_callee_and_how_to_register(function, callee, shown, mode, decorator):
    derivative = srcad.autodiff(function, mode=mode)
    with pytest.raises(srcad.MissingTemplateError) as info:
        derivative.source  # noqa: B018
    error = info.value
    assert_clean(error)
    message = str(error)
    assert shown in message
    assert f"{decorator}({shown})" in message, f"no registration example:\n{message}"
    line, _, _ = real_place(function, callee)
    assert message.startswith(f"{THIS_FILE}:{line}:"), f"wrong line:\n{message}"


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_missing_rule_caret_points_at_the_call(mode):
    with pytest.raises(srcad.MissingTemplateError) as info:
        srcad.autodiff(calls_helper, mode=mode).source  # noqa: B018
    line, col, _ = real_place(calls_helper, "np.nextafter(")
    assert str(info.value).splitlines()[0] == f"{THIS_FILE}:{line}:{col}", str(info.value)


# --------------------------------------------------------------------------
# bad wrt


def two_arguments(x, y):
    return np.sum(x * y)


BAD_WRT = [(2, "out of range"), (-3, "out of range"), ("z", "'z'"), ((0, 0), "twice"),
           (("x", 0), "twice"), (True, "True"), (1.5, "1.5"), ((), "no parameter"), (None, "None")]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("wrt,fragment", BAD_WRT, ids=[repr(w) for w, _ in BAD_WRT])
def test_bad_wrt_raises_wrt_error(wrt, fragment, mode):
    x = np.ones(2)
    with pytest.raises(srcad.WrtError) as info:
        derivative = srcad.autodiff(two_arguments, wrt=wrt, mode=mode)
        derivative(x, x, x)
    assert_clean(info.value)
    message = str(info.value)
    assert fragment in message
    assert "two_arguments" in message or "wrt" in message


# --------------------------------------------------------------------------
# rules


def _rule_primal(x):
    return np.sin(x)


def _rule_with_qualified_d(y, x):
    srcad.d[x] = srcad.d[y] * np.cos(x)


def _uses_rule_primal(x):
    return np.sum(_rule_primal(x) * 2.0)


def test_rule_written_with_srcad_d_is_not_silently_ignored():
    """A rule spelled ``srcad.d[x] = ...`` must work or be rejected, never give a zero gradient."""
    try:
        srcad.adjoint(_rule_primal)(_rule_with_qualified_d)
        check_reverse(_uses_rule_primal, (np.linspace(0.1, 0.9, 3),))
    except srcad.SrcadError as error:
        assert "d[" in str(error)
    finally:  # leave the registry as the built-in rules made it
        REGISTRY.rules["reverse"].pop(_rule_primal, None)
        REGISTRY.version += 1


def _transpose_axes(x):
    return np.sum(np.transpose(x, (1, 2, 0)) * 2.0)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_building_a_derivative_emits_no_warnings(mode, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE", "0")
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        srcad.autodiff(_transpose_axes, mode=mode).source  # noqa: B018
    assert not caught, [f"{w.category.__name__}: {w.message}" for w in caught]
