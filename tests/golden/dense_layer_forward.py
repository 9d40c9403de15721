# srcad 0.1.0: forward-mode derivative of dense_layer (golden_functions.py:43) with respect to w, b
import numpy as np
from srcad.runtime import broadcast_like


def ddense_layer(x, w, b, dw, db):
    # return np.mean(np.tanh(x @ w + b))
    x_at_w_plus_b = x @ w + b
    d_x_at_w_plus_b = broadcast_like(x @ dw + db, x_at_w_plus_b)
    tanh_x_at_w_plus_b = np.tanh(x_at_w_plus_b)
    dout = np.mean(d_x_at_w_plus_b * (1.0 - tanh_x_at_w_plus_b * tanh_x_at_w_plus_b))
    return dout
