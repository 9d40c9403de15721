"""Which constructs of Python as people write it a generated program uses (to measure the fuzzer's coverage).

Contract: ``constructs(source)`` parses a generated module and returns the
names (keys of ``LABELS``) of the constructs of ``tests/fuzz_language.py``,
``tests/fuzz_calls.py`` and ``tests/fuzz_recent.py`` its functions use: a construct counts where it
is used (a call of a method, not the class that defines it), so a module
definition nothing calls is not counted.  ``census(sources)`` counts, per
construct, the programs using it.  Nothing here runs a program.

Example::

    >>> sorted(constructs("def f(x):\\n    return sum(v * v for v in x)\\n"))
    ['generator_sum']
"""
from __future__ import annotations

import ast
import collections
import re
from typing import Iterable, Set

LABELS = {
    "raise": "raise in a branch", "except_value_error": "try/except ValueError",
    "except_zero_division": "try/except ZeroDivisionError", "try_else": "try/except/else",
    "try_finally": "try/.../finally", "try_continue_break": "try in a loop, continue/break in the handler",
    "cholesky_fallback": "np.linalg.cholesky with a LinAlgError fallback", "errstate": "with np.errstate",
    "catch_warnings": "with warnings.catch_warnings()", "for_else": "for ... else", "while_else": "while ... else",
    "walrus": ":=", "fstring": "f-string", "del": "del name",
    "generator_sum": "generator into sum", "generator_max": "generator into max", "generator_min": "generator into min",
    "generator_sorted": "generator into sorted", "generator_any_all": "generator into any/all",
    "generator_tuple_list": "generator into tuple/list", "fsum": "math.fsum", "dict_comprehension": "dict comprehension",
    "set_comprehension": "set comprehension", "lambda_in_place": "lambda called in place",
    "enumerate_zip": "enumerate(zip(a, b))", "zip_star": "zip(*rows)", "map": "map(fn, xs)",
    "dict_call": "dict(a=..., b=...)", "floor_division": "// (or np.floor_divide)", "modulo": "% of floats",
    "method": "method calling self.method, reading self.w", "attribute": "attribute read (MODEL.w)",
    "staticmethod": "staticmethod", "classmethod": "classmethod", "property": "property",
    "partial": "functools.partial", "star_args": "*args helper", "star_call": "f(*parts)",
    "kwargs_call": "**kwargs helper, g(**cfg) or keywords", "double_star_call": "g(**cfg)",
    "list_pop_insert": "list pop()/insert", "recursion": "direct recursion", "mutual_recursion": "mutual recursion",
    "nested_grad": "srcad.grad inside f",
    # tests/fuzz_recent.py
    "max_min_many": "builtin max/min of three or more numbers", "complex_rule": "complex value through a complex rule",
    "unpack_value": "a, b = v of a value that is no literal", "array_copy": ".copy() or np.copy of an array",
    "list_join": "lists or tuples joined with + or repeated with *",
    "shadowed_parameter": "helper whose loop variable shadows a parameter",
}
# the rules fuzz_recent.py sends complex values through (their operands are named c0, c1...)
COMPLEX_RULES = {"np.cumsum", "np.cumprod", "np.where", "np.flip", "np.roll", "np.tile", "np.repeat", "np.trace",
                 "np.diagonal", "np.swapaxes", "np.moveaxis", "np.hstack", "np.vstack", "np.outer", "np.diff", "sum",
                 "np.linalg.det", "np.linalg.inv", "np.linalg.solve"}
GENERATOR_CONSUMERS = {"sum": "generator_sum", "max": "generator_max", "min": "generator_min",
                       "sorted": "generator_sorted", "any": "generator_any_all", "all": "generator_any_all",
                       "tuple": "generator_tuple_list", "list": "generator_tuple_list"}
# what a use of ``MODEL.name`` exercises: ``apply`` reads ``self.w`` and calls ``self.shift``, which reads the
# property ``self.factor``
ATTRIBUTE_USES = {"apply": ("method", "attribute", "property"), "shift": ("property",), "squash": ("staticmethod",),
                  "scaled": ("classmethod",), "factor": ("property",), "w": ("attribute",)}
CALLEES = {"descend": "recursion", "even": "mutual_recursion", "odd": "mutual_recursion", "total": "star_args",
           "mix": "kwargs_call", "BLEND": "partial"}


def _name(node: ast.AST) -> str:
    """``np.linalg.cholesky`` for an attribute chain, ``sum`` for a name, "" otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _call(node: ast.Call, found: Set[str]) -> None:
    callee = _name(node.func)
    if isinstance(node.func, ast.Lambda):
        found.add("lambda_in_place")
    if node.args and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp)) and callee in GENERATOR_CONSUMERS:
        if isinstance(node.args[0], ast.GeneratorExp) or callee == "sorted":
            found.add(GENERATOR_CONSUMERS[callee])
    if callee == "math.fsum":
        found.add("fsum")
    if callee == "enumerate" and node.args and isinstance(node.args[0], ast.Call) and _name(node.args[0].func) == "zip":
        found.add("enumerate_zip")
    if callee == "zip" and any(isinstance(a, ast.Starred) for a in node.args):
        found.add("zip_star")
    if callee == "map":
        found.add("map")
    if callee == "dict" and node.keywords:
        found.add("dict_call")
    if callee == "np.floor_divide":
        found.add("floor_division")
    if callee in ("functools.partial",):
        found.add("partial")
    if callee == "srcad.grad":
        found.add("nested_grad")
    if callee.endswith((".pop", ".insert")) and callee.startswith("h"):
        found.add("list_pop_insert")
    if callee in CALLEES:
        found.add(CALLEES[callee])
    if any(isinstance(a, ast.Starred) for a in node.args) and callee != "zip":
        found.add("star_call")
    if any(k.arg is None for k in node.keywords):
        found.add("double_star_call")
    if callee in ("max", "min") and len(node.args) >= 3:
        found.add("max_min_many")
    if callee in COMPLEX_RULES and any(isinstance(n, ast.Name) and re.fullmatch(r"c\d+", n.id)
                                       for a in node.args for n in ast.walk(a)):
        found.add("complex_rule")
    if callee in ("np.copy",) or callee.endswith(".copy") or (
            isinstance(node.func, ast.Attribute) and node.func.attr == "copy"):
        found.add("array_copy")


def _targets(target: ast.AST) -> Set[str]:
    """The names a ``for`` target binds."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def constructs(source: str) -> Set[str]:
    """The constructs (keys of ``LABELS``) the functions of ``source`` use."""
    found: Set[str] = set()
    tree = ast.parse(source)
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or function.name in CALLEES:
            continue
        parameters = {a.arg for a in function.args.args}
        for node in ast.walk(function):
            if isinstance(node, ast.For) and _targets(node.target) & parameters and function.name != "f":
                found.add("shadowed_parameter")
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple) and not isinstance(
                    node.value, (ast.Tuple, ast.List)):
                found.add("unpack_value")
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)) and any(
                    isinstance(side, (ast.List, ast.Tuple)) for side in (node.left, node.right)):
                found.add("list_join")
            if isinstance(node, ast.Raise):
                found.add("raise")
            elif isinstance(node, ast.Try):
                handled = {"ValueError": "except_value_error", "ZeroDivisionError": "except_zero_division",
                           "np.linalg.LinAlgError": "cholesky_fallback"}
                found.update(handled.get(_name(h.type), "") for h in node.handlers)
                if node.orelse:
                    found.add("try_else")
                if node.finalbody:
                    found.add("try_finally")
                if any(isinstance(s, (ast.Continue, ast.Break)) for h in node.handlers for s in h.body):
                    found.add("try_continue_break")
            elif isinstance(node, ast.With):
                callees = {_name(item.context_expr.func) for item in node.items if isinstance(item.context_expr, ast.Call)}
                found.update({"np.errstate": "errstate", "warnings.catch_warnings": "catch_warnings"}.get(c, "")
                             for c in callees)
            elif isinstance(node, (ast.For, ast.While)) and node.orelse:
                found.add("for_else" if isinstance(node, ast.For) else "while_else")
            elif isinstance(node, ast.NamedExpr):
                found.add("walrus")
            elif isinstance(node, ast.JoinedStr):
                found.add("fstring")
            elif isinstance(node, ast.Delete):
                found.add("del")
            elif isinstance(node, ast.DictComp):
                found.add("dict_comprehension")
            elif isinstance(node, ast.SetComp):
                found.add("set_comprehension")
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
                found.add("floor_division")
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and not (
                    isinstance(node.right, ast.Constant) and isinstance(node.right.value, int)):
                found.add("modulo")     # of floats: integer casts taken modulo a length are older constructs
            elif isinstance(node, ast.Attribute) and _name(node.value) in ("MODEL", "Model"):
                found.update(ATTRIBUTE_USES.get(node.attr, ("method",)))
            elif isinstance(node, ast.Call):
                _call(node, found)
    found.discard("")
    return found


def census(sources: Iterable[str]) -> collections.Counter:
    """Per construct, the number of ``sources`` using it (``"programs"``: how many there were)."""
    counts: collections.Counter = collections.Counter()
    for source in sources:
        counts["programs"] += 1
        counts.update(constructs(source))
    return counts
