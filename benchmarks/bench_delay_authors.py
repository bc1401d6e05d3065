"""Median milliseconds per run of every delay-allowed method (paper 004) at w = 100, eps in {0.1, 1}, on the authors' short
data sets (COVID, T = 214; Unemployment, T = 621) and FoodMart (T = 18,319), beside the delay paper authors' Python
code's per-run figures where issue 23 measured them.

Run: WEVENT_NB_DATA=../shared/data .venv/bin/python benchmarks/bench_delay_authors.py [--json OUT] [--before JSON] [METHOD ...]
--json writes this run's medians; --before reads an earlier run's to print beside them (bench_delay_authors_before.json:
main at a839df6, before the grouping loops, the group release and Algorithms 3-4 were compiled). A shared 2-core machine:
medians move by tens of percent with the load.
"""
import os, sys, json, time
from pathlib import Path
import numpy as np
from wevent_nb import data
from wevent_nb.core import get_mechanism

home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
METHODS = ["Naive", "AdaPub-event", "PeGaSus-event", "PeGaSus_Delay", "Contin_pp", "Contin_reduce", "Discontin_pp",
           "Discontin_reduce", "CompOrder", "BucOrder", "Constant-mid"]
SETS = {"COVID": "delay-covid", "Unemployment": "delay-unemployment", "FoodMart": "delay-foodmart"}
AUTHORS = {  # (method, data set) -> the authors' ms per run (issue 23; range over eps and the two short data sets)
    ("PeGaSus_Delay", "COVID"): "0.55", ("Contin_reduce", "COVID"): "0.5-1.5", ("Contin_reduce", "Unemployment"): "0.5-1.5",
    ("Discontin_pp", "COVID"): "1.4-8", ("Discontin_pp", "Unemployment"): "1.4-8", ("Naive", "COVID"): "0.2-0.6",
    ("Naive", "Unemployment"): "0.2-0.6"}


def median_ms(name, s, eps, budget=1.0, reps_max=200):
    "Median wall-clock ms of run() over fresh mechanisms (seeds 0, 1, ...), after one warm-up run."
    get_mechanism(name, eps=eps, w=100).run(s, rng=12345)
    ts, spent = [], 0.0
    for r in range(reps_max):
        m = get_mechanism(name, eps=eps, w=100)
        t0 = time.perf_counter(); m.run(s, rng=r); dt = time.perf_counter() - t0
        ts.append(dt); spent += dt
        if (spent > budget and r >= 4) or spent > 4 * budget: break
    return 1e3 * float(np.median(ts))


if __name__ == "__main__":
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]: out, args = args[1], args[2:]
    before = {}
    if args[:1] == ["--before"]: before, args = json.load(open(args[1])), args[2:]
    methods = args or METHODS
    res = {}
    streams = {k: data.load(v, data_home=home) for k, v in SETS.items()}
    print(f"{'method':17s} {'data':13s} {'eps':>4s} {'before ms':>10s} {'after ms':>9s} {'speed-up':>8s} {'authors ms':>10s}")
    for name in methods:
        for ds, s in streams.items():
            for eps in (0.1, 1.0):
                ms = median_ms(name, s, eps); key = f"{name}|{ds}|{eps}"; res[key] = ms
                b = before.get(key)
                bs = f"{b:10.3f}" if b is not None else f"{'':10s}"
                su = f"{b / ms:7.1f}x" if b is not None else f"{'':8s}"
                print(f"{name:17s} {ds:13s} {eps:4.1f} {bs} {ms:9.3f} {su} {AUTHORS.get((name, ds), ''):>10s}", flush=True)
    if out: json.dump(res, open(out, "w"), indent=1)
