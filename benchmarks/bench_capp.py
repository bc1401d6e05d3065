"""CAPP (paper 002) speed: one round of each method over the 41 query windows of C6H6 (T = 8,990, w = 10, eps = 1), beside
the authors' MATLAB code under Octave on this machine kind; and the vectorised APP against a per-user Python loop at
N = 100,000 users; and one run of each method at the settings of the paper-scale claims (claims/002_capp.md: 50 query
intervals x 10 inner repetitions = 500 rows of C6H6, one cell of each figure's grid), beside the same cells' times before
CAPP's compiled step (bench_capp_before.json, main at 6d52988).

Run: WEVENT_NB_DATA=../shared/data .venv/bin/python benchmarks/bench_capp.py [--json OUT] [--before JSON]"""
import json, sys
from pathlib import Path
import numpy as np
from _common import best_of
from wevent_nb import data
from wevent_nb.core import NumericPopulation, get_mechanism, seed_from_key
from wevent_nb.capp import sw_perturb, query_population

AUTHORS = {"SW-direct": 0.011, "APP": 0.011, "IPP": 0.012, "ToPL": 0.013, "BA-SW": 0.022, "CAPP": 0.055}   # seconds, Octave
TARGET_VS_AUTHORS, TARGET_VS_LOOP = 5.0, 100.0
W, EPS = 10, 1.0
BEFORE = Path(__file__).with_name("bench_capp_before.json")
# (figure, method, w, Lq): one cell of each grid of the paper-scale reproduction (eps = 1; Fig. 6's longest panel)
PAPER_CELLS = [("Table I", m, 60, 60) for m in ("SW-direct", "IPP", "APP", "ToPL")] + [
    ("Figs. 4-5", m, 30, 30) for m in ("SW-direct", "BA-SW", "IPP", "APP", "CAPP")] + [
    ("Figs. 6-7", m, 30, 40) for m in ("Sampling", "APP-S", "CAPP-S")] + [
    ("Fig. 9", m, 10, 10) for m in ("PM-APP", "Laplace-direct", "Laplace-APP", "SR-direct", "SR-APP")]


def c6h6_windows():
    "The authors' protocol: 41 windows of w slots at strided starts 0, h, 2h, ... with h = floor(T/40)."
    try: s = data.load("capp-c6h6")
    except FileNotFoundError:
        print("C6H6 not found (set WEVENT_NB_DATA): using a sine of the same length"); s = NumericPopulation(0.5 + 0.4 * np.sin(np.arange(8990) / 9)[None, :])
    h = s.T // 40
    starts = np.arange(0, s.T - W + 1, h)[:41]
    return NumericPopulation(np.stack([s.values[0, a:a + W] for a in starts]))


def app_loop(x, eps, w, rng):
    "A straightforward per-user Python loop of APP (Algorithm 1), for the comparison."
    out = np.empty_like(x)
    for j in range(x.shape[0]):
        D = 0.0
        for t in range(x.shape[1]):
            xi = min(max(x[j, t] + D, 0.0), 1.0)
            y = float(sw_perturb(np.array([xi]), eps / w, rng)[0])
            out[j, t] = y; D += x[j, t] - y
    return out


def paper_cells(before):
    "One run (+ ledger check) of each method at a cell of the paper-scale grids: 500 rows of C6H6 query intervals, best of 10."
    try: s = data.load("capp-c6h6")
    except FileNotFoundError: print("C6H6 not found (set WEVENT_NB_DATA): no paper-scale cells"); return {}
    print(f"\nOne run at the paper-scale claims' settings (C6H6, 50 queries x 10 repetitions = 500 rows, eps = {EPS}), best of 10:")
    print(f"{'cell':<11}{'method':<16}{'w':>4}{'Lq':>4}{'before (ms)':>13}{'now (ms)':>10}{'speed-up':>10}")
    out = {}
    for fig, name, w, Lq in PAPER_CELLS:
        pop = query_population(s, Lq, 50, rng=seed_from_key("capp-queries", "C6H6", Lq), repeat=10)
        m = get_mechanism(name, eps=EPS, w=w, Lq=Lq)
        ms = best_of(lambda: m.run(pop, rng=0).check(), 10) * 1e3
        key = f"{name}|w={w}|Lq={Lq}"; out[key] = ms
        b = before.get(key)
        print(f"{fig:<11}{name:<16}{w:>4}{Lq:>4}" + (f"{b:>13.3f}{ms:>10.3f}{b / ms:>9.1f}x" if b else f"{'':>13}{ms:>10.3f}"))
    return out


def main():
    args = sys.argv[1:]
    out = args[args.index("--json") + 1] if "--json" in args else None
    before = json.loads(Path(args[args.index("--before") + 1]).read_text() if "--before" in args else
                        BEFORE.read_text() if BEFORE.exists() else "{}")
    res = {}
    pop = c6h6_windows()
    print(f"One round over {pop.N} query windows of C6H6 (w = {W}, eps = {EPS}), run + ledger check, best of 30:")
    print(f"{'method':<12}{'ours (ms)':>12}{'authors (ms)':>15}{'speed-up':>11}")
    worst = np.inf
    for name, theirs in AUTHORS.items():
        m = get_mechanism(name, eps=EPS, w=W)
        ours = best_of(lambda: m.run(pop, rng=0).check(), 30)
        worst = min(worst, theirs / ours)
        res[f"{name}|c6h6-round"] = ours * 1e3
        b = before.get(f"{name}|c6h6-round")
        print(f"{name:<12}{ours * 1e3:>12.3f}{theirs * 1e3:>15.1f}{theirs / ours:>10.0f}x" + (f"   (before: {b:.3f} ms, {b / (ours * 1e3):.1f}x)" if b else ""))
    print(f"slowest speed-up {worst:.0f}x (target >= {TARGET_VS_AUTHORS:g}x): {'met' if worst >= TARGET_VS_AUTHORS else 'NOT met'}")

    N, N_loop = 100_000, 2_000
    x = np.random.default_rng(0).random((N, W))
    big = NumericPopulation(x)
    vec = best_of(lambda: get_mechanism("APP", eps=EPS, w=W).run(big, rng=1).check(), 3)
    loop = best_of(lambda: app_loop(x[:N_loop], EPS, W, np.random.default_rng(1)), 1) * N / N_loop
    print(f"APP at N = {N:,} users x {W} slots: vectorised {vec:.3f} s; per-user Python loop {loop:.1f} s "
          f"(timed on {N_loop:,} users, scaled linearly): {loop / vec:.0f}x (target >= {TARGET_VS_LOOP:g}x)")
    res |= paper_cells(before)
    if out: Path(out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
