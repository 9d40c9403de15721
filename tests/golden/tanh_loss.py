# srcad 0.1.0: reverse-mode derivative of tanh_loss (golden_functions.py:18) with respect to w
import numpy as np
from srcad.runtime import check_seed, unbroadcast


def dtanh_loss(w, x, y, dout=1.0):
    # prediction = np.tanh(w * x)
    prediction = np.tanh(w * x)
    # return np.sum((prediction - y) ** 2)
    prediction_minus_y = prediction - y
    out = np.sum(prediction_minus_y ** 2)
    dout = check_seed(out, dout)
    # return np.sum((prediction - y) ** 2)
    dprediction = unbroadcast(dout * 2 * prediction_minus_y, prediction)
    # prediction = np.tanh(w * x)
    dw = unbroadcast(dprediction * (1.0 - prediction * prediction) * x, w)
    return dw
