"""Helpers srcad calls through their own derivatives (a loop with `continue` keeps them from being inlined),
for tests/test_structured_adjoints.py."""
import numpy as np
def first(t, w):
    total = 0.0
    for k in range(3):
        if k == 1:
            continue
        total = total + t[0] * w
    return total
def second(t, w):
    total = 0.0
    for k in range(3):
        if k == 1:
            continue
        total = total + t[1] * w
    return total
