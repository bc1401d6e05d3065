"""Seconds per run of SPAS and of each central baseline on each real SPAS data set (eps = 1, w = 120).

Data from WEVENT_NB_DATA (or ../shared/data beside the repository). Run: .venv/bin/python benchmarks/bench_spas.py
"""
import os, time, warnings
from pathlib import Path
import numpy as np
from wevent_nb import data
from wevent_nb.core import HistogramStream, get_mechanism
from wevent_nb.spas import SPAS_DATASETS, SPAS_METHODS

home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
real = ["Otp", "Dth", "Uem", "Flu", "Tdv", "Ret"]
print(f"{'data set':8s} {'T x d':>10s} " + " ".join(f"{m:>8s}" for m in SPAS_METHODS))
total = 0.0
for nm in real:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = data.load(SPAS_DATASETS[nm], data_home=home)
    s = HistogramStream(s.counts)
    row = []
    for m in SPAS_METHODS:
        mech = get_mechanism(m, eps=1.0, w=120)
        t0 = time.perf_counter(); mech.run(s, rng=0).check(); dt = time.perf_counter() - t0
        row.append(dt); total += dt
    print(f"{nm:8s} {f'{s.T}x{s.d}':>10s} " + " ".join(f"{x:8.3f}" for x in row))
print(f"seconds per run (ledger check included); total {total:.1f} s")
