"""SciPy's rules beyond the spec table: when they register, what they refuse, how they read packed factors.

Contract:
- Importing srcad imports no SciPy module; a SciPy module's rules register
  when it is imported (before or after srcad), and srcad works without SciPy
  at all (each checked in a fresh interpreter).
- Arguments a rule does not declare (``overwrite_b``, ``eigh``'s ``b``) and a
  Bessel function's order carrying a derivative are refused at the user's line; a complex ``sqrtm`` (a matrix with negative
  eigenvalues) raises ``ComplexError`` instead of giving a derivative.
- Factors unpacked into names (``c, low = cho_factor(a)``) and a ``lower``
  flag held in a variable are differentiated in both modes.
- ``scipy.stats``: ``logpdf`` outside the support has zero derivatives (and
  no warnings); ``t.cdf`` at its centre and ``logcdf`` far in a tail have
  finite derivatives; ``multivariate_normal.cdf`` and frozen distributions
  are errors.
- Every SciPy row of the spec table with several arguments is checked with
  respect to each argument alone, in both modes.
- ``solve_ivp`` without ``t_eval`` differentiates at the solver's steps held
  fixed; solver options with no rule (``full_output``, ``dense_output``) and
  ``res.y`` on a differentiated result are errors.
"""
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function
from specs import SPECS, cases

linalg = pytest.importorskip("scipy.linalg")

REPO = Path(__file__).resolve().parent.parent


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter that imports this checkout; return its stdout."""
    env = dict(os.environ, PYTHONPATH=str(REPO), SRCAD_CACHE="0")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_importing_srcad_imports_no_scipy_and_rules_register_on_import():
    out = run_python("""
        import sys
        import srcad
        from srcad.templates import REGISTRY
        print("scipy" in sys.modules)
        from scipy import linalg
        print(any(t.primal is linalg.expm for t in REGISTRY.rules["reverse"].values()))
    """)
    assert out.split() == ["False", "True"]


def test_rules_of_modules_imported_before_srcad_register_too():
    out = run_python("""
        from scipy import special
        import srcad
        from srcad.templates import REGISTRY
        print(any(t.primal is special.expit for t in REGISTRY.rules["forward"].values()))
    """)
    assert out.split() == ["True"]


def test_srcad_works_without_scipy(tmp_path):
    (tmp_path / "model.py").write_text("import numpy as np\n\ndef f(x):\n    return np.sum(np.sin(x))\n")
    out = run_python(f"""
        import sys
        sys.modules["scipy"] = None          # as if SciPy were not installed
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, srcad, model
        from grad_templates import optional
        print(optional.load_all(), srcad.grad(model.f)(np.zeros(2)))
    """)
    assert out.split() == ["[]", "[1.", "1.]"]


# packed factors, flags and refusals ------------------------------------------------------------------------

FACTOR_TEXT = """def solve_twice(a, b):
    c, low = linalg.cho_factor(a, lower=True)
    x = linalg.cho_solve((c, low), b)
    lu, piv = linalg.lu_factor(a)
    z = linalg.lu_solve((lu, piv), x, trans=1)
    return np.sum(z * x) + np.sum(linalg.solve_triangular(c, z, lower=low))
"""

FLAG_TEXT = """def cholesky_with_flag(a, flag):
    return np.sum(linalg.cholesky(a, lower=flag) ** 3)
"""


def _spd(n, seed=0):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


@pytest.mark.parametrize("check", [check_reverse, check_forward, check_forward_reverse])
def test_unpacked_factors_and_their_flag(check):
    f = make_function(FACTOR_TEXT, {"np": np, "linalg": linalg})
    check(f, (_spd(3), np.random.default_rng(1).standard_normal(3)))


@pytest.mark.parametrize("flag", [True, False])
def test_lower_held_in_a_variable(flag):
    f = make_function(FLAG_TEXT, {"np": np, "linalg": linalg})
    for check in (check_reverse, check_forward):
        check(f, (_spd(3), flag), wrt=0)


@pytest.mark.parametrize("text, words", [
    ("def f(a, b):\n    return np.sum(linalg.solve_triangular(a, b, overwrite_b=True))\n", "overwrite_b"),
    ("def f(a, b):\n    return np.sum(linalg.eigh(a, b)[0])\n", "linalg.eigh"),
    ("def f(a, b):\n    return np.sum(linalg.inv(a, overwrite_a=True) @ b)\n", "overwrite_a"),
])
def test_arguments_without_a_rule_are_refused_at_their_line(text, words):
    f = make_function(text, {"np": np, "linalg": linalg})
    with pytest.raises(srcad.SrcadError, match=words) as caught:
        srcad.grad(f, wrt=(0, 1))(_spd(2), _spd(2))
    assert ":2:" in str(caught.value)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_sylvester_right_hand_side_that_is_a_number_is_refused(mode):
    """SciPy reads a number q as q times its Schur vectors: no derivative srcad can give, even in a and b."""
    f = make_function("def f(a, b):\n    return np.sum(linalg.solve_sylvester(a, b, 2.0))\n",
                      {"np": np, "linalg": linalg})
    derivative = srcad.autodiff(f, wrt=(0, 1), mode=mode)
    with pytest.raises(srcad.SrcadError, match="right-hand side q of shape"):
        derivative(_spd(2), _spd(2, 1), 1.0) if mode == "reverse" else derivative(_spd(2), _spd(2, 1), np.eye(2),
                                                                                  np.eye(2))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_complex_square_root_is_refused(mode):
    f = make_function("def f(a):\n    return np.sum(np.abs(linalg.sqrtm(a)))\n", {"np": np, "linalg": linalg})
    a = np.array([[-2.0, 0.3], [0.1, 1.0]])   # one negative eigenvalue: the root is complex
    derivative = srcad.autodiff(f, mode=mode)
    with pytest.raises(srcad.ComplexError, match="sqrtm returned a complex matrix"):
        derivative(a, 1.0) if mode == "reverse" else derivative(a, np.ones((2, 2)))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_bessel_order_carrying_a_derivative_is_refused(mode):
    special = pytest.importorskip("scipy.special")
    f = make_function("def f(v, x):\n    return special.jv(v, x) + special.kv(1.5, x)\n", {"special": special})
    srcad.check_grads(f, (0.5, 1.2), wrt=1, modes=(mode,))      # the order is not differentiated: fine
    with pytest.raises(srcad.SrcadError, match="not differentiated with respect to its argument `v`") as caught:
        srcad.autodiff(f, wrt=(0, 1), mode=mode)(0.5, 1.2, 1.0, *((1.0,) if mode == "forward" else ()))
    assert ":2:" in str(caught.value)


# scipy.stats -----------------------------------------------------------------------------------------------

stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_logpdf_outside_the_support_has_zero_derivatives_and_no_warnings(mode):
    f = make_function("def f(x, a):\n    return stats.gamma.logpdf(x, a) + stats.beta.logpdf(x, a, 2.0) "
                      "+ stats.chi2.logpdf(x, a)\n", {"stats": stats})
    derivative = srcad.autodiff(f, wrt=(0, 1), mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = derivative(-0.5, 1.5, 1.0) if mode == "reverse" else derivative(-0.5, 1.5, 1.0, 1.0)
    assert np.all(np.asarray(result) == 0.0)


def test_t_cdf_at_its_centre_and_logcdf_far_in_the_tail():
    f = make_function("def f(x, df):\n    return stats.t.cdf(x, df) + stats.t.logcdf(x - 40.0, df) "
                      "+ stats.norm.logcdf(x - 40.0)\n", {"stats": stats})
    srcad.check_grads(f, (0.0, 2.5))
    gradient = srcad.grad(f, wrt=(0, 1))(0.0, 2.5)
    assert np.all(np.isfinite(gradient))


def test_multivariate_normal_cdf_is_refused():
    f = make_function("def f(m):\n    return stats.multivariate_normal.cdf(np.ones(2), m, np.eye(2))\n",
                      {"np": np, "stats": stats})
    with pytest.raises(srcad.SrcadError, match="quasi-Monte Carlo"):
        srcad.grad(f)(np.zeros(2))


def test_a_frozen_distribution_is_an_error_not_a_zero():
    f = make_function("def f(m):\n    return np.sum(stats.norm(m, 1.0).logpdf(np.ones(2)))\n",
                      {"np": np, "stats": stats})
    with pytest.raises(srcad.SrcadError):
        srcad.grad(f)(0.5)


# every SciPy row with several arguments, each argument alone (a rule must stand without the others' derivatives)

SCIPY_CASES = [case for case in cases(SPECS) if case.spec.label.startswith(("scipy.", "special.", "gammainc", "gamma_density", "beta"))
               and len(case.spec.arguments) > 1]


@pytest.mark.parametrize("case", SCIPY_CASES, ids=[case.id for case in SCIPY_CASES])
def test_each_argument_alone(case):
    args = case.inputs()
    for position in range(len(args)):
        check_reverse(case.function, args, wrt=position, trials=1)
        check_forward(case.function, args, wrt=position, trials=1)


# scipy.integrate -------------------------------------------------------------------------------------------

integrate = pytest.importorskip("scipy.integrate")
IVP_TEXT = """def ivp_loss(y0, k, times):
    res = integrate.solve_ivp(ivp_rhs, (0.0, 2.0), y0, t_eval=times, args=(k,), rtol=1e-10, atol=1e-10)
    return np.sum(res["y"] ** 2)
"""


def ivp_rhs(t, y, k):
    return -k * y + np.sin(t) * np.tanh(y[::-1])


def test_solve_ivp_at_the_solvers_own_steps_treats_them_as_fixed_times():
    """Without t_eval the output times are the solver's steps: the gradient is the one at those times held
    fixed (t_eval=res.t), in both modes."""
    f = make_function(IVP_TEXT, {"np": np, "integrate": integrate, "ivp_rhs": ivp_rhs})
    y0, k = np.array([0.4, -0.3]), 1.3
    steps = integrate.solve_ivp(ivp_rhs, (0.0, 2.0), y0, args=(k,), rtol=1e-10, atol=1e-10).t
    free = srcad.grad(f, wrt=(0, 1))(y0, k, None)
    fixed = srcad.grad(f, wrt=(0, 1))(y0, k, steps)
    np.testing.assert_allclose(free[0], fixed[0], rtol=1e-12)
    assert free[1] == pytest.approx(fixed[1], rel=1e-12)
    forward = srcad.autodiff(f, wrt=(0, 1), mode="forward")(y0, k, None, np.array([1.0, 0.0]), 0.0)
    assert forward == pytest.approx(free[0][0], rel=1e-6)


def ivp_rhs_two(t, y, a, b):
    return -a * y + b * np.sin(t)


def test_solve_ivp_args_given_as_an_array():
    """solve_ivp unpacks any sequence of args (an array too); the gradient is an array then."""
    f = make_function("def f(y0, p):\n    res = integrate.solve_ivp(ivp_rhs_two, (0.0, 2.0), y0, method='DOP853', "
                      "t_eval=[0.5, 2.0], args=p, rtol=1e-12, atol=1e-12)\n    return np.sum(res['y'] ** 2)\n",
                      {"np": np, "integrate": integrate, "ivp_rhs_two": ivp_rhs_two})
    args = (np.array([0.4, -0.3]), np.array([1.3, 0.7]))
    for check in (check_reverse, check_forward, check_forward_reverse):
        check(f, args)


@pytest.mark.parametrize("call", [
    "integrate.odeint(ivp_rhs, y0, np.linspace(0.0, 1.0, 3), args=(k,), tfirst=True, full_output=True)[0]",
    "integrate.solve_ivp(ivp_rhs, (0.0, 1.0), y0, args=(k,), dense_output=True)['y']",
])
def test_solver_options_without_a_rule_are_refused(call):
    f = make_function(f"def f(y0, k):\n    return np.sum({call})\n", {"np": np, "integrate": integrate,
                                                                     "ivp_rhs": ivp_rhs})
    with pytest.raises(srcad.SrcadError, match="do not match the rule") as caught:
        srcad.grad(f, wrt=(0, 1))(np.array([0.4, -0.3]), 1.3)
    assert ":2:" in str(caught.value)


def test_reading_solve_ivp_results_as_attributes_is_an_error():
    f = make_function("def f(k):\n    return np.sum(integrate.solve_ivp(ivp_rhs, (0.0, 1.0), np.ones(2), "
                      "args=(k,)).y)\n", {"np": np, "integrate": integrate, "ivp_rhs": ivp_rhs})
    with pytest.raises(srcad.SrcadError, match=r"reading `\.y`"):
        srcad.grad(f)(1.3)
