# srcad 0.1.0: reverse-mode derivative of dense_layer (golden_functions.py:43) with respect to w, b
import numpy as np
from srcad.runtime import check_seed, copied, matmul_rhs_grad, unbroadcast, unreduce


def ddense_layer(x, w, b, dout=1.0):
    # return np.mean(np.tanh(x @ w + b))
    x_at_w = x @ w
    tanh_x_at_w_plus_b = np.tanh(x_at_w + b)
    out = np.mean(tanh_x_at_w_plus_b)
    dout = check_seed(out, dout)
    # return np.mean(np.tanh(x @ w + b))
    d_tanh_x_at_w_plus_b = unreduce(dout / np.size(tanh_x_at_w_plus_b), tanh_x_at_w_plus_b)
    d_x_at_w_plus_b = d_tanh_x_at_w_plus_b * (1.0 - tanh_x_at_w_plus_b * tanh_x_at_w_plus_b)
    db = unbroadcast(d_x_at_w_plus_b, b)
    dw = matmul_rhs_grad(unbroadcast(d_x_at_w_plus_b, x_at_w), x, w)
    return dw, copied(db)
