"""CAPP (paper 002) speed: one round of each method over the 41 query windows of C6H6 (T = 8,990, w = 10, eps = 1), beside
the authors' MATLAB code under Octave on this machine kind; and the vectorised APP against a per-user Python loop at
N = 100,000 users.

Run: WEVENT_NB_DATA=/work/shared/data .venv/bin/python benchmarks/bench_capp.py"""
import time
import numpy as np
from wevent_nb import data
from wevent_nb.core import NumericPopulation, get_mechanism
from wevent_nb.capp import sw_perturb

AUTHORS = {"SW-direct": 0.011, "APP": 0.011, "IPP": 0.012, "ToPL": 0.013, "BA-SW": 0.022, "CAPP": 0.055}   # seconds, Octave
TARGET_VS_AUTHORS, TARGET_VS_LOOP = 5.0, 100.0
W, EPS = 10, 1.0


def best_of(f, n):
    "Smallest wall time of n calls (seconds)."
    out = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); out.append(time.perf_counter() - t0)
    return min(out)


def c6h6_windows():
    "The authors' protocol: 41 windows of w slots at strided starts 0, h, 2h, ... with h = floor(T/40)."
    try: s = data.load("capp-c6h6")
    except FileNotFoundError:
        print("C6H6 not found (set WEVENT_NB_DATA): using a sine of the same length"); s = NumericPopulation(0.5 + 0.4 * np.sin(np.arange(8990) / 9)[None, :])
    h = s.T // 40
    starts = np.arange(0, s.T - W + 1, h)[:41]
    return NumericPopulation(np.stack([s.values[0, a:a + W] for a in starts]))


def app_loop(x, eps, w, rng):
    "A straightforward per-user Python loop of APP (Algorithm 1), for the comparison."
    out = np.empty_like(x)
    for j in range(x.shape[0]):
        D = 0.0
        for t in range(x.shape[1]):
            xi = min(max(x[j, t] + D, 0.0), 1.0)
            y = float(sw_perturb(np.array([xi]), eps / w, rng)[0])
            out[j, t] = y; D += x[j, t] - y
    return out


def main():
    pop = c6h6_windows()
    print(f"One round over {pop.N} query windows of C6H6 (w = {W}, eps = {EPS}), run + ledger check, best of 30:")
    print(f"{'method':<12}{'ours (ms)':>12}{'authors (ms)':>15}{'speed-up':>11}")
    worst = np.inf
    for name, theirs in AUTHORS.items():
        m = get_mechanism(name, eps=EPS, w=W)
        ours = best_of(lambda: m.run(pop, rng=0).check(), 30)
        worst = min(worst, theirs / ours)
        print(f"{name:<12}{ours * 1e3:>12.3f}{theirs * 1e3:>15.1f}{theirs / ours:>10.0f}x")
    print(f"slowest speed-up {worst:.0f}x (target >= {TARGET_VS_AUTHORS:g}x): {'met' if worst >= TARGET_VS_AUTHORS else 'NOT met'}")

    N, N_loop = 100_000, 2_000
    x = np.random.default_rng(0).random((N, W))
    big = NumericPopulation(x)
    vec = best_of(lambda: get_mechanism("APP", eps=EPS, w=W).run(big, rng=1).check(), 3)
    loop = best_of(lambda: app_loop(x[:N_loop], EPS, W, np.random.default_rng(1)), 1) * N / N_loop
    print(f"APP at N = {N:,} users x {W} slots: vectorised {vec:.3f} s; per-user Python loop {loop:.1f} s "
          f"(timed on {N_loop:,} users, scaled linearly): {loop / vec:.0f}x (target >= {TARGET_VS_LOOP:g}x)")


if __name__ == "__main__":
    main()
