"""Facts about memory sharing in a desugared function body, before normalization.

Contract: ``Sharing(tree, objects)`` reads the tree and never changes it.  It holds
- ``links``: every place where two names start to share memory, as a ``Link``
  from a *viewer* to a *base*: ``B = A.reshape(3)`` (``B`` views ``A``),
  ``r = A[i]``, ``z = y``, ``acc = [y]`` (``y`` is held by ``acc``),
  ``xs[i] = y`` or ``xs.append(y)`` into what may be a list, and ``v = xs.pop()``
  (v was an item of xs, held like one appended); not ``t = A[i]`` when it reads
  one element of an array of known rank (``ranks``: the parameters', when
  given; ``srcad/analysis/elements.py``).  A link says how
  to bring the viewer up to date from the base (``refresh``: the expression,
  evaluated again) and the base from the viewer (``writeback``), when srcad
  knows how; unknown calls (a helper from another module, ``np.split``...)
  give links with neither.  Every NumPy function or method that can return
  a view is a link; when unsure, a call is assumed to return a view of each
  argument;
- ``reaching(stmt)``: for each name, the bindings that may reach ``stmt``;
- ``live_after(stmt)``: the names whose current value some later statement may read;
- ``current(link, stmt)``: whether, at ``stmt``, the link still joins the two
  names as it did when made: its statement runs before ``stmt`` in the same
  pass of every loop around it, and neither name (nor anything the link's
  expression reads) is bound again in between;
- ``partners(name, stmt)``: the names live after ``stmt`` that may share
  memory with ``name``'s value there (through any chain of links).

Example: in ``A = x * 1.0; B = A.reshape(3); B[0] = 1.0; return np.sum(A)``,
``partners("B", <B[0] = 1.0>)`` is ``{"A"}`` and the link ``B -> A`` is current there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

import gast

from ..frontend import syntax
from .blocks import RETURN_VALUE
from .elements import ScalarElements
from .relations import Writeback, element_writeback, held_through, identity_writeback, relation

@dataclass(eq=False)
class Link:
    viewer: str
    base: str
    stmt: object                      # the statement that made them share
    value: object                     # the viewer's expression there (for messages and refreshes)
    operands: FrozenSet[str]          # other names the relation reads (indices, shapes, axes)
    refresh: Optional[object] = None  # expression giving the viewer's value again from the base
    writeback: Optional[Writeback] = None
    held: bool = False                # the base is a list/tuple/dict holding the viewer
    may_hold: bool = False            # the viewer is an element of a base that may be a list or dict
    flag: str = ""                    # the name of the run-time test, once one is needed
    hold_flag: str = ""               # for ``may_hold``: the test that the base holds the viewer


@dataclass
class _Place:
    index: int                       # position in text order
    chain: Tuple                     # ((block, index), ...) from the body down to the statement
    loops: Tuple = ()                # ids of the loops around it
    reaching: Dict[str, FrozenSet] = field(default_factory=dict)
    live_after: FrozenSet[str] = frozenset()


class Sharing:
    """Links, reaching bindings and liveness of one desugared function; see the module docstring."""

    def __init__(self, tree, objects, ranks=None):
        self.params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        self.elements = ScalarElements(tree, ranks)
        self.statements: List = []
        self.places: Dict[int, _Place] = {}
        self._number(tree.body, (), ())
        self.local = set(self.params) | syntax.names_in(tree, gast.Store)
        self.containers = self._containers()
        self.arrays = self._always(lambda value: _makes_array(value, self.containers))
        self.lists = self._always(lambda value: isinstance(value, _DISPLAYS))
        self.links: List[Link] = []
        for stmt in self.statements:
            self.links += self._links_of(stmt, objects)
        entry = {name: frozenset({(name, 0)}) for name in syntax.names_in(tree)}
        self._reach(tree.body, entry, [])
        self._live(tree.body, frozenset(), [])

    # text order, blocks and loops ----------------------------------------------
    def _number(self, block, chain, loops):
        for index, stmt in enumerate(block):
            place = _Place(len(self.statements), chain + ((block, index),), loops)
            self.places[id(stmt)] = place
            self.statements.append(stmt)
            inner = loops + (id(stmt),) if isinstance(stmt, (gast.For, gast.While)) else loops
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                for part in (stmt.body, stmt.orelse):
                    self._number(part, place.chain, inner)

    def _containers(self) -> Set[str]:
        found = set()
        for stmt in self.statements:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.value, (gast.List, gast.Tuple, gast.Dict)):
                found |= {t.id for t in stmt.targets if isinstance(t, gast.Name)}
            elif _appended(stmt):
                found.add(stmt.value.func.value.id)
        return found

    def _always(self, makes: Callable[[object], bool]) -> Set[str]:
        """Local names every binding of which is ``name = value`` with ``makes(value)``: ``self.arrays``, never a
        list or dict, for NumPy calls and arithmetic; ``self.lists``, never an array, for list, tuple and dict
        displays and comprehensions."""
        kinds: Dict[str, bool] = {}
        for stmt in self.statements:
            if isinstance(stmt, gast.Assign):
                for target in stmt.targets:
                    for name in (syntax.stored_names(target) if not isinstance(target, gast.Subscript) else ()):
                        kinds[name] = kinds.get(name, True) and isinstance(target, gast.Name) and makes(stmt.value)
            elif isinstance(stmt, gast.For):
                for name in syntax.stored_names(stmt.target):
                    kinds[name] = False
        return {name for name, always in kinds.items() if always and name not in self.params}

    # links -----------------------------------------------------------------------
    def _links_of(self, stmt, objects) -> List[Link]:
        links = []
        if syntax.annotation(stmt, RETURN_VALUE):
            return links   # `result = z` made from `return z`: the function leaves right after
        if isinstance(stmt, gast.Assign):
            targets = stmt.targets
            first = targets[0]
            if isinstance(first, gast.Name) and _popped(stmt.value):
                # ``v = xs.pop()``: v is an item xs held, like one appended to it (no view of xs itself)
                links.append(Link(first.id, stmt.value.func.value.id, stmt, stmt.value, frozenset(), None, None,
                                  True))
            elif isinstance(first, gast.Name) and self.elements.selects_scalar(stmt.value):
                pass   # one element of an array of known rank: a new scalar, no view
            elif isinstance(first, gast.Name):
                for base, refresh, writeback, operands, held, key in relation(stmt.value, objects, self.local,
                                                                              self.containers):
                    if held:
                        links.append(Link(base, first.id, stmt, syntax.name(base), operands, None, writeback, True))
                    else:
                        may_hold = isinstance(stmt.value, gast.Subscript) and base not in self.arrays
                        links.append(Link(first.id, base, stmt, stmt.value, operands, refresh, writeback,
                                          may_hold=may_hold))
            elif isinstance(first, (gast.Tuple, gast.List)):
                values = stmt.value.elts if isinstance(stmt.value, (gast.Tuple, gast.List)) \
                    and len(stmt.value.elts) == len(first.elts) else [stmt.value] * len(first.elts)
                for target, value in zip(first.elts, values):
                    if isinstance(target, gast.Name):
                        links += [Link(target.id, base, stmt, value, operands)
                                  for base, _, _, operands, _, _ in relation(value, objects, self.local,
                                                                             self.containers)]
            elif isinstance(first, gast.Subscript) and isinstance(stmt.value, gast.Name):
                base = _root(first)
                if base and (base in self.containers or base not in self.local or base in self.params):
                    writeback = element_writeback(first.slice) if isinstance(first.value, gast.Name) else None
                    links.append(Link(stmt.value.id, base, stmt, stmt.value,
                                      frozenset(syntax.loaded_names(first.slice)), None, writeback, True))
            for other in targets[1:]:
                if isinstance(other, gast.Name) and isinstance(first, gast.Name):
                    links.append(Link(other.id, first.id, stmt, syntax.name(first.id), frozenset(),
                                      syntax.name(first.id), identity_writeback))
        elif _appended(stmt) and isinstance(stmt.value.args[0], gast.Name):
            links.append(Link(stmt.value.args[0].id, stmt.value.func.value.id, stmt, stmt.value.args[0],
                              frozenset(), None, None, True))
        elif _appended(stmt):   # `h2.append(h[k])`: h2 holds what h[k] may be
            holder = stmt.value.func.value.id
            links += [Link(base, holder, stmt, stmt.value.args[0], frozenset(), None, None, True)
                      for base, *_ in held_through(stmt.value.args[0], objects, self.local, self.containers)]
        return links

    # reaching bindings -------------------------------------------------------------
    def _reach(self, block, state, breaks):
        """Bindings reaching each statement of ``block`` from ``state``; the state after it (None: unreachable)."""
        for stmt in block:
            if state is None:
                return None
            self.places[id(stmt)].reaching = state
            if isinstance(stmt, gast.Assign):
                state = dict(state)
                for target in stmt.targets:
                    for name in (syntax.stored_names(target) if not isinstance(target, gast.Subscript) else ()):
                        state[name] = frozenset({(name, id(stmt))})
            elif isinstance(stmt, gast.If):
                state = _join(self._reach(stmt.body, state, breaks), self._reach(stmt.orelse, state, breaks))
            elif isinstance(stmt, (gast.For, gast.While)):
                head = state
                while True:
                    inner_breaks: List = []
                    entry = dict(head)
                    if isinstance(stmt, gast.For):
                        for name in syntax.stored_names(stmt.target):
                            entry[name] = frozenset({(name, id(stmt))})
                    end = self._reach(stmt.body, entry, inner_breaks)
                    new_head = _join(head, end)
                    if new_head == head:
                        break
                    head = new_head
                exit_state = head
                for broken in inner_breaks:
                    exit_state = _join(exit_state, broken)
                state = exit_state
            elif isinstance(stmt, gast.Break):
                breaks.append(state)
                return None
            elif isinstance(stmt, gast.Return):
                return None
        return state

    def reaching(self, stmt) -> Dict[str, FrozenSet]:
        return self.places[id(stmt)].reaching

    # liveness ----------------------------------------------------------------------
    def _live(self, block, after, loop_exits):
        """Names live before ``block`` given those live after it; records each statement's live-after."""
        live = after
        for stmt in reversed(block):
            self.places[id(stmt)].live_after = live
            if isinstance(stmt, gast.If):
                live = self._live(stmt.body, live, loop_exits) | self._live(stmt.orelse, live, loop_exits) \
                    | syntax.loaded_names(stmt.test)
            elif isinstance(stmt, (gast.For, gast.While)):
                head = live
                while True:
                    body_in = self._live(stmt.body, head, loop_exits + [live])
                    own = syntax.loaded_names(stmt.iter if isinstance(stmt, gast.For) else stmt.test)
                    if isinstance(stmt, gast.For):
                        body_in = body_in - syntax.stored_names(stmt.target)
                    new_head = head | body_in | own
                    if new_head == head:
                        break
                    head = new_head
                live = head
            elif isinstance(stmt, gast.Break):
                live = loop_exits[-1] if loop_exits else frozenset()
            elif isinstance(stmt, gast.Return):
                live = frozenset(syntax.loaded_names(stmt.value)) if stmt.value is not None else frozenset()
            else:
                live = (live - _bound(stmt)) | _reads(stmt)
        return frozenset(live)

    def live_after(self, stmt) -> FrozenSet[str]:
        return self.places[id(stmt)].live_after

    # questions ------------------------------------------------------------------------
    def current(self, link: Link, stmt) -> bool:
        """Whether ``link`` still joins its two names, as made, when ``stmt`` runs (module docstring)."""
        made, at = self.places[id(link.stmt)], self.places[id(stmt)]
        block, index = made.chain[-1]
        position = next((i for b, i in at.chain if b is block), None)
        if position is None or position <= index:
            return False
        rebinding_only = {link.viewer, link.base}
        container = link.held or link.may_hold   # a store into a list replaces the element it held
        for later in block[index + 1:position + 1]:
            for inner in syntax.iter_statements([later]):
                if _bound(inner) & rebinding_only or _bound(inner, augmented=True) & link.operands:
                    return False
                if container and inner is not stmt and _stores_into(inner, link.base):
                    return False
        return True

    def _rebound_since(self, link: Link, name: str, stmt) -> bool:
        """Whether ``name``, which ``stmt`` changes in place and ``link`` joins to another name, is bound again
        on every way from the link to ``stmt``: the array ``stmt`` changes is then a newer one than the link
        joined.  The ways are forward within one pass (``d_t = dt``, then ``dt = e; dt += u``) and back round
        the innermost loop around both (``ddt = d_t`` at the end of one pass, ``d_t = e; d_t += u`` in the
        next), whichever exist; with neither (the link later in the text, no loop around both), the link
        never comes first."""
        if name not in (link.viewer, link.base):
            return False   # the other name's old array may live on (held by a list, say): keep the link
        made, at = self.places[id(link.stmt)], self.places[id(stmt)]
        ways = []
        if made.index < at.index:
            level = 0
            while made.chain[level] == at.chain[level]:
                level += 1
            (block, start), (other, end) = made.chain[level], at.chain[level]
            if block is other:   # else one is in an if's body, the other in its else part: no way forward
                ways.append([s for b, i in made.chain[level + 1:] for s in b[i + 1:]] + block[start + 1:end]
                            + [s for b, i in at.chain[level + 1:] for s in b[:i]])
        loops = [loop for loop in at.loops if loop in made.loops]
        if loops:
            level = next(level for level, (block, index) in enumerate(at.chain) if id(block[index]) == loops[-1])
            loop = at.chain[level][0][at.chain[level][1]]
            if not (isinstance(loop, gast.For) and name in syntax.stored_names(loop.target)):
                ways.append([s for b, i in made.chain[level + 1:] for s in b[i + 1:]]
                            + [s for b, i in at.chain[level + 1:] for s in b[:i]])
        elif made.index > at.index:
            return True
        return all(any(_binds_on_every_path(s, {name}) for s in way) for way in ways)

    def partners(self, name: str, stmt, elements: bool = False) -> Dict[str, Link]:
        """Names live after ``stmt`` that may share memory with ``name`` there, each with a link that joins
        it to the group (for messages).  A change to a container (``xs.append(v)``, ``xs[i] = v``) leaves
        the arrays it holds as they are, so held links lead from an element to its container only, unless
        ``elements`` (``xs[i] += v`` changes the element ``xs[i]`` in place)."""
        reaching = self.reaching(stmt)
        group = set(reaching.get(name, ()))
        container = frozenset(group)   # the changed name's own bindings
        joins: List[Tuple[Link, FrozenSet, FrozenSet]] = []
        for link in self.links:
            if self._rebound_since(link, name, stmt):
                continue
            at = self.places[id(link.stmt)].reaching
            after = dict(at)
            for target in getattr(link.stmt, "targets", []):
                for bound in (syntax.stored_names(target) if not isinstance(target, gast.Subscript) else ()):
                    after[bound] = frozenset({(bound, id(link.stmt))})
            joins.append((link, after.get(link.viewer, frozenset()), after.get(link.base, frozenset())))
        changed = True
        via: Dict[Tuple, Link] = {}
        while changed:
            changed = False
            for link, viewer, base in joins:
                if link.held and not elements and not viewer & group:
                    continue
                # an item read from a name that is always a list, tuple or dict is no view of it: a change of
                # that container itself (append, an item replaced, not an item changed) leaves the item as it was
                if link.may_hold and link.base in self.lists and not elements and not viewer & group \
                        and base and base <= container:
                    continue
                if (viewer | base) & group and not (viewer | base) <= group:
                    for binding in (viewer | base) - group:
                        via.setdefault(binding, link)
                    group |= viewer | base
                    changed = True
        found = {}
        for other in sorted(self.live_after(stmt) - {name}):
            shared = reaching.get(other, frozenset()) & group
            if shared:
                found[other] = via.get(next(iter(sorted(shared, key=str))))
        return found


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return {name: a.get(name, frozenset()) | b.get(name, frozenset()) for name in set(a) | set(b)}


def _root(target) -> str:
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else ""


def _stores_into(stmt, name) -> bool:
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target] if isinstance(
        stmt, gast.AugAssign) else []
    return any(isinstance(t, gast.Subscript) and _root(t) == name for t in targets)


def _binds_on_every_path(stmt, names) -> bool:
    """Whether running ``stmt`` surely binds one of ``names`` again (an assignment, or both arms of an ``if``)."""
    if isinstance(stmt, gast.Assign):
        return bool(_bound(stmt) & names)
    if isinstance(stmt, gast.If):
        return all(any(_binds_on_every_path(inner, names) for inner in arm) for arm in (stmt.body, stmt.orelse))
    return False


def _popped(value) -> bool:
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
            and isinstance(value.func.value, gast.Name) and not value.args and not value.keywords)


def _appended(stmt) -> bool:
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name) and len(stmt.value.args) == 1)


def _bound(stmt, augmented=False) -> Set[str]:
    """Names ``stmt`` binds again (``augmented``: also ``x += e``, which changes a number's value)."""
    if isinstance(stmt, gast.Assign):
        return set().union(*[syntax.stored_names(t) for t in stmt.targets if not isinstance(t, gast.Subscript)])
    if isinstance(stmt, gast.For):
        return syntax.stored_names(stmt.target)
    if augmented and isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        return {stmt.target.id}
    return set()


def _reads(stmt) -> Set[str]:
    """Names whose values ``stmt`` reads: an element store reads its index and value, and the array too
    (the elements it keeps flow on, and a change to a copied view is written back from the whole copy)."""
    if isinstance(stmt, gast.Assign):
        reads = syntax.loaded_names(stmt.value)
        for target in stmt.targets:
            if isinstance(target, gast.Subscript):
                reads |= syntax.loaded_names(target.slice)
                inner = target.value
                while isinstance(inner, gast.Subscript):
                    reads |= syntax.loaded_names(inner.slice)
                    inner = inner.value
                reads |= syntax.loaded_names(inner) | ({inner.id} if isinstance(inner, gast.Name) else set())
        return reads
    if isinstance(stmt, gast.AugAssign):
        return syntax.names_in(stmt.target) | syntax.loaded_names(stmt.value)
    if _appended(stmt):
        return syntax.loaded_names(stmt.value.args[0])
    return syntax.loaded_names(stmt)


_DISPLAYS = (gast.List, gast.Tuple, gast.Dict, gast.ListComp, gast.DictComp)


def _makes_array(value, containers) -> bool:
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return not syntax.loaded_names(value) & containers
    if isinstance(value, gast.Call):
        function = syntax.annotation(value.func, "ref")
        module = getattr(function, "__module__", None) or getattr(type(function), "__module__", "") or ""
        return module.split(".")[0] == "numpy"
    return False
