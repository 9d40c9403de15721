"""The derivative function's frame: signature, seed, returned gradients, tape operations.

Contract: ``Frame(unit)`` builds the pieces of a generated function that are
not about any one statement, for the reverse transform:
- ``reverse_signature``: f's parameters plus the seed (default ``1.0`` for a
  single output);
- ``seed_name``: ``d<name>`` for a returned variable, else ``dout``;
- ``gradients``: the return statement; a gradient the derivative does not own
  alone (a view, an alias of the seed) is returned through ``copied``, so the
  caller never receives an array something else also holds;
- ``push``/``pop``: tape operations, each pair sharing an id (annotation
  ``tape_pair``) so ``cleanup`` can drop both when the popped value is unread;
- ``copy_stored_parameters``: ``A = A.copy()`` for parameters the function
  stores into, so a derivative never writes the caller's arrays;
- ``announced(unit, extra)``: while the mode pass runs, the parameters the
  derivative adds to f's (the seed, or the tangents) are known to
  ``extra_parameters_of(derivative)``, so a recursive call (direct, or
  through other functions) can call the derivative being built.

Example: for ``def f(x): return np.sum(x)`` the signature is
``def df(x, dout=1.0)``.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Dict, List, Optional

import gast
import numpy as np

from ..errors import SrcadError, UnsupportedSyntaxError
from .. import runtime
from ..frontend import syntax
from ..analysis.blocks import is_store, target_name

PAIR = "tape_pair"


class Frame:
    """Signature, seed and return of a derivative; tape operations."""

    def __init__(self, unit):
        self.unit = unit
        tree = unit.tree
        self.parameters = [arg.id for arg in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs]
        self.numpy = unit.bindings.bind("np", np)
        self.pairs = 0

    def helper(self, helper_name: str) -> gast.Name:
        """A name bound to the runtime helper ``helper_name``."""
        return syntax.name(self.unit.bindings.bind(helper_name, getattr(runtime, helper_name)))

    def seed_name(self, returned) -> str:
        if isinstance(returned, gast.Name):
            return self.unit.namer.derivative(returned.id)
        return self.unit.namer.fresh("dout")

    def reverse_signature(self, tree, seed, body, scalar):
        """f's parameters, then the seed; keyword-only when f has defaults (it could bind to one)."""
        args = _literal_defaults(syntax.clone(tree.args))
        seed_arg = syntax.name(seed, gast.Param())
        default = syntax.constant(1.0) if scalar else None
        if args.defaults or args.kwonlyargs:
            args.kwonlyargs = list(args.kwonlyargs) + [seed_arg]
            args.kw_defaults = list(args.kw_defaults) + [default]
        else:
            args.args.append(seed_arg)
            if default is not None:
                args.defaults = [default]
        return self._function(tree, args, body)

    def forward_signature(self, tree, body):
        """f's parameters, then one tangent per wrt entry; keyword-only when f has defaults."""
        args = _literal_defaults(syntax.clone(tree.args))
        tangents = [syntax.name(self.unit.namer.derivative(param), gast.Param()) for param in self.unit.wrt]
        if args.defaults or args.kwonlyargs:
            args.kwonlyargs = list(args.kwonlyargs) + tangents
            args.kw_defaults = list(args.kw_defaults) + [None] * len(tangents)
        else:
            args.args += tangents
        return self._function(tree, args, body)

    def _function(self, tree, args, body):
        name = self.unit.namer.fresh("d" + tree.name)
        return gast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                                type_comment=None, type_params=[])

    def gradients(self, state: Dict[str, bool]):
        """The gradient of each wrt entry (one value, or a tuple)."""
        values = []
        for param in self.unit.wrt:
            adjoint = syntax.name(self.unit.namer.derivative(param))
            if param not in state:
                values.append(syntax.call(self.helper("zeros_like"), [syntax.name(param)]))
            elif state[param]:
                values.append(adjoint)
            else:
                values.append(syntax.call(self.helper("copied"), [adjoint]))
        if len(values) == 1 and not self.unit.options.get("tuple_result"):
            return values[0]
        return gast.Tuple(elts=values, ctx=gast.Load())

    def copy_stored_parameters(self, body) -> List:
        stored = sorted({target_name(s.targets[0]) for s in syntax.iter_statements(body) if is_store(s)}
                        & set(self.parameters))
        return [syntax.assign(name, syntax.call(syntax.dotted(f"{name}.copy"))) for name in stored]

    def new_pair(self) -> int:
        self.pairs += 1
        return self.pairs

    def push(self, tape: str, value, pair: int):
        stmt = syntax.expr_stmt(syntax.call(syntax.dotted(f"{tape}.append"), [value]))
        syntax.annotate(stmt, PAIR, pair)
        return stmt

    def pop(self, tape: str, target, pair: int):
        stmt = gast.Assign(targets=[target], value=syntax.call(syntax.dotted(f"{tape}.pop")), type_comment=None)
        syntax.annotate(stmt, PAIR, pair)
        return stmt


def split_output(unit, returned):
    """(the differentiated output, the aux value or None), following the ``has_aux`` option."""
    if not unit.options.get("has_aux"):
        return returned, None
    if not (isinstance(returned, gast.Tuple) and len(returned.elts) == 2):
        raise unit.error(returned, SrcadError, "has_aux=True needs f to return a pair (output, aux)",
                         "return `out, aux`, or drop has_aux")
    output, aux = returned.elts
    output.lineno = aux.lineno = returned.lineno
    return output, aux


def with_extras(unit, derivative_value, output, aux):
    """The returned value: the derivative, with ``(output, ...)`` and ``aux`` as the options ask."""
    if unit.options.get("with_value"):
        shown = output if aux is None else gast.Tuple(elts=[syntax.clone(output), syntax.clone(aux)],
                                                      ctx=gast.Load())
        derivative_value = gast.Tuple(elts=[syntax.clone(shown), derivative_value], ctx=gast.Load())
    elif aux is not None:
        derivative_value = gast.Tuple(elts=[derivative_value, syntax.clone(aux)], ctx=gast.Load())
    return derivative_value


def split_return(unit, body):
    """(the statements before the final ``return``, the returned atom)."""
    if not body or not isinstance(body[-1], gast.Return):
        raise unit.error(unit.tree, SrcadError, f"{unit.tree.name} does not end with a return",
                         "return the value to differentiate")
    for stmt in syntax.iter_statements(body[:-1]):
        if isinstance(stmt, gast.Return):
            raise unit.error(stmt, UnsupportedSyntaxError, "this return", "return once, at the end")
    returned = body[-1].value
    returned.lineno = body[-1].lineno
    return body[:-1], returned


def _literal_defaults(args):
    """``args`` with each default that is not a literal written ``...``.

    The loaded derivative takes f's default values themselves (``loader.with_defaults_of``), so
    the ``def`` only needs defaults that evaluate: ``def f(x, num=num)`` with ``num`` of an
    enclosing scope would raise ``NameError`` in the generated module.
    """
    def literal(node):
        return node is None or isinstance(node, gast.Constant) or syntax.is_number(node)
    args.defaults = [d if literal(d) else syntax.constant(Ellipsis) for d in args.defaults]
    args.kw_defaults = [d if literal(d) else syntax.constant(Ellipsis) for d in args.kw_defaults]
    return args


class _Announced(threading.local):
    units: List = []


_ANNOUNCED = _Announced()


@contextlib.contextmanager
def announced(unit, extra: List[str]):
    """Make ``extra`` (the seed's name, or the tangents') known while ``unit``'s derivative is being built.

    Example::

        with announced(unit, [seed]):
            backward = self._backward(body)
    """
    entry = (unit, list(extra))
    _ANNOUNCED.units = _ANNOUNCED.units + [entry]
    try:
        yield
    finally:
        _ANNOUNCED.units = [e for e in _ANNOUNCED.units if e is not entry]


def extra_parameters_of(derivative) -> Optional[List[str]]:
    """The seed or tangent names of ``derivative`` (a ``srcad.api.Derivative``) when it is being built on this
    thread (f calls itself), else None.

    Example: while ``df`` of ``def power(x, n): ... power(x, n - 1)`` is built,
    ``extra_parameters_of(derivative(power))`` is ``["dout"]``.
    """
    for unit, extra in reversed(_ANNOUNCED.units):
        if (unit.parsed.func is getattr(derivative, "func", None) and tuple(unit.wrt) == tuple(derivative.wrt)
                and unit.mode == derivative.mode and _set(unit.options) == _set(derivative.options)):
            return extra
    return None


def _set(options) -> dict:
    """Options that say something (the build adds some as None)."""
    return {key: value for key, value in options.items() if value is not None}
