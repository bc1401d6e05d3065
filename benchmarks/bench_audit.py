"""The auditor's power and tightness, measured: `audit` of a correct Uniform and of Uniforms that overspend 1.25x, 1.5x
and 2x (`baselines.UniformOverspend`, eps = 1, w = 4), at several run counts, over SEEDS audit seeds each.

caught: audits whose lower bound on the privacy loss exceeds the claimed eps = 1 (the overspend found).
bound:  the median (and range) of the lower bounds; for the correct Uniform, how close the auditor gets to eps (tightness).
s:      median wall seconds of one audit (all its runs: screen, selection and final runs, both sides of each pair).
Writes the table to claims/audit_power.md (with the command, the seeds and the date) and prints it.

Run: .venv/bin/python benchmarks/bench_audit.py [--runs 2000 20000 100000] [--seeds 10] [--out claims/audit_power.md]
"""
import argparse, datetime, os, sys, time
from pathlib import Path
import numpy as np
from wevent_nb.audit import audit
from wevent_nb.baselines import Uniform, UniformOverspend

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--runs", type=int, nargs="+", default=[2000, 20000, 100000], help="n_runs of each audit")
p.add_argument("--seeds", type=int, default=10, help="audit seeds 0 .. SEEDS-1 per row")
p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "claims" / "audit_power.md"), help="markdown file written ('' : none)")
p.add_argument("--factors", type=float, nargs="+", default=[1.0, 1.25, 1.5, 2.0], help="overspend factors (1: the correct Uniform)")
a = p.parse_args()
if a.seeds < 1 or any(n < 1 for n in a.runs) or any(f <= 0 for f in a.factors): p.error("--runs, --seeds and --factors must be positive")
EPS, W = 1.0, 4

rows = []
for n in a.runs:
    for f in a.factors:
        bounds, secs = [], []
        for seed in range(a.seeds):
            m = Uniform(EPS, W) if f == 1.0 else UniformOverspend(EPS, W, factor=f)
            t0 = time.perf_counter(); r = audit(m, n_runs=n, rng=seed); secs.append(time.perf_counter() - t0)
            bounds.append(r.eps_lower_bound)
        b = np.array(bounds)
        row = (n, "Uniform (correct)" if f == 1.0 else f"Uniform overspending {f:g}x", f * EPS, int((b > EPS).sum()),
               float(np.median(b)), float(b.min()), float(b.max()), float(np.median(secs)))
        rows.append(row)
        print(f"{row[0]:>7d} {row[1]:30s} true loss {row[2]:.2f}: caught {row[3]}/{a.seeds}, bound median {row[4]:.3f} "
              f"[{row[5]:.3f}, {row[6]:.3f}], {row[7]:.1f} s", flush=True)

lines = ["| n_runs | mechanism (eps = 1, w = 4) | true loss | caught (bound > eps) | bound: median [min, max] | s per audit |",
         "|---:|---|---:|---:|---|---:|"]
lines += [f"| {n:,} | {v} | {l:.2f} | {c}/{a.seeds} | {m:.3f} [{lo:.3f}, {hi:.3f}] | {s:.1f} |" for n, v, l, c, m, lo, hi, s in rows]
head = (f"# The auditor's power and tightness\n\nCommand: `.venv/bin/python benchmarks/bench_audit.py --runs {' '.join(map(str, a.runs))} "
        f"--seeds {a.seeds}`; audit seeds 0..{a.seeds - 1}; {datetime.date.today().isoformat()}; 2 cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end.\n\n")
text = head + "\n".join(lines) + "\n"
if a.out: Path(a.out).write_text(text)
print(text)
