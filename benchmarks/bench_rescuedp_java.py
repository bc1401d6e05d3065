"""RescueDP beside the Java w-event benchmark's RescueDP1D and RescueDP_MD (Schäler, Hütter & Schäler, PVLDB 16(8) 2023; MIT)
on spas-flu and spas-tdv, eps in {0.1, 1}, w in {40, 120}, RUNS runs a side (issue 25; nbs/08_rescuedp, "Side by side").

Columns: MAE per cell (their Mechansim.mae; ours np.abs(est - counts).mean()), mean ± standard error over runs;
ours per_location = RescueDP1D(accounting="per_location", allow_unproven=True), the benchmark's per-location windows, with
its largest window spend / eps from its books; Java books = their RescueDP1D with benchmarks/java_rescuedp/books.patch
(it prints the largest window's sum over t of max_j e_jt, over eps, and the largest single location's window, over eps).
The Java side needs java and a clone of their repository (benchmarks/_java.py, STREAMDP_BENCH); without them it is skipped.
Run: WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_rescuedp_java.py [RUNS]
"""
import re, subprocess, sys
from pathlib import Path
import numpy as np
from wevent_nb.core import get_mechanism
from wevent_nb.data import load
from _java import classpath, java_missing, patched_classes, run_java, stream_csv

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SETS, EPSS, WS = ("spas-flu", "spas-tdv"), (0.1, 1.0), (40, 120)
BOOKS_PATCH = Path(__file__).resolve().parent / "java_rescuedp" / "books.patch"


def fmt(v):
    v = np.asarray(v, float)
    return f"{v.mean():.1f} ± {v.std(ddof=1) / np.sqrt(v.size):.1f}" if v.size > 1 else "-"


def java_books(key, eps, w, runs):
    "Their per-location accounting's largest window (sum_t max_j e_jt / eps) and largest single location's window / eps, per run."
    cp = patched_classes("mechanisms/RescueDP1D.java", [BOOKS_PATCH], "rescuedp-books") + ":" + classpath()
    out = subprocess.run(["java", "-cp", cp, "Driver", "RescueDP1D", str(stream_csv(key)), str(eps), str(w), str(runs)],
                         capture_output=True, text=True, check=True).stdout
    pairs = re.findall(r"max_window_sum_t_max_j/eps (\S+) largest_location_window/eps (\S+)", out)
    return np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])


def ours(name, s, eps, w, **kw):
    r = get_mechanism(name, eps=eps, w=w, **kw).run_many(s, RUNS, rng=0, check=not kw.get("allow_unproven"))
    return np.abs(r.estimates - s.counts[None]).mean((1, 2)), r


def main():
    why = java_missing()
    if why: print(f"Java columns skipped: {why}")
    print("| set | eps | w | Java RescueDP1D | ours RescueDP1D | Java RescueDP_MD | ours RescueDP | ours per_location | its window / eps | Java books: window / eps | Java: one location's window / eps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in SETS:
        s = load(key)
        for eps in EPSS:
            for w in WS:
                j1 = run_java("RescueDP1D", key, eps, w, RUNS) if not why else []
                jm = run_java("RescueDP_MD", key, eps, w, RUNS) if not why else []
                jb, jo = java_books(key, eps, w, 2) if not why else ([], [])
                o1, _ = ours("RescueDP1D", s, eps, w)
                om, _ = ours("RescueDP", s, eps, w)
                op, r = ours("RescueDP1D", s, eps, w, accounting="per_location", allow_unproven=True)
                over = r.window_spends(w).max() / eps
                jbs = f"{np.max(jb):.2f}" if len(jb) else "-"
                jos = f"{np.max(jo):.3f}" if len(jo) else "-"
                print(f"| {key} | {eps:g} | {w} | {fmt(j1)} | {fmt(o1)} | {fmt(jm)} | {fmt(om)} | {fmt(op)} | {over:.2f} | {jbs} | {jos} |", flush=True)


if __name__ == "__main__":
    main()
