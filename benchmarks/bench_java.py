"""Milliseconds per run of the eight central mechanisms on the four SPAS data sets (eps = 1, w = 120), beside the Java
w-event benchmark of Schäler, Hütter and Schäler (PVLDB 16(8), 2023) and the SPAS authors' Python, as issue 23 measured
them on this machine kind.

ours run:   median wall ms of `mech.run(stream, rng=seed)` over REPS seeds (checked, as a user calls it; noise drawn
            inside the run, counted).
ours batch: wall ms per run of `mech.run_many(stream, REPS, rng)` (REPS runs from one generator, one setup).
draw %:     the share of `ours run` spent drawing: the run's Laplace draws (counted with a NoiseRecorder) timed as compiled
            scalar draws (the way the kernels draw) -- an estimate, not a profile.
before:     our ms per run when issue 23 was filed (its table; '-' where it gave none).
Java:       the benchmark's ms per run from issue 23; its clock excludes noise generation (it fills a pool of 10^7
            Laplace numbers before any run). PeGaSus and AdaPub run there with grouping switched off by debug flags.
/ Java:     ours run / Java (<= 1: the target met). authors: the SPAS authors' Python (bench_central.py, issue 11) / ours.
Data from WEVENT_NB_DATA (or ../shared/data beside the repository).
Run: WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_java.py [method ...]
"""
import os, sys, time, warnings
from pathlib import Path
import numpy as np
from numba import njit
from wevent_nb import data
from wevent_nb.core import HistogramStream, NoiseRecorder, get_mechanism
from wevent_nb.spas import SPAS_DATASETS

SETS = ("Uem", "Otp", "Flu", "Tdv")
JAVA = {"BD": (0.21, 0.14, 0.89, 0.84), "BA": (0.15, 0.12, 0.81, 0.51), "DSAT": (15, 2.8, 6.2, 11),
        "Uniform": (0.19, 0.08, 1.45, 0.91), "Sample": (0.33, 0.03, 0.19, 0.16),
        "PeGaSus": (1.5, None, 7.6, None), "AdaPub": (1.9, None, 10.2, None), "FAST": (None,) * 4}
BEFORE = {"BD": (26, 58, 58, 64), "BA": (17, 43, 59, 47), "DSAT": (29, 8.5, 25, 35), "Uniform": (0.34, 0.50, 9.0, 11),
          "Sample": (0.24, 0.19, 2.1, 8.0), "PeGaSus": (5.6, None, 152, None), "AdaPub": (7.8, None, 135, None), "FAST": (None,) * 4}
AUTHORS_S = {  # the SPAS authors' Python, seconds per run (bench_central.py, issue 11)
    "Uem": dict(Uniform=0.0068, Sample=0.0015, BD=0.5539, FAST=0.0332, PeGaSus=0.0410, DSAT=0.0312, AdaPub=0.0247),
    "Otp": dict(Uniform=0.0064, Sample=0.0015, BD=0.5735, FAST=0.0350, PeGaSus=0.0390, DSAT=0.0282, AdaPub=0.0287),
    "Flu": dict(Uniform=0.1594, Sample=0.0239, BD=0.3753, FAST=1.3307, PeGaSus=1.5127, DSAT=0.0445, AdaPub=0.7254),
    "Tdv": dict(Uniform=0.1770, Sample=0.0250, BD=0.3329, FAST=1.4416, PeGaSus=1.7943, DSAT=0.0471, AdaPub=0.7977)}
METHODS = sys.argv[1:] or ["BD", "BA", "DSAT", "Uniform", "Sample", "FAST", "PeGaSus", "AdaPub"]
REPS = 20

@njit(cache=True)
def _draws(rng, n):
    z = 0.0
    for _ in range(n): z += rng.laplace(0.0, 1.0)
    return z

def draw_ms(n: int) -> float:
    "Wall ms of n scalar Laplace draws in compiled code (the best of 5)."
    g = np.random.default_rng(0); _draws(g, 10)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter(); _draws(g, n); best = min(best, time.perf_counter() - t0)
    return best * 1e3

def n_draws(mech, s) -> int:
    "How many Laplace numbers one run draws (its step-wise form under a NoiseRecorder)."
    rec = NoiseRecorder(0)
    mech.start(s.T, s.d, rng=rec)
    for x in s.counts: mech.step(x)
    return sum(d.size for d in rec.draws)

def fmt(v, spec="8.2f"): return f"{v:{spec}}" if v is not None else f"{'-':>{len(format(0.0, spec))}}"

home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
print(f"{'method':8s} {'data set':8s} {'T x d':>8s} {'ours run':>9s} {'batch':>8s} {'draw %':>6s} {'before':>8s} {'Java':>7s} {'/ Java':>7s} {'authors':>8s}")
for m in METHODS:
    for j, nm in enumerate(SETS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = HistogramStream(data.load(SPAS_DATASETS[nm], data_home=home).counts)
        mech = get_mechanism(m, eps=1.0, w=120)
        mech.run(s, rng=0); mech.run_many(s, 1, rng=0)                   # compiled (or loaded from the cache) before timing
        times = []
        for seed in range(REPS):
            t0 = time.perf_counter(); mech.run(s, rng=seed); times.append(time.perf_counter() - t0)
        ours = float(np.median(times)) * 1e3
        t0 = time.perf_counter(); mech.run_many(s, REPS, rng=0); batch = (time.perf_counter() - t0) / REPS * 1e3
        share = 100 * draw_ms(n_draws(get_mechanism(m, eps=1.0, w=120), s)) / ours
        java, before, auth = JAVA[m][j], BEFORE[m][j], AUTHORS_S[nm].get(m)
        ratio = f"{ours / java:6.1f}x" if java else f"{'-':>7s}"
        a = f"{auth * 1e3 / ours:7.0f}x" if auth else f"{'-':>8s}"
        print(f"{m:8s} {nm:8s} {f'{s.T}x{s.d}':>8s} {ours:9.3f} {batch:8.3f} {share:6.0f} {fmt(before, '8.2f')} {fmt(java, '7.2f')} {ratio} {a}", flush=True)
print(f"ours: median of {REPS} runs (wall, checked); batch: run_many of {REPS} runs, per run; load average {os.getloadavg()[0]:.1f}")
