# srcad 0.1.0: forward-mode derivative of piecewise (golden_functions.py:53) with respect to x
import numpy as np


def dpiecewise(x, dx):
    # if np.sum(x) > 0.0:
    sum_x_gt_0 = np.sum(x) > 0.0
    if sum_x_gt_0:
        # y = np.sin(x) * x
        sin_x = np.sin(x)
        dy = dx * np.cos(x) * x + sin_x * dx
    else:
        # y = x * x
        dy = 2 * (dx * x)
    # return np.sum(y)
    dout = np.sum(dy)
    return dout
