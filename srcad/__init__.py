"""srcad: derivatives of Python and NumPy functions, by rewriting their source.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(np.tanh(x) ** 2)
    >>> srcad.grad(f)(np.zeros(3))
    array([0., 0., 0.])
"""
from .api import Derivative, autodiff, grad, source, stop_gradient
from .transforms import hessian, hvp, jacobian, jvp, value_and_grad, vjp
from .checking import check_grads
from .hooks import insert_grad_of
from .errors import (MissingTemplateError, SeedError, SourceUnavailableError, SrcadError,
                     UnsupportedSyntaxError, WrtError)
from .templates import adjoint, d, nondifferentiable, tangent
from .version import __version__
from . import optim
import grad_templates as _grad_templates  # registers the built-in rules

__all__ = ["grad", "value_and_grad", "autodiff", "vjp", "jvp", "jacobian", "hessian", "hvp", "stop_gradient", "insert_grad_of", "source", "Derivative", "adjoint", "tangent", "nondifferentiable", "d",
           "check_grads", "SrcadError", "UnsupportedSyntaxError", "SourceUnavailableError", "MissingTemplateError",
           "WrtError", "SeedError", "__version__"]
