"""Functions of a module of their own, which programs from tests/fuzz_programs.py import and call.

Contract:
- ``push``, ``pop``, ``scale_in_place``, ``set_first`` and ``add_into``
  change their first argument in place (a list or an array).  srcad does not
  inline a function of another module: it must differentiate a call to one
  of these exactly or refuse it with ``AliasingError`` (or
  ``UnsupportedSyntaxError``), never treat it as a pure function of its
  arguments.
- ``act`` and ``damp`` are pure; ``act_alt`` and ``damp_alt`` take their
  place when a checked program rebinds ``fuzz_helpers.act`` (or replaces
  ``act.__code__``) between two derivatives; ``tests/fuzz_check.py`` puts
  every binding, code object and default of this module back afterwards.
- Nothing here depends on state kept between calls.

Example::

    >>> import numpy as np
    >>> stack = []
    >>> push(stack, np.ones(2))
    >>> pop(stack)
    array([1., 1.])
"""
import numpy as np


def push(stack, value):
    stack.append(value)


def pop(stack):
    return stack.pop()


def scale_in_place(a, c):
    a *= c


def set_first(a, value):
    a[0] = value


def add_into(a, b):
    a += b


def act(u):
    return np.tanh(u)


def act_alt(u):
    return np.sin(2.0 * u) * 0.5


def damp(u, c=0.5):
    return u / (1.0 + c * u * u)


def damp_alt(u, c=0.5):
    return np.arctan(u) * (1.0 + c)
