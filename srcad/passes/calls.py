"""Calls to the user's own Python functions: differentiated by transforming the callee.

Contract: ``is_user_call(value)`` says whether an A-normal-form operation is a
call to a plain Python function that has no rule and is not declared
non-differentiable.  ``callee_derivative(unit, stmt, mode, active)`` builds
(and caches, per callee) the callee's derivative with respect to the active
arguments, binds it in the generated module as ``d<callee>`` (the module
creates it with ``srcad.api.derivative(...)``, so a cached file works in a new
process) and returns that name.  A method the ``methods`` pass resolved
(``forward(self, x)``) gets a derivative made per object it is called with
(``per_receiver=True``: each object's is its bound method's), built at once
for the first object srcad knows.  The derivative itself comes from
``unit.derive``, the service the API layer hands to the pipeline.  In reverse mode the call's adjoint is
``da, dw = dg(a, w, dout=dy)`` (the seed and tangents go by keyword, so defaulted
parameters need not be passed): the callee's own VJP, which recomputes its primal.
In forward mode the call becomes ``y, dy = dg(a, w, da, dw)``.  A callee
whose derivative is being built already (f calling itself, directly or
through other functions) is called like any other: its seed or tangent names
come from ``frame.extra_parameters_of``.

Example: with ``def g(a, w): return np.tanh(a * w)``, ``y = g(x, w)`` in f's
reverse derivative gets the adjoint ``dx, dw = dg(x, w, dy)``.
"""
from __future__ import annotations

import inspect
from typing import List, Tuple

import gast

from ..errors import SrcadError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..templates import is_nondifferentiable, lookup
from .frame import extra_parameters_of


def is_user_call(value, mode: str) -> bool:
    """A call to a plain Python function srcad must transform itself, or to a srcad derivative (generated
    code calling a callee's derivative, differentiated again)."""
    if not isinstance(value, gast.Call):
        return False
    function = annotation(value.func, "ref")
    return (inspect.isfunction(function) or _is_derivative(function)) and lookup(function, mode) is None \
        and not is_nondifferentiable(function)


def _is_derivative(function) -> bool:
    """A ``srcad.api.Derivative`` (known by its duck type: the passes never import the API)."""
    return hasattr(function, "_load") and hasattr(function, "_current") and hasattr(function, "parameters")


def active_arguments(value, activity) -> Tuple[List[int], List[str]]:
    """Positions and keyword names of the call's arguments that carry a derivative."""
    positions = [i for i, arg in enumerate(value.args) if activity.is_active(arg)]
    names = [kw.arg for kw in value.keywords if activity.is_active(kw.value)]
    return positions, names


def callee_derivative(unit, stmt, mode: str, activity) -> Tuple[str, List]:
    """Bind the callee's derivative; returns its name and the active argument atoms in order."""
    value = stmt.value
    function = annotation(value.func, "ref")
    parameters = function.parameters if _is_derivative(function) else inspect.signature(function).parameters
    positions, names = active_arguments(value, activity)
    wrt = tuple(positions) + tuple(names)
    options = {"with_value": True} if mode == "forward" else {}
    if unit.derive is None:
        raise unit.error(value, SrcadError, f"the call to {function.__name__} needs its own derivative, and this "
                         f"build was given no way to make one", "build through srcad.api, or pass derive= to "
                         "pipeline.build")
    receivers = _receivers(unit, value)
    if receivers is not None:   # a method of objects srcad knows: a derivative per object, built for each
        if 0 in positions:
            raise unit.error(value, SrcadError, f"the object {function.__name__} is called on carries a "
                             f"derivative, and srcad calls this method through its own derivative",
                             "define the method in the module of the function you differentiate (srcad then "
                             "inlines it), or pass the differentiated values as arguments")
        options["per_receiver"] = True
    try:
        callee = unit.derive(function, wrt if len(wrt) != 1 else wrt[0], mode, **options)
        probe = callee if receivers is None else callee.bind(receivers[0])
        extra = extra_parameters_of(callee) if receivers is None else None   # f calling itself: no build
        if extra is not None:
            pass   # the derivative being built, called by f itself
        elif hasattr(probe, "variant_for"):   # g(*xs, **kw): the derivative of the variant for these arguments
            callee, extra = probe.variant_for(len(value.args) - (receivers is not None),
                                              [k.arg for k in value.keywords])
        else:   # build now: errors surface
            extra = probe.parameters[len(parameters) - (receivers is not None):]
    except SrcadError as exc:   # the callee's own error, at the call (of the same kind)
        kind = type(exc)   # the callee's kind of error (ComplexError, StaleSourceError...) stays its kind
        raise unit.error(value, kind, f"while differentiating the call to {function.__name__}: {exc}") \
            from None
    spelled = value.func.id if isinstance(value.func, gast.Name) else \
        value.func.attr if isinstance(value.func, gast.Attribute) else function.__name__
    preferred = "d" + (spelled if spelled.isidentifier() else "_callee")   # a lambda's name is <lambda>
    name = unit.bindings.bind(preferred, callee)
    active = [value.args[i] for i in positions] + [kw.value for kw in value.keywords if kw.arg in names]
    return name, active, list(extra)


def _receivers(unit, value):
    """The objects a call the ``methods`` pass made of a method call passes first, or None."""
    target = unit.facts.get("methods", {}).get(value.func.id) if isinstance(value.func, gast.Name) else None
    return None if target is None else target.receivers


def reverse_statements(unit, stmt, activity, output) -> List:
    """``da, dw = dg(a, w, d[y])`` then ``d[a] = da`` ...: rule-shaped statements for the call."""
    if active_arguments(stmt.value, activity) == ([], []):
        return []   # no argument carries a derivative: nothing flows back through the call
    name, active, (seed_name,) = callee_derivative(unit, stmt, "reverse", activity)
    value = stmt.value
    seed = gast.Subscript(value=syntax.name("d"), slice=syntax.clone(output), ctx=gast.Load())
    call = gast.Call(func=syntax.name(name), args=[syntax.clone(a) for a in value.args],
                     keywords=[syntax.clone(kw) for kw in value.keywords] + [gast.keyword(arg=seed_name, value=seed)])
    temps = [unit.namer.fresh(f"{name}_{atom.id}") for atom in active]
    target = syntax.store(temps[0]) if len(temps) == 1 else gast.Tuple(
        elts=[syntax.store(t) for t in temps], ctx=gast.Store())
    statements = [gast.Assign(targets=[target], value=call, type_comment=None)]
    # an argument may be a tuple, list or dict: its gradient from the callee is one too, and adds leaf by leaf
    unit.facts.setdefault("structured_adjoints", set()).update(a.id for a in active if isinstance(a, gast.Name))
    for temp, atom in zip(temps, active):
        ref = gast.Subscript(value=syntax.name("d"), slice=syntax.clone(atom), ctx=gast.Store())
        statements.append(gast.Assign(targets=[ref], value=syntax.name(temp), type_comment=None))
    return statements


def forward_statement(unit, stmt, activity, tangent_of) -> gast.Assign:
    """``y, dy = dg(a, w, da, dw)``: the primal and its tangent in one call."""
    name, active, tangent_names = callee_derivative(unit, stmt, "forward", activity)
    value = stmt.value
    target = stmt.targets[0].id
    tangents = [gast.keyword(arg=param, value=tangent_of(atom)) for param, atom in zip(tangent_names, active)]
    call = gast.Call(func=syntax.name(name), args=[syntax.clone(a) for a in value.args],
                     keywords=[syntax.clone(kw) for kw in value.keywords] + tangents)
    pair = gast.Tuple(elts=[syntax.store(target), syntax.store(unit.namer.derivative(target))],
                      ctx=gast.Store())
    return gast.Assign(targets=[pair], value=call, type_comment=None)
