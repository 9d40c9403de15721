# srcad 0.1.0: forward-mode derivative of cube_scale (golden_functions.py:14) with respect to x


def dcube_scale(x, dx):
    # return x * x * 3.0
    dout = (dx * x + x * dx) * 3.0
    return dout
