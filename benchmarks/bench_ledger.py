"""Ledger check at scale: 10^5 user accounts x 10^4 timestamps, population-division pattern.

Every user reports once per window of w (charged the full eps), so the log holds N*T/w entries.
Prints the entries, the time to record and to check, and the peak memory of the check.
Then range spends (`Ledger.spend_ranges`), 200,000 users x 800 timestamps, w=20: a population-division pattern of
contiguous id blocks recorded as ranges vs as explicit ids (record and check times, same verdict; legal and with one
overspending block), all users every w steps (LSP), and ranges at arbitrary positions (the segment method's bad case).
Run: .venv/bin/python benchmarks/bench_ledger.py [N] [T] [w]   (N, T, w of the first part)
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

# ---------------------------------------------------------------- range spends (Ledger.spend_ranges)
# Population division in aggregate mode, users labelled as contiguous id blocks: every t takes n1 = N/(2w) users
# and, with probability 0.2, a publication of 5,000-25,000 users (capped so the N/2 users kept for publications
# suffice), each take popping blocks from a LIFO stack of free id blocks (splitting the top one); the users of
# step j return to the stack at the end of step j + w - 1, so each user reports at most once per window.
def pd_blocks(N, T, w, rng, p_pub=0.2, pub=(5_000, 25_000)):
    n1, stack, taken, pub_out, rows = N // (2 * w), [(0, N)], [[] for _ in range(T)], [0] * T, []
    def push(lo, hi):  # merge with the top block when adjacent
        if stack and stack[-1][1] == lo: lo = stack.pop()[0]
        elif stack and stack[-1][0] == hi: hi = stack.pop()[1]
        stack.append((lo, hi))
    def take(t, k):
        ids = []
        while k > 0:
            lo, hi = stack.pop(); m = min(k, hi - lo)
            rows.append((t, hi - m, hi)); taken[t].append((hi - m, hi)); ids.append((hi - m, hi))
            if m < hi - lo: stack.append((lo, hi - m))
            k -= m
        takes.append((t, ids))
    takes = []
    for t in range(T):
        take(t, n1)
        if rng.random() < p_pub:
            k2 = min(int(rng.integers(*pub)), N // 2 - sum(pub_out[max(0, t - w + 1):t]))
            if k2 >= pub[0]: take(t, k2); pub_out[t] = k2
        if t - w + 1 >= 0:
            for lo, hi in reversed(taken[t - w + 1]): push(lo, hi)
    t, lo, hi = np.array(rows, dtype=np.int64).T
    return t, lo, hi, takes

def verdict(L):
    try: L.check(); return "passes"
    except Exception as e: return str(e)

def timed(make, fill, reps=7):
    "Record (fill) and first check of fresh ledgers: (min, median) seconds of each, and the last ledger."
    rec, chk = [], []
    for _ in range(reps):
        L = make()
        t0 = time.perf_counter(); fill(L); t1 = time.perf_counter(); v = verdict(L); t2 = time.perf_counter()
        rec.append(t1 - t0); chk.append(t2 - t1)
    return (min(rec), float(np.median(rec))), (min(chk), float(np.median(chk))), L, v

ms = lambda x: f"{1e3 * x[0]:.3f} ms (median {1e3 * x[1]:.3f})"
RN, RT, Rw = 200_000, 800, 20
rt, rlo, rhi, takes = pd_blocks(RN, RT, Rw, np.random.default_rng(0))
make = lambda: Ledger.users(RT, RN, eps=1.0, w=Rw)
print(f"\nrange spends: N={RN:,} users, T={RT}, w={Rw}, population-division blocks: {rt.size:,} ranges "
      f"(sizes {int((rhi - rlo).min())}..{int((rhi - rlo).max()):,}, median {int(np.median(rhi - rlo)):,}), {int((rhi - rlo).sum()):,} user reports")
j = int(np.flatnonzero(rhi - rlo >= 1_000)[RT // 2])       # one block reports again w/2 steps later: an overspend
bad = (np.r_[rt, rt[j] + Rw // 2], np.r_[rlo, rlo[j]], np.r_[rhi, rhi[j]])
for label, (tt, ll, hh), extra in (("legal", (rt, rlo, rhi), []), ("overspending", bad, [(rt[j] + Rw // 2, [(rlo[j], rhi[j])])])):
    rec_r, chk_r, Lr, vr = timed(make, lambda L: L.spend_ranges(tt, 1.0, ll, hh))
    def fill_explicit(L):
        for t, ids in takes + extra: L.spend(t, 1.0, np.concatenate([np.arange(a, b) for a, b in ids]))
    rec_e, chk_e, Le, ve = timed(make, fill_explicit, reps=3)
    seg = Lr._segments()
    print(f"  {label}: one spend_ranges call: record {ms(rec_r)}, check {ms(chk_r)} "
          f"({seg.n_accounts} segments, {seg.entries()[0].size:,} segment entries)")
    print(f"  {label}: explicit ids, one spend per take: record {ms(rec_e)}, check {ms(chk_e)}")
    print(f"  {label}: same verdict: {vr == ve} ({vr})")

rec_s, chk_s, Ls, vs = timed(make, lambda L: L.spend_ranges(np.arange(0, RT, Rw), 1.0, 0, RN), reps=20)
print(f"  all users every w steps (LSP), {RT // Rw} ranges: record {ms(rec_s)}, check {ms(chk_s)}: {vs}")
g = np.random.default_rng(1)
at, al = g.integers(0, RT, 2_400), g.integers(0, RN - 25_000, 2_400)
ah = al + g.integers(5_000, 25_001, 2_400)
rec_a, chk_a, La, va = timed(make, lambda L: L.spend_ranges(at, 1.0 / Rw, al, ah), reps=3)
print(f"  2,400 ranges at arbitrary positions (sizes 5,000-25,000; worst case for segments): record {ms(rec_a)}, check {ms(chk_a)} "
      f"({La._segments().n_accounts:,} segments, {La._segments().entries()[0].size:,} segment entries)")
