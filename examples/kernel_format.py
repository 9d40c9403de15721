"""A kernel in index notation, its generated gradient in Python and C++, checked by hand.

The case file ``kernel_pool.json`` next to this script holds::

    A<8, 8>[i, j] = (B<10, 8>[i, j] + B<10, 8>[i + 1, j] + B<10, 8>[i + 2, j]) / 3.0;

with ``grad_to: ["B"]``.  ``srcad kernel kernel_pool.json`` prints the
Python module this script loads; ``--target cpp`` prints the C++.  The
gradient ``pool(dA, dB)`` zeroes dB and gathers into it: every store goes
through plain loop variables (``dB[h0, j] += dA[i, j] / 3.0`` with
``i = h0 - 1``).  Its result is compared with the closed form: row k of
dB collects ``dA[k - 2] + dA[k - 1] + dA[k]`` (the rows that exist) over 3.

Run it with ``python examples/kernel_format.py``.
"""
from pathlib import Path

import numpy as np

from srcad.kernels import generate, load_python

CASE = Path(__file__).resolve().parent / "kernel_pool.json"


def closed_form(dA: np.ndarray) -> np.ndarray:
    """The gradient of the pooling kernel written out: each dA row spreads over the three B rows it read."""
    dB = np.zeros((dA.shape[0] + 2, dA.shape[1]))
    for offset in range(3):
        dB[offset:offset + dA.shape[0]] += dA / 3.0
    return dB


def main() -> None:
    python_code = generate(CASE)
    print(python_code)
    cpp_code = generate(CASE, target="cpp")
    print(cpp_code[cpp_code.index("// pool: gradient"):])

    kernel = load_python(CASE)
    rng = np.random.default_rng(0)
    B, A = rng.uniform(-10, 10, (10, 8)), np.zeros((8, 8))
    kernel["pool_forward"](B, A)
    print("max |A - (B[:-2] + B[1:-1] + B[2:]) / 3| =", np.max(np.abs(A - (B[:-2] + B[1:-1] + B[2:]) / 3)))
    dA, dB = rng.uniform(-10, 10, (8, 8)), np.full((10, 8), np.nan)
    kernel["pool"](dA, dB)
    print("max |dB - closed form| =", np.max(np.abs(dB - closed_form(dA))))


if __name__ == "__main__":
    main()
