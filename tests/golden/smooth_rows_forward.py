# srcad 0.1.0: forward-mode derivative of smooth_rows (golden_functions.py:61) with respect to B
import numpy as np
from srcad.runtime import zeros_like


def dsmooth_rows(B, dB):
    # A = np.zeros((B.shape[0] - 2, B.shape[1]))
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    # for i in range(B.shape[0] - 2):
    dA = zeros_like(A)
    for i in range(B.shape[0] - 2):
        # for j in range(B.shape[1]):
        for j in range(B.shape[1]):
            # A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
            dA[i, j] = (dB[i, j] + dB[i + 1, j] + dB[i + 2, j]) / 3.0
    return dA
