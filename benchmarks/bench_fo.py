"""Per-user vs exact-aggregate simulation of one timestamp of a frequency oracle.

For n = 200,000 users and d in {2, 100}, times (best of `REPEATS`, time.perf_counter):
  per-user : fo.perturb(values) + fo.estimate(reports)
  aggregate: np.bincount(values) + fo.sample_counts(n_k) + fo.estimate_from_counts(c', n)
  sampler  : the aggregate path without the bincount (the true counts n_k already known)
Both give estimates with exactly the same distribution (see nbs/01_primitives.ipynb).
Run: .venv/bin/python benchmarks/bench_fo.py
"""

import numpy as np
from _common import best_of
from wevent_nb.primitives import get_fo

N, DS, EPS, REPEATS = 200_000, (2, 100), 1.0, 5
# (label, FO name, sample_counts keyword arguments); "grr/others" is the spec-literal O(d^2) GRR sampler
FOS = (("grr", "grr", {}), ("oue", "oue", {}), ("grr/others", "grr", {"method": "others"}))

def main():
    rng = np.random.default_rng(0)
    print(f"one timestamp, n = {N:,} users, eps = {EPS}, best of {REPEATS}")
    print(f"{'fo':<11}{'d':>5}{'per-user [ms]':>16}{'aggregate [ms]':>16}{'speed-up':>10}{'sampler [ms]':>14}{'speed-up':>10}")
    for label, name, kw in FOS:
        for d in DS:
            fo = get_fo(name, EPS, d)
            values = rng.integers(0, d, size=N)
            per_user = best_of(lambda: fo.estimate(fo.perturb(values, rng)), REPEATS)
            aggregate = best_of(lambda: fo.estimate_from_counts(fo.sample_counts(np.bincount(values, minlength=d), rng, **kw), N), REPEATS)
            nk = np.bincount(values, minlength=d)
            sampler = best_of(lambda: fo.estimate_from_counts(fo.sample_counts(nk, rng, **kw), N), REPEATS)
            print(f"{label:<11}{d:>5}{per_user * 1e3:>16.2f}{aggregate * 1e3:>16.3f}{per_user / aggregate:>9.0f}x"
                  f"{sampler * 1e3:>14.3f}{per_user / sampler:>9.0f}x")

if __name__ == "__main__":
    main()
