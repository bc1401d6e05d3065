"""MAE of our central mechanisms beside the Java w-event benchmark's forms (Schäler, Hütter and Schäler, PVLDB 16(8), 2023;
chryenix/streamdp-benchmark, MIT) on the four SPAS data sets (issue 25, "the benchmark's variants", 04_baselines).

Each row is one comparison: ours (a registered mechanism with the parameters shown) and theirs (their class run by the
Java driver benchmarks/java/Driver.java, with the static fields shown set by reflection), RUNS runs a side, MAE as their
Mechansim.mae (the mean over all T x d cells of |release - count|), mean ± standard error over the runs, and z = the
difference over the combined standard error. A '-' column: that side has no such form.

Rows (see 04_baselines, the sections "PeGaSus", "AdaPub", "DSAT", "FAST" and their notes on the benchmark's forms):
  Uniform, Sample, BD, BA   ours at their defaults | theirs as shipped (the forms that agree)
  BA-noforce     ours BA (as the BA row)          | their BA without its forced publication at t = 0 (java_ba/no_forced_first.patch)
  PeGaSus        ours (grouper on, mean smoother) | theirs as shipped (DEBUG_FORCE_NEW_GROUP_EACH_TIMESTAMP: Uniform at 0.8 eps, median of one)
  PeGaSus-grp    -                                | theirs with the debug flag off (their grouper, median smoother)
  Uniform@0.8    ours Uniform at 0.8 eps          | -   (what their PeGaSus and AdaPub reduce to)
  AdaPub         ours                              | theirs as shipped (dimension grouping off, every time group closed)
  AdaPub-g0      ours with g=0 (no dimension groups) | theirs as shipped (the same Java runs as the AdaPub row)
  DSAT           ours (eps/2 tests, eps/2 samples) | theirs (0.85 eps tests, 0.15 eps samples, threshold driven to 0, window off by one)
  FAST           ours (one shared schedule)        | theirs (blocks of w+1, eps/2 each, a FAST per bin and block)
  FAST-per_bin   ours schedule="per_bin"           | theirs (the same Java runs as the FAST row: their per-bin form)

Run:  WEVENT_NB_DATA=... python benchmarks/bench_java_errors.py [--runs 20] [--rows FAST,FAST-per_bin] [--sets spas-flu]
Needs java on PATH and a clone of the Java benchmark (STREAMDP_BENCH; benchmarks/java/README.md, benchmarks/_java.py);
without them the Java column is skipped with a message (it is not a test).
"""
import argparse, sys, warnings
import numpy as np
from wevent_nb import data
from wevent_nb.core import HistogramStream, get_mechanism
from pathlib import Path
from _java import EPSS, SETS, WS, java_missing, patched_classes, run_java

JAVA_BA = Path(__file__).resolve().parent / "java_ba"

ROWS = {  # label: (our mechanism and parameters or None, their class and --set fields or None)
    **{m: ((m, {}), (m, [])) for m in ("Uniform", "Sample", "BD", "BA")},   # the forms that agree
    "BA-noforce": (("BA", {}), ("BA", [], ["no_forced_first.patch"])),   # theirs without the forced publication at t = 0 (java_ba/)
    "PeGaSus": (("PeGaSus", {}), ("Pegasus", [])),
    "PeGaSus-grp": (None, ("Pegasus", ["Pegasus.DEBUG_FORCE_NEW_GROUP_EACH_TIMESTAMP=false"])),
    "Uniform@0.8": (("Uniform", {"eps_factor": 0.8}), None),
    "AdaPub": (("AdaPub", {}), ("AdaPub", [])),
    "AdaPub-g0": (("AdaPub", {"g": 0}), ("AdaPub", [])),
    "DSAT": (("DSAT", {}), ("DSAT", [])),
    "FAST": (("FAST", {}), ("FAST_w", [])),
    "FAST-per_bin": (("FAST", {"schedule": "per_bin"}), ("FAST_w", [])),
}
def java_maes(cls, fields, key, eps, w, runs, patches=()):
    "Their MAE per run (benchmarks/_java.py); `patches` (files in benchmarks/java_ba/) applied to their class first."
    first = patched_classes(f"mechanisms/{cls}.java", [JAVA_BA / p for p in patches], f"{cls}-" + "-".join(Path(p).stem for p in patches)) if patches else None
    return run_java(cls, key, eps, w, runs, fields, first=first)


def our_maes(spec, s, eps, w, runs, seed):
    "Our MAE per run (run_many: runs from one generator, every window checked)."
    name, kw = spec
    kw = dict(kw); factor = kw.pop("eps_factor", 1.0)
    r = get_mechanism(name, eps=eps * factor, w=w, **kw).run_many(s, runs, rng=seed)
    return np.abs(r.estimates - s.counts[None]).mean(axis=(1, 2))


def fmt(v):
    if v is None: return f"{'-':>17s}"
    return f"{v.mean():9.3f} ± {v.std(ddof=1) / np.sqrt(v.size):5.3f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rows", default=",".join(ROWS), help="comma-separated labels of " + ", ".join(ROWS))
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--eps", default=",".join(map(str, EPSS)))
    ap.add_argument("--w", default=",".join(map(str, WS)))
    a = ap.parse_args(argv)
    rows = a.rows.split(",")
    for r in rows:
        if r not in ROWS: ap.error(f"--rows: {r!r} is not one of {', '.join(ROWS)}")
    why = java_missing()
    if why: print(f"Java column skipped: {why} (benchmarks/java/README.md).", flush=True)
    cache = {}
    print(f"{'row':13s} {'data set':9s} {'eps':>4s} {'w':>4s} {'ours MAE ± SE':>17s} {'Java MAE ± SE':>17s} {'z':>6s}", flush=True)
    for key in a.sets.split(","):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = HistogramStream(data.load(key).counts)
        for eps in map(float, a.eps.split(",")):
            for w in map(int, a.w.split(",")):
                for r in rows:
                    ours_spec, java_spec = ROWS[r]
                    ours = our_maes(ours_spec, s, eps, w, a.runs, seed=0) if ours_spec else None
                    java = None
                    if java_spec and not why:
                        ck = (java_spec[0], tuple(java_spec[1]), tuple(map(tuple, java_spec[2:])), key, eps, w)
                        if ck not in cache: cache[ck] = java_maes(java_spec[0], java_spec[1], key, eps, w, a.runs, *java_spec[2:])
                        java = cache[ck]
                    z = f"{'-':>6s}"
                    if ours is not None and java is not None:
                        se = np.hypot(ours.std(ddof=1) / np.sqrt(ours.size), java.std(ddof=1) / np.sqrt(java.size))
                        z = f"{(ours.mean() - java.mean()) / se:6.1f}" if se > 0 else f"{'inf':>6s}"
                    print(f"{r:13s} {key:9s} {eps:4g} {w:4d} {fmt(ours)} {fmt(java)} {z}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
