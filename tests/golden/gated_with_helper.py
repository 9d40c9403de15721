# srcad 0.1.0: reverse-mode derivative of gated (golden_functions.py:79) with respect to x, w
import numpy as np
from srcad.runtime import check_seed, unbroadcast, unreduce


def dgated(x, w, dout=1.0):
    # g = sigmoid(w * x)   # a helper of this module: inlined
    v = w * x
    # sigmoid: return 1.0 / (1.0 + np.exp(-v))
    exp_neg_v = np.exp(-v)
    t1_plus_exp_neg_v = 1.0 + exp_neg_v
    g = 1.0 / t1_plus_exp_neg_v
    # return np.sum(g * x)
    g_times_x = g * x
    out = np.sum(g_times_x)
    dout = check_seed(out, dout)
    # return np.sum(g * x)
    d_g_times_x = unreduce(dout, g_times_x)
    dg = unbroadcast(d_g_times_x * x, g)
    dx = unbroadcast(g * d_g_times_x, x)
    # sigmoid: return 1.0 / (1.0 + np.exp(-v))
    dv = dg * g / t1_plus_exp_neg_v * exp_neg_v
    # g = sigmoid(w * x)   # a helper of this module: inlined
    dw = unbroadcast(dv * x, w)
    dx += unbroadcast(w * dv, x)
    return dx, dw
