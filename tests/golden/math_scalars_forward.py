# srcad 0.1.0: forward-mode derivative of math_scalars (golden_functions.py:39) with respect to x, y
import math


def dmath_scalars(x, y, dx, dy):
    # return math.sin(x) * math.exp(y) + math.sqrt(x)
    sin_x = math.sin(x)
    exp_y = math.exp(y)
    sqrt_x = math.sqrt(x)
    dout = dx * math.cos(x) * exp_y + sin_x * (dy * exp_y) + dx / (2.0 * sqrt_x)
    return dout
