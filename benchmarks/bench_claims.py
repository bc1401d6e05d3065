"""Wall time of the five papers' paper-scale claims (`wevent-nb reproduce --scale paper`, every cell of every figure and
claims grid), against issue 23's target: all five together in under 20 minutes on 2 cores.

    WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_claims.py              # --reps 2: a fraction of the work, scaled up
    WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_claims.py --full       # the paper's repetitions: the measurement itself
    WEVENT_NB_DATA=... .venv/bin/python benchmarks/bench_claims.py --papers 001 003

With --reps R (R >= 2: a per-seed spread needs two) each paper runs with R repetitions and its time is scaled by
(paper's repetitions) / R. That is an upper bound of the full run: the work done once (loading data, the derivations'
checks, writing the report) is scaled too. The claims tables are written to a temporary folder, never to claims/.
"""
import argparse, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPER_REPS = {"000": 20, "001": 20, "002": 20, "003": 20, "004": 60}   # each notebook's paper-scale default of `reps` (raised for power: issue 24)
NAMES = {"000": "LDP-IDS", "001": "SPAS", "002": "CAPP", "003": "PBD/PBA", "004": "delay-allowed"}
TARGET_MIN = 20.0                                                      # issue 23: all five together


def run(paper: str, reps: int | None, out: Path) -> float:
    "Seconds of one paper's paper-scale reproduction (reps None: the paper's own)."
    cmd = [str(ROOT / ".venv" / "bin" / "wevent-nb"), "reproduce", "--paper", paper, "--scale", "paper", "--out", str(out),
           "-p", "claims_dir", str(out / "claims")]
    if reps is not None: cmd += ["-p", "reps", str(reps)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if done.returncode: sys.exit(f"paper {paper} failed ({' '.join(cmd)}):\n{done.stderr[-3000:]}")
    return secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2, help="repetitions per cell (>= 2), scaled up to the paper's (default 2)")
    ap.add_argument("--full", action="store_true", help="run at the paper's repetitions: no scaling")
    ap.add_argument("--papers", nargs="+", default=list(PAPER_REPS), choices=list(PAPER_REPS), metavar="ID",
                    help="paper ids among 000..004 (default: all five)")
    a = ap.parse_args()
    if not a.full and a.reps < 2: ap.error(f"--reps {a.reps} is not allowed: a per-seed spread needs at least 2 repetitions")
    print(f"{'paper':<16}{'reps run':>9}{'seconds':>10}{'paper reps':>11}{'minutes (scaled)':>18}")
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for p in a.papers:
            reps = None if a.full else min(a.reps, PAPER_REPS[p])
            secs = run(p, reps, Path(tmp) / p)
            scaled = secs * (1 if reps is None else PAPER_REPS[p] / reps) / 60
            total += scaled
            print(f"{p} {NAMES[p]:<12}{reps or PAPER_REPS[p]:>9}{secs:>10.0f}{PAPER_REPS[p]:>11}{scaled:>18.1f}", flush=True)
    kind = "measured" if a.full else "upper bound (scaled)"
    print(f"all {len(a.papers)}: {total:.1f} min, {kind}; target < {TARGET_MIN:g} min for all five; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
