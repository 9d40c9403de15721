# srcad 0.1.0: reverse-mode derivative of halve_until_small (golden_functions.py:69) with respect to x
import numpy as np
from srcad.runtime import check_seed


def dhalve_until_small(x, dout=1.0):
    # while np.sum(x * x) > 1.0:
    trips = 0
    while np.sum(x * x) > 1.0:
        trips += 1
        # x = x * 0.5
        x = x * 0.5
    # return np.sum(np.tanh(x))
    tanh_x = np.tanh(x)
    out = np.sum(tanh_x)
    dout = check_seed(out, dout)
    # return np.sum(np.tanh(x))
    dx = dout * (1.0 - tanh_x * tanh_x)
    # while np.sum(x * x) > 1.0:
    for t in range(trips):
        # x = x * 0.5
        dx = dx * 0.5
    return dx
