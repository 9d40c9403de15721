# srcad 0.1.0: reverse-mode derivative of math_scalars (golden_functions.py:39) with respect to x, y
import math
from srcad.runtime import check_seed


def dmath_scalars(x, y, dout=1.0):
    # return math.sin(x) * math.exp(y) + math.sqrt(x)
    sin_x = math.sin(x)
    exp_y = math.exp(y)
    sqrt_x = math.sqrt(x)
    out = sin_x * exp_y + sqrt_x
    dout = check_seed(out, dout)
    # return math.sin(x) * math.exp(y) + math.sqrt(x)
    dx = dout / (2.0 * sqrt_x) + dout * exp_y * math.cos(x)
    dy = sin_x * dout * exp_y
    return dx, dy
