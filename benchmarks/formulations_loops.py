"""Other spellings of the benchmark problems that loop (logistic, Rosenbrock as a loop, RNN, LSTM, pool,
loop matmul, heat equation, convolution).

Contract: ``<problem>_<spelling>`` takes the positional parameters of
``problems.<problem>`` and returns its value up to rounding, written
another way; ``formulations.py`` registers each under ``problem/spelling``
with a line on what differs.  None modifies its arguments.

Example::

    >>> import numpy as np
    >>> float(pool_slices(np.ones((4, 2))))
    4.0
"""
from __future__ import annotations

import numpy as np

from problems import lstm_predict


def logistic_np(x, r):
    """``problems.logistic`` with ``np.multiply`` and ``np.subtract`` for the operators."""
    for _ in range(100):
        x = np.multiply(np.multiply(r, x), np.subtract(1.0, x))
    return x


def logistic_expanded(x, r):
    """``problems.logistic`` with the product multiplied out: ``r * x - r * x ** 2``."""
    for _ in range(100):
        x = r * x - r * x ** 2
    return x


def rosenbrock_zip(x):
    """``problems.rosenbrock`` as a scalar loop over ``zip(x[:-1], x[1:])``."""
    total = 0.0
    for a, b in zip(x[:-1], x[1:]):
        total = total + 100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2
    return total


def rnn_dot(Wx, Wh, b, Wy, xs, ys):
    """``problems.rnn`` with ``np.dot`` for ``@``."""
    h = np.zeros_like(b)
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(np.dot(Wx, xs[t]) + np.dot(Wh, h) + b)
        loss = loss + np.sum((np.dot(Wy, h) - ys[t]) ** 2)
    return loss


def rnn_einsum(Wx, Wh, b, Wy, xs, ys):
    """``problems.rnn`` with ``np.einsum`` for ``@``."""
    h = np.zeros_like(b)
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(np.einsum("ij,j->i", Wx, xs[t]) + np.einsum("ij,j->i", Wh, h) + b)
        loss = loss + np.sum((np.einsum("ij,j->i", Wy, h) - ys[t]) ** 2)
    return loss


def rnn_zip(Wx, Wh, b, Wy, xs, ys):
    """``problems.rnn`` looping over ``zip(xs, ys)`` instead of indexing ``xs[t]``."""
    h = np.zeros_like(b)
    loss = 0.0
    for x, y in zip(xs, ys):
        h = np.tanh(Wx @ x + Wh @ h + b)
        loss = loss + np.sum((Wy @ h - y) ** 2)
    return loss


def lstm_zip(main_params, extra_params, state, sequence):
    """``problems.lstm`` looping over ``zip(sequence[:-1], sequence[1:])`` instead of indexing."""
    total = 0.0
    count = 0
    for inp, ygold in zip(sequence[:-1], sequence[1:]):
        ypred, state = lstm_predict(main_params, extra_params, state, inp)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        total = total + np.sum(ygold * ynorm)
        count = count + len(ygold)
    return -total / count


def _sigmoid_np(x):
    return np.reciprocal(np.add(1.0, np.exp(np.negative(x))))


def _lstm_model_np(weight, bias, hidden, cell, inp):
    """``problems.lstm_model`` with ``np.`` functions for the operators."""
    gates = np.add(np.multiply(np.concatenate((inp, hidden, inp, hidden)), weight), bias)
    b = len(hidden)
    forget = _sigmoid_np(gates[0:b])
    ingate = _sigmoid_np(gates[b:2 * b])
    outgate = _sigmoid_np(gates[2 * b:3 * b])
    change = np.tanh(gates[3 * b:])
    cell = np.add(np.multiply(cell, forget), np.multiply(ingate, change))
    hidden = np.multiply(outgate, np.tanh(cell))
    return hidden, cell


def _lstm_predict_np(w, w2, state, x):
    """``problems.lstm_predict`` with ``np.`` functions for the operators."""
    x = np.multiply(x, w2[0])
    new_state = []
    for i in range(0, len(state), 2):
        hidden, cell = _lstm_model_np(w[i], w[i + 1], state[i], state[i + 1], x)
        x = hidden
        new_state.append(hidden)
        new_state.append(cell)
    return np.add(np.multiply(x, w2[1]), w2[2]), np.stack(new_state)


def lstm_np(main_params, extra_params, state, sequence):
    """``problems.lstm`` with ``np.`` functions for the operators throughout."""
    total = 0.0
    count = 0
    inp = sequence[0]
    for t in range(len(sequence) - 1):
        ypred, state = _lstm_predict_np(main_params, extra_params, state, inp)
        ynorm = np.subtract(ypred, np.log(np.add(np.sum(np.exp(ypred)), 2.0)))
        ygold = sequence[t + 1]
        total = np.add(total, np.sum(np.multiply(ygold, ynorm)))
        count = count + len(ygold)
        inp = ygold
    return np.negative(total) / count


def pool_rows(B):
    """``problems.pool`` storing a whole row per step: ``A[i] = (B[i] + B[i + 1] + B[i + 2]) / 3.0``."""
    A = np.zeros((len(B) - 2, len(B[0])))
    for i in range(len(B) - 2):
        A[i] = (B[i] + B[i + 1] + B[i + 2]) / 3.0
    return np.sum(A * A)


def pool_slices(B):
    """``problems.pool`` vectorised: the moving average of three shifted slices."""
    A = (B[:-2] + B[1:-1] + B[2:]) / 3.0
    return np.sum(A * A)


def matmul_loops_rows(B, C):
    """``problems.matmul_loops`` with one row store per step: ``A[i] = B[i] @ C``."""
    A = np.zeros((B.shape[0], C.shape[1]))
    for i in range(B.shape[0]):
        A[i] = B[i] @ C
    return np.sum(A * A)


def matmul_loops_sum(B, C):
    """``problems.matmul_loops`` with each entry an ``np.sum`` of a row times a column."""
    n, p = B.shape[0], C.shape[1]
    A = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            A[i, j] = np.sum(B[i, :] * C[:, j])
    return np.sum(A * A)


def heat_diff(u, alpha, steps):
    """``problems.heat`` with ``np.diff(u, 2)`` for the stencil."""
    for _ in range(steps):
        u = np.concatenate((u[:1], u[1:-1] + alpha * np.diff(u, 2), u[-1:]))
    return np.sum(u * u)


def heat_store(u, alpha, steps):
    """``problems.heat`` updating the interior of a copy of ``u`` with a slice store."""
    for _ in range(steps):
        new = np.copy(u)
        new[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = new
    return np.sum(u * u)


def conv_windows(x, K, b):
    """``problems.conv`` with a loop over output pixels, each the ``np.sum`` of a kernel times a window."""
    kh, kw = K.shape[2], K.shape[3]
    out = np.zeros((K.shape[0], x.shape[1] - kh + 1, x.shape[2] - kw + 1))
    for o in range(out.shape[0]):
        for i in range(out.shape[1]):
            for j in range(out.shape[2]):
                out[o, i, j] = np.sum(K[o] * x[:, i:i + kh, j:j + kw]) + b[o]
    return np.sum(np.tanh(out) ** 2)


def conv_shifts(x, K, b):
    """``problems.conv`` with a loop over the kernel's offsets, each adding an ``np.einsum`` of shifted slices."""
    c_out, _, kh, kw = K.shape
    h = x.shape[1] - kh + 1
    w = x.shape[2] - kw + 1
    out = np.zeros((c_out, h, w)) + b[:, None, None]
    for di in range(kh):
        for dj in range(kw):
            out = out + np.einsum("oc,chw->ohw", K[:, :, di, dj], x[:, di:di + h, dj:dj + w])
    return np.sum(np.tanh(out) ** 2)
