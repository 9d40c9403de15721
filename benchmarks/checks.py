"""The correctness checks ``benchmarks/run.py`` makes before it times a gradient.

Contract:
- ``random_directions`` draws one random direction per ``wrt`` argument of a
  problem, shaped like it; ``finite_difference`` is the central finite
  difference of the problem's objective along those directions (step
  ``FD_STEP`` relative to the largest ``wrt`` entry); ``directional`` is a
  gradient's derivative along them.  A gradient passes when ``close`` says its
  directional derivative and the finite difference agree to ``FD_RTOL``.
- ``same_gradient`` compares two AD gradients of the same function entry by
  entry, to ``AGREE_RTOL`` relative to the reference's largest entry.
- ``error_summary`` turns an exception into one line for a table's footnote;
  ``failure_status`` tells srcad's own "cannot do this" (``unsupported``)
  from a crash (``error``).
- Nothing here times anything or prints.
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

import numpy as np

import srcad
from problems import Problem

FD_STEP = 1e-6      # relative step of the finite-difference check
FD_RTOL = 1e-4      # finite differences against a directional derivative
AGREE_RTOL = 1e-6   # two AD gradients of the same function


def random_directions(problem: Problem, args, rng) -> List[Any]:
    """A random direction per wrt argument, shaped like it (a float for a float)."""
    out = []
    for position in problem.wrt_positions():
        value = args[position]
        out.append(float(rng.normal()) if np.ndim(value) == 0 else rng.normal(size=np.shape(value)))
    return out


def finite_difference(problem: Problem, args, directions) -> float:
    """Central finite difference of ``f`` along ``directions``."""
    positions = problem.wrt_positions()
    scale = max([1.0] + [float(np.max(np.abs(args[p]))) for p in positions])
    step = FD_STEP * scale

    def at(sign):
        moved = list(args)
        for position, direction in zip(positions, directions):
            moved[position] = args[position] + sign * step * direction
        return float(problem.function(*moved))
    return (at(1.0) - at(-1.0)) / (2.0 * step)


def directional(gradient: Sequence, directions) -> float:
    """The derivative along ``directions`` that ``gradient`` implies: the sum of its dot products with them."""
    return float(sum(np.sum(np.asarray(g) * d) for g, d in zip(gradient, directions)))


def close(a: float, b: float, rtol: float) -> bool:
    """Whether ``a`` and ``b`` agree to ``rtol`` relative to the larger of them (or to 1e-12)."""
    return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-12)


def same_gradient(gradient: Sequence, reference: Sequence) -> Optional[str]:
    """None when the gradients agree to AGREE_RTOL, else the worst relative difference."""
    worst = 0.0
    for g, r in zip(gradient, reference):
        g, r = np.asarray(g, dtype=float), np.asarray(r, dtype=float)
        if g.shape != r.shape:
            return f"shape {g.shape} != {r.shape}"
        scale = max(float(np.max(np.abs(r))) if r.size else 0.0, 1e-300)
        worst = max(worst, float(np.max(np.abs(g - r))) / scale if r.size else 0.0)
    return None if worst <= AGREE_RTOL else f"max |diff| / max |ref| = {worst:.1e}"


def error_summary(error: BaseException) -> str:
    """The error's class, message line and innermost place in the user's code, on one line."""
    text = str(error)
    place, message = "", ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or line[0].isspace() or not any(c.isalnum() for c in stripped):
            continue
        head = stripped.rsplit(":", 2)
        if len(head) == 3 and head[1].isdigit() and head[2].isdigit():
            place = f"{os.path.basename(head[0])}:{head[1]}"
            continue
        if stripped.startswith("while differentiating"):
            inner = stripped.rsplit(": ", 1)[-1].rsplit(":", 2)
            if len(inner) == 3:
                place = f"{os.path.basename(inner[0])}:{inner[1]}"
            continue
        if stripped in ("Tangent Error",):            # tangent-ad's banner
            continue
        message = stripped
        break
    if len(message) > 200:
        message = message[:197] + "..."
    return f"{type(error).__name__}: {message}" + (f" ({place})" if place else "")


def failure_status(error: BaseException) -> str:
    """'unsupported' for srcad's own report that it cannot do something; 'error' for a crash."""
    return "unsupported" if isinstance(error, srcad.SrcadError) else "error"
