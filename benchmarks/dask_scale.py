"""The gradient of a logistic-regression loss over data larger than memory, with Dask, on a local cluster.

Usage::

    python benchmarks/dask_scale.py [--rows 100000000] [--chunk 1000000] [--features 10]

Contract: the data (``rows`` x ``features`` float64, 8 GB at the default
size) is generated lazily with ``dask.array.random``, chunks of ``chunk``
rows, and labels come from a fixed linear model plus noise, so no chunk is
ever held by the client.  On a ``LocalCluster`` of 2 worker processes (one
thread each, ``memory_limit="2GB"`` each) it times ``loss.compute()`` and
``grad.compute()`` for the same weights (the gradient comes from
``srcad.grad(loss, wrt="w")`` applied to the Dask arrays: a lazy graph,
built without computing anything), samples each worker's resident memory
every 0.2 s, and prints the times, their ratio, the peak per worker and the
cluster's total.  It asserts nothing; the README records its figures
(targets: it completes, the peak stays under the limit, gradient time at
most 3 x the loss's).

Example::

    python benchmarks/dask_scale.py --rows 10000000   # a tenth of the size, for a quick look
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import srcad  # noqa: E402


def loss(w, X, y):
    """Mean logistic loss of the weights ``w`` on samples ``X`` with 0/1 labels ``y``."""
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) / X.shape[0]


def _resident_bytes() -> int:
    import psutil
    return psutil.Process(os.getpid()).memory_info().rss


class PeakMemory:
    """Samples every worker's resident memory in a thread while it is entered; ``peaks`` holds each one's max."""

    def __init__(self, client, interval: float = 0.2):
        self.client, self.interval = client, interval
        self.peaks: dict = {}
        self.total_peak = 0
        self._stop = threading.Event()

    def _sample(self):
        while not self._stop.is_set():
            try:
                sizes = self.client.run(_resident_bytes)
            except Exception:   # noqa: BLE001 -- a worker restarting: the next sample sees it
                sizes = {}
            for worker, size in sizes.items():
                self.peaks[worker] = max(self.peaks.get(worker, 0), size)
            self.total_peak = max(self.total_peak, sum(sizes.values()))
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--chunk", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10)
    options = parser.parse_args()

    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    rows, features = options.rows, options.features
    rng = da.random.default_rng(0)
    X = rng.standard_normal((rows, features), chunks=(options.chunk, features))
    w_true = np.linspace(-1.0, 1.0, features)
    y = (X @ w_true + rng.standard_normal(rows, chunks=options.chunk) > 0).astype(np.float64)
    w = np.full(features, 0.1)

    computed = []

    class Computations(dask.callbacks.Callback):
        def _start(self, dsk):
            computed.append(len(dsk))

    gradient = srcad.grad(loss, wrt="w")
    with Computations():
        started = time.perf_counter()
        lazy_loss = loss(w, X, y)
        lazy_gradient = gradient(w, X, y)
        build = time.perf_counter() - started
    print(f"{rows:.0e} rows x {features} features ({rows * features * 8 / 1e9:.1f} GB), chunks of {options.chunk} "
          f"rows; graphs built in {build:.2f} s, computations while building: {len(computed)}; "
          f"gradient is a {type(lazy_gradient).__module__}.{type(lazy_gradient).__name__}")

    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="2GB", processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        (X[:options.chunk] @ w).sum().compute()   # warm up: workers import NumPy and Dask's tasks once
        figures = {}
        for name, value in (("loss", lazy_loss), ("gradient", lazy_gradient)):
            with PeakMemory(client) as memory:
                started = time.perf_counter()
                result = value.compute()
                seconds = time.perf_counter() - started
            figures[name] = seconds
            peak = max(memory.peaks.values()) if memory.peaks else 0
            print(f"{name}: {seconds:.1f} s, peak worker memory {peak / 1e9:.2f} GB "
                  f"(cluster total {memory.total_peak / 1e9:.2f} GB), result {np.round(result, 6)}")
        print(f"gradient time / loss time: {figures['gradient'] / figures['loss']:.2f}")


if __name__ == "__main__":
    main()
