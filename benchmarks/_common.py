"""What the benchmark scripts share (imported as `_common`: `python benchmarks/bench_x.py` puts benchmarks/ on sys.path)."""
import time


def best_of(f, n):
    "Smallest wall time of n calls of f() (seconds)."
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter(); f(); best = min(best, time.perf_counter() - t0)
    return best
