# srcad 0.1.0: reverse-mode derivative of unpack_reassign (golden_functions.py:27) with respect to x
import numpy as np
from srcad.runtime import add_at, check_seed, unbroadcast, unreduce, zeros_like


def dunpack_reassign(x, dout=1.0):
    # a, b = x[0], x[1:]
    a = x[0]
    b = x[1:]
    # a, b = b, a
    a_2 = b
    b_2 = a
    # x = a * b
    x_2 = a_2 * b_2
    # x = np.exp(x) + x
    exp_x = np.exp(x_2)
    x_3 = exp_x + x_2
    # return np.sum(x)
    out = np.sum(x_3)
    dout = check_seed(out, dout)
    # return np.sum(x)
    d_x_3 = unreduce(dout, x_3)
    # x = np.exp(x) + x
    d_x_2 = d_x_3 + d_x_3 * exp_x
    # x = a * b
    d_a_2 = unbroadcast(d_x_2 * b_2, a_2)
    d_b_2 = unbroadcast(a_2 * d_x_2, b_2)
    # a, b = x[0], x[1:]
    dx = zeros_like(x)
    dx = add_at(dx, slice(1, None, None), d_a_2)
    dx = add_at(dx, 0, d_b_2)
    return dx
