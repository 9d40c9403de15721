# srcad 0.1.0: forward-mode derivative of math_scalars (golden_functions.py:39) with respect to x, y
import math


def dmath_scalars(x, y, dx, dy):
    # return math.sin(x) * math.exp(y) + math.sqrt(x)
    sin_x = math.sin(x)
    d_sin_x = dx * math.cos(x)
    exp_y = math.exp(y)
    d_exp_y = dy * exp_y
    d_sin_x_times_exp_y = d_sin_x * exp_y + sin_x * d_exp_y
    sqrt_x = math.sqrt(x)
    d_sqrt_x = dx / (2.0 * sqrt_x)
    dout = d_sin_x_times_exp_y + d_sqrt_x
    return dout
