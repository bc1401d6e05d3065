"""Seconds per run of each central mechanism on the four SPAS data sets (eps = 1, w = 120), beside the SPAS authors' code.

Ours: the fastest of 3 runs of `mech.run(stream, rng=0)` in wall time (and, beside it, the least CPU time of this
process, which a busy machine disturbs less); the ledger check (`Release.check`) is excluded.
us/t: our CPU microseconds per timestamp (cpu / T), the unit in which the 1-D budgets are tight (5x the authors' is
1.0-1.7 us per timestamp on spas-uem and spas-otp).
Authors': the seconds per run recorded in issue 11 for the SPAS authors' published Python code, same machine kind
(2 cores, one run, eps = 1, w = 120). ratio = authors / ours, so > 1 means ours is faster; the issue's target is >= 5.
Data from WEVENT_NB_DATA (or ../shared/data beside the repository).
Run: WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_central.py [method ...]
"""
import os, sys, time, warnings
from pathlib import Path
from wevent_nb import data
from wevent_nb.core import HistogramStream, get_mechanism
from wevent_nb.spas import SPAS_DATASETS

AUTHORS = {  # seconds per run of the authors' code, eps = 1, w = 120 (issue 11); BA has no authors' implementation
    "Uem": dict(SPAS=0.6058, Uniform=0.0068, Sample=0.0015, BD=0.5539, FAST=0.0332, PeGaSus=0.0410, DSAT=0.0312, AdaPub=0.0247),
    "Otp": dict(SPAS=0.6914, Uniform=0.0064, Sample=0.0015, BD=0.5735, FAST=0.0350, PeGaSus=0.0390, DSAT=0.0282, AdaPub=0.0287),
    "Flu": dict(SPAS=5.9325, Uniform=0.1594, Sample=0.0239, BD=0.3753, FAST=1.3307, PeGaSus=1.5127, DSAT=0.0445, AdaPub=0.7254),
    "Tdv": dict(SPAS=5.7125, Uniform=0.1770, Sample=0.0250, BD=0.3329, FAST=1.4416, PeGaSus=1.7943, DSAT=0.0471, AdaPub=0.7977),
}
METHODS = sys.argv[1:] or ["PeGaSus", "AdaPub", "DSAT", "FAST", "BD", "BA", "Uniform", "Sample", "SPAS"]
REPEATS, TARGET = 3, 5.0

home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
print(f"{'data set':8s} {'T x d':>8s} {'method':8s} {'ours s':>9s} {'cpu s':>9s} {'us/t':>6s} {'authors s':>9s} {'ratio':>7s}")
for nm, authors in AUTHORS.items():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = HistogramStream(data.load(SPAS_DATASETS[nm], data_home=home).counts)
    for m in METHODS:
        mech = get_mechanism(m, eps=1.0, w=120)
        best = cpu = float("inf")
        for _ in range(REPEATS):
            t0, c0 = time.perf_counter(), time.process_time(); mech.run(s, rng=0)
            best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
        a = authors.get(m)
        ratio = f"{a / best:6.1f}x" if a else "      -"
        flag = "" if a is None else ("" if a / best >= TARGET else "  < 5x")
        print(f"{nm:8s} {f'{s.T}x{s.d}':>8s} {m:8s} {best:9.4f} {cpu:9.4f} {cpu / s.T * 1e6:6.2f} {a if a else '-':>9} {ratio}{flag}")
print(f"ours: fastest of {REPEATS} runs (wall; cpu = least process time), ledger check excluded; "
      f"ratio = authors / ours (wall) (> 1: ours faster; target >= {TARGET:g}x); load average {os.getloadavg()[0]:.1f}")
