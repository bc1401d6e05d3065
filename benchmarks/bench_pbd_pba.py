"""Seconds and peak memory per run of PBD, PBA, PLBU and BD/BA at the conservative pair (paper 003) at the default
configuration (TLNS, 10,000 users x 10,000 slots, eps = 0.6, w = 120, Table 3's user parameters) and at 100,000 users.

Every method's step is compiled (13_pbd_pba, issue 23). At 10,000 users the script prints ours beside main's before the
compiled steps (a53fa9e, same 2-core machine, shared) and the issue's target, each method at least 3x faster per run; and
PLBU's floor, the 10^8 uniforms its users' GRR reports draw, timed alone (numpy's own loop, the speed numba draws them at).
The paper's Figs. 14-15 plot the running times of its Java code (Xeon Silver 4210R, 10 runs averaged); the text prints no
numbers, only the order: PBD the slowest, BD the fastest on Taxi, TLNS and Sin. This script prints ours and that order.
Run: .venv/bin/python benchmarks/bench_pbd_pba.py [--no-large]
"""
import sys, time, tracemalloc
import numpy as np
from wevent_nb import data
from wevent_nb.core import PersonalizedPopulation
from wevent_nb.pbd_pba import PBD, PBA, PLBU, ConservativeBD, ConservativeBA

METHODS = {"BD": ConservativeBD, "BA": ConservativeBA, "PLBU": PLBU, "PBD": PBD, "PBA": PBA}
BEFORE = {"BD": 0.67, "BA": 0.65, "PLBU": 11.79, "PBD": 2.60, "PBA": 1.34}   # s per run at 10,000 users, main a53fa9e (Python steps)
SPEEDUP = 3.0   # the target for this family: each method at least 3x faster per run than BEFORE


def population(n_users, T=10_000, seed=0):
    "TLNS values of 10,000 users tiled to n_users (100,000 users: 1 GB of int8 values, no 8 GB float temporary)."
    base = data.pbd_synthetic("TLNS", N=10_000, T=T, rng=seed).values
    v = np.tile(base, (n_users // 10_000, 1)) if n_users > 10_000 else base[:n_users]
    e, w = data.personalized_params(v.shape[0], 0.6, 120, rng=0)
    return PersonalizedPopulation(v, 2, e, w, f"TLNS {v.shape[0]:,} x {T:,}")


def measure(cls, pop, reps=1):
    "Best wall time of `reps` runs (ledger check included) and the peak memory traced during one run."
    cls().run(pop, rng=0)                       # the compiled step loaded from numba's cache (or compiled) before the clock
    best = np.inf
    for r in range(reps):
        t0 = time.perf_counter(); cls().run(pop, rng=r).check(); best = min(best, time.perf_counter() - t0)
    tracemalloc.start(); cls().run(pop, rng=0).check(); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    return best, peak / 2 ** 20


def uniforms_alone(pop, reps=3):
    "Best time of the N x T uniforms PLBU's reports draw (one numpy call a slot, into one buffer): PLBU's floor."
    g, buf, best = np.random.default_rng(0), np.empty(pop.N), np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(pop.T): g.random(out=buf)
        best = min(best, time.perf_counter() - t0)
    return best


def main(large=True, reps=3):
    sizes = [10_000] + ([100_000] if large else [])
    res = {}
    for n in sizes:
        t0 = time.perf_counter(); pop = population(n); gen = time.perf_counter() - t0
        print(f"\n{pop.name} (values {pop.values.nbytes / 2 ** 20:,.0f} MiB, generated in {gen:.1f} s; user types: "
              f"{np.unique(np.c_[pop.eps, pop.w], axis=0).shape[0]})")
        head = f"{'method':8s} {'seconds':>8s} {'peak MiB':>9s}"
        print(head + (f" {'before':>7s} {'speed-up':>8s}" if n == 10_000 else ""))
        for name, cls in METHODS.items():
            s, mb = measure(cls, pop, reps=reps if n == 10_000 else 1)
            res[(n, name)] = s
            line = f"{name:8s} {s:8.2f} {mb:9.0f}"
            if n == 10_000:
                up = BEFORE[name] / s
                line += f" {BEFORE[name]:7.2f} {up:7.1f}x  " + ("ok" if up >= SPEEDUP else f"UNDER the {SPEEDUP:g}x target")
            print(line)
        if n == 10_000:
            print(f"PLBU's floor: its {pop.N * pop.T:.0e} uniforms alone take {uniforms_alone(pop):.2f} s (numpy, one call a slot)")
        del pop
    order = sorted(METHODS, key=lambda m: res[(10_000, m)])
    print("\npaper, Figs. 14-15 (Java, Xeon Silver 4210R; times only plotted): PBD slowest; BD fastest on Taxi, TLNS and Sin")
    print(f"ours on TLNS (10,000 x 10,000), fastest to slowest: {' < '.join(order)}")


if __name__ == "__main__":
    main(large="--no-large" not in sys.argv)
