# srcad 0.1.0: forward-mode derivative of tanh_loss (golden_functions.py:18) with respect to w
import numpy as np
from srcad.runtime import broadcast_like


def dtanh_loss(w, x, y, dw):
    # prediction = np.tanh(w * x)
    prediction = np.tanh(w * x)
    dprediction = dw * x * (1.0 - prediction * prediction)
    # return np.sum((prediction - y) ** 2)
    prediction_minus_y = prediction - y
    dout = 2 * np.sum(broadcast_like(dprediction, prediction_minus_y) * prediction_minus_y)
    return dout
