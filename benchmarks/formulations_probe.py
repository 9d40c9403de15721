"""Reformulated benchmark problems and their grad/f ratios (``python benchmarks/formulations_probe.py``).

Contract: ``VARIANTS`` maps a name to a ``Problem`` whose objective computes
the same value as a problem of ``problems.PROBLEMS`` written another way
(``np.dot`` for ``@``, ``np.sqrt`` for ``math.sqrt``, ``np.einsum`` for
broadcasting, ``xs[t]`` indexed in the loop).  Running the module checks
and times the problems named on the command line (any of ``PROBLEMS`` or
``VARIANTS``; by default those named in ``ORIGINALS`` and every variant)
with ``timing.run_problem`` (no peers) and prints reverse and forward
grad/f; ``--dump DIR`` writes each one's generated derivatives instead.

Example::

    python benchmarks/formulations_probe.py rnn rnn_dot
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from problems import PROBLEMS, Problem   # noqa: E402


def helmholtz_np(x, b, A):
    """``helmholtz`` with ``np.dot`` and ``np.sqrt`` on constants."""
    bx = np.dot(b, x)
    s2 = np.sqrt(2.0)
    return (np.sum(x * np.log(x / (1.0 - bx)))
            - np.dot(np.dot(x, A), x) / (np.sqrt(8.0) * bx)
            * np.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx)))


def rnn_dot(Wx, Wh, b, Wy, xs, ys):
    """``rnn`` with ``np.dot``."""
    h = np.zeros_like(b)
    loss = 0.0
    for t in range(len(xs)):
        h = np.tanh(np.dot(Wx, xs[t]) + np.dot(Wh, h) + b)
        loss = loss + np.sum((np.dot(Wy, h) - ys[t]) ** 2)
    return loss


def rnn_zip(Wx, Wh, b, Wy, xs, ys):
    """``rnn`` looping over ``zip(xs, ys)``."""
    h = np.zeros_like(b)
    loss = 0.0
    for x, y in zip(xs, ys):
        h = np.tanh(Wx @ x + Wh @ h + b)
        d = Wy @ h - y
        loss = loss + np.sum(d * d)
    return loss


def gmm_einsum(alphas, means, icf, x, wishart_gamma, wishart_m):
    """``gmm`` with ``np.einsum`` for the triangular products and ``np.sqrt``/``np.log`` on constants."""
    n, d = x.shape
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    cols, rows = np.triu_indices(d, 1)
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    xcentered = x - means[:, None, :]
    Lxcentered = np.einsum("kd,knd->knd", Qdiags, xcentered) + np.einsum("knj,kij->kni", xcentered, Ls)
    sqsum_Lxcentered = np.einsum("knd,knd->kn", Lxcentered, Lxcentered)
    inner_term = alphas[:, None] + sum_qs[:, None] - 0.5 * sqsum_Lxcentered
    top = np.max(inner_term, axis=0)
    slse = np.sum(np.log(np.sum(np.exp(inner_term - top), axis=0)) + top)
    top_alpha = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - top_alpha))) + top_alpha
    constant = -n * d * 0.5 * np.log(2.0 * np.pi)
    nw = d + wishart_m + 1
    frobenius = np.sum(Qdiags ** 2) + np.sum(icf[:, d:] ** 2)
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)
    log_gamma = 0.25 * d * (d - 1) * np.log(np.pi)
    for j in range(d):
        log_gamma = log_gamma + math.lgamma(0.5 * nw - 0.5 * j)
    c = nw * d * (np.log(wishart_gamma) - 0.5 * np.log(2.0)) - log_gamma
    return constant + slse - n * lse_alphas + prior - k * c


def pool_np(B):
    """``pool`` with the sum written ``np.sum`` over a slice and the square as a product."""
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    for i in range(B.shape[0] - 2):
        for j in range(B.shape[1]):
            A[i, j] = np.sum(B[i:i + 3, j]) / 3.0
    return np.sum(np.square(A))


def _like(name, function, original):
    base = PROBLEMS[original]
    return Problem(name, function, base.wrt, base.make_inputs, f"{base.description}, reformulated")


ORIGINALS = ("helmholtz_50", "rnn", "gmm", "pool")
VARIANTS = {p.name: p for p in [
    _like("helmholtz_50_np", helmholtz_np, "helmholtz_50"),
    _like("rnn_dot", rnn_dot, "rnn"),
    _like("rnn_zip", rnn_zip, "rnn"),
    _like("gmm_einsum", gmm_einsum, "gmm"),
    _like("pool_np", pool_np, "pool"),
]}


def _selected(names):
    """The problems named (any of ``PROBLEMS`` or ``VARIANTS``), by default ``ORIGINALS`` and ``VARIANTS``."""
    table = {**PROBLEMS, **VARIANTS}
    return [table[name] for name in (names or list(ORIGINALS) + list(VARIANTS))]


def main(argv):
    """Print reverse and forward grad/f of the selected problems, or dump their derivatives with ``--dump DIR``."""
    import srcad
    if argv[:1] == ["--dump"]:
        os.makedirs(argv[1], exist_ok=True)
        for problem in _selected(argv[2:]):
            for mode in ("reverse", "forward"):
                text = srcad.source(problem.function, wrt=tuple(problem.wrt), mode=mode)
                with open(os.path.join(argv[1], f"{problem.name}.{mode}.py"), "w") as out:
                    out.write(text)
        return
    from timing import run_problem, steady_allocator
    steady_allocator()
    for problem in _selected(argv):
        row = run_problem(problem, [], quick=False)
        cells = "  ".join(f"{column} {row.cells[column].ratio or row.cells[column].status:>6.4}"
                          if row.cells[column].ratio else f"{column} {row.cells[column].status}"
                          for column in ("srcad rev", "srcad fwd"))
        print(f"{problem.name:18s} f {row.f_seconds * 1e6:9.1f} us  {cells}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
