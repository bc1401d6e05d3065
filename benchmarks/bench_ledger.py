"""Ledger check at scale: 10^5 user accounts x 10^4 timestamps, population-division pattern.

Every user reports once per window of w (charged the full eps), so the log holds N*T/w entries.
Prints the entries, the time to record and to check, and the peak memory of the check.
Run: .venv/bin/python benchmarks/bench_ledger.py [N] [T] [w]
"""
import sys, time, tracemalloc
import numpy as np
from wevent_nb.core import Ledger

N, T, w = (int(a) for a in (sys.argv[1:] + ["100000", "10000", "20"][len(sys.argv) - 1:]))
L = Ledger.users(T, N, eps=1.0, w=w)
users = np.arange(N)
groups = [users[users % w == r] for r in range(w)]
t0 = time.perf_counter()
for t in range(T): L.spend(t, 1.0, groups[t % w])
t1 = time.perf_counter()
tracemalloc.start()
L.check()
t2 = time.perf_counter()
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
n = sum(map(len, L._a))
print(f"N={N:,} users, T={T:,} timestamps, w={w}: {n:,} report entries")
print(f"record: {t1 - t0:.2f} s   check (every window of every account): {t2 - t1:.2f} s   peak memory of check: {peak / 2**20:,.0f} MiB")
# central ledger: one account, T spends
C = Ledger.central(T, 1.0, w); C.spend_series(np.full(T, 1.0 / w))
t3 = time.perf_counter(); C.check(); print(f"central ledger, T={T:,}: check {1e3 * (time.perf_counter() - t3):.2f} ms")
