"""docs/errors.md lists every error srcad raises; each entry is triggered here and checked.

Contract checked here:
- the catalog's entries (its ``### `name` `` headings) are exactly ``CATALOG``'s;
- each entry's trigger raises the documented exception type, and its message
  is the catalog's example, character for character once paths are
  normalised (the examples' ``model.py`` is ``tests/error_examples.py``);
- the message names the construct and says what to do instead, and when the
  problem has a place in the user's source it starts with ``file:line:col``;
- srcad's own errors carry no chained exception (they are raised ``from
  None``), so the traceback is the user's call and the message;
- an exception raised by the user's code inside a derivative keeps its type
  and gets a note naming the generated line and the user's line, printed by
  the traceback.
"""
import linecache
import math
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pytest

import error_examples as ex
import srcad
from gradcheck import make_function, no_disk_cache  # noqa: F401 (autouse)

REPO = Path(__file__).resolve().parent.parent
CATALOG_FILE = REPO / "docs" / "errors.md"
X = np.array([0.5, 1.0])


def _exec_without_source():
    namespace = {}
    exec("def made(x):\n    return x * 2.0\n", namespace)
    return srcad.grad(namespace["made"])(1.0)


def _edited_after_import():
    """``ex.edited_after_import`` after its file changed on disk (linecache holds the new text)."""
    saved = linecache.cache.get(ex.__file__)
    lines = linecache.getlines(ex.__file__)
    edited = [line.replace("np.sin(x)", "np.cos(x)") if "np.sin(x)" in line else line for line in lines]
    linecache.cache[ex.__file__] = (sum(map(len, edited)), None, edited, ex.__file__)
    try:
        return srcad.grad(ex.edited_after_import)(X)
    finally:
        if saved is None:
            linecache.cache.pop(ex.__file__, None)
        else:
            linecache.cache[ex.__file__] = saved


def _command_line():
    # typed at an interactive prompt (Python 3.13 keeps `python -c` source readable, a prompt's it does not)
    code = ("import code, sys; sys.path.insert(0, sys.argv[1])\n"
            "console = code.InteractiveConsole()\n"
            "for line in ['import srcad', 'def f(x):', '    return x * 2.0', '', 'srcad.grad(f)(1.0)']:\n"
            "    console.push(line)\n")
    result = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True, text=True,
                            env=dict(os.environ, SRCAD_CACHE="0"), timeout=120)
    last = result.stderr.strip().splitlines()[-1]
    name, _, message = last.partition(": ")
    raise getattr(srcad, name.rpartition(".")[2])(message)


@dataclass
class Entry:
    name: str
    error: type
    trigger: Callable
    construct: str
    suggestion: str
    located: bool = False
    note_from: Optional[str] = None   # for errors raised inside a derivative: the user's line


def _verified_wrong_rule():
    """A rule registered wrong on purpose (softplus' slope is the logistic function, not 1), caught by verify."""
    @srcad.adjoint(ex.softplus)
    def softplus_adjoint(y, x):
        srcad.d[x] = srcad.d[y] * 1.0
    srcad.config.verify = True
    try:
        return srcad.grad(ex.uses_softplus)(np.array([0.5, -1.0]))
    finally:
        srcad.config.verify = False


CATALOG = [
    Entry("unsupported construct", srcad.UnsupportedSyntaxError, lambda: srcad.grad(ex.uses_global)(X),
          "`global` statement", "pass the value as an argument", located=True),
    Entry("change through shared memory", srcad.AliasingError, lambda: srcad.grad(ex.store_through_view)(X),
          "`B = A.real`", "B = A.real.copy()", located=True),
    Entry("mutating call without a rule", srcad.AliasingError, lambda: srcad.grad(ex.mutating_call)(X),
          "putmask", "np.where", located=True),
    Entry("no source: a C function or builtin", srcad.SourceUnavailableError, lambda: srcad.grad(math.sin)(0.5),
          "'sin'", "register its derivative with @srcad.adjoint"),
    Entry("no source: python -c and the interactive prompt", srcad.SourceUnavailableError, _command_line,
          "'f'", "Define the function in a .py file"),
    Entry("no source: exec without linecache", srcad.SourceUnavailableError, _exec_without_source,
          "'made'", "Define the function in a .py file"),
    Entry("source changed after the import", srcad.StaleSourceError, _edited_after_import,
          "`edited_after_import`", "importlib.reload(", located=True),
    Entry("missing rule", srcad.MissingTemplateError, lambda: srcad.grad(ex.no_rule)(X),
          "np.nextafter", "@srcad.adjoint(np.nextafter)", located=True),
    Entry("no derivative through the call", srcad.SrcadError, lambda: srcad.grad(ex.noisy)(X),
          "np.random.normal", "np.random.standard_normal(shape)", located=True),
    Entry("wrt out of range", srcad.WrtError, lambda: srcad.grad(ex.scaled, wrt=5)(X, 2.0),
          "wrt=5", "use 0..1 or a name"),
    Entry("wrt unknown name", srcad.WrtError, lambda: srcad.grad(ex.scaled, wrt="z")(X, 2.0),
          "wrt='z'", "neither a parameter"),
    Entry("wrt an int argument", srcad.WrtError, lambda: srcad.grad(ex.scaled)(3, 2.0),
          "it is an int", "pass floats"),
    Entry("wrt an integer or bool array", srcad.WrtError, lambda: srcad.grad(ex.scaled)(np.array([True, False]), 2.0),
          "dtype bool", "pass floats"),
    Entry("non-scalar output", srcad.SeedError, lambda: srcad.grad(ex.vector)(X),
          "shape (2,)", "np.sum"),
    Entry("seed shape", srcad.SeedError, lambda: srcad.vjp(ex.vector, X)[1](np.ones(3)),
          "shape (3,)", "pass a seed shaped like the output"),
    Entry("store into an attribute", srcad.UnsupportedSyntaxError, lambda: srcad.grad(ex.Counter().loss)(X),
          "self.count", "outside the differentiated function", located=True),
    Entry("method of an object srcad does not know", srcad.UnsupportedSyntaxError,
          lambda: srcad.grad(ex.Counter.outer, wrt=1)(ex.Counter(), X), "self.forward(...)", "srcad.grad(model.outer)",
          located=True),
    Entry("unpacking of unknown structure", srcad.UnsupportedSyntaxError,
          lambda: srcad.grad(ex.unpacks)(X, (X, X)), "*parts", "write the arguments out", located=True),
    Entry("tuple output without a seed", srcad.SeedError, lambda: srcad.grad(ex.pair)(X), "returns several values",
          "has_aux=True", located=True),
    Entry("verify: disagrees with finite differences", srcad.VerificationError, _verified_wrong_rule,
          "uses_softplus", "srcad.check_grads(uses_softplus, args)"),
    Entry("raised inside a derivative: LinAlgError", np.linalg.LinAlgError,
          lambda: srcad.grad(ex.inverse_sum)(np.zeros((2, 2))), "Singular matrix", "in the derivative of",
          note_from="return np.sum(np.linalg.inv(a))"),
    Entry("raised inside a derivative: ZeroDivisionError", ZeroDivisionError,
          lambda: srcad.grad(ex.ratio)(1.0, 0.0), "division by zero", "in the derivative of",
          note_from="return x / k"),
    Entry("raised inside a derivative: IndexError", IndexError,
          lambda: srcad.autodiff(ex.pick)(X, 7, 1.0), "index 7", "in the derivative of",
          note_from="return x[i] * 2.0"),
]


def normalise(text: str) -> str:
    """Paths, the module's name and generated names as the catalog writes them."""
    text = text.replace(ex.__file__, "model.py").replace(ex.__name__, "model")
    return re.sub(r"<srcad ([A-Za-z_]\w*)-[0-9a-f]+>", r"<srcad \1-…>", text)


def comparable(text: str) -> str:
    """``text`` without the generated line's number and code (they change with srcad's passes), nor long numbers."""
    text = re.sub(r"(  generated \S+):\d+: .*", r"\1", text)
    return re.sub(r"-?\d+\.\d{8,}(e-?\d+)?", "<number>", text)   # finite differences' last digits vary


def documented():
    """{entry name: example text} from docs/errors.md."""
    examples, name = {}, None
    blocks = CATALOG_FILE.read_text().split("```")
    for index, block in enumerate(blocks):
        if index % 2 == 0:
            headings = re.findall(r"^### `(.+)`$", block, re.MULTILINE)
            name = headings[-1] if headings else name
        elif block.startswith("text\n") and name is not None and name not in examples:
            examples[name] = block[len("text\n"):].rstrip("\n")
    return examples


def notes_of(error: BaseException):
    """The notes srcad added (``__notes__`` on 3.11+, kept privately before, where the message holds them)."""
    return list(getattr(error, "__notes__", None) or getattr(error, "_srcad_notes", ()))


def message_of(error: BaseException) -> str:
    """What the traceback prints after the frames: ``Type: message`` and any notes."""
    lines = traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip("\n")


def test_the_catalog_lists_exactly_these_entries():
    assert sorted(documented()) == sorted(entry.name for entry in CATALOG)


@pytest.mark.parametrize("entry", CATALOG, ids=[entry.name for entry in CATALOG])
def test_each_entry(entry):
    with pytest.raises(entry.error) as info:
        entry.trigger()
    error = info.value
    shown = normalise(message_of(error))
    example = documented()[entry.name]
    assert comparable(shown.split(": ", 1)[1]) == comparable(example.split(": ", 1)[1]), shown
    text = str(error) + "\n".join(notes_of(error))
    assert entry.construct in text and entry.suggestion in text, text
    if entry.located:
        assert re.match(rf"{re.escape(ex.__file__)}:\d+:\d+\n", str(error)), str(error)
    if isinstance(error, srcad.SrcadError):
        assert error.__cause__ is None
        assert error.__context__ is None or error.__suppress_context__
    if entry.note_from:
        [note] = notes_of(error)
        generated = re.search(r"generated (.+):(\d+): (.+)", note)
        assert generated, note
        frames = traceback.extract_tb(error.__traceback__)
        assert any(frame.filename == generated[1] and frame.lineno == int(generated[2]) for frame in frames)
        user_line = next(n for n, line in enumerate(Path(ex.__file__).read_text().splitlines(), 1)
                         if line.strip() == entry.note_from)
        assert f"from {ex.__file__}:{user_line}: {entry.note_from}" in note


def test_exec_functions_work_when_linecache_holds_their_source():
    made = make_function("def made(x):\n    return x * 2.0\n", {})
    assert srcad.grad(made)(1.0) == 2.0


def test_a_note_for_each_generated_frame_of_nested_derivatives():
    inner = make_function("def inner(a):\n    return np.sum(np.linalg.inv(a))\n", {"np": np})
    outer = make_function("def outer(a):\n    b = a * 2.0\n    return inner(b) + 1.0\n",
                          {"np": np, "inner": inner})
    with pytest.raises(np.linalg.LinAlgError) as info:   # forward mode runs inner's derivative
        srcad.jvp(outer, (np.zeros((2, 2)),), (np.ones((2, 2)),))
    notes = notes_of(info.value)
    assert len(notes) == 2, notes
    assert any("in the derivative of outer:" in n and "return inner(b) + 1.0" in n for n in notes)
    assert any("in the derivative of inner:" in n and "return np.sum(np.linalg.inv(a))" in n for n in notes)
    error = info.value
    printed = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    assert "in the derivative of inner:" in printed


# --------------------------------------------------------------------------
# every fix a message gives is Python that compiles


def _compiles(fragment: str) -> bool:
    """Whether ``fragment`` is Python: a statement, an expression, a block header or a decorator."""
    fragment = fragment.strip()
    forms = [fragment, f"({fragment})", f"{fragment}\n    pass", f"{fragment}\ndef decorated(): pass",
             f"def wrapper():\n    {fragment}"]
    for form in forms:
        try:
            compile(form, "<fix>", "exec")
            return True
        except SyntaxError:
            continue
    return False


def fixes_of(message: str):
    """The code a message suggests: the indented lines after its first line that introduces one, and the
    backquoted pieces of the part after ``; `` (its hint), skipping the quoted source and caret of a located
    message."""
    lines = message.splitlines()
    if lines and re.match(r".+:\d+:\d+$", lines[0]):
        lines = lines[3:]   # place, quoted line, caret
    text = "\n".join(line for line in lines if not line.startswith("while differentiating"))
    hint = text.split("; ", 1)[1] if "; " in text else ""
    block = [line[4:] for line in hint.splitlines() if line.startswith("    ")]
    found = ["\n".join(block)] if block else []
    found += re.findall(r"`([^`\n]+)`", re.sub(r"(?m)^    .*$", "", hint))
    return found


HINTED = [entry for entry in CATALOG if entry.error is not None and issubclass(entry.error, srcad.SrcadError)]


@pytest.mark.parametrize("entry", HINTED, ids=[entry.name for entry in HINTED])
def test_each_entrys_fix_is_python(entry):
    with pytest.raises(entry.error) as info:
        entry.trigger()
    for fix in fixes_of(str(info.value)):
        if re.match(r"srcad [a-z]+$", fix):
            continue   # a command of srcad's command line
        assert _compiles(fix), f"not Python: {fix!r} in\n{info.value}"


def _bit_and(x, y):
    return (x & y) * 1.0


def _shifted(x):
    return x << 1


def _inverted(x):
    return ~x


class _Holder:
    def __init__(self):
        self.step = np.nextafter

    def loss(self, x):
        return np.sum(self.step(x, 2.0))


class _Local:
    def __init__(self):
        def step(x, y):
            return np.nextafter(x, y)
        self.step = np.frompyfunc(step, 2, 1)

    def loss(self, x):
        return np.sum(self.step(x, 2.0))


@pytest.fixture
def restored_registry():
    """The rule registry as it was before the test (these tests register the rules the messages suggest)."""
    from srcad.templates import REGISTRY
    saved = ({mode: dict(rules) for mode, rules in REGISTRY.rules.items()}, dict(REGISTRY.nondiff))
    yield
    for mode, rules in saved[0].items():
        REGISTRY.rules[mode].clear()
        REGISTRY.rules[mode].update(rules)
    REGISTRY.nondiff.clear()
    REGISTRY.nondiff.update(saved[1])
    REGISTRY.version += 1


MISSING = [(_bit_and, (1.0, 2.0), "operator.and_"), (_shifted, (1.0,), "operator.lshift"),
           (_Holder().loss, (X,), "np.nextafter")]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,key", MISSING, ids=["and", "lshift", "attribute"])
def test_a_missing_rule_names_what_to_register_in_python(function, args, key, mode, tmp_path, restored_registry):
    with pytest.raises(srcad.MissingTemplateError) as info:
        srcad.source(function, mode=mode)
    message = str(info.value)
    decorator = "adjoint" if mode == "reverse" else "tangent"
    assert f"@srcad.{decorator}({key})" in message and "self." not in message.split("; ", 1)[1], message
    [code] = [fix for fix in fixes_of(message) if fix.count("\n") > 1]
    written = tmp_path / "fix.py"   # a file, so the rule's source can be read as srcad reads every rule
    written.write_text("import numpy as np\nimport srcad\nfrom srcad import d\n" + code + "\n")
    exec(compile(written.read_text(), str(written), "exec"), {})   # the suggested registration runs


def test_registering_an_operator_rule_as_suggested_is_used(restored_registry):
    import operator
    srcad.nondifferentiable(operator.and_)
    masked = make_function("def masked(x, k):\n    return x * (k & 1)\n", {})
    assert srcad.grad(masked, 0)(2.0, 3) == 1.0 and srcad.grad(masked, 0)(2.0, 2) == 0.0


def test_a_callee_no_import_reaches_gets_a_fix_in_python():
    with pytest.raises(srcad.MissingTemplateError) as info:
        srcad.source(_Local().loss)
    message = str(info.value)
    assert "no import reaches" in message and "self.step" in message.splitlines()[1]
    assert all(_compiles(fix) for fix in fixes_of(message)), message
