"""The reverse-mode gradient of a kernel as loop nests (scatter form).

Contract:
- ``gradient_function(kernel)`` is the ``Function`` computing, for seeds
  ``d<out>`` (the adjoints of the outputs' final values), the gradients
  ``d<x>`` of every ``x`` in ``grad_to`` (with respect to x's value on entry).
- Parameters, in order: the inputs the gradient reads (``ins`` order, then
  outputs read before written), then ``d<out>`` for each output, then
  ``d<x>`` for each ``grad_to`` entry.  When an output is also in grad_to
  its seed is ``d<out>_out``.  Seeds are never written: an adjoint that
  the sweep must change is worked on in a local copy ``d<out>_acc``.
- The body zeroes each gradient, recomputes the intermediate values the
  derivative reads (version k of A in local array ``A_k``), then walks the
  statements backwards.  Statement ``X[I] = f(...)``: every read ``Y[g]``
  adds ``dX[I] * df/dY[g]`` to ``dY[g]`` (one nest per read, reads with the
  same subscript and loops merged), then ``dX[I]`` becomes ``dX[I] *
  df/dX[I]`` (the statement read X there) or 0, if an earlier value of X
  still matters.  Only reads on a path from grad_to to the outputs count.
- Contribution nests are in scatter form; ``gather.py`` rewrites them.

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> k = load_case({"name": "g", "ins": ["A", "B"], "outs": ["C"], "data_type": "float",
    ...                "kernel": "C<4>[i] = A<4>[i] * B<4>[i];", "grad_to": ["A"]})
    >>> [p.name for p in gradient_function(k).params]
    ['B', 'dC', 'dA']
"""
from __future__ import annotations

from typing import Dict, List, Set, Tuple

from .loops import Comment, Fill, Function, Item, Nest, Param, Store
from .model import (Access, Binary, Expr, Kernel, Neg, Number, Statement, Sum, accesses)
from .plan import (covers, kernel_names, renamed, scatter_nest, statement_nest,
                   target_loops, unique)

Version = Tuple[str, int]


# --------------------------------------------------------------------------
# symbolic helpers

def mul(a: Expr, b: Expr) -> Expr:
    """``a * b``, without factors of 1 or -1."""
    for one, other in ((a, b), (b, a)):
        if one == Number(1):
            return other
        if one == Number(-1):
            return neg(other)
    if isinstance(a, Neg) or isinstance(b, Neg):
        return neg(mul(a.operand if isinstance(a, Neg) else a, b.operand if isinstance(b, Neg) else b))
    return Binary("*", a, b)


def div(a: Expr, b: Expr) -> Expr:
    """``a / b``, with a minus sign in front rather than in the numerator."""
    if b == Number(1):
        return a
    return neg(Binary("/", a.operand, b)) if isinstance(a, Neg) else Binary("/", a, b)


def add(a: Expr, b: Expr) -> Expr:
    """``a + b``, written ``a - c`` when b is ``-c``."""
    return Binary("-", a, b.operand) if isinstance(b, Neg) else Binary("+", a, b)


def neg(a: Expr) -> Expr:
    if isinstance(a, Neg):
        return a.operand
    if isinstance(a, Number):
        return Number(-a.value)
    return Neg(a)


def backprop(expr: Expr, adjoint: Expr, loops: Tuple[Tuple[str, int], ...], wanted, out: list) -> None:
    """Append ``(access, loops, value)`` for each wanted read: it receives ``value`` over ``loops``."""
    if not any(wanted(a) for a in accesses(expr)):
        return
    if isinstance(expr, Access):
        out.append((expr, loops, adjoint))
    elif isinstance(expr, Neg):
        backprop(expr.operand, neg(adjoint), loops, wanted, out)
    elif isinstance(expr, Sum):
        backprop(expr.body, adjoint, loops + tuple(zip(expr.vars, expr.extents)), wanted, out)
    elif expr.op in "+-":
        backprop(expr.left, adjoint, loops, wanted, out)
        backprop(expr.right, adjoint if expr.op == "+" else neg(adjoint), loops, wanted, out)
    elif expr.op == "*":
        backprop(expr.left, mul(adjoint, expr.right), loops, wanted, out)
        backprop(expr.right, mul(adjoint, expr.left), loops, wanted, out)
    else:
        backprop(expr.left, div(adjoint, expr.right), loops, wanted, out)
        quotient = div(mul(adjoint, expr.left), Binary("*", expr.right, expr.right))
        backprop(expr.right, neg(quotient), loops, wanted, out)


def add_like(total: Expr, term: Expr) -> Expr:
    """``total + term``, with like terms combined where that rounds exactly as the sum would.

    ``x + x`` becomes ``2.0 * x`` and ``2.0 * x + x`` becomes ``3.0 * x``: in
    floating point ``x + x`` is exactly ``2x``, so both round the same as the
    additions.  A fourth ``x`` is added as is (``3.0 * x`` is already
    rounded, so ``4.0 * x`` could differ), as is a like term after others.

    Example::

        >>> x = Binary("*", Access("dB", (2,), ()), Access("A", (2,), ()))
        >>> add_like(add_like(x, x), x) == Binary("*", Number(3.0), x)
        True
    """
    for count in (1.0, 2.0):
        if total == (term if count == 1.0 else mul(Number(count), term)):
            return mul(Number(count + 1.0), term)
    return add(total, term)


def merged(parts: List[tuple]) -> List[tuple]:
    """Contributions with the same array, subscript and loops added into one (like terms combined)."""
    groups: Dict[tuple, Expr] = {}
    for access, loops, value in parts:
        key = (access.name, access.version, access.indices, loops)
        groups[key] = add_like(groups[key], value) if key in groups else value
    return [(key, value) for key, value in groups.items()]


# --------------------------------------------------------------------------
# which values matter

def _reads(statement: Statement) -> Set[Version]:
    return {(a.name, a.version) for a in accesses(statement.rhs)}


def relevant_versions(kernel: Kernel) -> Set[Version]:
    """Versions that depend on a grad_to input and reach an output: the ones adjoints flow through."""
    active: Set[Version] = {(x, 0) for x in kernel.grad_to}
    for s in kernel.statements:
        target = (s.target.name, s.target.version)
        previous = (s.target.name, s.target.version - 1)
        if _reads(s) & active or (previous in active and not covers(s)):
            active.add(target)
    finals = kernel.final_versions
    useful: Set[Version] = {(o, finals[o]) for o in kernel.outs}
    for s in reversed(kernel.statements):
        if (s.target.name, s.target.version) in useful:
            useful |= _reads(s)
            if not covers(s):
                useful.add((s.target.name, s.target.version - 1))
    return active & useful


# --------------------------------------------------------------------------
# the gradient function

class _Builder:
    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.relevant = relevant_versions(kernel)
        self.taken = kernel_names(kernel)
        self.seeds = {o: unique(f"d{o}_out" if o in kernel.grad_to else f"d{o}", self.taken)
                      for o in kernel.outs}
        self.grads = {x: unique(f"d{x}", self.taken) for x in kernel.grad_to}
        self.local_versions: Dict[Version, str] = {}

    def primal(self, name: str, version: int) -> str:
        """The array holding ``version`` of ``name`` in the gradient function."""
        if version == 0:
            return name
        key = (name, version)
        if key not in self.local_versions:
            self.local_versions[key] = unique(f"{name}_{version}", self.taken)
        return self.local_versions[key]

    def sweep(self):
        """The reversed statements as (statement, contributions, self update or None, zero?)."""
        kernel, steps = self.kernel, []
        for s in reversed(kernel.statements):
            name, version = s.target.name, s.target.version
            if (name, version) not in self.relevant:
                continue
            seed = Access(name, s.target.shape, s.target.indices, version=-1)   # the adjoint dX[I]
            others: list = []
            backprop(s.rhs, seed, (), lambda a: a.name != name and (a.name, a.version) in self.relevant,
                     others)
            own: list = []
            if (name, version - 1) in self.relevant:
                backprop(s.rhs, seed, (), lambda a: a.name == name, own)
            earlier = any((name, v) in self.relevant for v in range(version)) or name in kernel.grad_to
            steps.append((s, merged(others), own, earlier))
        return steps

    def build(self) -> Function:
        kernel = self.kernel
        steps = self.sweep()
        written = {c[0][0] for _, contributions, _, _ in steps for c in contributions}
        written |= {s.target.name for s, _, _, earlier in steps if earlier}
        work: Dict[str, str] = {}
        local_arrays: List[Tuple[str, Tuple[int, ...]]] = []
        prologue: List[Item] = [Comment("start from zero gradients (an output's gradient from its seed)")
                                if any(x in kernel.outs for x in kernel.grad_to) else Comment("start from zero gradients")]
        for x in kernel.grad_to:
            work[x] = self.grads[x]
            if x in kernel.outs:
                prologue.append(Fill(work[x], kernel.shapes[x], source=self.seeds[x]))
            else:
                prologue.append(Fill(work[x], kernel.shapes[x], Number(0.0)))
        relevant_names = {n for n, _ in self.relevant}
        for name in [n for n in self.taken if n in relevant_names]:
            if name in work:
                continue
            if name in kernel.outs and name not in written:
                work[name] = self.seeds[name]
                continue
            work[name] = unique(f"d{name}_acc" if name in kernel.outs else f"d{name}", self.taken)
            local_arrays.append((work[name], kernel.shapes[name]))
            if name in kernel.outs:
                prologue.append(Fill(work[name], kernel.shapes[name], source=self.seeds[name]))
        sweep: List[Item] = []
        needed: Set[Tuple[str, int]] = set()

        def value(expr: Expr) -> Expr:
            needed.update((a.name, a.version) for a in accesses(expr) if a.version >= 0)
            return renamed(expr, lambda n, v: work[n] if v < 0 else self.primal(n, v))

        for s, contributions, own, earlier in steps:
            target = s.target
            sweep.append(Comment(s.text))
            loops = tuple((loop.var, loop.stop) for loop in target_loops(s))
            for (array, _, indices, inner), contribution in contributions:
                sweep.append(scatter_nest(work[array], kernel.shapes[array], indices, loops + inner,
                                          value(contribution)))
            if earlier:
                total: Expr = Number(0.0)
                for _, inner, part in own:
                    part = Sum(tuple(v for v, _ in inner), tuple(n for _, n in inner), part) if inner else part
                    total = part if total == Number(0.0) else add(total, part)
                unchanged = Access(target.name, target.shape, target.indices, version=-1)
                if total != unchanged:             # dX[I] = dX[I] needs no code
                    store = Store(work[target.name], target.shape, target.indices, "=", value(total))
                    sweep.append(Nest(target_loops(s), (), store))
        replay = self.replay(needed, local_arrays)
        inputs = [n for n in kernel.inputs if (n, 0) in needed]
        params = tuple([Param(n, kernel.shapes[n], "input") for n in inputs]
                       + [Param(self.seeds[o], kernel.shapes[o], "seed") for o in kernel.outs]
                       + [Param(self.grads[x], kernel.shapes[x], "gradient") for x in kernel.grad_to])
        outputs = " + ".join(f"sum({self.seeds[o]} * {o})" for o in kernel.outs)
        summary = [f"{kernel.name}: gradient of the kernel with respect to {', '.join(kernel.grad_to)}.",
                   f"Sets {', '.join(self.grads[x] for x in kernel.grad_to)} to the gradient of {outputs}, "
                   f"the seeds weighting the outputs."]
        return Function(kernel.name, params, tuple(local_arrays), prologue + replay + sweep, summary)

    def replay(self, needed: Set[Tuple[str, int]], local_arrays: list) -> List[Item]:
        """Recompute, in order, each intermediate value the derivative reads."""
        kernel, wanted = self.kernel, {v for v in needed if v[1] > 0}
        for s in reversed(kernel.statements):
            key = (s.target.name, s.target.version)
            if key in wanted:
                wanted |= {v for v in _reads(s) if v[1] > 0}
                if not covers(s) and s.target.version > 1:
                    wanted.add((s.target.name, s.target.version - 1))
        for s in kernel.statements:          # the recomputation reads these
            if (s.target.name, s.target.version) in wanted:
                needed |= _reads(s)
                if not covers(s):
                    needed.add((s.target.name, s.target.version - 1))
        items: List[Item] = []
        for s in kernel.statements:
            key = (s.target.name, s.target.version)
            if key not in wanted:
                continue
            if not items:
                items.append(Comment("recompute the values the derivative reads"))
            local = self.primal(*key)
            local_arrays.append((local, kernel.shapes[s.target.name]))
            before = (s.target.name, s.target.version - 1)
            if not covers(s) and (before[1] > 0 or before[0] in kernel.inputs):
                items.append(Fill(local, kernel.shapes[s.target.name], source=self.primal(*before)))
            items.append(Comment(s.text))
            items.append(statement_nest(s, self.primal))
        return items


def gradient_function(kernel: Kernel) -> Function:
    """The gradient of ``kernel`` as loop nests in scatter form; see the module docstring."""
    return _Builder(kernel).build()
