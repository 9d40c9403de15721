"""The transformation API on one small model: every call, with what it returns.

Run it:

    python examples/transformations.py

It prints, for ``predict`` (a tanh layer over a dict of parameters):
value_and_grad with respect to a dict (a dict of gradients comes back),
wrt by name, vjp with a dict seed for a dict output, jvp with dict tangents,
jacobian in the three modes, hessian and hvp, has_aux, stop_gradient, a
custom rule and a function declared non-differentiable, and the generated
code of one of them.
"""
import numpy as np

import srcad

X = np.array([[0.5, -1.0, 0.25], [1.5, 0.5, -0.5]])
Y = np.array([0.3, -0.2])


def predict(params, x):
    hidden = np.tanh(x @ params["W"] + params["b"])
    return {"mean": hidden @ params["v"], "hidden": hidden}


def loss(params, x, y):
    out = predict(params, x)
    return np.sum((out["mean"] - y) ** 2)


def loss_with_aux(params, x, y):
    out = predict(params, x)
    residual = out["mean"] - y
    return np.sum(residual ** 2), {"max_error": np.max(np.abs(residual))}


def damped(params, x, y):
    # the data term's gradient flows; the scale is held constant
    scale = srcad.stop_gradient(np.sum(params["v"] ** 2))
    return loss(params, x, y) / (1.0 + scale)


def bumpy(z):
    return np.sum(np.sin(z) * z ** 2)


def softsign(t):
    return t / (1.0 + abs(t))


@srcad.adjoint(softsign)
def softsign_adjoint(y, t):
    srcad.d[t] = srcad.d[y] / (1.0 + abs(t)) ** 2


@srcad.tangent(softsign)
def softsign_tangent(y, t):
    srcad.d[y] = srcad.d[t] / (1.0 + abs(t)) ** 2


def squashed(z):
    return np.sum(softsign(z) * np.round(z))


def main():
    rng = np.random.default_rng(0)
    params = {"W": rng.standard_normal((3, 4)) / 2, "b": np.zeros(4), "v": rng.standard_normal(4)}
    results = {}

    value, grads = srcad.value_and_grad(loss)(params, X, Y)
    print("value_and_grad: loss", round(float(value), 6), "gradient keys", sorted(grads))
    results["grads"] = grads

    d_x = srcad.grad(loss, wrt="x")(params, X, Y)          # wrt by name
    print("grad wrt 'x': shape", d_x.shape)
    results["d_x"] = d_x

    out, pullback = srcad.vjp(predict, params, X)
    seed = {"mean": np.ones(2), "hidden": np.zeros((2, 4))}   # shaped like the output
    d_params, d_inputs = pullback(seed)
    print("vjp with a dict seed: d_params keys", sorted(d_params), "d_x shape", d_inputs.shape)
    results["vjp"] = (d_params, d_inputs)

    tangent_params = {"W": np.ones((3, 4)), "b": np.zeros(4), "v": np.zeros(4)}
    _, tangent = srcad.jvp(predict, (params, X), (tangent_params, np.zeros_like(X)))
    print("jvp: tangent of 'mean'", np.round(tangent["mean"], 6))
    results["jvp"] = tangent

    z = np.array([0.3, -1.2, 2.0])
    for mode in ("forward", "reverse", "auto"):
        jac = srcad.jacobian(bumpy_vector, mode=mode)(z)
        print(f"jacobian ({mode}): shape {jac.shape}")
        results[f"jacobian_{mode}"] = jac
    results["hessian"] = srcad.hessian(bumpy)(z)
    results["hvp"] = srcad.hvp(bumpy, z, np.array([1.0, 0.0, 0.0]))
    print("hessian diagonal", np.round(np.diag(results["hessian"]), 6), "hvp", np.round(results["hvp"], 6))

    (value, aux), _ = srcad.value_and_grad(loss_with_aux, has_aux=True)(params, X, Y)
    print("has_aux: max error", round(float(aux["max_error"]), 6))
    results["aux"] = aux

    results["damped"] = srcad.grad(damped)(params, X, Y)
    print("stop_gradient: d/dv of the damped loss", np.round(results["damped"]["v"], 6))

    results["custom"] = srcad.grad(squashed)(z)
    print("custom rule for softsign, np.round non-differentiable:", np.round(results["custom"], 6))

    print("\nthe reverse-mode derivative of bumpy:\n")
    print(srcad.source(bumpy))
    return results


def bumpy_vector(z):
    return np.sin(z) * z ** 2


if __name__ == "__main__":
    main()
