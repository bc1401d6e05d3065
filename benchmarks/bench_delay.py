"""Seconds per run of the delay-allowed methods (paper 004) beside the authors' Python code's figures (issue 14).

One run at eps = 1 (best of 3, wall clock and process time; the ledger check, which the authors' code has no counterpart of, timed apart) on FoodMart (T = 18,319) and, for the truncation variants, on the
authors' Outpatient file (4,848 rows, as they timed it); then the Figs. 2-3 grid (4 data sets x 10 eps x 20 repetitions x
every method, w = 10 and 100) estimated from one run per cell type, on 2 cores.
Data from WEVENT_NB_DATA (or ../shared/data beside the repository). Run: .venv/bin/python benchmarks/bench_delay.py
"""
import os, time
from pathlib import Path
from wevent_nb import data
from wevent_nb.core import get_mechanism

home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
food = data.load("delay-foodmart", data_home=home)
outp = data.load("delay-outpatient", data_home=home, artifact=True)


def best(name, s, reps=3, **kw):
    "Best of `reps`: seconds of run() (wall clock), seconds of ledger.check(), process (CPU) seconds of run()."
    ts, cs, ps = [], [], []
    for r in range(reps):
        m = get_mechanism(name, eps=1.0, **kw)
        p0, t0 = time.process_time(), time.perf_counter(); rel = m.run(s, rng=r); t1, p1 = time.perf_counter(), time.process_time(); rel.check()
        ts.append(t1 - t0); cs.append(time.perf_counter() - t1); ps.append(p1 - p0)
    return min(ts), min(cs), min(ps)


CASES = [  # (label, method, data set, params, authors' seconds, target speed-up)
    ("CompOrder w=10", "CompOrder", food, dict(w=10), 0.18, 5), ("CompOrder w=100", "CompOrder", food, dict(w=100), 1.7, 5),
    ("BucOrder w=10", "BucOrder", food, dict(w=10), 0.14, 5), ("BucOrder w=100", "BucOrder", food, dict(w=100), 0.06, 5),
    ("Discontin_pp w=10", "Discontin_pp", food, dict(w=10), 0.09, 5), ("Discontin_pp w=100", "Discontin_pp", food, dict(w=100), 0.13, 5),
    ("PeGaSus", "PeGaSus-event", food, dict(w=10), 0.047, 5), ("Naive", "Naive", food, dict(w=10), 0.018, 5),
    ("BucOrder+trunc Outpatient w=10", "BucOrder", outp, dict(w=10, m=10_000.0, truncation=True), 122.0, 50),
    ("BucOrder+trunc Outpatient w=100", "BucOrder", outp, dict(w=100, m=10_000.0, truncation=True), 13.0, 50),
    ("Discontin_pp+trunc Outpatient w=10", "Discontin_pp", outp, dict(w=10, truncation=True), 12.8, 50),
]
print(f"{'case':38s} {'ours (s)':>9s} {'cpu (s)':>9s} {'check (s)':>9s} {'authors (s)':>11s} {'speed-up':>9s} {'target':>7s}  met")
for label, name, s, kw, theirs, target in CASES:
    ours, chk, cpu = best(name, s, **kw)
    print(f"{label:38s} {ours:9.4f} {cpu:9.4f} {chk:9.4f} {theirs:11.3f} {theirs / ours:8.1f}x {target:6d}x  {'yes' if theirs / ours >= target else 'NO'}")

GRID = ["Naive", "PeGaSus-event", "PeGaSus_Delay", "Contin_reduce", "Discontin_pp", "Discontin_reduce", "CompOrder", "BucOrder"]
REALTIME = {"Naive", "PeGaSus-event"}                      # release the same values at every delay: run once per eps and rep
total = 0.0
for key in ("delay-covid", "delay-unemployment", "delay-outpatient", "delay-foodmart"):
    s = data.load(key, data_home=home)
    for name in GRID:
        for w in ((10,) if name in REALTIME else (10, 100)):
            kw = dict(w=w, m=10_000.0) if (name == "BucOrder" and key == "delay-outpatient") else dict(w=w)
            total += sum(best(name, s, reps=1, **kw)[:2]) * 10 * 20
print(f"Figs. 2-3 grid (4 data sets x 10 eps x 20 reps x {len(GRID)} methods, w = 10 and 100): about {total:.0f} s of runs, "
      f"{total / 2:.0f} s on 2 cores (target: under 300 s)")
