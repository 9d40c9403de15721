"""Second-order checking of generated programs: forward over reverse against differences of the gradient.

Contract: ``check_second_order(program, seed)`` returns an ``Outcome`` (from
``fuzz_check``) for a program whose first-order check is ``"ok"`` and whose f
returns a scalar: ``srcad.jvp(srcad.grad(f, wrt=all), arguments, v)`` (a
Hessian-vector product, as JAX users write it) against the central difference
of ``srcad.grad(f)`` along ``v``, a random direction.  ``"ok"`` when they agree
to ``RTOL``; ``"skipped"`` when the first-order check is not ``"ok"``, f returns
an array, the gradient is not smooth along ``v`` (steps ``h`` and ``h/2``
disagree: a kink or a branch switch of the gradient), or a difference step
raises; ``"unsupported"``/``"refused"`` for a ``SrcadError`` (a rule srcad
differentiates once only is a documented refusal); ``"wrong"`` or ``"crash"``
otherwise.  The gradient used for the differences is srcad's own, checked
against f at first order by ``check_program`` first.

Example::

    outcome = check_second_order(program, seed)
    assert outcome.status in ("ok", "skipped", "unsupported", "refused")
"""
from __future__ import annotations

import traceback

import numpy as np

import srcad
from fuzz_check import REFUSALS, Outcome, build_module, check_program, random_arguments

RTOL = 1e-4
STEP = 1e-4


def _flat(values) -> np.ndarray:
    values = values if isinstance(values, tuple) else (values,)
    return np.concatenate([np.ravel(np.asarray(value, dtype=float)) for value in values])


def _moved(arguments, directions, h):
    return [a + h * d if isinstance(a, np.ndarray) else float(a + h * d) for a, d in zip(arguments, directions)]


def check_second_order(program, seed: int) -> Outcome:
    """See the module docstring."""
    if program.redefinition or program.must_refuse:
        return Outcome("skipped", "a redefinition or a refusal is checked at first order only")
    first = check_program(program, seed)
    if first.status != "ok":
        return Outcome("skipped", f"first order: {first.status}")
    f = build_module(program.source)["f"]
    arguments = random_arguments(program, seed)
    with np.errstate(all="ignore"):
        output = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in arguments])
    if np.ndim(output) != 0:
        return Outcome("skipped", "f returns an array")
    rng = np.random.default_rng(seed + 7)
    directions = [rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray) else float(rng.normal())
                  for a in arguments]
    gradient = srcad.grad(f, wrt=tuple(range(len(arguments))))
    try:
        with np.errstate(all="ignore"):
            _, product = srcad.jvp(gradient, arguments, directions)
    except REFUSALS as error:
        return Outcome("refused", f"{type(error).__name__}: {error}")
    except srcad.SrcadError as error:
        return Outcome("unsupported", f"{type(error).__name__}: {error}")
    except Exception:   # noqa: BLE001 -- any other exception is a bug in srcad
        return Outcome("crash", traceback.format_exc(limit=-6))
    try:
        with np.errstate(all="ignore"):
            steps = [(_flat(gradient(*_moved(arguments, directions, h)))
                      - _flat(gradient(*_moved(arguments, directions, -h)))) / (2 * h) for h in (STEP, STEP / 2)]
    except Exception as error:   # noqa: BLE001 -- f or its gradient fails near the point
        return Outcome("skipped", f"a difference step raises {type(error).__name__}")
    coarse, fine = steps
    scale = max(1.0, float(np.max(np.abs(fine), initial=0.0)))
    if not np.all(np.isfinite(coarse)) or np.max(np.abs(coarse - fine), initial=0.0) > RTOL * scale:
        return Outcome("skipped", "the gradient is not smooth along the direction")
    product = _flat(product)
    if product.shape != fine.shape or not np.all(np.abs(product - fine) <= RTOL * scale):
        return Outcome("wrong", "forward over reverse disagrees with differences of the gradient",
                       {"largest difference": float(np.max(np.abs(product - fine)))})
    return Outcome("ok")
