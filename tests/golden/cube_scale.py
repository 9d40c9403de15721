# srcad 0.1.0: reverse-mode derivative of cube_scale (golden_functions.py:14) with respect to x
from srcad.runtime import check_seed


def dcube_scale(x, dout=1.0):
    # return x * x * 3.0
    out = x * x * 3.0
    dout = check_seed(out, dout)
    # return x * x * 3.0
    dx = 6.0 * dout * x
    return dx
