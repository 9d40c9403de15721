"""A custom rule: a numerically stable softplus that srcad keeps as one call.

``softplus(x) = log(1 + exp(x))``.  Written naively, ``np.exp(x)``
overflows for large ``x`` and the value and its derivative become ``inf`` and
``nan``.  The stable form ``max(x, 0) + log1p(exp(-|x|))`` never overflows,
and its derivative is the logistic function, which ``(1 + tanh(x / 2)) / 2``
computes without overflow.

``@srcad.adjoint(softplus)`` and ``@srcad.tangent(softplus)`` tell srcad that
derivative, written with ``d[...]`` (from ``from srcad import d``).  srcad
then leaves ``softplus(...)`` as a single call in the generated code and
inserts the rule's body where its derivative is needed, in both modes.

Run it with ``python examples/custom_template.py``.
"""
import numpy as np

import srcad
from srcad import d


def softplus(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


@srcad.adjoint(softplus)
def softplus_adjoint(y, x):
    d[x] = d[y] * 0.5 * (1.0 + np.tanh(0.5 * x))


@srcad.tangent(softplus)
def softplus_tangent(y, x):
    d[y] = d[x] * 0.5 * (1.0 + np.tanh(0.5 * x))


def loss(w, x):
    """Mean softplus of a linear score: the logistic loss of labels folded into x."""
    return np.mean(softplus(x @ w))


def naive_loss(w, x):
    return np.mean(np.log(1.0 + np.exp(x @ w)))


def main() -> None:
    print("Generated reverse-mode derivative of loss (softplus stays one call):\n")
    text = srcad.source(loss, wrt="w")
    print(text)
    assert "softplus(" in text and "np.tanh(0.5 * " in text

    print("Generated forward-mode derivative:\n")
    print(srcad.source(loss, wrt="w", mode="forward"))

    x = np.array([[1.0, 2.0], [-3.0, 0.5], [0.5, -1.0]])
    w = np.array([0.3, -0.2])
    grad, naive_grad = srcad.grad(loss, wrt="w"), srcad.grad(naive_loss, wrt="w")
    print(f"small scores: grad = {grad(w, x)}, naive grad = {naive_grad(w, x)}")
    assert np.allclose(grad(w, x), naive_grad(w, x), rtol=1e-12)

    big = 4000.0 * w   # scores -400, -4000 and 1400: exp(1400) overflows
    with np.errstate(over="ignore", invalid="ignore"):
        naive, naive_value = naive_grad(big, x), naive_loss(big, x)
    stable = grad(big, x)
    print(f"large scores: loss = {loss(big, x):.4f}, naive loss = {naive_value}")
    print(f"              grad = {stable}, naive grad = {naive}")
    assert np.all(np.isfinite(stable)) and not np.all(np.isfinite(naive))
    # with scores this large, softplus'(s) is 1 for s > 0 and 0 for s < 0
    expected = np.mean(x * (x @ big > 0)[:, None], axis=0)
    assert np.allclose(stable, expected)
    jvp = srcad.autodiff(loss, wrt="w", mode="forward")
    v = np.array([1.0, 0.0])
    print(f"forward mode agrees with reverse: {jvp(big, x, v):.6f} == {stable @ v:.6f}")
    assert np.isclose(jvp(big, x, v), stable @ v)


if __name__ == "__main__":
    main()
