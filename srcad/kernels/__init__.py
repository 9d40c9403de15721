"""Index-notation kernels: parse them, differentiate them, print Python or C++.

A kernel case is a JSON object ``{name, ins, outs, data_type, kernel,
grad_to}``; its kernel is index notation such as::

    A<8, 8>[i, j] = (B<10, 8>[i, j] + B<10, 8>[i + 1, j] + B<10, 8>[i + 2, j]) / 3.0;

Contract:
- ``generate(case, target="python"|"cpp", gather=True, vectorize=False,
  reassociate=False)`` returns the generated source text (deterministic,
  readable, commented with the statements it comes from).  ``case`` is a
  path, JSON text, a dict or an analysed ``Kernel``.  Values are evaluated
  in the order the kernel is written unless ``reassociate`` (``order.py``).
- ``load_python(case, ...)`` executes the generated Python module and
  returns its namespace (the forward kernel and the gradient by name).
- ``gradient_params(case)`` / ``forward_params(case)`` list the generated
  functions' parameters as ``(name, shape)`` pairs (shape ``()`` for a scalar).
- Errors are ``KernelError`` (a ``srcad.SrcadError``); text that does not
  parse raises ``KernelSyntaxError`` located at ``line:column``.

Example::

    >>> case = {"name": "scale", "ins": ["B"], "outs": ["A"], "data_type": "float",
    ...         "kernel": "A<3>[i] = 2.0 * B<3>[i];", "grad_to": ["B"]}
    >>> import numpy as np
    >>> ns = load_python(case); dB = np.ones(3); ns["scale"](np.ones(3), dB); dB
    array([2., 2., 2.])
"""
from __future__ import annotations

from typing import List, Tuple, Union

from .analysis import load_case
from .model import Kernel, KernelError, KernelSyntaxError

TARGETS = ("python", "cpp")
__all__ = ["generate", "load_python", "load_case", "gradient_params", "forward_params", "Kernel",
           "KernelError", "KernelSyntaxError", "TARGETS"]


def _kernel(case) -> Kernel:
    return case if isinstance(case, Kernel) else load_case(case)


def generate(case: Union[str, dict, Kernel], target: str = "python", gather: bool = True,
             vectorize: bool = False, reassociate: bool = False) -> str:
    """The generated source of ``case`` for ``target`` ('python' or 'cpp').

    Example::

        >>> print(generate({"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",
        ...                 "kernel": "A<2>[i] = B<2>[i];"}).splitlines()[-1])
                A[i] = B[i]
    """
    kernel = _kernel(case)
    if target == "python":
        from .emit_python import python_module
        return python_module(kernel, gather=gather, vectorize=vectorize, reassociate=reassociate)
    if target == "cpp":
        if vectorize:
            raise KernelError("--vectorize applies to the Python target only")
        from .emit_cpp import cpp_source
        return cpp_source(kernel, gather=gather, reassociate=reassociate)
    raise KernelError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")


def load_python(case: Union[str, dict, Kernel], gather: bool = True, vectorize: bool = False,
                reassociate: bool = False) -> dict:
    """Execute the generated Python module of ``case``; its namespace.

    Example::

        >>> sorted(k for k in load_python({"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",
        ...        "kernel": "A<2>[i] = B<2>[i];", "grad_to": ["B"]}) if k.startswith("k"))
        ['k', 'k_forward']
    """
    kernel = _kernel(case)
    source = generate(kernel, "python", gather=gather, vectorize=vectorize, reassociate=reassociate)
    namespace: dict = {"__name__": f"srcad_kernel_{kernel.name}"}
    exec(compile(source, f"<srcad kernel {kernel.name}>", "exec"), namespace)
    return namespace


def gradient_params(case: Union[str, dict, Kernel]) -> List[Tuple[str, Tuple[int, ...]]]:
    """``(name, shape)`` of each parameter of the gradient function, in order.

    Example::

        >>> gradient_params({"name": "k", "ins": ["A", "B"], "outs": ["C"], "data_type": "float",
        ...                  "kernel": "C<2>[i] = A<2>[i] * B<2>[i];", "grad_to": ["A"]})
        [('B', (2,)), ('dC', (2,)), ('dA', (2,))]
    """
    from .gradient import gradient_function
    return [(p.name, p.shape) for p in gradient_function(_kernel(case)).params]


def forward_params(case: Union[str, dict, Kernel]) -> List[Tuple[str, Tuple[int, ...]]]:
    """``(name, shape)`` of each parameter of the forward kernel: ``ins``, then the other ``outs``."""
    kernel = _kernel(case)
    return [(name, kernel.shapes.get(name, ())) for name in kernel.forward_params]
