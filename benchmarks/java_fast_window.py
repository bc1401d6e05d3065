"""The Java benchmark's FAST_w (per bin and block), its books measured from its own releases (issue 25, 04_baselines
"FAST per bin"). FAST_w.java runs a fresh FAST per bin on blocks of w + 1 timestamps (line 221), each with eps/2 (line 238)
and M = (int)(0.075 w) samples (line 68) at eps/(2M); it writes only the first w rows of a block (line 242: the last row
stays 0). Between samples a bin releases its int-cast prediction (line 116), at a sample a Kalman-corrected real: a
sample is a non-integer release. One user's count is in one bin, so a timestamp at which any bin samples costs eps/(2M)
(Laplace on a sensitivity-1 histogram); a window t-w+1 .. t books eps/(2M) times the number of such timestamps. Printed
per data set, eps and w: M, the most sampling timestamps of any bin in a window and of all bins, and that window's sum
over eps; the share of windows above eps; and the share of unwritten (exactly 0 where the count is not) cells.

Run: python benchmarks/java_fast_window.py [RUNS]   (needs java and a clone of the Java benchmark: benchmarks/java/README.md)."""
import sys, tempfile
import numpy as np

from _java import EPSS, SETS, WS, java_missing, run_java, window_sums


def main(runs=3):
    if why := java_missing(): print(f"skipped: {why}"); return
    print(f"{'data set':9s} {'eps':>4s} {'w':>4s} {'M':>3s} {'max/bin':>7s} {'max all':>7s} {'sum/eps':>8s} {'> eps':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for key in SETS:
            for eps in EPSS:
                for w in WS:
                    M = max(1, int(0.075 * w))
                    run_java("FAST_w", key, eps, w, runs, dump=f"{tmp}/r")
                    per_bin, union, over = 0, 0, []
                    for i in range(runs):
                        rel = np.loadtxt(f"{tmp}/r_{i}.csv", delimiter=",", ndmin=2)
                        s = rel != np.round(rel)                       # a sample: a non-integer release
                        per_bin = max(per_bin, int(window_sums(s, w).max()))
                        u = window_sums(s.any(axis=1), w)
                        union = max(union, int(u.max())); over.append(np.mean(u > 2 * M))
                    print(f"{key:9s} {eps:4g} {w:4d} {M:3d} {per_bin:7d} {union:7d} {union / (2 * M):8.3f} {100 * np.mean(over):6.1f}%", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
