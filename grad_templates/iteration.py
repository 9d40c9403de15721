"""Rules for the builtins that turn one container into another: ``tuple``, ``dict(pairs)`` and ``sorted``.

srcad writes ``tuple(X)``, ``dict(X)`` and ``sorted(X)`` of any iterable ``X``
as the same call on a list, and ``list(X)`` as a list comprehension
(``passes/iteration.py``), so these rules see lists (or tuples) of values.
The derivative of a list is a list of the items' derivatives: ``tuple``
passes it through,
``sorted`` permutes it as it permutes the items (``sorted`` is stable, so the
permutation is fixed wherever the items are distinct; at a tie it is the one
Python chose), and ``dict(pairs)`` takes each key's value from its last pair.
``set`` and ``frozenset`` order their items by hash, so a derivative has no
place to go: srcad refuses to differentiate through them.  ``any`` and
``all`` give booleans.  The helpers' own rules (``permuted``,
``unpermuted``, ``pairs_grad``, ``pairs_tangent``) make generated code
differentiable again.
"""
import builtins

from srcad.runtime import copied
from srcad.runtime.containers import item_before, mapping_keys, restore_item, sequence_length
from srcad.runtime.iteration import keys_of, pairs_grad, pairs_tangent, permuted, sorting_order, unpermuted
from srcad.templates import adjoint, d, nondifferentiable, not_differentiated, tangent


@adjoint(builtins.tuple)
def tuple_adjoint(y, iterable):
    d[iterable] = copied(d[y])


@tangent(builtins.tuple)
def tuple_tangent(y, iterable):
    d[y] = tuple(d[iterable])


@adjoint(builtins.sorted)
def sorted_adjoint(y, iterable, reverse=False):
    d[iterable] = unpermuted(d[y], sorting_order(iterable, reverse))


@tangent(builtins.sorted)
def sorted_tangent(y, iterable, reverse=False):
    d[y] = permuted(d[iterable], sorting_order(iterable, reverse))


@adjoint(permuted)
def permuted_adjoint(y, values, order):
    d[values] = unpermuted(d[y], order)


@tangent(permuted)
def permuted_tangent(y, values, order):
    d[y] = permuted(d[values], order)


@adjoint(unpermuted)
def unpermuted_adjoint(y, values, order):
    d[values] = permuted(d[y], order)


@tangent(unpermuted)
def unpermuted_tangent(y, values, order):
    d[y] = unpermuted(d[values], order)


@adjoint(builtins.dict)
def dict_adjoint(y, pairs):
    d[pairs] = pairs_grad(d[y], pairs)


@tangent(builtins.dict)
def dict_tangent(y, pairs):
    d[y] = pairs_tangent(d[pairs], pairs)


@adjoint(pairs_grad)
def pairs_grad_adjoint(y, grad, pairs):
    d[grad] = pairs_tangent(d[y], pairs)


@tangent(pairs_grad)
def pairs_grad_tangent(y, grad, pairs):
    d[y] = pairs_grad(d[grad], pairs)


@adjoint(pairs_tangent)
def pairs_tangent_adjoint(y, tangents, pairs):
    d[tangents] = pairs_grad(d[y], pairs)


@tangent(pairs_tangent)
def pairs_tangent_tangent(y, tangents, pairs):
    d[y] = pairs_tangent(d[tangents], pairs)


nondifferentiable(sorting_order, keys_of, mapping_keys, sequence_length, builtins.any, builtins.all,
                  reason="it gives positions, keys or booleans, which carry no derivative")
not_differentiated(builtins.set, builtins.frozenset,
                   hint="a set orders its items by hash, so their derivatives have nowhere to go: use a list "
                        "(`[...]`, `sorted(...)`) or a dict keyed by something that is not differentiated")
not_differentiated(item_before, restore_item,
                   hint="differentiate once, or make every key of the dict where the dict is made "
                        "(`d = {'a': 0.0, 'new': 0.0}`), so that storing into it adds no key")
