"""The numba lowering pass: a generated derivative's source made compilable by numba in nopython mode.

Contract: ``lower(source, name, lists)`` takes the source srcad emits for the
NumPy backend (the all-scalar or rank-specialised variant of a derivative
named ``name``) and returns it with every construct numba's nopython mode
cannot type replaced by one it can, in place (the comments naming the user's
lines stay above the code they explain):

- the runtime import names ``srcad.backends.numba_runtime``, whose helpers
  numba compiles (``check_seed``, ``zeros_like``, ``unbroadcast``...);
- the one tape of mixed values is split into one stack per saved variable
  (``tape.append(x)`` ... ``x = tape.pop()`` uses ``tape_x``; the elements
  of an array ``A`` saved as ``np.copy(A[i])`` share ``tape_A_items``).
  srcad emits every pop into what its push saved, so the pops of one stack
  come back in the reverse order of its pushes.  A stack is a float64 array
  with its top, pushed and popped inline and doubled when full, unless
  ``lists`` names it: then it is a list (of arrays, of ints), which numba
  types from what is appended;
- ``reversed(range(...))`` becomes the ``range`` that counts down.

What it cannot lower (a tape saving something other than a variable or an
element, ``reversed`` of a ``range`` with a step, a runtime helper with no
numba version) raises ``LoweringRefused`` with the generated line; numba
itself refuses the rest when it compiles.

Example::

    >>> print(lower("def df(x, dy=1.0):\\n    tape = []\\n    tape.append(x)\\n    x = tape.pop()\\n"
    ...             "    return x\\n", "df", frozenset({"tape_x"})))   # doctest: +NORMALIZE_WHITESPACE
    def df(x, dy=1.0):
        tape_x = []
        tape_x.append(x)
        x = tape_x.pop()
        return x
"""
from __future__ import annotations

import ast
from typing import Dict, FrozenSet, List, Set, Tuple

RUNTIME_MODULE = "srcad.backends.numba_runtime"
COMPILED_HELPERS = frozenset({"check_seed", "zeros_like", "unbroadcast", "unreduce", "copied", "xlogy", "xdivy",
                              "check_unpacking", "array_copy"})   # its helpers
_GENERIC_RUNTIMES = ("srcad.runtime", "srcad.runtime.containers")


class LoweringRefused(Exception):
    """The generated code holds a construct this pass has no numba form for; ``line`` is its line."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def lower(source: str, name: str, lists: FrozenSet[str] = frozenset()) -> str:
    """The numba-compilable form of the generated ``source`` of function ``name`` (see the module's contract)."""
    tree = ast.parse(source)
    function = next((node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name), None)
    if function is None:
        raise LoweringRefused(f"the generated module defines no function {name}", 1)
    lines = source.splitlines()
    edits, added = _tape_edits(function, lines, lists)   # (line, column, end line, end column, new text)
    imported = False
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in _GENERIC_RUNTIMES:
            _refuse_missing_helpers({alias.asname or alias.name for alias in node.names}, function)
            helpers = sorted({alias.name for alias in node.names} | added)
            edits.append(_whole(node, lines, f"from {RUNTIME_MODULE} import " + ", ".join(helpers)))
            imported = True
    if added and not imported:
        edits.append((function.lineno, 0, function.lineno, 0,
                       f"from {RUNTIME_MODULE} import {', '.join(sorted(added))}\n\n\n"))
    edits += _reversed_range_edits(function)
    for line, column, end_line, end_column, text in sorted(edits, reverse=True):
        head, tail = lines[line - 1][:column], lines[end_line - 1][end_column:]
        lines[line - 1:end_line] = [head + text + tail]
    return "\n".join(lines) + "\n"


def _refuse_missing_helpers(imported: Set[str], function: ast.FunctionDef) -> None:
    """``LoweringRefused`` at the first line calling a runtime helper numba has no version of."""
    missing = imported - COMPILED_HELPERS
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in missing:
            raise LoweringRefused(f"its derivative needs the runtime helper `{node.id}`, which has no numba "
                                  f"version", node.lineno)


def _whole(node: ast.AST, lines: List[str], text: str) -> Tuple[int, int, int, int, str]:
    """An edit replacing all of ``node``'s source by ``text``."""
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text


def _span(node: ast.AST, text: str) -> Tuple[int, int, int, int, str]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text


def _tape_names(function: ast.FunctionDef) -> Set[str]:
    """The names bound to ``[]`` and used only through ``.append(name)`` and ``name = tape.pop()``."""
    candidates = {target.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                  and isinstance(node.value, ast.List) and not node.value.elts
                  for target in node.targets if isinstance(target, ast.Name) and target.id.startswith("tape")}
    return candidates


def _tape_edits(function: ast.FunctionDef, lines: List[str], lists: FrozenSet[str]):
    """The edits splitting each tape into one stack per variable it saves, and the runtime helpers they call.

    A stack named in ``lists`` stays a list (of arrays, of ints); every other one is a float64 array and
    its top, written inline (``float_stack``; ``grown`` doubles it when full; ``as_float`` refuses any value
    but a float, so numba names the push of a stack that must stay a list).
    """
    tapes = _tape_names(function)
    if not tapes:
        return [], set()
    taken = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)} | \
        {arg.arg for arg in ast.walk(function) if isinstance(arg, ast.arg)}
    stacks: Dict[Tuple[str, str], str] = {}

    def fresh(base: str) -> str:
        candidate, count = base, 1
        while candidate in taken:
            candidate, count = f"{base}_{count}", count + 1
        taken.add(candidate)
        return candidate

    def stack_for(tape: str, variable: str) -> str:
        if (tape, variable) not in stacks:
            stacks[tape, variable] = fresh(f"{tape}_{variable}")
        return stacks[tape, variable]

    uses, creations, mentions = [], {}, []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in tapes and isinstance(node.value, ast.List):
            creations[node.targets[0].id] = node
        elif isinstance(node, ast.Expr) and _is_tape_call(node.value, tapes, "append"):
            saved = node.value.args[0]
            uses.append((node, stack_for(node.value.func.value.id, _saved_key(saved, node.lineno)), saved))
        elif isinstance(node, ast.Assign) and _is_tape_call(node.value, tapes, "pop"):
            if len(node.targets) != 1:
                raise LoweringRefused("a tape is read into more than one target", node.lineno)
            uses.append((node, stack_for(node.value.func.value.id, _saved_key(node.targets[0], node.lineno)), None))
        elif isinstance(node, ast.Name) and node.id in tapes:
            mentions.append(node)
    lowered = {id(node.targets[0]) for node in creations.values()} | \
        {id(node.value.func.value) for node, _, _ in uses}
    for node in mentions:
        if id(node) not in lowered:
            raise LoweringRefused(f"the tape {node.id} is used other than by append and pop", node.lineno)
    tops = {stack: fresh(f"{stack}_top") for stack in sorted(stacks.values()) if stack not in lists}
    edits, reserved, helpers = _reservations(function, [(node, stack) for node, stack, saved in uses
                                                        if saved is not None and stack in tops], tops)
    for node, stack, saved in uses:
        top = tops.get(stack)
        indent = "\n" + " " * node.col_offset
        if saved is not None:
            value = ast.unparse(saved.args[0]) if _is_copy(saved) else ast.unparse(saved)
            if _is_copy(saved):   # numba copies arrays only: ``copied`` copies an array, keeps a number
                value = f"copied({value})"
                helpers.add("copied")
            room = [] if id(node) in reserved else [f"if {top} == len({stack}):", f"    {stack} = grown({stack})"]
            text = indent.join(room + [f"{stack}[{top}] = as_float({value})", f"{top} += 1"]) if top \
                else f"{stack}.append({value})"
        else:
            target = ast.unparse(node.targets[0])
            text = indent.join([f"{top} -= 1", f"{target} = {stack}[{top}]"]) if top else f"{target} = {stack}.pop()"
        helpers |= ({"as_float"} if saved is not None else set()) | \
            ({"grown"} if saved is not None and id(node) not in reserved else set()) if top else set()
        edits.append(_whole(node, lines, text))
    for tape, creation in creations.items():
        own = [stack for (held, _), stack in sorted(stacks.items()) if held == tape]
        indent = " " * creation.col_offset
        text = ("\n" + indent).join(f"{stack}, {tops[stack]} = float_stack()" if stack in tops else f"{stack} = []"
                                    for stack in own) or "pass"
        helpers |= {"float_stack"} if any(stack in tops for stack in own) else set()
        edits.append(_whole(creation, lines, text))
    return edits, helpers


def _reservations(function: ast.FunctionDef, pushes, tops: Dict[str, str]):
    """Room made before each ``for ... in range(...)`` loop for the float pushes its body makes directly (in
    branches too, not in inner loops): at most one per push statement and iteration, so those pushes need no
    room check.  Returns ``(edits inserting the reservations, ids of the pushes covered, helpers)``."""
    parents = {id(child): parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}
    by_loop: Dict[int, Tuple[ast.For, Dict[str, int]]] = {}
    covered = set()
    for push, stack in pushes:
        child, loop = push, parents.get(id(push))
        while isinstance(loop, ast.If):
            child, loop = loop, parents.get(id(loop))
        if not (isinstance(loop, ast.For) and any(child is statement for statement in loop.body)
                and _range_arguments(loop.iter) is not None):
            continue
        counts = by_loop.setdefault(id(loop), (loop, {}))[1]
        counts[stack] = counts.get(stack, 0) + 1
        covered.add(id(push))
    edits = []
    for loop, counts in by_loop.values():
        trip = f"trip_count({', '.join(_range_arguments(loop.iter))})"
        indent = "\n" + " " * loop.col_offset
        text = indent.join(f"{stack} = reserved({stack}, {tops[stack]} + {f'{count} * ' if count > 1 else ''}{trip})"
                           for stack, count in sorted(counts.items()))
        edits.append((loop.lineno, loop.col_offset, loop.lineno, loop.col_offset, text + indent))
    return edits, covered, {"reserved", "trip_count"} if edits else set()


def _range_arguments(node: ast.expr):
    """``(start, stop, step)`` source of a ``range(...)`` call whose bounds are pure, or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
            and 1 <= len(node.args) <= 3 and not node.keywords and all(map(_pure, node.args))):
        return None
    texts = [ast.unparse(argument) for argument in node.args]
    return ("0", texts[0], "1") if len(texts) == 1 else (texts[0], texts[1], "1") if len(texts) == 2 else tuple(texts)


def _pure(node: ast.expr) -> bool:
    """Whether evaluating ``node`` twice gives the same value and does nothing else: names, numbers,
    attributes, subscripts, arithmetic and ``len`` of those (a reservation evaluates a range's bounds again)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            if not (isinstance(part.func, ast.Name) and part.func.id == "len"):
                return False
        elif not isinstance(part, (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp,
                                   ast.Load, ast.operator, ast.unaryop, ast.Slice, ast.Tuple)):
            return False
    return True


def _saved_key(node: ast.expr, line: int) -> str:
    """What a push saves or a pop restores, as the suffix of its stack's name: ``x`` for the variable ``x``,
    ``A_items`` for an element or slice of ``A`` (saved as ``np.copy(A[i])`` or ``A[i]``, restored into
    ``A[i] = tape.pop()``).  srcad emits every pop into what its push saved, so each stack pairs up."""
    if _is_copy(node):
        node = node.args[0]
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return f"{node.value.id}_items"
    raise LoweringRefused(f"a tape saves or restores `{ast.unparse(node)}`, which is no variable or element",
                          line)


def _is_copy(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) == "np.copy" and len(node.args) == 1 \
        and not node.keywords


def _is_tape_call(node: ast.AST, tapes: Set[str], method: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method \
        and isinstance(node.func.value, ast.Name) and node.func.value.id in tapes \
        and len(node.args) == (1 if method == "append" else 0) and not node.keywords


def _reversed_range_edits(function: ast.FunctionDef):
    """``reversed(range(stop))`` and ``reversed(range(start, stop))`` as ranges counting down."""
    edits = []
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "reversed"):
            continue
        inner = node.args[0] if len(node.args) == 1 else None
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range"
                and 1 <= len(inner.args) <= 2 and not inner.keywords):
            raise LoweringRefused("reversed() of something other than range(stop) or range(start, stop)",
                                  node.lineno)
        start = _less_one(inner.args[0]) if len(inner.args) == 2 else "-1"
        edits.append(_span(node, f"range({_less_one(inner.args[-1])}, {start}, -1)"))
    return edits


def _less_one(bound: ast.expr) -> str:
    """The source of ``bound - 1``, folded for a literal and parenthesised only where needed."""
    if isinstance(bound, ast.Constant) and type(bound.value) is int:
        return str(bound.value - 1)
    text = ast.unparse(bound)
    return f"{text} - 1" if isinstance(bound, (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.BinOp)) \
        and not (isinstance(bound, ast.BinOp) and not isinstance(bound.op, (ast.Add, ast.Sub, ast.Mult))) \
        else f"({text}) - 1"
