# srcad 0.1.0: forward-mode derivative of gated (golden_functions.py:79) with respect to x, w
import numpy as np


def dgated(x, w, dx, dw):
    # g = sigmoid(w * x)   # a helper of this module: inlined
    v = w * x
    dv = dw * x + w * dx
    # sigmoid: return 1.0 / (1.0 + np.exp(-v))
    exp_neg_v = np.exp(-v)
    t1_plus_exp_neg_v = 1.0 + exp_neg_v
    g = 1.0 / t1_plus_exp_neg_v
    dg = g * (dv * exp_neg_v) / t1_plus_exp_neg_v
    # return np.sum(g * x)
    dout = np.sum(dg * x + g * dx)
    return dout
