"""Transformation: derivatives f takes itself become calls of derivatives srcad builds now.

Contract: runs after ``resolve``, before ``inline``.  In f's body,
- ``srcad.grad(g, wrt=...)(a, ...)``, ``srcad.value_and_grad(g, ...)(...)`` and
  ``srcad.autodiff(g, wrt, mode)(...)`` become a call of that derivative,
  built now through ``unit.derive``;
- ``srcad.jvp(g, (a, ...), (t, ...))`` becomes a call of g's forward-mode
  derivative with its value, returning ``(out, tangent)`` as ``jvp`` does;
- ``srcad.hvp(g, a, v)`` becomes a call of the forward-mode derivative of
  g's gradient, and ``srcad.hessian(g)(a)`` a call of a function srcad
  writes that stacks one such product per element of ``a``.
``g`` is a module-level function, or a function defined inside f (a nested
``def`` or a lambda bound to a name) that may read f's variables.  Such a
``g`` is lifted: srcad compiles a copy of it that takes the variables of f it
reads as keyword-only parameters, and the call passes their values.  Its
derivative then treats them as constants, while f's derivative sees them
as arguments of that call and differentiates through them: there is no
perturbation confusion (d/dx [x * d/dy (x + y)] is 1).  f's derivative
differentiates each call through the derivative of the derivative.  A
form it cannot rewrite (a ``wrt`` computed at run time, a lifted ``g``
calling another local function, ``has_aux``) raises ``UnsupportedSyntaxError``
at its line with a fix.

Example: in ``def f(x): def g(y): return x * y * y`` ... ``return srcad.grad(g)(x)``
the last line becomes ``return grad_g(x, x=x)``, with ``grad_g`` the gradient of
``def g(y, *, x): return x * y * y``.
"""
from __future__ import annotations

import types
from typing import Dict, List, Optional

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend import loader, syntax
from ..frontend.emit import to_source
from ..frontend.syntax import annotate, annotation
from . import Transformation

_MAKERS = {"grad": "reverse", "value_and_grad": "reverse", "autodiff": None, "hessian": "hessian"}
_DIRECT = {"jvp", "hvp"}
_HESSIAN = '''
def hessian_{name}({point}{free}):
    count = np.size({point})
    columns = []
    for k in range(count):
        basis = np.zeros(count)
        basis[k] = 1.0
        columns.append(hvp_{name}({point}{passed}, {tangent}=np.reshape(basis, np.shape({point}))))
    return np.reshape(np.stack(columns, axis=-1), np.shape({point}) + np.shape({point}))
'''

def _srcad_function(node) -> Optional[str]:
    """The name of the srcad transformation a call's function denotes (``grad``, ``jvp``...), or None."""
    function = annotation(node, "ref")
    module = getattr(function, "__module__", "") or ""
    if module in ("srcad.api", "srcad.transforms") and callable(function):
        name = getattr(function, "__name__", "")
        return name if name in _MAKERS or name in _DIRECT else None
    return None


class NestedDerivatives(Transformation):
    """Rewrite derivatives taken inside f into calls of derivatives built now."""

    name = "nested"

    def transform(self, unit):
        self.unit = unit
        self.definitions = _local_definitions(unit.tree.body)
        self.locals = set(unit.facts.get("resolve", ())) | set(_closure_names(unit.parsed.func))
        self.lifted: Dict[str, tuple] = {}
        self.changed = False
        self.named = self._named_makers(unit.tree.body)   # `dg = srcad.grad(g)`, then `dg(x)`
        for node in list(gast.walk(unit.tree)):
            if isinstance(node, gast.Call):
                if isinstance(node.func, gast.Name) and node.func.id in self.named:
                    node.func = syntax.clone(self.named[node.func.id])
                self._rewrite(node)
        if self.named:
            unit.tree.body = _without_assignments(unit.tree.body, set(self.named))
        return self.changed

    def _named_makers(self, body) -> Dict[str, gast.Call]:
        """Names bound once to ``srcad.grad(g)`` and the like, and only ever called."""
        found, bound = {}, {}
        for stmt in syntax.iter_statements(body):
            for target in getattr(stmt, "targets", []):
                for name in syntax.stored_names(target):
                    bound[name] = bound.get(name, 0) + 1
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                    and isinstance(stmt.value, gast.Call) and _srcad_function(stmt.value.func) in _MAKERS:
                found[stmt.targets[0].id] = stmt.value
        called = {id(node.func) for node in gast.walk(self.unit.tree) if isinstance(node, gast.Call)}
        for node in gast.walk(self.unit.tree):
            if isinstance(node, gast.Name) and node.id in found and isinstance(node.ctx, gast.Load) \
                    and id(node) not in called:
                raise self._refusal(node, f"using `{node.id}` (a derivative taken inside the function) other "
                                    "than by calling it", f"call it where it is needed: `{node.id}(...)`")
        return {name: maker for name, maker in found.items() if bound[name] == 1}

    def _rewrite(self, call) -> None:
        maker = call.func if isinstance(call.func, gast.Call) else None
        kind = _srcad_function(maker.func) if maker is not None else _srcad_function(call.func)
        if kind is None or (maker is None) != (kind in _DIRECT):
            return
        source = maker if maker is not None else call
        if not source.args or not isinstance(source.args[0], gast.Name):
            raise self._refusal(source, f"srcad.{kind} of something other than a function's name",
                                "bind the function to a name first (`def g(y): ...`), then pass g")
        function, free = self._function(source.args[0], source)
        if kind in _DIRECT:
            self._direct(call, kind, function, free)
        else:
            self._maker_call(call, maker, kind, function, free)
        self.changed = True

    # the derivative, built now ------------------------------------------------------------
    def _maker_call(self, call, maker, kind, function, free) -> None:
        options = self._constants(maker, {"wrt": 1, "mode": 2} if kind == "autodiff" else {"wrt": 1})
        wrt = options.get("wrt", 0)
        if kind == "hessian":
            target = self._hessian(function, wrt, free, maker)
        else:
            mode = options.get("mode", "reverse") if kind == "autodiff" else "reverse"
            extra = {"with_value": True} if kind == "value_and_grad" else {}
            target = self.unit.derive(function, wrt, mode, **extra)
        call.func = self._bound(f"{kind}_{maker.args[0].id}", target)
        positional = getattr(getattr(function, "__code__", None), "co_argcount", len(call.args))
        if free and len(call.args) > positional:   # a seed or tangents after g's arguments: keyword-only now
            extra = call.args[positional:]
            call.args = call.args[:positional]
            call.keywords = list(call.keywords) + [gast.keyword(arg=name, value=value) for name, value in
                                                   zip(target.parameters[-len(extra):], extra)]
        call.keywords = list(call.keywords) + _passed(free)

    def _direct(self, call, kind, function, free) -> None:
        if kind == "jvp":
            if len(call.args) != 3 or not all(isinstance(a, (gast.Tuple, gast.List)) for a in call.args[1:]) \
                    or len(call.args[1].elts) != len(call.args[2].elts) or call.keywords:
                raise self._refusal(call, "this call of srcad.jvp",
                                    "pass the primals and the tangents as tuples: srcad.jvp(g, (x,), (v,))")
            primals, tangents = call.args[1].elts, call.args[2].elts
            wrt = tuple(range(len(primals))) if len(primals) > 1 else 0
            derivative = self.unit.derive(function, wrt, "forward", with_value=True)
        else:   # hvp(g, x, v)
            if len(call.args) != 3 or call.keywords:
                raise self._refusal(call, "this call of srcad.hvp", "call it as srcad.hvp(g, x, v)")
            primals, tangents = call.args[1:2], call.args[2:3]
            derivative = self.unit.derive(self.unit.derive(function, 0, "reverse"), 0, "forward")
        names = derivative.parameters[-len(tangents):]
        call.func = self._bound(f"{kind}_{call.args[0].id}", derivative)
        call.args = list(primals)
        call.keywords = _passed(free) + [gast.keyword(arg=n, value=t) for n, t in zip(names, tangents)]

    def _hessian(self, function, wrt, free, maker):
        """A function stacking one Hessian-vector product per element of g's argument."""
        if wrt not in (0,) or len(maker.args) > 2:
            raise self._refusal(maker, "srcad.hessian with a wrt other than 0 inside a differentiated function",
                                "make the argument to differentiate g's first parameter")
        product = self.unit.derive(self.unit.derive(function, 0, "reverse"), 0, "forward")
        name = maker.args[0].id
        if set(free) & {"count", "columns", "k", "basis", "np", f"hvp_{name}"}:
            raise self._refusal(maker, f"srcad.hessian of {name}, which reads "
                                f"`{sorted(set(free) & {'count', 'columns', 'k', 'basis', 'np'})[0]}` from "
                                f"{self.unit.tree.name}", "give that variable another name")
        point = next(p for p in ("y", "point", "at_point") if p not in free)
        text = _HESSIAN.format(name=name, point=point,
                               free="".join(f", {v}" for v in ([] if not free else ["*"] + free)),
                               passed="".join(f", {v}={v}" for v in free), tangent=product.parameters[-1])
        namespace = {"np": np, f"hvp_{name}": product, "__name__": f"srcad.nested.{name}"}
        code = loader.compile_text(text, None, f"hessian of {name}")
        exec(code, namespace)   # srcad's own text, a module of its own
        return namespace[f"hessian_{name}"]

    # the function differentiated -----------------------------------------------------------
    def _function(self, node, where):
        """(the function to differentiate, the names of f's variables it takes as keyword arguments)."""
        if node.id not in self.definitions:
            function = annotation(node, "ref")
            if function is None or not callable(function):
                raise self._refusal(where, f"`{node.id}` is not a function srcad can see when it builds f's "
                                    "derivative", f"define {node.id} with `def` in f or at module level")
            return function, []
        if node.id not in self.lifted:
            self.lifted[node.id] = self._lift(self.definitions[node.id], where)
        return self.lifted[node.id]

    def _lift(self, definition, where):
        """Compile a copy of local ``definition`` taking the variables of f it reads as keyword arguments."""
        own = {a.id for a in definition.args.args + definition.args.kwonlyargs} | syntax.names_in(
            definition, gast.Store)
        read = syntax.names_in(gast.Module(body=definition.body, type_ignores=[]))
        free = sorted((read - own) & self.locals)
        calls = sorted((read - own) & set(self.definitions))
        if calls:
            raise self._refusal(where, f"srcad.grad of the local function {definition.name}, which calls the "
                                f"local function {calls[0]}",
                                f"define {calls[0]} at module level, or write its body into {definition.name}")
        if any(not isinstance(d, gast.Constant) for d in definition.args.defaults + [
                k for k in definition.args.kw_defaults if k is not None]):
            raise self._refusal(where, f"a default of {definition.name} that is not a constant",
                                "pass the value as an argument instead")
        lifted = syntax.clone(definition)
        lifted.decorator_list = []
        lifted.args.kwonlyargs = list(lifted.args.kwonlyargs) + [syntax.name(v, gast.Param()) for v in free]
        lifted.args.kw_defaults = list(lifted.args.kw_defaults) + [None] * len(free)
        line = self.unit.parsed.first_line + definition.lineno - 1
        text = "\n" * (line - 1) + to_source(gast.Module(body=[lifted], type_ignores=[]))
        code = loader.compile_text(text, None, f"{self.unit.parsed.filename}, {definition.name} taking "
                                   f"{', '.join(free) or 'nothing'} from {self.unit.tree.name}")
        inner = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == definition.name)
        globals_ = getattr(self.unit.parsed.func, "__globals__", {})
        function = types.FunctionType(inner, globals_, definition.name,
                                      tuple(d.value for d in definition.args.defaults) or None)
        function.__kwdefaults__ = {a.id: d.value for a, d in zip(definition.args.kwonlyargs,
                                                                  definition.args.kw_defaults) if d is not None} \
            or None
        return function, free

    # pieces -------------------------------------------------------------------------------
    def _bound(self, preferred, obj) -> gast.Name:
        node = syntax.name(self.unit.bindings.bind(preferred, obj))
        annotate(node, "ref", obj)
        return node

    def _constants(self, call, positions) -> Dict:
        values = {}
        for name, position in positions.items():
            node = call.args[position] if len(call.args) > position else next(
                (k.value for k in call.keywords if k.arg == name), None)
            if node is not None:
                try:
                    values[name] = _literal(node)
                except ValueError:
                    raise self._refusal(node, f"a `{name}` computed while f runs",
                                        f"write `{name}` as a constant (an int, a name in quotes or a tuple)") \
                        from None
        unknown = [k.arg for k in call.keywords if k.arg not in positions]
        if unknown or len(call.args) > 1 + len(positions):
            raise self._refusal(call, f"the argument `{unknown[0] if unknown else 'given'}` of a derivative taken "
                                "inside a differentiated function", "leave it out (write the derivative's "
                                "output yourself)")
        return values

    def _refusal(self, node, construct, fix):
        return self.unit.error(node, UnsupportedSyntaxError, f"{construct} is not supported", fix)


def _without_assignments(block, names) -> List:
    """``block`` without the assignments binding ``names`` (their calls now name the derivative)."""
    kept = []
    for stmt in block:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in names:
            continue
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(stmt, field, _without_assignments(getattr(stmt, field), names) or
                        ([gast.Pass()] if field == "body" else []))
        kept.append(stmt)
    return kept


def _literal(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, str)):
        return node.value
    if isinstance(node, gast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    raise ValueError(node)


def _passed(free) -> List:
    return [gast.keyword(arg=v, value=syntax.name(v)) for v in free]


def _local_definitions(body) -> Dict[str, gast.AST]:
    """f's local functions by name: nested ``def`` statements and lambdas bound to a name, as defs."""
    found = {}
    for stmt in syntax.iter_statements(body):
        if isinstance(stmt, gast.FunctionDef):
            found[stmt.name] = stmt
        elif isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda) \
                and isinstance(stmt.targets[0], gast.Name):
            lam = stmt.value
            found[stmt.targets[0].id] = syntax.set_location(gast.FunctionDef(
                name=stmt.targets[0].id, args=lam.args, body=[gast.Return(value=lam.body)], decorator_list=[],
                returns=None, type_comment=None, type_params=[]), stmt.lineno)
    return found


def _closure_names(func) -> List[str]:
    code = getattr(func, "__code__", None)
    return list(code.co_freevars) if code is not None else []
