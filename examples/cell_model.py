"""A MindSpore-style network, differentiated with respect to its input and to its own weights.

MindSpore builds a network as a ``Cell``: ``__init__`` stores the operations
and layers as attributes (``self.sin = ops.Sin()``) and ``construct`` calls
them.  The same class written with NumPy is differentiated by srcad as it
is: ``self.sin(x)`` is resolved to ``np.sin`` when the derivative is built
(and watched: rebinding ``net.sin`` gives a new derivative on the next
call), the dense layer's ``__call__`` is inlined, and ``wrt`` names the
weights as attributes (``'self.dense.W'``), as MindSpore's
``GradOperation(get_by_list=True)`` takes a network's parameters.

Run it with ``python examples/cell_model.py``: every derivative is checked
against central finite differences, and the generated code is printed.
"""
import numpy as np

import srcad


class Dense:
    """``y = x @ W + b``: a layer holding its weights."""

    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return x @ self.W + self.b


class Net:
    """``construct`` calls the operations and the layer ``__init__`` stored."""

    def __init__(self, rng):
        self.sin = np.sin
        self.cos = np.cos
        self.dense = Dense(rng.normal(size=(3, 2)), rng.normal(size=2))

    def construct(self, x):
        h = self.sin(x) * self.cos(x)
        return np.tanh(self.dense(h))


def finite_difference(function, value, direction, eps=1e-6):
    """(f(value + eps d) - f(value - eps d)) / 2 eps, moving ``value`` in place and putting it back."""
    original = value.copy()
    value += eps * direction
    plus = function()
    value[...] = original - eps * direction
    minus = function()
    value[...] = original
    return (plus - minus) / (2 * eps)


def check(label, srcad_value, expected, against="finite differences"):
    assert np.allclose(srcad_value, expected, rtol=1e-6, atol=1e-8), (label, srcad_value, expected)
    print(f"{label:<40} {np.round(np.ravel(srcad_value)[:3], 6)}  agrees with {against}")


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    net = Net(rng)
    x = rng.normal(size=(4, 3))
    out = net.construct(x)
    sens = rng.normal(size=out.shape)       # MindSpore's sens_param: the seed of the backward pass
    W, b = net.dense.W, net.dense.b

    # GradOperation(sens_param=True)(net)(x, sens): the gradient with respect to the input
    dx = srcad.autodiff(net.construct)(x, sens)
    direction = rng.normal(size=x.shape)
    check("d<sens, construct(x)>/dx . v", np.sum(dx * direction),
          finite_difference(lambda: np.sum(sens * net.construct(x)), x, direction))

    # GradOperation(get_by_list=True, sens_param=True)(net, weights)(x, sens): the weights' gradients
    dW, db = srcad.autodiff(net.construct, wrt=("self.dense.W", "self.dense.b"))(x, sens)
    for name, gradient, weight in (("W", dW, W), ("b", db, b)):
        direction = rng.normal(size=weight.shape)
        check(f"d<sens, construct(x)>/d{name} . v", np.sum(gradient * direction),
              finite_difference(lambda: np.sum(sens * net.construct(x)), weight, direction))

    # get_all=True and get_by_list=True together: the input's gradient, then the weights'
    dx_all, dW_all = srcad.autodiff(net.construct, wrt=("x", "self.dense.W"))(x, sens)
    check("the same, asked for together", np.concatenate([dx_all.ravel(), dW_all.ravel()]),
          np.concatenate([dx.ravel(), dW.ravel()]), "the two calls above")

    # wrt="self": the whole network's float fields, as a network of the same class
    grads = srcad.autodiff(net.construct, wrt="self")(x, sens)
    assert isinstance(grads, Net) and isinstance(grads.dense, Dense) and grads.sin is np.sin
    check("wrt='self': grads.dense.W", grads.dense.W, dW, "wrt='self.dense.W'")

    # forward mode: jvp with respect to the input and the weights together
    tx, tW = rng.normal(size=x.shape), rng.normal(size=W.shape)
    jvp = srcad.autodiff(net.construct, wrt=("x", "self.dense.W"), mode="forward")(x, tx, tW)
    expected = (finite_difference(lambda: net.construct(x), x, tx)
                + finite_difference(lambda: net.construct(x), W, tW))
    check("jvp along (tx, tW)", jvp, expected)

    # ops.vjp(fn, x) and ops.jvp(fn, x, v)
    value, pullback = srcad.vjp(net.construct, x)
    check("vjp(construct, x)[1](sens)", pullback(sens)[0], dx, "autodiff")
    value, tangent = srcad.jvp(net.construct, (x,), (tx,))
    check("jvp(construct, (x,), (tx,))", tangent, finite_difference(lambda: net.construct(x), x, tx))

    # the operations are watched: rebinding one gives the new derivative on the next call
    net.cos = np.exp
    direction = rng.normal(size=x.shape)
    check("after net.cos = np.exp", np.sum(srcad.autodiff(net.construct)(x, sens) * direction),
          finite_difference(lambda: np.sum(sens * net.construct(x)), x, direction))
    net.cos = np.cos

    print()
    print(srcad.source(net.construct, wrt=("self.dense.W", "self.dense.b")))
