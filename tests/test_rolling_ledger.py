"The rolling ledger (the books of an online session) accepts and refuses exactly what the full-history Ledger does."
import copy
import numpy as np
import pytest
from wevent_nb.ledger import allot
from wevent_nb.core import Ledger, RollingLedger, PrivacyBudgetExceeded

AMOUNTS = np.arange(0, 9) / 8     # dyadic amounts: both ledgers add them exactly, so only the rule can differ

def random_ops(rng, N, T, events=False, reach=0):
    "A random time-ordered list of spends: single accounts, account sets with repeats, ranges and standing charges."
    t, ops, standing = 0, [], set()
    while t < T:
        kind = rng.choice(["spend", "set", "range", "standing"] if not events else ["spend", "set", "range"], p=None)
        amt = float(rng.choice(AMOUNTS)) * (0.5 if rng.random() < 0.3 else 1.0)
        if events:
            lo = max(0, t - reach)
            if kind == "spend": ops.append(("spend", t, amt, [int(rng.integers(lo, t + 1))]))
            elif kind == "set": ops.append(("spend", t, amt, rng.integers(lo, t + 1, size=3).tolist()))
            else:
                a = int(rng.integers(lo, t + 1)); ops.append(("range", t, amt, a, int(rng.integers(a, t + 2))))
        elif kind == "spend": ops.append(("spend", t, amt, [int(rng.integers(N))]))
        elif kind == "set": ops.append(("spend", t, amt, rng.integers(N, size=int(rng.integers(1, N + 2))).tolist()))
        elif kind == "range":
            a = int(rng.integers(N + 1)); ops.append(("range", t, amt, a, int(rng.integers(a, N + 1))))
        else:
            a = int(rng.integers(N))
            if a not in standing: standing.add(a); ops.append(("standing", t, amt / 4, a))   # one standing charge per account
        t += int(rng.choice([0, 0, 1, 1, 1, 2, 5]))
    return ops

def apply(led, op, T=None):
    kind, t, amt, *rest = op
    if kind == "spend": led.spend(t, amt, rest[0])
    elif kind == "range":
        if isinstance(led, Ledger): led.spend_ranges(t, amt, rest[0], rest[1])
        else: led.spend_ranges(t, amt, rest[0], rest[1])
    else: led.standing(amt, start=t, account=rest[0])

def compare(full, rolling, ops):
    "Feed both: each op is accepted by the rolling ledger iff the full ledger with it still passes check()."
    accepted = refused = 0
    for op in ops:
        trial = copy.deepcopy(full); apply(trial, op)
        want = trial.ok()
        try: apply(rolling, op); got = True
        except PrivacyBudgetExceeded: got = False
        assert got == want, (op, want)
        if got: full, accepted = trial, accepted + 1
        else: refused += 1
    return accepted, refused

@pytest.mark.parametrize("seed", range(40))
def test_rolling_equals_full_personalized(seed):
    rng = np.random.default_rng(seed)
    N, T = int(rng.integers(1, 6)), 40
    eps = rng.choice([0.5, 1.0, 2.0], size=N); w = rng.integers(1, 8, size=N)
    ops = random_ops(rng, N, T)
    acc, ref = compare(Ledger.users(T + 1, N, eps, w), RollingLedger.users(N, eps, w), ops)
    assert acc > 0

def test_rolling_equals_full_sees_both_outcomes():
    "Across the seeds both accepting and refusing happen, so the comparison above can fail either way."
    totals = np.zeros(2)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        N = int(rng.integers(1, 6)); eps = rng.choice([0.5, 1.0, 2.0], size=N); w = rng.integers(1, 8, size=N)
        totals += compare(Ledger.users(41, N, eps, w), RollingLedger.users(N, eps, w), random_ops(rng, N, 40))
    assert totals.min() > 50, totals

@pytest.mark.parametrize("seed", range(20))
def test_rolling_equals_full_events(seed):
    rng = np.random.default_rng(100 + seed)
    T, reach = 30, int(rng.integers(0, 4))
    ops = random_ops(rng, 0, T, events=True, reach=reach)
    compare(Ledger.events(T + 2, 1.0), RollingLedger.events(1.0, reach=reach), ops)

@pytest.mark.parametrize("seed", range(10))
def test_rolling_equals_full_whole_stream(seed):
    "Accounts with no window (w=None): every spend counts together."
    rng = np.random.default_rng(200 + seed)
    N = 3; T = 30
    ops = [op for op in random_ops(rng, N, T) if op[0] != "standing"]
    compare(Ledger(T + 1, 2.0, None, N), RollingLedger(2.0, None, N), ops)

def test_refused_spend_records_nothing():
    L = RollingLedger.central(1.0, 4)
    L.spend(0, 0.5); L.spend(1, 0.25)
    with pytest.raises(PrivacyBudgetExceeded, match="refused before any noise is drawn.*window t=0..3"): L.spend(3, 0.5)
    assert L.t == 1 and L.headroom(t=3)[0] == pytest.approx(0.25)
    L.spend(4, 0.75)                     # t=0 has left the window: 0.25 + 0.75
    with pytest.raises(ValueError, match="time order"): L.spend(2, 0.0)

def test_memory_independent_of_t():
    "The books hold w columns per account however long the stream."
    L = RollingLedger.users(3, 1.0, [2, 5, 3])
    for t in range(10_000): L.spend(t, allot(0.2), [1])
    assert L._ring.shape == (3, 5)
    E = RollingLedger.events(1.0, reach=2)
    for t in range(10_000): E.spend(t, 0.5, [t] + ([t - 2] if t >= 2 else []))
    assert len(E._open) <= 3

def test_bad_arguments():
    with pytest.raises(ValueError, match="eps"): RollingLedger.central(0.0, 3)
    with pytest.raises(ValueError, match="w"): RollingLedger.central(1.0, 0)
    L = RollingLedger.users(2, 1.0, 3)
    with pytest.raises(ValueError, match="accounts"): L.spend(0, 0.1, [2])
    with pytest.raises(ValueError, match="amount"): L.spend(0, float("nan"), [0])
    with pytest.raises(ValueError, match="t"): L.spend(-1, 0.1)

@pytest.mark.parametrize("seed", range(20))
def test_rolling_equals_full_central_fast_path(seed):
    "One account, float amounts at int timestamps: the scalar path central mechanisms take at every step."
    rng = np.random.default_rng(300 + seed)
    w, T, t, ops = int(rng.integers(1, 8)), 60, 0, []
    while t < T:
        ops.append(("spend", t, float(rng.choice(AMOUNTS)) * (0.5 if rng.random() < 0.3 else 1.0), None))
        if rng.random() < 0.05 and not any(o[0] == "standing" for o in ops): ops.append(("standing", t, 0.125, 0))
        t += int(rng.choice([0, 1, 1, 1, 2]))
    acc, ref = compare(Ledger.central(T + 1, 1.0, w), RollingLedger.central(1.0, w), ops)
    assert acc > 0
