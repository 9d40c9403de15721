"""A user's module, fully annotated, that calls every name ``srcad.__all__`` exports; ``mypy --strict`` passes it.

tests/test_types.py runs mypy on this file (and runs it with Python too, so every call here is real).
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np
import numpy.typing as npt

import srcad
from srcad import (AliasingError, ComplexError, Derivative, MissingTemplateError, SeedError,
                   SourceUnavailableError, SrcadError, StaleSourceError, UnsupportedSyntaxError, VerificationError,
                   WrtError)

Array = npt.NDArray[np.float64]


def loss(w: Array, x: Array) -> Any:
    return np.sum(np.tanh(x @ w) ** 2)


def clipped(w: Array) -> Any:
    with srcad.insert_grad_of(w) as dw:
        dw = np.clip(dw, -1.0, 1.0)
    return np.sum(srcad.stop_gradient(w) * w)


def softsign(x: Array) -> Array:
    result: Array = x / (1.0 + np.abs(x))
    return result


@srcad.adjoint(softsign)
def softsign_adjoint(y: Array, x: Array) -> None:
    srcad.d[x] = srcad.d[y] / (1.0 + np.abs(x)) ** 2


@srcad.tangent(softsign)
def softsign_tangent(y: Array, x: Array) -> None:
    srcad.d[y] = srcad.d[x] / (1.0 + np.abs(x)) ** 2


def rounded(x: Array) -> Array:
    result: Array = np.round(x)
    return result


srcad.nondifferentiable(rounded)


class Pair:
    def __init__(self, first: Array, second: Array) -> None:
        self.first, self.second = first, second


def flatten_pair(pair: Pair) -> Tuple[Dict[str, Any], Any]:
    return {"first": pair.first, "second": pair.second}, None


def unflatten_pair(aux: Any, fields: Dict[str, Any]) -> Pair:
    return Pair(fields["first"], fields["second"])


srcad.register_container(Pair, flatten_pair, unflatten_pair)

ERRORS: Tuple[type[SrcadError], ...] = (SrcadError, UnsupportedSyntaxError, AliasingError, SourceUnavailableError,
                                        StaleSourceError, MissingTemplateError, WrtError, SeedError, ComplexError,
                                        VerificationError)


def main() -> float:
    w, x = np.linspace(-1.0, 1.0, 3), np.linspace(0.0, 1.0, 6).reshape(2, 3)
    gradient: Derivative = srcad.grad(loss)
    dw: Array = gradient(w, x)
    value, dw_too = srcad.value_and_grad(loss)(w, x)
    reverse: Derivative = srcad.autodiff(loss, wrt="w", mode="reverse")
    out, pullback = srcad.vjp(loss, w, x)
    primal, tangent = srcad.jvp(loss, (w, x), (np.ones(3), np.zeros((2, 3))))
    jacobian: Array = srcad.jacobian(loss)(w, x)
    hessian: Array = srcad.hessian(lambda v: loss(v, x))(w)
    hvp: Array = srcad.hvp(lambda v: loss(v, x), w, np.ones(3))
    text: str = srcad.source(loss, wrt=("w",), mode="forward")
    page: str = srcad.show(loss, wrt=0, rules=True).html_page()
    srcad.check_grads(loss, (w, x), wrt=0)
    srcad.config.verify = False
    optimizer = srcad.optim.adam(lr=0.1)
    version: str = srcad.__version__
    assert all(issubclass(error, SrcadError) for error in ERRORS) and text and page and version and optimizer
    del value, dw_too, reverse, out, pullback, primal, tangent, jacobian, hessian, hvp
    return float(np.sum(dw)) + float(np.sum(srcad.grad(clipped)(w)))


if __name__ == "__main__":
    print(main())
