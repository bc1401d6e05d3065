"""The Java benchmark's DSAT window, measured from its own releases (issue 25, 04_baselines "DSAT": the erratum on the
benchmark's form). Their w-event part (DSAT.java lines 181 and 189) counts the samples and the spent budget of the window
in `Arrays.copyOfRange(.., t-w, t-1)`, timestamps t-w .. t-2: it misses t-1 and counts t-w, which has left the window
t-w+1 .. t. A sample is a timestamp whose release differs from the previous one (their release repeats `last_realize`
between samples; a sample adds continuous Laplace noise). Printed per data set, eps and w: C = ceil(0.15 w), the share of
the windows t-w+1 .. t (t >= w, their w-event part) that hold C + 1 samples, the most samples in one window, and that
window's booked sum over eps by their own books (each sample eps/C: eps_1/C for its test, eps_2/C for its publication).

Run: python benchmarks/java_dsat_window.py [RUNS]   (needs java and a clone of the Java benchmark: benchmarks/java/README.md)."""
import math, sys, tempfile
import numpy as np

from _java import EPSS, SETS, WS, java_missing, run_java, window_sums


def samples(rel):
    "Sampling timestamps of a release (T x d): t = 0 and every t whose row differs from row t - 1."
    s = np.ones(len(rel), bool); s[1:] = np.any(rel[1:] != rel[:-1], axis=1)
    return s


def window_counts(s, w):
    "Samples in each window t-w+1 .. t, for t = w .. T-1 (their w-event part begins at t = w + 1; t = w is its last test-free step)."
    return window_sums(s, w)[1:]


def main(runs=5):
    if why := java_missing(): print(f"skipped: {why}"); return
    print(f"{'data set':9s} {'eps':>4s} {'w':>4s} {'C':>3s} {'share C+1':>10s} {'max':>4s} {'sum/eps':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        for key in SETS:
            for eps in EPSS:
                for w in WS:
                    C = math.ceil(0.15 * w)
                    run_java("DSAT", key, eps, w, runs, dump=f"{tmp}/r")
                    counts = [window_counts(samples(np.loadtxt(f"{tmp}/r_{i}.csv", delimiter=",", ndmin=2)), w) for i in range(runs)]
                    allc = np.concatenate(counts)
                    share, top = np.mean(allc > C), int(allc.max())
                    print(f"{key:9s} {eps:4g} {w:4d} {C:3d} {100 * share:9.1f}% {top:4d} {top / C:8.3f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
