"""LDP-IDS (paper 000) benchmark: per-user vs aggregate simulation, and the Fig. 4 paper-scale grid.

    .venv/bin/python benchmarks/bench_ldp_ids.py            # both parts
    .venv/bin/python benchmarks/bench_ldp_ids.py --modes    # one run of each method in both modes, N=200,000, T=800, d=2 and d=100
    .venv/bin/python benchmarks/bench_ldp_ids.py --grid     # Fig. 4 grid: 3 synthetic sets x 7 methods x 5 eps x 10 reps, 2 processes
"""
import argparse, time
from concurrent.futures import ProcessPoolExecutor
import numpy as np
from wevent_nb.core import CategoricalPopulation
from wevent_nb import ldp_ids as L
from wevent_nb.data import ldp_ids_synthetic
from wevent_nb.experiments import Grid, run_grid

METHODS = ["LBU", "LSP", "LBD", "LBA", "LPU", "LPD", "LPA"]

def population(d, N=200_000, T=800, seed=0):
    "Exchangeable N x T population: per timestamp a drifting histogram assigned to a random permutation of the users."
    if d == 2: return ldp_ids_synthetic("Sin", N=N, T=T, rng=seed, aggregate=False)
    g = np.random.default_rng(seed)
    z = g.normal(0, 1, d) + np.cumsum(g.normal(0, 0.05, (T, d)), axis=0)
    p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    vals = np.empty((N, T), np.int8)
    for t in range(T):
        c = g.multinomial(N, p[t])
        vals[:, t] = g.permutation(np.repeat(np.arange(d, dtype=np.int8), c))
    return CategoricalPopulation(vals, d, f"drifting d={d}")

def bench_modes():
    "Per-user mode on the N x T population, aggregate mode on its histogram stream (same data)."
    print(f"{'d':>4} {'method':>6} {'per-user s':>11} {'aggregate s':>12} {'speed-up':>9} {'check s':>8}")
    for d in (2, 100):
        pop = population(d)
        agg = pop.aggregate()        # the true histogram per timestamp, computed once (a bincount over N x T)
        for m in METHODS:
            cls = getattr(L, m)
            t0 = time.perf_counter(); cls(1.0, 20, mode="per_user").run(pop, rng=1); t1 = time.perf_counter()
            r = cls(1.0, 20, mode="aggregate").run(agg, rng=1); t2 = time.perf_counter()
            r.check(); t3 = time.perf_counter()
            print(f"{d:>4} {m:>6} {t1 - t0:>11.3f} {t2 - t1:>12.4f} {(t1 - t0) / (t2 - t1):>8.0f}x {t3 - t2:>8.3f}", flush=True)

def bench_grid(workers=2, reps=10):
    streams = {k: ldp_ids_synthetic(k, N=200_000, T=800, rng=0) for k in ("LNS", "Sin", "Log")}
    grid = Grid(streams, {m: m for m in METHODS}, params=dict(eps=[0.5, 1.0, 1.5, 2.0, 2.5], w=[20]), reps=reps,
                metrics=[("MRE", L.mre_metric), ("CFPU", L.cfpu_metric)])
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as ex: df = run_grid(grid, executor=ex, progress=False)
    secs = time.perf_counter() - t0
    print(f"Fig. 4 grid: {len(grid)} runs (3 sets x 7 methods x 5 eps x {reps} reps, N=200,000, T=800, aggregate mode) "
          f"in {secs:.1f} s with {workers} processes; all ledgers ok: {bool(df['ledger_ok'].all())}")
    print(df[df.metric == "MRE"].groupby(["dataset", "mechanism"])["value"].mean().unstack().round(4).to_string())
    print("CPU seconds per run (mean):", df.drop_duplicates(["dataset", "mechanism", "eps", "rep"]).groupby("mechanism")["seconds"].mean().round(3).to_dict())

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modes", action="store_true"); ap.add_argument("--grid", action="store_true")
    ap.add_argument("--workers", type=int, default=2); ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    both = not (a.modes or a.grid)
    if a.modes or both: bench_modes()
    if a.grid or both: bench_grid(a.workers, a.reps)
