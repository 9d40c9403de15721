# srcad 0.1.0: forward-mode derivative of cube_scale (golden_functions.py:14) with respect to x


def dcube_scale(x, dx):
    # return x * x * 3.0
    dout = 6.0 * dx * x
    return dout
