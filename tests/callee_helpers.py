"""A helper of another module whose own derivative fails, for tests/test_callee_errors.py."""
import numpy as np


def rotated(t):
    return np.real(np.maximum(np.exp(1j * t), 0.0))   # no rule checked for complex numbers: ComplexError
