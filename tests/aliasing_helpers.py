"""Helpers from a module of their own that change their argument (tests/test_aliasing.py calls them).

Tangent's stack test carries a value through a list with these; srcad does not
inline functions of another module, so it must refuse a call that changes
its argument rather than differentiate it as a pure function.
"""


def push(s, v):
    s.append(v)


def pop(s):
    return s.pop()


def unknown_view(a):
    return a[::-1]
