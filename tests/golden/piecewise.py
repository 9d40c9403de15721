# srcad 0.1.0: reverse-mode derivative of piecewise (golden_functions.py:53) with respect to x
import numpy as np
from srcad.runtime import check_seed, unreduce, zeros_like


def dpiecewise(x, dout=1.0):
    # if np.sum(x) > 0.0:
    sum_x_gt_0 = np.sum(x) > 0.0
    if sum_x_gt_0:
        # y = np.sin(x) * x
        sin_x = np.sin(x)
        y = sin_x * x
    else:
        # y = x * x
        y = x * x
    # return np.sum(y)
    out = np.sum(y)
    dout = check_seed(out, dout)
    # return np.sum(y)
    dy = unreduce(dout, y)
    # if np.sum(x) > 0.0:
    dx = zeros_like(x)
    if sum_x_gt_0:
        # y = np.sin(x) * x
        dx += sin_x * dy + dy * x * np.cos(x)
    else:
        # y = x * x
        dx += 2 * (dy * x)
    return dx
