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
            d_B_part = dB[i, j]
            d_B_part_2 = dB[i + 1, j]
            d_B_part_plus_B_part_2 = d_B_part + d_B_part_2
            d_B_part_3 = dB[i + 2, j]
            dtotal = d_B_part_plus_B_part_2 + d_B_part_3
            d_total_over_3 = dtotal / 3.0
            dA[i, j] = d_total_over_3
    return dA
