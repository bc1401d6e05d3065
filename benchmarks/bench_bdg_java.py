"""BD with grouping beside the Java benchmark's BDwithGrouping (Schäler, Hütter & Schäler, PVLDB 16(8) 2023; MIT) on spas-flu and
spas-tdv, eps in {0.1, 1}, w in {40, 120}, g = GROUPS groups, RUNS runs a side (issue 25). Columns: the MAE per cell (their
Mechansim.mae; ours np.abs(est - counts).mean()) with its standard error over runs, and for the per-group forms the largest window
spend / eps (Java: eps/2 for the dissimilarity plus its booked publications, max over windows of sum_t max_bin used_budget[t][bin]).

Java as shipped:  their class BDwithGrouping as published (its budget field shadowed: infinite noise), run by
                  benchmarks/java/Driver.java (benchmarks/_java.py: needs java and a clone of their repository, STREAMDP_BENCH).
Java fixed:       benchmarks/java_bdg/fixed.patch applied to their file: the one-line fix (the field assigned, not a shadowing
                  local) and a print of the largest window's publication spend.
Java matched:     benchmarks/java_bdg/matched.patch applied after it: three more changes that make it the per_group form here
                  (each group's M1 calibrated on its own size, regrouping before the step, no forced publication at t = 0),
                  to show the remaining MAE gaps come from them.
ours shared:      BDGrouping(eps, w, groups=GROUPS) (private default).  ours per_group: accounting="per_group" (the Java form).
Run: WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_bdg_java.py [RUNS]
"""
import re, subprocess, sys
from pathlib import Path
import numpy as np
from wevent_nb import data
from wevent_nb.grouping import BDGrouping
from _java import classpath, java_missing, patched_classes, stream_csv

PATCHES = Path(__file__).resolve().parent / "java_bdg"
JAVA_FILE = "mechanisms/BDwithGrouping.java"
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
GROUPS, SETS, EPSS, WS = 4, ("spas-flu", "spas-tdv"), (0.1, 1.0), (40, 120)


def java(key, eps, w, fixed):
    "MAE per run and (fixed) the largest window publication spend per run, from the Java driver."
    cp = (f"{fixed}:" if fixed else "") + classpath()
    p = subprocess.run(["java", "-cp", cp, "Driver", "BDwithGrouping", str(stream_csv(key)), str(eps), str(w), str(RUNS),
                        "--set", f"BDwithGrouping.NUM_GROUPS={GROUPS}"], capture_output=True, text=True, check=True)
    text = p.stdout + p.stderr
    mae = np.array([float(v) for v in re.findall(r"run \d+ mae (\S+)", text)])
    pubmax = np.array([float(v) for v in re.findall(r"pubwindowmax (\S+)", text)])
    return mae, pubmax


def ms(x):
    x = np.asarray(x, float)
    if not np.all(np.isfinite(x)): return f"inf ({np.sum(~np.isfinite(x))}/{x.size} runs)"
    return f"{x.mean():.2f} ± {x.std(ddof=1) / np.sqrt(x.size):.2f}"


def main():
    if why := java_missing(): print(f"skipped: {why}"); return
    fixed = patched_classes(JAVA_FILE, [PATCHES / "fixed.patch"], "bdg-fixed")
    matched = patched_classes(JAVA_FILE, [PATCHES / "fixed.patch", PATCHES / "matched.patch"], "bdg-matched")
    print(f"| set | eps | w | Java shipped | Java fixed | Java fixed: window / eps | Java matched | ours per_group | ours per_group: window / eps | ours shared (private) | ours shared: window / eps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in SETS:
        s = data.load(key)
        for eps in EPSS:
            for w in WS:
                j0, _ = java(key, eps, w, None)
                j1, pm = java(key, eps, w, fixed)
                j2, _ = java(key, eps, w, matched)
                rows = {}
                for acc in ("per_group", "shared"):
                    m = BDGrouping(eps, w, groups=GROUPS, accounting=acc, allow_unproven=acc == "per_group")
                    maes, win = [], []
                    for r in range(RUNS):
                        rel = m.run(s, rng=r, check=False)
                        maes.append(np.abs(rel.estimates - s.counts).mean()); win.append(rel.ledger.max_window_spend()[0] / eps)
                    rows[acc] = (ms(maes), max(win))
                print(f"| {key} | {eps:g} | {w} | {ms(j0)} | {ms(j1)} | {0.5 + pm.max() / eps:.3f} | {ms(j2)} | {rows['per_group'][0]} | "
                      f"{rows['per_group'][1]:.3f} | {rows['shared'][0]} | {rows['shared'][1]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
