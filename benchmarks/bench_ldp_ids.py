"""LDP-IDS (paper 000) benchmark: per-user vs aggregate simulation, and the Fig. 4 paper-scale grid.

    .venv/bin/python benchmarks/bench_ldp_ids.py            # both parts
    .venv/bin/python benchmarks/bench_ldp_ids.py --modes    # each method in both modes, N=200,000, T=800, d=2 and d=100
    .venv/bin/python benchmarks/bench_ldp_ids.py --grid     # Fig. 4 grid: 3 synthetic sets x 7 methods x 5 eps x 10 reps, 2 processes
    .venv/bin/python benchmarks/bench_ldp_ids.py --paper    # one run of each method at the paper-scale claims' settings
    .venv/bin/python benchmarks/bench_ldp_ids.py --paper --json benchmarks/bench_ldp_ids_before.json   # record them

--modes times one run of each method per mode, the fastest of --repeat runs (the machine is shared; the minimum is
the least disturbed), and prints the speed-up. For d = 100 it also prints the floor of exact aggregate simulation
built on numpy's samplers: the time of the draws any exact aggregate run of a population method must make (the
(T, d) report histogram of the reporting groups: binomials plus a multinomial per row, and the groups' hypergeometric
compositions), against 1/100 of the per-user run.

--paper times one run (the fastest of --repeat) of each method at the settings of the paper-scale claims
(`claims/000_ldp_ids.md`, the notebook's reproduction): eps = 1, w = 20 on Sin (N = 200,000, T = 800, d = 2, aggregate
mode: Figs. 4-5 and Table 2 run the three synthetic sets so), on the Foursquare stand-in (N = 265,149, T = 447, d = 77,
aggregate mode) and on the Taxi stand-in (N = 10,357, T = 886, d = 5, per user), with check=True as the grids run them,
and prints main's times beside them when --before names a file written by --json.
"""
import argparse, json, math, time
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

def best_of(f, repeat):
    "Fastest of `repeat` calls of f() (seconds) and f's last result."
    best = math.inf
    for i in range(repeat):
        t0 = time.perf_counter(); out = f(i); best = min(best, time.perf_counter() - t0)
    return best, out

def floor_population(agg, n, repeat):
    "Seconds of the least exact aggregate work of a population method: group compositions (hypergeometric) and their GRR report counts."
    from wevent_nb.ldp_ids import mv_hypergeometric
    from wevent_nb.primitives import get_fo
    counts, fo = np.asarray(agg.counts, np.int64), get_fo("grr", 1.0, agg.d)
    g = np.random.default_rng(0)
    comp, _ = best_of(lambda i: mv_hypergeometric(counts, n, g), repeat)
    h = mv_hypergeometric(counts, n, g)
    rep, _ = best_of(lambda i: fo.sample_counts(h, g), repeat)
    return comp, rep

def bench_modes(repeat=3, per_user_repeat=1):
    "Per-user mode on the N x T population, aggregate mode on its histogram stream (same data)."
    print(f"{'d':>4} {'method':>6} {'per-user s':>11} {'aggregate ms':>13} {'speed-up':>9} {'check ms':>9}")
    for d in (2, 100):
        pop = population(d)
        agg = pop.aggregate()        # the true histogram per timestamp, computed once (a bincount over N x T)
        per_user = {}
        for m in METHODS:
            cls = getattr(L, m)
            tu, _ = best_of(lambda i: cls(1.0, 20, mode="per_user").run(pop, rng=1 + i), per_user_repeat)
            ta, r = best_of(lambda i: cls(1.0, 20, mode="aggregate").run(agg, rng=1 + i), repeat)
            tc, _ = best_of(lambda i: r.check(), 1)
            per_user[m] = tu
            print(f"{d:>4} {m:>6} {tu:>11.3f} {1e3 * ta:>13.2f} {tu / ta:>8.0f}x {1e3 * tc:>9.2f}", flush=True)
        if d == 100:
            for m, n in (("LPU", pop.N // 20), ("LPD", pop.N // 40)):
                comp, rep = floor_population(agg, n, repeat)
                print(f"     floor of exact aggregate {m} at d={d}: group compositions {1e3 * comp:.2f} ms + their reports "
                      f"{1e3 * rep:.2f} ms = {1e3 * (comp + rep):.2f} ms; 1/100 of per-user {m}: {10 * per_user[m]:.2f} ms", flush=True)

def paper_streams():
    "The claims' stream kinds: a synthetic binary set, the largest-d aggregate stand-in, the per-user stand-in."
    from wevent_nb import data
    return {"Sin": (ldp_ids_synthetic("Sin", N=200_000, T=800, rng=0), "aggregate"),
            "Foursquare (stand-in)": (data.standin("ldp-ids-foursquare", rng=0, aggregate=True), "aggregate"),
            "Taxi (stand-in)": (data.standin("ldp-ids-taxi", rng=0), "per_user")}

def bench_paper(repeat=5, out=None, before=None):
    "One run of each method at the claims' settings (eps = 1, w = 20), the fastest of `repeat`; main's times beside them."
    was = json.loads(open(before).read()) if before else {}
    got = {}
    print(f"{'data set':>22} {'mode':>9} {'method':>6} {'ms':>9}" + (f" {'main ms':>9} {'speed-up':>9}" if was else ""))
    for name, (s, mode) in paper_streams().items():
        for m in METHODS:
            cls = getattr(L, m)
            t, _ = best_of(lambda i: cls(1.0, 20, mode=mode).run(s, rng=1 + i), repeat)
            got[f"{name}|{m}"] = 1e3 * t
            old = was.get(f"{name}|{m}")
            print(f"{name:>22} {mode:>9} {m:>6} {1e3 * t:>9.2f}" + (f" {old:>9.2f} {old / (1e3 * t):>8.1f}x" if old else ""), flush=True)
    if out: open(out, "w").write(json.dumps(got, indent=1) + "\n")

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
    ap.add_argument("--paper", action="store_true"); ap.add_argument("--json", help="--paper: write the times to this file")
    ap.add_argument("--before", help="--paper: a file written by --json on main, printed beside")
    ap.add_argument("--workers", type=int, default=2); ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5, help="aggregate runs per method in --modes (the fastest is shown)")
    ap.add_argument("--per-user-repeat", type=int, default=1, help="per-user runs per method in --modes")
    a = ap.parse_args()
    both = not (a.modes or a.grid or a.paper)
    if a.modes or both: bench_modes(a.repeat, a.per_user_repeat)
    if a.grid or both: bench_grid(a.workers, a.reps)
    if a.paper: bench_paper(a.repeat, a.json, a.before)
