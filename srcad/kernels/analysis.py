"""Check a kernel case and give its statements their meaning: ranges, sums and versions.

Contract:
- ``load_case(source)`` takes a path to a JSON case file, the JSON text, or
  the dict itself (fields ``name, ins, outs, data_type, kernel`` and optional
  ``grad_to``) and returns an analysed ``Kernel``; every problem raises a
  ``KernelError`` (a ``KernelSyntaxError``, with line and column, for text
  that does not parse or names used wrongly).
- Meaning of a statement ``Out[I] = rhs``: for every value of the target's
  variables, ``Out[I]`` becomes ``rhs``.  A variable ranges from 0 to the
  smallest extent of the dimensions it indexes on its own (``B[i, k]``
  bounds ``i`` and ``k``; ``B[i + 1]`` does not bound ``i``); a variable that
  never indexes a dimension on its own is an error.  A read outside its
  array (``B[i + 1]`` for the last ``i``) reads 0.
- Einstein summation: a variable that appears only on the right is summed,
  per additive term: over ``+``/``-`` each side sums on its own, a product
  sums a variable its two factors share (or the denominator of ``/`` uses)
  at the product, and elsewhere the sum goes down to the one factor that
  uses it.  ``A[i] = A[i] + B[i, k] * C[k]`` adds the dot product to A.
- A statement may read the array it writes only at the written element
  (``A[i, j] = A[i, j] + ...``), so every statement is a pure elementwise
  update; the target's subscripts are loop variables or constants.
- Arrays read are ``ins``, ``outs`` (an output read before it is written is
  an input updated in place) or arrays written by an earlier statement
  (local temporaries when they are neither ins nor outs).  Each access
  records its version: the number of writes to its array before it.

Example::

    >>> kernel = load_case({"name": "mm", "ins": ["B", "C"], "outs": ["A"], "data_type": "float",
    ...                     "kernel": "A<2, 2>[i, j] = B<2, 3>[i, k] * C<3, 2>[k, j];"})
    >>> kernel.statements[0].rhs.vars, kernel.statements[0].extents
    (('k',), {'i': 2, 'j': 2, 'k': 3})
"""
from __future__ import annotations

import json
import os
from typing import Dict, List, Tuple, Union

from .model import (Access, Binary, Expr, IConst, IVar, Kernel, KernelError, Neg, Statement, Sum,
                    accesses, expr_vars, index_vars, map_accesses)
from .parser import Parsed, error_at, parse

DATA_TYPES = ("float", "int")


def load_case(source: Union[str, os.PathLike, dict]) -> Kernel:
    """The analysed kernel of a case: a JSON file path, JSON text, or the decoded dict.

    Example::

        >>> load_case('{"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",'
        ...           ' "kernel": "A<3>[i] = 2.0 * B<3>[i];"}').name
        'k'
    """
    filename = "kernel"
    if isinstance(source, dict):
        case = source
    else:
        text = str(source)
        if not text.lstrip().startswith("{"):
            filename = f"{os.fspath(source)}: kernel"
            try:
                with open(source, encoding="utf-8") as handle:
                    text = handle.read()
            except OSError as exc:
                raise KernelError(f"cannot read kernel case {os.fspath(source)}: {exc.strerror}") from None
        try:
            case = json.loads(text)
        except json.JSONDecodeError as exc:
            raise KernelError(f"{filename}: not valid JSON: {exc}") from None
    return analyse(case, filename)


def _names(case: dict, field: str, required: bool = True) -> Tuple[str, ...]:
    value = case.get(field, None if required else [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier() for v in value):
        raise KernelError(f"field {field!r} of the case must be a list of array names, got {value!r}")
    if len(set(value)) != len(value):
        raise KernelError(f"field {field!r} names an array twice: {value!r}")
    return tuple(value)


def _check_fields(case: dict) -> None:
    if not isinstance(case, dict):
        raise KernelError("a kernel case is a JSON object with name, ins, outs, data_type and kernel")
    name = case.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise KernelError(f"field 'name' must be a C and Python identifier, got {name!r}")
    if case.get("data_type") not in DATA_TYPES:
        raise KernelError(f"field 'data_type' must be 'float' or 'int', got {case.get('data_type')!r}")
    if not isinstance(case.get("kernel"), str):
        raise KernelError("field 'kernel' must be the kernel text (a string)")


def analyse(case: dict, filename: str = "kernel") -> Kernel:
    """Check ``case`` (a decoded JSON object) and analyse its kernel; see the module docstring."""
    _check_fields(case)
    ins, outs = _names(case, "ins"), _names(case, "outs")
    grad_to = _names(case, "grad_to", required=False)
    text = case["kernel"]
    parsed = parse(text, filename)

    def fail(access: Access, message: str) -> KernelError:
        return error_at(text, filename, access.line, access.col, message, KernelError)

    shapes: Dict[str, Tuple[int, ...]] = {}
    for item in parsed:
        for access in (item.target, *accesses(item.rhs)):
            known = shapes.setdefault(access.name, access.shape)
            if known != access.shape:
                raise fail(access, f"{access.name} has shape {_show_shape(access.shape)} here "
                                   f"but {_show_shape(known)} earlier")
    versions: Dict[str, int] = {}
    inputs: List[str] = list(ins)
    local_names: List[str] = []
    statements = []
    for item in parsed:
        for access in accesses(item.rhs):
            if access.name in versions or access.name in ins:
                continue
            if access.name not in outs:
                raise fail(access, f"{access.name} is read but is neither in 'ins' nor written earlier")
            if access.name not in inputs:
                inputs.append(access.name)      # an output updated in place
        target = item.target
        if target.name in ins and target.name not in outs:
            raise fail(target, f"the kernel writes {target.name}, an input; list it in 'outs' too")
        if target.name not in ins and target.name not in outs and target.name not in local_names:
            local_names.append(target.name)
        statements.append(_statement(item, versions, fail))
    for name in outs:
        if name not in versions:
            raise KernelError(f"output {name} is never written by the kernel")
    if grad_to:
        if case["data_type"] != "float":
            raise KernelError("gradients need data_type 'float'")
        for name in grad_to:
            if name not in inputs:
                raise KernelError(f"grad_to names {name}, which is not an input the kernel reads")
    return Kernel(case["name"], ins, outs, case["data_type"], grad_to, tuple(statements), shapes,
                  tuple(inputs), tuple(local_names), text, has_grad="grad_to" in case)


def _show_shape(shape: Tuple[int, ...]) -> str:
    return "<" + ", ".join(map(str, shape or (1,))) + ">"


def _statement(item: Parsed, versions: Dict[str, int], fail) -> Statement:
    """Analyse one parsed statement; ``versions`` (writes so far, by array) is updated."""
    target, rhs = item.target, item.rhs
    for index in target.indices:
        if not isinstance(index, (IVar, IConst)):
            raise fail(target, f"the subscripts of the array a statement writes must be loop variables "
                               f"or constants; write {target.name} through plain variables")
    for access in accesses(rhs):
        if access.name == target.name and access.indices != target.indices:
            raise fail(access, f"the statement reads {access.name} at another element than it writes; "
                               f"write the result to a new array")
    extents: Dict[str, int] = {}
    for access in (target, *accesses(rhs)):
        for index, extent in zip(access.indices, access.shape):
            if isinstance(index, IVar):
                extents[index.name] = min(extent, extents.get(index.name, extent))
    target_vars = [i.name for i in target.indices if isinstance(i, IVar)]
    all_vars = list(dict.fromkeys(target_vars + list(expr_vars(rhs))))
    for access in accesses(rhs):
        for index in access.indices:
            for name in index_vars(index):
                if name not in extents:
                    raise fail(access, f"the range of {name} is unknown: it only appears inside "
                                       f"subscript arithmetic; also index some dimension with {name} alone")
    summed = {v: extents[v] for v in all_vars if v not in target_vars}
    rhs = _versioned(place_sums(rhs, summed), versions)
    version = versions.get(target.name, 0) + 1
    versions[target.name] = version
    target = Access(target.name, target.shape, target.indices, version, target.line, target.col)
    ordered = {v: extents[v] for v in all_vars}
    return Statement(target, rhs, ordered, item.text, item.line)


def _versioned(expr: Expr, versions: Dict[str, int]) -> Expr:
    return map_accesses(expr, lambda a: Access(a.name, a.shape, a.indices, versions.get(a.name, 0),
                                               a.line, a.col))


def place_sums(expr: Expr, summed: Dict[str, int]) -> Expr:
    """``expr`` with a ``Sum`` over each variable of ``summed`` (name: extent), placed as the module says.

    Example::

        >>> from srcad.kernels.parser import parse
        >>> rhs = parse("A<2>[i] = B<2, 3>[i, k] * C<3>[k] + D<3>[k];")[0].rhs
        >>> [type(side).__name__ for side in (place_sums(rhs, {"k": 3}).left, place_sums(rhs, {"k": 3}).right)]
        ['Sum', 'Sum']
    """
    present = tuple(v for v in expr_vars(expr) if v in summed)
    if not present:
        return expr
    if isinstance(expr, Access):
        return Sum(present, tuple(summed[v] for v in present), expr)
    if isinstance(expr, Neg):
        return Neg(place_sums(expr.operand, summed))
    assert isinstance(expr, Binary)
    if expr.op in "+-":
        return Binary(expr.op, place_sums(expr.left, summed), place_sums(expr.right, summed))
    right = set(expr_vars(expr.right))
    shared = right if expr.op == "/" else right & set(expr_vars(expr.left))
    here = tuple(v for v in present if v in shared)
    rest = {v: n for v, n in summed.items() if v not in here}
    node = Binary(expr.op, place_sums(expr.left, rest), place_sums(expr.right, rest))
    return Sum(here, tuple(summed[v] for v in here), node) if here else node
