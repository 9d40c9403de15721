# srcad 0.1.0: forward-mode derivative of tanh_loss (golden_functions.py:18) with respect to w
import numpy as np
from srcad.runtime import broadcast_like


def dtanh_loss(w, x, y, dw):
    # prediction = np.tanh(w * x)
    w_times_x = w * x
    d_w_times_x = dw * x
    prediction = np.tanh(w_times_x)
    dprediction = d_w_times_x * (1.0 - prediction * prediction)
    # return np.sum((prediction - y) ** 2)
    prediction_minus_y = prediction - y
    d_prediction_minus_y = broadcast_like(dprediction, prediction_minus_y)
    d_prediction_minus_y_pow_2 = d_prediction_minus_y * 2 * prediction_minus_y
    dout = np.sum(d_prediction_minus_y_pow_2)
    return dout
