"""Time generated kernels: Python loops against the vectorised (NumPy) form.

Run ``python benchmarks/kernels.py``.

Contract:
- For each kernel below it generates the Python module twice, with loops
  (gather form) and with ``vectorize=True, reassociate=True`` (contractions
  as ``np.einsum``), checks that both give the same
  forward result and gradient on random inputs, then times the forward
  kernel and the gradient of each (median of 5 rounds, each round a loop
  long enough to time) and prints a table: times in milliseconds and the
  speed-up of the vectorised form.
- Kernels: 3-row average pooling on a 32x32 output, a 64x64 matrix product
  and the 2-D convolution of the kernel test cases.
"""
import statistics
import timeit

import numpy as np

from srcad.kernels import forward_params, gradient_params, load_case, load_python

KERNELS = {
    "pool 32x32": {"name": "pool", "ins": ["B"], "outs": ["A"], "data_type": "float", "grad_to": ["B"],
                   "kernel": "A<32, 32>[i, j] = (B<34, 32>[i, j] + B<34, 32>[i + 1, j] + B<34, 32>[i + 2, j]) / 3.0;"},
    "matmul 64x64": {"name": "matmul", "ins": ["B", "C"], "outs": ["A"], "data_type": "float", "grad_to": ["B", "C"],
                     "kernel": "A<64, 64>[i, j] = B<64, 64>[i, k] * C<64, 64>[k, j];"},
    "conv 2x8x5x5": {"name": "conv", "ins": ["B", "C"], "outs": ["A"], "data_type": "float", "grad_to": ["B"],
                     "kernel": "A<2, 8, 5, 5>[n, k, p, q] = B<2, 16, 7, 7>[n, c, p + r, q + s] * C<8, 16, 3, 3>[k, c, r, s];"},
}


def median_seconds(call) -> float:
    """Median over 5 rounds of the time of one call (each round loops long enough to time)."""
    number, _ = timeit.Timer(call).autorange()
    return statistics.median(t / number for t in timeit.Timer(call).repeat(5, number))


def measure(case: dict):
    kernel = load_case(case)
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-10, 10, shape) for _, shape in forward_params(kernel)]
    grad_args = [rng.uniform(-10, 10, shape) for _, shape in gradient_params(kernel)]
    results, times = [], []
    for vectorize in (False, True):
        module = load_python(kernel, vectorize=vectorize, reassociate=vectorize)   # einsum sums in its own order
        forward, gradient = module[f"{kernel.name}_forward"], module[kernel.name]
        f_args, g_args = [a.copy() for a in inputs], [a.copy() for a in grad_args]
        forward(*f_args)
        gradient(*g_args)
        results.append(f_args + g_args)
        times.append((median_seconds(lambda: forward(*f_args)), median_seconds(lambda: gradient(*g_args))))
    for loops, vectorised in zip(*results):
        assert np.allclose(loops, vectorised, rtol=1e-10, atol=1e-8), f"{case['name']}: forms disagree"
    return times


def main() -> None:
    print(f"{'kernel':<14} {'part':<9} {'loops ms':>10} {'numpy ms':>10} {'speed-up':>9}")
    for label, case in KERNELS.items():
        (loop_f, loop_g), (vec_f, vec_g) = measure(case)
        for part, loop, vec in (("forward", loop_f, vec_f), ("gradient", loop_g, vec_g)):
            print(f"{label:<14} {part:<9} {loop * 1e3:>10.3f} {vec * 1e3:>10.3f} {loop / vec:>8.0f}x")


if __name__ == "__main__":
    main()
