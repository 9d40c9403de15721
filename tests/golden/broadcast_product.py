# srcad 0.1.0: reverse-mode derivative of broadcast_product (golden_functions.py:23) with respect to x, y
import numpy as np
from srcad.runtime import check_seed, unbroadcast, unreduce


def dbroadcast_product(x, y, dout=1.0):
    # return np.sum(x * y, axis=0)
    x_times_y = x * y
    out = np.sum(x_times_y, axis=0)
    dout = check_seed(out, dout)
    # return np.sum(x * y, axis=0)
    d_x_times_y = unreduce(dout, x_times_y, axis=0)
    dx = unbroadcast(d_x_times_y * y, x)
    dy = unbroadcast(x * d_x_times_y, y)
    return dx, dy
