"""The benchmark problems of ``benchmarks/run.py``, as plain NumPy functions.

Contract:
- Each objective below is written the way a user would write it for NumPy:
  a Python loop where the problem is a loop (``logistic``, ``rnn``, ``pool``,
  ``matmul_loops`` and ``conv`` element by element, ``lstm`` over time steps
  and layers, as ADBench writes it, ``heat`` over time steps of a vectorised
  stencil), vectorised NumPy otherwise.  They return a Python or NumPy
  scalar and never modify their arguments.  srcad differentiates them as
  they are; peers (``benchmarks/peers.py``) run them, a line-for-line port,
  or (jax, for long loops) the port a jax user would write.  Other
  spellings of each live in ``benchmarks/formulations.py``.
- ``PROBLEMS`` maps a problem name to a ``Problem``: the objective, the
  names of the parameters the gradient is taken with respect to (``wrt``, in
  the objective's positional order), and ``make_inputs(size, rng)``, which
  returns the objective's positional arguments for ``size`` ``"full"`` (the
  sizes of the issue) or ``"quick"`` (tiny sizes for the smoke test and
  ``run.py --quick``).  Inputs are float64 (the heat equation's step count
  is an int) and lie inside each objective's domain.
- Problem order in ``PROBLEMS`` is the order of the results table.

Example::

    >>> import numpy as np
    >>> from problems import PROBLEMS
    >>> p = PROBLEMS["rosenbrock"]
    >>> args = p.make_inputs("quick", np.random.default_rng(0))
    >>> float(p.function(*args)) > 0
    True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, Tuple

import numpy as np

# --------------------------------------------------------------------------
# objectives


def logistic(x, r):
    """The logistic map with rate ``r`` iterated 100 times from ``x``; a scalar loop."""
    for _ in range(100):
        x = r * x * (1.0 - x)
    return x


def helmholtz(x, b, A):
    """Helmholtz free energy of a mixture with mole numbers ``x`` (no RT factor)."""
    bx = b @ x
    s2 = math.sqrt(2.0)
    return (np.sum(x * np.log(x / (1.0 - bx)))
            - (x @ A @ x) / (math.sqrt(8.0) * bx)
            * np.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx)))


def rosenbrock(x):
    """The N-dimensional Rosenbrock function."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(W1, b1, W2, b2, x, y):
    """Mean softmax cross-entropy of a 2-layer tanh MLP on a batch ``x`` with one-hot labels ``y``."""
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(y * logp) / x.shape[0]


def rnn(Wx, Wh, b, Wy, xs, ys):
    """Squared error of an Elman RNN's outputs over a sequence, summed over the time steps."""
    h = np.zeros_like(b)
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(Wx @ xs[t] + Wh @ h + b)
        loss = loss + np.sum((Wy @ h - ys[t]) ** 2)
    return loss


def gmm(alphas, means, icf, x, wishart_gamma, wishart_m):
    """ADBench's GMM objective: log-likelihood of ``x`` under a Gaussian mixture plus a Wishart prior.

    ``icf`` holds, per component, the log of the diagonal of the inverse
    covariance's Cholesky factor, then its strictly lower triangle column
    by column, as in ADBench.
    """
    n, d = x.shape
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    cols, rows = np.triu_indices(d, 1)            # column-major order of the lower triangle
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    xcentered = x - means[:, None, :]             # (k, n, d)
    Lxcentered = Qdiags[:, None, :] * xcentered + xcentered @ np.transpose(Ls, (0, 2, 1))
    sqsum_Lxcentered = np.sum(Lxcentered ** 2, axis=2)
    inner_term = alphas[:, None] + sum_qs[:, None] - 0.5 * sqsum_Lxcentered   # (k, n)
    top = np.max(inner_term, axis=0)
    slse = np.sum(np.log(np.sum(np.exp(inner_term - top), axis=0)) + top)
    top_alpha = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - top_alpha))) + top_alpha
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    # the Wishart prior
    nw = d + wishart_m + 1
    frobenius = np.sum(Qdiags ** 2) + np.sum(icf[:, d:] ** 2)
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)
    log_gamma = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        log_gamma = log_gamma + math.lgamma(0.5 * nw - 0.5 * j)
    c = nw * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - log_gamma
    return constant + slse - n * lse_alphas + prior - k * c


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    """One cell of ADBench's LSTM, whose weights are diagonal."""
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    b = hidden.shape[0]
    forget = sigmoid(gates[0:b])
    ingate = sigmoid(gates[b:2 * b])
    outgate = sigmoid(gates[2 * b:3 * b])
    change = np.tanh(gates[3 * b:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(w, w2, state, x):
    """Run ``x`` through the layers; ``state`` holds each layer's hidden then cell state."""
    x = x * w2[0]
    new_state = []
    for i in range(0, state.shape[0], 2):
        hidden, cell = lstm_model(w[i], w[i + 1], state[i], state[i + 1], x)
        x = hidden
        new_state.append(hidden)
        new_state.append(cell)
    return x * w2[1] + w2[2], np.stack(new_state)


def lstm(main_params, extra_params, state, sequence):
    """ADBench's LSTM objective: mean log-loss of predicting each character from the previous one."""
    total = 0.0
    count = 0
    inp = sequence[0]
    for t in range(sequence.shape[0] - 1):
        ypred, state = lstm_predict(main_params, extra_params, state, inp)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        ygold = sequence[t + 1]
        total = total + np.sum(ygold * ynorm)
        count = count + ygold.shape[0]
        inp = ygold
    return -total / count


def pool(B):
    """Sum of squares of a 3-row moving average of ``B``, computed by a loop of element stores."""
    A = np.zeros((len(B) - 2, len(B[0])))
    for i in range(len(B) - 2):
        for j in range(len(B[0])):
            A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
    return np.sum(A * A)


def matmul_loops(B, C):
    """Sum of squares of ``B @ C``, the product written as three loops accumulating element by element."""
    n, m = B.shape
    p = C.shape[1]
    A = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            for k in range(m):
                A[i, j] += B[i, k] * C[k, j]
    return np.sum(A * A)


def heat(u, alpha, steps):
    """Energy of a 1-D heat equation's state after ``steps`` explicit steps from ``u``; ends held fixed.

    Each step adds ``alpha`` times the discrete Laplacian (vectorised slices)
    to the interior; ``alpha <= 0.5`` keeps the scheme stable.
    """
    for _ in range(steps):
        u = np.concatenate((u[:1], u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2]), u[-1:]))
    return np.sum(u * u)


def conv(x, K, b):
    """A 2-D convolution layer (valid, stride 1) with tanh, as loops; the sum of squares of its output.

    ``x`` is (channels in, height, width), ``K`` is (channels out, channels
    in, kernel height, kernel width), ``b`` one bias per output channel.
    """
    c_out, c_in, kh, kw = K.shape
    h = x.shape[1] - kh + 1
    w = x.shape[2] - kw + 1
    out = np.zeros((c_out, h, w))
    for o in range(c_out):
        for i in range(h):
            for j in range(w):
                total = b[o]
                for c in range(c_in):
                    for di in range(kh):
                        for dj in range(kw):
                            total = total + K[o, c, di, dj] * x[c, i + di, j + dj]
                out[o, i, j] = total
    return np.sum(np.tanh(out) ** 2)


def logreg(w, b, X, y):
    """Mean logistic loss of a linear classifier on samples ``X`` with labels ``y`` in {-1, 1}."""
    margins = y * (X @ w + b)
    return np.mean(np.log1p(np.exp(-margins)))


# --------------------------------------------------------------------------
# inputs


def _logistic_inputs(size, rng):
    return 0.3, 2.9     # r = 2.9: the orbit converges, so d/dr is O(1) and finite differences can check it


def _helmholtz_inputs(n):
    def make(size, rng):
        m = n if size == "full" else 5
        x = rng.uniform(0.1, 1.0, m)
        b = rng.uniform(0.0, 1.0, m) / m            # keeps b @ x near 0.25, inside (0, 1)
        A = rng.uniform(-1.0, 1.0, (m, m))
        return x, b, 0.5 * (A + A.T)
    return make


def _rosenbrock_inputs(size, rng):
    return (rng.uniform(-1.0, 1.5, 1000 if size == "full" else 6),)


def _mlp_inputs(size, rng):
    batch, n_in, n_hidden, n_out = (64, 784, 128, 10) if size == "full" else (4, 6, 5, 3)
    W1 = rng.normal(0.0, 1.0 / math.sqrt(n_in), (n_in, n_hidden))
    b1 = rng.normal(0.0, 0.1, n_hidden)
    W2 = rng.normal(0.0, 1.0 / math.sqrt(n_hidden), (n_hidden, n_out))
    b2 = rng.normal(0.0, 0.1, n_out)
    x = rng.uniform(0.0, 1.0, (batch, n_in))
    y = np.eye(n_out)[rng.integers(0, n_out, batch)]
    return W1, b1, W2, b2, x, y


def _rnn_inputs(size, rng):
    n_in, n_hidden, n_out, steps = (10, 32, 10, 50) if size == "full" else (3, 4, 2, 5)
    Wx = rng.normal(0.0, 1.0 / math.sqrt(n_in), (n_hidden, n_in))
    Wh = rng.normal(0.0, 1.0 / math.sqrt(n_hidden), (n_hidden, n_hidden))
    b = rng.normal(0.0, 0.1, n_hidden)
    Wy = rng.normal(0.0, 1.0 / math.sqrt(n_hidden), (n_out, n_hidden))
    xs = rng.normal(0.0, 1.0, (steps, n_in))
    ys = rng.normal(0.0, 1.0, (steps, n_out))
    return Wx, Wh, b, Wy, xs, ys


def _gmm_inputs(size, rng):
    d, k, n = (10, 25, 1000) if size == "full" else (3, 2, 5)
    alphas = rng.normal(0.0, 1.0, k)
    means = rng.uniform(0.0, 1.0, (k, d))
    icf = rng.uniform(-0.5, 0.5, (k, d + d * (d - 1) // 2))
    x = rng.uniform(0.0, 1.0, (n, d))
    return alphas, means, icf, x, 1.0, 0


def _lstm_inputs(size, rng):
    layers, chars, bits = (2, 1024, 14) if size == "full" else (2, 4, 3)
    main_params = rng.uniform(-1.0, 1.0, (2 * layers, 4 * bits))
    extra_params = rng.uniform(-1.0, 1.0, (3, bits))
    state = rng.uniform(-1.0, 1.0, (2 * layers, bits))
    sequence = rng.uniform(-1.0, 1.0, (chars, bits))
    return main_params, extra_params, state, sequence


def _pool_inputs(size, rng):
    n = 32 if size == "full" else 3
    return (rng.normal(0.0, 1.0, (n + 2, n)),)


def _matmul_loops_inputs(size, rng):
    n = 16 if size == "full" else 3
    return rng.normal(0.0, 1.0, (n, n)), rng.normal(0.0, 1.0, (n, n))


def _heat_inputs(size, rng):
    n, steps = (10_000, 1000) if size == "full" else (12, 5)
    grid = np.linspace(0.0, 1.0, n)
    u = np.sin(np.pi * grid) + 0.1 * rng.normal(0.0, 1.0, n)
    return u, 0.25, steps


def _conv_inputs(size, rng):
    c_in, c_out, side = (2, 3, 10) if size == "full" else (2, 2, 5)
    x = rng.normal(0.0, 1.0, (c_in, side, side))
    K = rng.normal(0.0, 1.0 / math.sqrt(9 * c_in), (c_out, c_in, 3, 3))
    return x, K, rng.normal(0.0, 0.1, c_out)


def _logreg_inputs(size, rng):
    n, d = (100_000, 20) if size == "full" else (8, 3)
    X = rng.normal(0.0, 1.0, (n, d))
    w_true = rng.normal(0.0, 1.0, d)
    y = np.where(X @ w_true + rng.normal(0.0, 1.0, n) > 0.0, 1.0, -1.0)
    return rng.normal(0.0, 0.1, d), 0.1, X, y


# --------------------------------------------------------------------------
# the table


@dataclass(frozen=True)
class Problem:
    """One benchmark problem: ``function(*make_inputs(size, rng))`` is a scalar."""
    name: str
    function: Callable
    wrt: Tuple[str, ...]
    make_inputs: Callable
    description: str

    def wrt_positions(self) -> Tuple[int, ...]:
        """Positions of the ``wrt`` parameters among the objective's positional parameters."""
        names = self.function.__code__.co_varnames[:self.function.__code__.co_argcount]
        return tuple(names.index(name) for name in self.wrt)


PROBLEMS: Dict[str, Problem] = {p.name: p for p in [
    Problem("logistic", logistic, ("r",), _logistic_inputs, "logistic map, 100 steps (scalar loop)"),
    Problem("helmholtz_50", helmholtz, ("x",), _helmholtz_inputs(50), "Helmholtz energy, n=50"),
    Problem("helmholtz_1000", helmholtz, ("x",), _helmholtz_inputs(1000), "Helmholtz energy, n=1000"),
    Problem("rosenbrock", rosenbrock, ("x",), _rosenbrock_inputs, "Rosenbrock, n=1000"),
    Problem("mlp", mlp, ("W1", "b1", "W2", "b2"), _mlp_inputs,
            "tanh MLP + softmax cross-entropy, batch 64, 784-128-10"),
    Problem("rnn", rnn, ("Wx", "Wh", "b", "Wy"), _rnn_inputs, "Elman RNN, 32 hidden, 50 steps"),
    Problem("gmm", gmm, ("alphas", "means", "icf"), _gmm_inputs, "ADBench GMM, d=10 K=25 n=1000"),
    Problem("lstm", lstm, ("main_params", "extra_params"), _lstm_inputs, "ADBench LSTM, l=2 c=1024 b=14"),
    Problem("pool", pool, ("B",), _pool_inputs, "element-store loop, 32x32"),
    Problem("matmul_loops", matmul_loops, ("B", "C"), _matmul_loops_inputs,
            "matrix product as three loops of element updates, 16x16"),
    Problem("heat", heat, ("u", "alpha"), _heat_inputs, "1-D heat equation, 10^4 points, 10^3 explicit steps"),
    Problem("conv", conv, ("K", "b"), _conv_inputs, "2-D convolution layer as loops, 2->3 channels, 10x10, 3x3"),
    Problem("logreg", logreg, ("w", "b"), _logreg_inputs, "logistic regression, 10^5 samples, 20 features"),
]}
