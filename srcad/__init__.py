"""srcad: derivatives of Python and NumPy functions, by rewriting their source.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(np.tanh(x) ** 2)
    >>> srcad.grad(f)(np.zeros(3))
    array([0., 0., 0.])

The house, in layers from the bottom up.  A module imports only modules of
its own layer or of the layers below it, and no imports go round in a
circle (``tests/test_layers.py`` holds the code to this list):

1. ``errors``, ``version``, ``config``, ``user_warnings``: the error classes, the version, the run-time settings and warnings placed at the user's line, used by every layer
2. ``runtime/``: what generated code imports at run time, one module per family of helpers
3. ``templates``, ``operators``, ``grad_templates/``: the rule registry, the operators rules are keyed by, and the built-in rules
4. ``frontend/``: the user's source read and parsed, gast helpers, names, emitted Python, loaded modules
5. ``analysis/``: facts about trees that several passes share (blocks, shapes, expressions)
6. ``passes/``: one module per pass, and the pieces reverse and forward mode share
7. ``pipeline``: the order passes run in, as data, and the driver that runs them
8. ``kernels/``: index-notation kernels, a small compiler of their own
9. ``api``, ``backends/``, ``derivative``, ``derivative_hooks``, ``general_call``, ``call_entry``, ``examined_call``, ``pickling``, ``arguments``, ``calling``, ``cache``, ``dependencies``, ``variants``, ``overflow``, ``shared_arguments``, ``transforms``, ``checking``, ``verify``, ``trees``, ``optim``, ``display``, ``rule_comments``, ``view``, ``__init__``: the public API
10. ``cli``, ``cli_show``, ``cli_targets``, ``cli_templates``, ``doctor``, ``__main__``: the command line

From ``pipeline.py`` a reader reaches a rule in three hops: the pipeline names
the pass (``passes/reverse.py``), the pass hands each statement to
``passes/derivatives.py``, and that looks the rule up in the registry
(``templates.lookup``), which ``grad_templates/`` filled.
"""
import importlib
from typing import TYPE_CHECKING, Any

from .api import Derivative, autodiff, grad, source
from .transforms import hessian, hvp, jacobian, jvp, value_and_grad, vjp
from .checking import check_grads
from .config import config
from . import verify as _verify  # the verify switch: srcad.config.verify
from . import calling as _calling  # derivatives called per object, per container, per number of arguments
from .runtime import insert_grad_of, stop_gradient
from .errors import (AliasingError, ComplexError, MissingTemplateError, SeedError, SourceUnavailableError,
                     SrcadError, StaleSourceError, UnsupportedSyntaxError, VerificationError, WrtError)
from .templates import adjoint, d, nondifferentiable, tangent
from .version import __version__
from .trees import register_container
import grad_templates as _grad_templates  # registers the built-in rules
from .passes import checkpoints as _checkpoints  # registers its rules; the other passes load lazily

if TYPE_CHECKING:   # type checkers see the names (and no __getattr__, so a misspelt name is an error)
    from . import optim
    from .view import show
else:
    _LAZY = {"optim": ("optim", None), "show": ("view", "show")}   # name -> (module, attribute)

    def __getattr__(name: str) -> Any:
        """``srcad.optim`` and ``srcad.show``, imported on first use (``import srcad`` stays cheap)."""
        if name not in _LAZY:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        module_name, attribute = _LAZY[name]
        module = importlib.import_module(f"{__name__}.{module_name}")
        return module if attribute is None else getattr(module, attribute)


__all__ = ["grad", "value_and_grad", "autodiff", "vjp", "jvp", "jacobian", "hessian", "hvp", "stop_gradient",
           "insert_grad_of", "source", "Derivative", "adjoint", "tangent", "nondifferentiable", "d", "check_grads",
           "SrcadError", "UnsupportedSyntaxError", "AliasingError", "SourceUnavailableError", "StaleSourceError",
           "MissingTemplateError", "WrtError", "SeedError", "ComplexError", "VerificationError", "config",
           "register_container", "optim", "show", "__version__"]
