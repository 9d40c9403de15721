"""A pooling kernel written as loops with element stores, and its generated derivative.

The kernel averages three neighbouring rows::

    A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0      for A of shape (8, 8), B of (10, 8)

In reverse mode the derivative takes the output's adjoint ``dA`` and returns
``dB``.  The generated code runs the loops forwards, then backwards: each
store hands its element's adjoint to the three elements of ``B`` it read,
and resets that element's adjoint, since the store overwrote it.  The result is checked against the closed form: each row k of
``dB`` collects ``dA[k - 2] + dA[k - 1] + dA[k]`` (rows that exist) over 3.

Run it with ``python examples/loop_kernel.py``.
"""
import numpy as np

import srcad


def pool(B):
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    for i in range(B.shape[0] - 2):
        for j in range(B.shape[1]):
            A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
    return A


def expected_dB(dA: np.ndarray) -> np.ndarray:
    """The adjoint of ``pool`` in closed form: each dA row spreads over the three rows it read."""
    dB = np.zeros((dA.shape[0] + 2, dA.shape[1]))
    for offset in range(3):
        dB[offset:offset + dA.shape[0]] += dA / 3.0
    return dB


def main() -> None:
    rng = np.random.default_rng(0)
    B = rng.standard_normal((10, 8))
    A = pool(B)
    assert np.allclose(A, (B[:-2] + B[1:-1] + B[2:]) / 3.0)

    vjp = srcad.autodiff(pool, wrt="B", mode="reverse")
    print("The generated reverse-mode derivative (dA in, dB out):\n")
    print(vjp.source)

    dA = np.ones_like(A)
    dB = vjp(B, dA)
    print("dB for dA = ones (rows 0 and 9 are read once, 1 and 8 twice, the rest three times):")
    print(np.round(dB[:, 0], 4))
    dA = rng.standard_normal(A.shape)
    error = np.max(np.abs(vjp(B, dA) - expected_dB(dA)))
    print(f"\nmax |dB - closed form| for a random dA: {error:.2e}")
    assert error < 1e-12

    jvp = srcad.autodiff(pool, wrt="B", mode="forward")
    dB_in = rng.standard_normal(B.shape)
    print(f"forward mode: max |jvp - pool(dB)| = {np.max(np.abs(jvp(B, dB_in) - pool(dB_in))):.2e}"
          "  (pool is linear, so its tangent is pool of the tangent)")


if __name__ == "__main__":
    main()
