# srcad 0.1.0: reverse-mode derivative of smooth_rows (golden_functions.py:61) with respect to B
import numpy as np
from srcad.runtime import check_seed, copied, unbroadcast, zeros_like


def dsmooth_rows(B, dA=1.0):
    tape = []
    # A = np.zeros((B.shape[0] - 2, B.shape[1]))
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    # for i in range(B.shape[0] - 2):
    for i in range(B.shape[0] - 2):
        # for j in range(B.shape[1]):
        for j in range(B.shape[1]):
            # A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
            total_over_3 = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
            A[i, j] = total_over_3
            tape.append(total_over_3)
    dA = check_seed(A, dA)
    # for i in range(B.shape[0] - 2):
    dB = zeros_like(B)
    dA = copied(dA)
    for i in reversed(range(B.shape[0] - 2)):
        # for j in range(B.shape[1]):
        for j in reversed(range(B.shape[1])):
            # A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
            total_over_3 = tape.pop()
            d_total_over_3 = unbroadcast(copied(dA[i, j]), total_over_3)
            dA[i, j] = 0.0
            dtotal = d_total_over_3 / 3.0
            dB[i + 2, j] += dtotal
            dB[i + 1, j] += dtotal
            dB[i, j] += dtotal
    return dB
