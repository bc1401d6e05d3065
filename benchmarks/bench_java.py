"""Milliseconds per run of the eight central mechanisms on the four SPAS data sets (eps = 1, w = 120), measured live beside
the Java w-event benchmark of Schäler, Hütter and Schäler (PVLDB 16(8), 2023; chryenix/streamdp-benchmark), the fair way:
a release includes its noise (issue 40, "Speed, measured the fair way").

ours:        median wall ms of `mech.run(stream, rng=seed)` (checked, as a user calls it; its noise drawn inside the run).
Java clock:  median ms of their `m.run(stream, w, eps)` alone (benchmarks/java/Driver.java's timing server, one JVM). Their
             noise is not in it: their LaplaceStream fills a pool of 10^7 Laplace numbers before any run, and a run
             reads from it.
+ noise:     median over the rounds of (the run's clock + the Laplace numbers it took from the pool, counted in the
             driver, x the pool's time per number: a refill of the whole pool timed right after the block, / 10^7).
/ clock, / noise: ours over each Java column (<= 1: ours at least as fast).
Rounds alternate the sides, a block of runs each: BLOCK of ours back to back, then BLOCK of Java's (--rounds, --block; after
WARM untimed runs a side, Java's going on to WARM_JAVA_S seconds). Strictly alternating single runs (--block 1) made
short runs pay for every switch of process (caches, the other process's JIT threads): BD on spas-uem measured 1.64 ms
interleaved against 0.85 ms alone; a block's median drops its first run.
For every cell slower than Java with its noise, a profile of our run follows the table: where
its time goes (cProfile's call tree, each call's cumulative share) and our draws' share (the run's Laplace numbers,
counted with a NoiseRecorder, timed as compiled scalar draws: an estimate).

Java's side needs `java`/`javac` and a clone of the benchmark (STREAMDP_BENCH, benchmarks/_java.py); without them the
script says why in one line and prints ours alone. Data from WEVENT_NB_DATA (or ../shared/data beside the repository).
Run: WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_java.py [METHOD ...] [--sets spas-flu ...] [--rounds 7] [--block 5]
The issue-23 table (ours then, and the Java times typed in from it) is kept in benchmarks/HISTORY.md.
"""
import argparse, cProfile, os, pstats, shutil, subprocess, sys, time, warnings
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
import numpy as np
from numba import njit
from numba.core.dispatcher import Dispatcher
from wevent_nb import data
from wevent_nb.core import HistogramStream, NoiseRecorder, get_mechanism
from _java import SETS, JavaError, JavaServer, java_missing

METHODS = ["BD", "BA", "DSAT", "Uniform", "Sample", "FAST", "PeGaSus", "AdaPub"]
JAVA_CLASS = {"BD": "BD", "BA": "BA", "DSAT": "DSAT", "Uniform": "Uniform", "Sample": "Sample", "FAST": "FAST_w",
              "PeGaSus": "Pegasus", "AdaPub": "AdaPub"}   # as shipped: their PeGaSus and AdaPub with grouping off (debug flags)
EPS, W = 1.0, 120
WARM = 20              # untimed runs a side before a cell's rounds: their JIT and our compiled steps (or their cache) warm
WARM_JAVA_S = 1.0      # and Java's warm-up goes on to at least this many seconds of runs: its JIT compiles in the background
MAX_WARM = 5000        # (at most this many more runs)
PROFILE_RUNS = 50      # our runs under cProfile for a cell's profile
DRAWS_TIMED = 10**6    # scalar draws timed for our time per Laplace number
SHOWN = 0.05           # a profile shows the calls that take at least this share of the run


@njit(cache=True)
def _draws(rng, n):
    z = 0.0
    for _ in range(n): z += rng.laplace(0.0, 1.0)
    return z


def draw_ms(n: int) -> float:
    "Wall ms of n scalar Laplace draws in compiled code (the best of 5): the way our kernels draw."
    g = np.random.default_rng(0); _draws(g, 10)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter(); _draws(g, n); best = min(best, time.perf_counter() - t0)
    return best * 1e3


def n_draws(m: str, s) -> int:
    "How many Laplace numbers one of our runs draws (its step-wise form under a NoiseRecorder)."
    rec, mech = NoiseRecorder(0), get_mechanism(m, eps=EPS, w=W)
    mech.start(s.T, s.d, rng=rec)
    for x in s.counts: mech.step(x)
    return sum(d.size for d in rec.draws)


def _runs(mech, s):
    "The profiled calls: PROFILE_RUNS checked runs (the root of the profile's tree)."
    for seed in range(PROFILE_RUNS): mech.run(s, rng=seed)


def _tree(stats, key, total, depth, path=()) -> list[str]:
    "The calls made under `key` that take at least SHOWN of the profiled time, as an indented tree (cumulative share)."
    out = []
    kids = [(callers[key][3], k) for k, (_, _, _, _, callers) in stats.items() if key in callers and k not in path]
    for ct, k in sorted(kids, key=lambda c: -c[0]):
        if ct < SHOWN * total: break
        f, _, fn = k
        out.append(f"  {100 * ct / total:5.1f}%  {'  ' * len(path)}{fn if f == '~' else Path(f).stem + '.' + fn}")
        if len(path) + 1 < depth: out += _tree(stats, k, total, depth, (*path, key))
    return out


def _is_kernel(key) -> bool:
    "Is this profiled function a compiled step (a numba dispatcher: cProfile sees one call, its whole compiled time)?"
    f, line, fn = key
    mod = next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == f), None)
    k = getattr(mod, fn, None)
    return isinstance(k, Dispatcher) and k.py_func.__code__.co_firstlineno == line


def profile(m: str, s, ours_ms: float, depth: int = 6) -> list[str]:
    """Where one of our runs spends its time: in its compiled step (the kernel, which draws the noise) or outside it (a checked
    run's checks, setup, books and Release), our draws' estimated share, and cProfile's call tree of PROFILE_RUNS runs."""
    mech = get_mechanism(m, eps=EPS, w=W); mech.run(s, rng=0)
    pr = cProfile.Profile(); pr.enable(); _runs(mech, s); pr.disable()
    st = pstats.Stats(pr).stats
    root = next(k for k in st if k[2] == "_runs")
    total = st[root][3]
    kernel = sum(v[2] for k, v in st.items() if _is_kernel(k)) * 1e3 / PROFILE_RUNS
    n = n_draws(m, s); d = draw_ms(n)
    prof = 1e3 * total / PROFILE_RUNS
    step = (f"compiled step {kernel:.3f} ms ({100 * kernel / prof:.0f}%), the rest of the checked run {prof - kernel:.3f} ms"
            if kernel else f"no compiled step (numpy), the checked run {prof:.3f} ms")
    return [f"  run {ours_ms:.3f} ms (the rounds' median); under cProfile, at another moment's load: {step} (cProfile's overhead "
            f"included); draws: {n} Laplace numbers, about "
            f"{d:.3f} ms as compiled scalar draws ({100 * d / ours_ms:.0f}% of the run). Calls over {100 * SHOWN:.0f}% of the profile:",
            *_tree(st, root, total, depth)]


def cell(m: str, key: str, s, java, rounds: int, block: int) -> dict:
    "One method on one set: ROUNDS rounds of BLOCK runs a side, back to back (ours, then Java's); each side's median per run over its rounds' medians, and Java's noise."
    mech, cls = get_mechanism(m, eps=EPS, w=W), JAVA_CLASS[m]
    for seed in range(WARM): mech.run(s, rng=seed)
    r = dict(ours=[], clock=[], draws=[], pool=[], why="")
    if java:
        try:
            ms, _ = java.run(cls, key, EPS, W, WARM)
            more = int(min(MAX_WARM, (WARM_JAVA_S * 1e3 - ms.sum()) / np.median(ms)))
            if more > 0: java.run(cls, key, EPS, W, more)
        except JavaError as e: r["why"], java = str(e), None
    for k in range(rounds):
        mine = []
        for j in range(block):                          # a block: each side's runs back to back, so a switch of process costs
            t0 = time.perf_counter(); mech.run(s, rng=WARM + k * block + j); mine.append((time.perf_counter() - t0) * 1e3)
        r["ours"].append(float(np.median(mine)))        # only a block's first run, and a median drops it
        if java:
            ms, n = java.run(cls, key, EPS, W, block)
            pool = java.pool_ns()                       # the pool refilled after the block, timed: ns a number
            r["clock"].append(float(np.median(ms))); r["draws"].append(float(np.median(n))); r["pool"].append(pool)
    r["ours"] = float(np.median(r["ours"]))
    if java:
        clock, draws, pool = np.array(r["clock"]), np.array(r["draws"]), np.array(r["pool"])
        r["noise"] = float(np.median(clock + draws * pool / 1e6))
        r["clock"], r["draws"], r["pool_ns"] = float(np.median(clock)), float(np.median(draws)), float(np.median(pool))
    return r


def fmt(v, spec, unit=""): return f"{v:{spec}}{unit}" if v is not None else f"{'-':>{len(format(0.0, spec) + unit)}}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("methods", nargs="*", default=METHODS, metavar="METHOD", help=f"some of {METHODS} (default: all)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), help="data sets (default: the four SPAS sets)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds a cell: a block of runs a side each (medians)")
    ap.add_argument("--block", type=int, default=5, help="runs a side in a round, back to back (1: strictly alternating runs)")
    a = ap.parse_args()
    if set(a.methods) - set(METHODS): ap.error(f"unknown method(s) {sorted(set(a.methods) - set(METHODS))}: choose from {METHODS}")
    home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
    os.environ["WEVENT_NB_DATA"] = home                                   # the driver's CSVs are written from the same files
    up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip() if shutil.which("uptime") else ""
    print(f"{datetime.now():%Y-%m-%d %H:%M}; {up or 'load average %.2f' % os.getloadavg()[0]}; "
          f"{os.cpu_count()} cores; eps {EPS}, w {W}, {a.rounds} rounds of {a.block} runs a side after {WARM} warm-up runs a side")
    why = java_missing()
    if why: print(f"Java columns skipped: {why}")
    with (nullcontext() if why else JavaServer()) as java:
        if java: print(f"Java: one JVM (benchmarks/java/Driver.java --serve); its pool's first fill took {java.fill_ms:.0f} ms for {java.size} numbers")
        rows, cannot, slow = table(a, home, java)
    summary(rows, cannot, slow)


def table(a, home, java):
    "Print the table, a cell a line as it is measured: the ratios of the measured cells, the cells Java cannot run, the cells slower than Java with its noise."
    print(f"{'method':8s} {'data set':9s} {'T x d':>8s} {'ours':>8s} {'Java clock':>10s} {'+ noise':>8s} {'draws':>7s} {'/ clock':>8s} {'/ noise':>8s}")
    rows, cannot, slow = [], [], []
    for m in a.methods:
        for key in a.sets:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s = HistogramStream(data.load(key, data_home=home).counts)
            r = cell(m, key, s, java, a.rounds, a.block)
            if r["why"]: cannot.append(f"{m} on {key}: {r['why']}")
            have = java is not None and not r["why"]
            clock, noise = (r["clock"], r["noise"]) if have else (None, None)
            rc, rn = (r["ours"] / clock, r["ours"] / noise) if have else (None, None)
            print(f"{m:8s} {key:9s} {f'{s.T}x{s.d}':>8s} {r['ours']:8.3f} {fmt(clock, '10.3f')} {fmt(noise, '8.3f')} "
                  f"{fmt(r['draws'] if have else None, '7.0f')} {fmt(rc, '7.2f', 'x')} {fmt(rn, '7.2f', 'x')}", flush=True)
            if have:
                rows.append((rc, rn, r["pool_ns"]))
                if rn > 1: slow.append((m, key, s, r["ours"], rn))
    return rows, cannot, slow


def summary(rows, cannot, slow):
    "The medians over cells, the cells Java cannot run, and a profile of ours for every cell slower than Java with its noise."
    if rows:
        rc, rn, pool = np.array(rows).T
        print(f"median over {len(rows)} cells: ours / Java clock {np.median(rc):.2f}x, ours / Java with its noise {np.median(rn):.2f}x "
              f"(as speed-ups, Java / ours: {1 / np.median(rc):.2f}x and {1 / np.median(rn):.2f}x); "
              f"their pool {np.median(pool):.0f} ns a number (the cells' medians range {pool.min():.0f}-{pool.max():.0f}), "
              f"ours {draw_ms(DRAWS_TIMED) * 1e6 / DRAWS_TIMED:.0f} ns (compiled scalar draws)")
        print(f"cells at or under 1x with the noise: {int((rn <= 1).sum())} of {len(rows)}; under 1x against the clock alone: {int((rc <= 1).sum())}")
    for c in cannot: print(f"Java cannot run {c}")
    if rows and not cannot: print("Java ran every cell")
    if slow: print("slower than Java with its noise: " + ", ".join(f"{m} on {key} ({rn:.2f}x)" for m, key, _, _, rn in slow))
    for m, key, s, ours, rn in slow:
        print(f"\nprofile of ours, {m} on {key} ({rn:.2f}x Java with its noise): share of the run under each call")
        print("\n".join(profile(m, s, ours)))
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
