# srcad 0.1.0: reverse-mode derivative of subscript_read (golden_functions.py:35) with respect to x
from srcad.runtime import add_at, check_seed, unbroadcast, zeros_like


def dsubscript_read(x, i, dout=1.0):
    # return x[i] * 2.0 + x[1:, 0]
    x_i_times_2 = x[i] * 2.0
    x_part = x[1:, 0]
    out = x_i_times_2 + x_part
    dout = check_seed(out, dout)
    # return x[i] * 2.0 + x[1:, 0]
    dx = zeros_like(x)
    dx[1:, 0] += unbroadcast(dout, x_part)
    dx = add_at(dx, i, unbroadcast(dout, x_i_times_2) * 2.0)
    return dx
