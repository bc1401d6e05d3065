"""SPAS speed: milliseconds per run of SPAS at eps = 1, w = 120 (the paper-scale claims' setting) on the four SPAS sets of the
Java w-event benchmark (spas-uem, spas-otp, spas-flu, spas-tdv), at its default options and at each main option value, in
each form (run, the step-wise form, the online form, run_many per run, exact noise), beside the times saved from an earlier
commit (--before JSON, written by --json there; by default bench_spas_speed_before.json, main at a53fa9e before SPAS's
compiled step, measured on a quiet machine). Each time is the best of N runs (a run's books checked, as `run` does); the
last line is the default run's Laplace draws alone (as many, drawn in compiled code) and their share of its time.

Run: WEVENT_NB_DATA=../shared/data .venv/bin/python benchmarks/bench_spas_speed.py [--json OUT] [--before JSON] [--n N]"""
import json, sys, warnings
from pathlib import Path
import numpy as np
from _common import best_of
from wevent_nb import data
from wevent_nb.core import HistogramStream
from wevent_nb.primitives import ExactLaplace
from wevent_nb.spas import SPAS, AUTHORS_SPAS, PAPER_TEST

EPS, W = 1.0, 120
SETS = ["spas-uem", "spas-otp", "spas-flu", "spas-tdv"]
U = dict(allow_unproven=True)
CONFIGS = {"default": {}, "svt=strict": dict(svt="strict"), "svt=paper": dict(svt="paper", **U), "dis=raw": dict(dis="raw"),
           "var=cumulative": dict(var_estimator="cumulative"), "var=decay": dict(var_estimator="decay"),
           "direct_release=False": dict(direct_release=False), "direct_budget=eps_p/C": dict(direct_budget="eps_p_over_C"),
           "authors' code": dict(**PAPER_TEST, **AUTHORS_SPAS, **U)}
BEFORE = Path(__file__).with_name("bench_spas_speed_before.json")


def stepwise(s, online=False):
    m = SPAS(EPS, W).start(None if online else s.T, s.d, rng=0)
    for x in s.counts: m.step(x)
    if not online: m.finish().check()


def main():
    args = sys.argv[1:]
    n = int(args[args.index("--n") + 1]) if "--n" in args else 5
    before = json.loads(Path(args[args.index("--before") + 1]).read_text() if "--before" in args else
                        BEFORE.read_text() if BEFORE.exists() else "{}")
    res = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        streams = {k: HistogramStream(data.load(k).counts) for k in SETS}
    print(f"SPAS, ms per run (eps = {EPS}, w = {W}), best of {n}" + ("; before / now (speed-up)" if before else ""))
    print(f"{'configuration':<24}" + "".join(f"{k + f' ({s.T}x{s.d})':>28}" for k, s in streams.items()))
    rows = [(c, lambda s, o=o: SPAS(EPS, W, **o).run(s, rng=0)) for c, o in CONFIGS.items()] + [
        ("form: stepwise", lambda s: stepwise(s)), ("form: online", lambda s: stepwise(s, online=True)),
        ("form: run_many (per run)", lambda s: SPAS(EPS, W).run_many(s, 4, rng=0)), ("form: exact noise", lambda s: SPAS(EPS, W).run(s, rng=ExactLaplace(0)))]
    for label, f in rows:
        line = f"{label:<24}"
        for k, s in streams.items():
            f(s)                                                            # warm: compile caches, data in memory
            ms = best_of(lambda: f(s), n) * 1e3 / (4 if "run_many" in label else 1)
            res[f"{label}|{k}"] = ms
            b = before.get(f"{label}|{k}")
            line += f"{f'{b:.1f} / {ms:.2f} ({b / ms:.0f}x)' if b else f'{ms:.2f}':>28}"
        print(line, flush=True)
    draws_share(streams, res, n)
    if "--json" in args: Path(args[args.index("--json") + 1]).write_text(json.dumps(res, indent=1) + "\n")


def draws_share(streams, res, n):
    "The default run's Laplace draws alone (as many, from a Generator in compiled code), against its time."
    try:
        from numba import njit
        from wevent_nb.core import NoiseRecorder
    except ImportError: return
    @njit
    def draws(g, k):
        acc = 0.0
        for _ in range(k): acc += g.laplace(0.0, 1.0)
        return acc
    g = np.random.default_rng(0); draws(g, 1)
    line = f"{'draws alone (default)':<24}"
    for k, s in streams.items():
        rec = NoiseRecorder(0); SPAS(EPS, W).run(s, rng=rec)
        m = sum(dr.size for dr in rec.draws)
        ms = best_of(lambda: draws(g, m), n) * 1e3
        now = res.get(f"default|{k}")
        line += f"{f'{m} draws: {ms:.2f} ({100 * ms / now:.0f}%)' if now else f'{ms:.2f}':>28}"
    print(line)


if __name__ == "__main__":
    main()
