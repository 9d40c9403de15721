"""The functions autograd differentiates, by module: the reference ``srcad templates --missing`` checks against.

Contract:
- ``REFERENCE`` maps a module (``"numpy"``, ``"numpy.linalg"``,
  ``"scipy.stats"``...) to the names in it that autograd gives a derivative
  (a reverse rule; most also a forward one) or declares constant.  The
  lists were written by reading autograd's source (``numpy_vjps.py``,
  ``numpy_jvps.py``, ``numpy_wrapper.py``, ``linalg.py``, ``fft.py`` and the
  ``scipy`` package); a name in ``scipy.stats`` is ``distribution.method``.
  This module registers nothing.
- ``resolve(module, name)`` is the object the name stands for, or None when
  the module is not installed or this version has no such name (NumPy 2
  dropped ``msort`` and ``trapz``).
- ``missing()`` lists, per module, the names srcad covers in neither mode
  or in one only: a name is covered when it has a rule in a mode or is
  declared non-differentiable (and not refused with ``not_differentiated``).
  ``unavailable()`` lists the names that do not resolve here.

Example::

    >>> from grad_templates.reference import missing
    >>> missing()["numpy"]
    []
"""
from __future__ import annotations

import importlib
from typing import Dict, List, Optional, Tuple

from srcad.templates import FORWARD, REVERSE, is_nondifferentiable, lookup, refusal

_NUMPY_DIFFERENTIABLE = """
    abs absolute add amax amin angle append arccos arccosh arcsin arcsinh arctan arctan2 arctanh array array_split
    atleast_1d atleast_2d atleast_3d broadcast_to clip column_stack concatenate conj conjugate cos cosh cross cumsum
    deg2rad degrees diag diagonal diff divide dot dsplit einsum exp exp2 expand_dims expm1 fabs flipud fliplr fmax
    fmin full gradient hsplit hstack hypot imag inner kron linspace log log10 log1p log2 logaddexp logaddexp2 matmul
    max maximum mean min minimum mod moveaxis msort multiply nan_to_num negative outer pad partition power prod
    rad2deg radians ravel real real_if_close reciprocal remainder repeat reshape roll rollaxis rot90 row_stack
    select sin sinc sinh sort split sqrt square squeeze stack std subtract sum swapaxes tan tanh tensordot tile
    trace transpose tril triu true_divide var vsplit vstack where
"""
_NUMPY_CONSTANT = """
    all allclose any argmax argmin argpartition argsort argwhere around array_equal array_equiv ceil count_nonzero
    equal fix flatnonzero floor floor_divide greater greater_equal iscomplex iscomplexobj isclose isfinite isinf
    isnan isneginf isposinf isreal isscalar less less_equal logical_and logical_not logical_or logical_xor ndim
    nonzero not_equal ones_like result_type rint round searchsorted shape sign size trunc zeros_like
"""

REFERENCE: Dict[str, Tuple[str, ...]] = {
    "numpy": tuple(sorted(set((_NUMPY_DIFFERENTIABLE + _NUMPY_CONSTANT).split()))),
    "numpy.linalg": ("cholesky", "det", "eig", "eigh", "inv", "norm", "pinv", "slogdet", "solve", "svd"),
    "numpy.fft": ("fft", "fft2", "fftn", "fftshift", "ifft", "ifft2", "ifftn", "ifftshift", "irfft", "irfft2",
                  "irfftn", "rfft", "rfft2", "rfftn"),
    "scipy.special": ("beta", "betainc", "betaln", "digamma", "erf", "erfc", "erfcinv", "erfinv", "expit", "gamma",
                      "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i1", "iv", "ive", "j0", "j1", "jn",
                      "logit", "logsumexp", "multigammaln", "polygamma", "psi", "rgamma", "y0", "y1", "yn"),
    "scipy.linalg": ("solve_banded", "solve_sylvester", "solve_triangular", "sqrtm"),
    "scipy.signal": ("convolve",),
    "scipy.integrate": ("odeint",),
    "scipy.stats": ("beta.cdf", "beta.logpdf", "beta.pdf", "chi2.cdf", "chi2.logpdf", "chi2.pdf", "dirichlet.logpdf",
                    "dirichlet.pdf", "gamma.logpdf", "gamma.pdf", "multivariate_normal.entropy",
                    "multivariate_normal.logpdf", "multivariate_normal.pdf", "norm.cdf", "norm.isf", "norm.logcdf",
                    "norm.logpdf", "norm.logsf", "norm.pdf", "norm.ppf", "norm.sf", "poisson.cdf", "poisson.logpmf",
                    "poisson.pmf", "t.cdf", "t.logcdf", "t.logpdf", "t.pdf"),
}


def resolve(module: str, name: str) -> Optional[object]:
    """The object ``module.name`` (a dotted ``name`` reads attributes), or None if it is not available here.

    Example: ``resolve("numpy", "sin") is np.sin``.
    """
    try:
        value = importlib.import_module(module)
    except ImportError:
        return None
    for part in name.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _modes_covered(function) -> List[str]:
    if is_nondifferentiable(function) and refusal(function) is None:
        return [REVERSE, FORWARD]
    return [mode for mode in (REVERSE, FORWARD) if lookup(function, mode) is not None]


def missing() -> Dict[str, List[Tuple[str, str]]]:
    """Per module of ``REFERENCE``: ``(name, what is missing)`` for each name srcad does not cover in both modes,
    where what is missing is ``"no rule"``, ``"no reverse rule"`` or ``"no forward rule"``.

    Example: ``missing()["numpy.linalg"]`` is ``[]``.
    """
    result = {}
    for module, names in REFERENCE.items():
        gaps = []
        for name in names:
            function = resolve(module, name)
            if function is None:
                continue
            covered = _modes_covered(function)
            if not covered:
                gaps.append((name, "no rule"))
            elif len(covered) == 1:
                gaps.append((name, f"no {FORWARD if covered == [REVERSE] else REVERSE} rule"))
        result[module] = gaps
    return result


def unavailable() -> Dict[str, List[str]]:
    """Per module: the names of ``REFERENCE`` that do not resolve here (module not installed, name dropped).

    Example: ``unavailable()["numpy"]`` is ``['msort']`` on NumPy 2.
    """
    return {module: [name for name in names if resolve(module, name) is None] for module, names in REFERENCE.items()}
