"""Helpers of ``tests/test_any_order.py`` that live in a module of their own, so srcad calls them through
their derivatives instead of inlining them (a derivative of a derivative then calls the derivative of
their derivative).

Contract: ``act(z, scale)`` sums ``tanh(scale (k + 1) z)`` over a loop of two steps; ``act_slope`` is its
derivative in ``z``, written by hand.
"""
import numpy as np


def act(z, *, scale=1.0):
    total = 0.0
    for k in range(2):
        total = total + np.tanh(z * (k + 1.0) * scale)
    return total


def act_slope(z, scale=1.0):
    return sum((k + 1.0) * scale * (1.0 - np.tanh(z * (k + 1.0) * scale) ** 2) for k in range(2))
