"""Every built-in rule (those in grad_templates/), in both modes, against finite differences (driven by ``specs.SPECS``).

Contract:
- ``test_reverse``: for every row and shape case, the VJP with respect to all
  arguments at once matches finite differences along random directions, each
  gradient has its argument's shape and dtype, and (small scalar outputs) the
  full gradient matches a per-element finite difference.
- ``test_forward``: the JVP matches the finite-difference directional derivative.
- ``test_forward_reverse``: ``<u, Jv> = <J^T u, v>`` to relative 1e-10.
- ``test_values``: the output ``value_and_grad``, ``vjp`` and ``jvp`` return
  is ``f(*args)``.
- ``test_every_primal_has_a_row``: each primal registered in either mode (by
  anything but the tests themselves) has a row, so a new rule without a row
  fails here.
- ``test_rows_use_their_primal``: each row's expression really calls (or spells
  with an operator) the primal the row names.
- ``test_second_order``: on the cases named in ``ORDER2_IDS`` (every family;
  ``tests/test_higher_order.py`` differentiates every row twice as well),
  ``srcad.check_grads(order=2)`` in both modes: srcad's derivative functions,
  differentiated by finite differences, match second-order finite
  differences of the function.
"""
import inspect
import os

import numpy as np
import pytest

import srcad
from srcad import d
from srcad.templates import REGISTRY

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import (make_function, check_forward, check_forward_reverse, check_grad_full, check_reverse,
                       check_values)
from specs import SPECS, cases, primal_label, primals_used

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
CASES = cases(SPECS)
IDS = [case.id for case in CASES]


def test_case_ids_are_unique():
    duplicates = sorted({i for i in IDS if IDS.count(i) > 1})
    assert not duplicates, f"rows with the same id: {duplicates}; give them distinct tags"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_reverse(case):
    args = case.inputs()
    check_reverse(case.function, args)
    output = case.function(*args)
    if not isinstance(output, (tuple, list)) and np.ndim(output) == 0 and sum(np.size(a) for a in args) <= 12:
        check_grad_full(case.function, args)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward(case):
    check_forward(case.function, case.inputs())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_reverse(case):
    check_forward_reverse(case.function, case.inputs())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values(case):
    check_values(case.function, case.inputs())


def _defined_in_tests(rule) -> bool:
    """Rules that tests (or the examples they run) register for their own purposes need no row."""
    return os.path.dirname(os.path.abspath(rule.__code__.co_filename)) in (TESTS_DIR, EXAMPLES_DIR)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_every_primal_has_a_row(mode):
    covered = {id(spec.primal) for spec in SPECS}
    missing = [primal_label(t.primal) for t in REGISTRY.rules[mode].values()
               if not _defined_in_tests(t.rule) and id(t.primal) not in covered]
    assert not missing, f"{mode}-mode rules without a row in tests/specs.py: {missing}"


@pytest.mark.parametrize("spec", SPECS, ids=[f"{s.label}:{s.expr}" for s in SPECS])
def test_rows_use_their_primal(spec):
    used = primals_used(spec.expr)
    assert any(p is spec.primal for p in used), (
        f"the row {spec.label} claims to test {spec.primal!r} but {spec.expr!r} uses {used}")


def test_rows_have_a_rule():
    for spec in SPECS:
        assert any(t.primal is spec.primal for t in REGISTRY.rules["reverse"].values()), (
            f"the row {spec.label} tests {spec.primal!r}, which has no reverse-mode rule")


def test_make_function_gives_readable_source():
    """Spec functions are built from text; inspect (and so srcad) must read that text back."""
    text = "def f_probe(x, y):\n    return np.sum(x * y)\n"
    function = make_function(text, {"np": np})
    assert inspect.getsource(function) == text
    assert "def df_probe(x, y" in srcad.source(function, wrt=(0, 1))


# The checks themselves must fail on a wrong rule (else every test above is vacuous).

def _probe(x):
    return np.sin(x)


def _probe_adjoint(y, x):
    d[x] = d[y] * np.cos(x)


def _probe_adjoint_off_by_1e5(y, x):
    d[x] = d[y] * np.cos(x) * 1.00001


def _probe_tangent_off_by_1e5(y, x):
    d[y] = d[x] * np.cos(x) * 1.00001


def _uses_probe(x):
    return _probe(x) * 2.0


def _sums_probe(x):
    return np.sum(_probe(x))


@pytest.fixture
def probe_rules():
    """Register rules for ``_probe`` for one test, then remove them."""
    yield lambda adjoint, tangent: (srcad.adjoint(_probe)(adjoint), srcad.tangent(_probe)(tangent))
    for mode in ("reverse", "forward"):
        REGISTRY.rules[mode].pop(_probe, None)
    REGISTRY.version += 1


def test_checks_catch_a_slightly_wrong_rule(probe_rules):
    probe_rules(_probe_adjoint_off_by_1e5, _probe_tangent_off_by_1e5)
    args = (np.linspace(0.1, 0.9, 3),)
    for check in (check_reverse, check_forward):
        with pytest.raises(AssertionError, match="finite differences"):
            check(_uses_probe, args)
    with pytest.raises(AssertionError, match="finite differences"):
        check_grad_full(_sums_probe, args)


def test_agreement_check_catches_modes_that_disagree(probe_rules):
    probe_rules(_probe_adjoint, _probe_tangent_off_by_1e5)
    with pytest.raises(AssertionError, match="disagree"):
        check_forward_reverse(_uses_probe, (np.linspace(0.1, 0.9, 3),))


# Second derivatives, on a subset of rows: srcad's derivative functions, differentiated by finite
# differences, must match second-order finite differences of the function (see srcad/checking.py).

ORDER2_IDS = [
    "op.mul-(2,3)x(2,3)", "op.truediv-(3,1)x(1,4)", "op.pow-(3,)x(3,)", "np.exp-(3,)", "np.log1p-(2,3)",
    "np.logaddexp-(5,)x(2,5)", "np.sqrt-(3,)", "np.arctan2-(3,)x(3,)", "np.tanh-(2,3)", "np.arcsin-(3,)",
    "math.sin-float", "math.log-base-float", "np.sum-axis1-(3,4)", "np.prod-axis1-(2,3)",
    "np.var-axis0-ddof-(3,2)", "np.std-(2,3)", "np.cumprod-(4,)", "np.linalg.norm-(2,3)",
    "op.matmul-(2,3)x(3,4)", "np.einsum-three-(2,3)x(3,4)x(4,)", "np.tensordot-pairs-(2,3,4)x(3,4,2)",
    "np.kron-(2,2)x(2,3)", "np.linalg.inv-(3,3)", "np.linalg.solve-(3,3)x(3,)", "np.linalg.det-(3,3)",
    "np.linalg.slogdet-(3,3)", "np.linalg.cholesky-(3,3)", "np.linalg.eigh-values-(3,3)",
    "np.linalg.svd-values-only-(3,2)", "np.linalg.pinv-(3,2)", "np.concatenate-(2,)x(3,)",
    "np.pad-constant-values-(3,)xfloat", "op.getitem-fancy-repeated-(3,2)", "np.array-nested-floatxfloat",
    "special.softmax-axis1-(2,3)", "special.log_softmax-(3,)", "special.logsumexp-weights-(3,)x(3,)",
    "special.expit-(3,)", "special.xlogy-(3,)x(3,)",
    # NumPy breadth (issue 20)
    "np.rollaxis-negative-start-(2,3,4)", "np.partition-kths-axis0-(4,3)", "np.append-(2,2)x(3,)",
    "np.select-(2,3)x(3,)x()", "np.nan_to_num-replacements-(2,3)x(2,3)x()", "np.nancumprod-(2,3)x(2,3)",
    "np.diff-both-(2,3)x(2,1)x()", "np.gradient-both-axes-(3,4)xfloatx(4,)", "np.trapezoid-x-axis0-(3,2)x(3,2)",
    "np.interp-left-right-(2,3)x(4,)x()", "np.polyval-(1,)x(2,3)", "np.cross-axes-(3,2,2)x(2,3)",
    "np.convolve-same-(2,)x(4,)", "np.correlate-same-(2,)x(5,)", "np.tensordot-negative-(2,3,4)x(3,2,4)",
    "np.linalg.eig-(3,3)x(3,3)", "np.linalg.eigvals-(3,3)x(3,3)", "np.linalg.qr-(2,4)",
    "np.linalg.lstsq-all-(4,2)x(4,3)", "np.linalg.pinv-hermitian-lower-(3,3)",
    "np.linalg.matrix_power-negative-(3,3)",
]


def _order2_cases():
    by_id = {case.id: case for case in CASES}
    wanted = [i for i in ORDER2_IDS if special_installed() or not i.startswith("special.")]
    missing = [i for i in wanted if i not in by_id]
    assert not missing, f"ORDER2_IDS names cases that do not exist: {missing}"
    return [by_id[i] for i in wanted]


def special_installed() -> bool:
    from specs import special
    return special is not None


@pytest.mark.parametrize("case", _order2_cases(), ids=lambda case: case.id)
def test_second_order(case):
    srcad.check_grads(case.function, case.inputs(), order=2, trials=1)
