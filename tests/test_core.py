"""Core: validation errors, rng handling, stream types, the ledger (property tests) and the registry."""
import re
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from wevent_nb.ledger import allot
from wevent_nb.core import (Ledger, PrivacyBudgetExceeded, HistogramStream, CategoricalPopulation,
    CategoricalAggregate, NumericPopulation, PersonalizedPopulation, ScalarStream, ToyUniform, ToyOverspend,
    check_eps, check_w, check_fraction, check_counts, check_categories, as_rng, spawn_rngs, seed_from_key,
    list_mechanisms, get_mechanism, register, Mechanism)


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("bad", [0, -0.5, float("nan"), float("inf"), "1", None, True, [1.0]])
def test_eps_rejected_with_name_value_and_range(bad):
    with pytest.raises(ValueError, match=r"eps=.* must be a finite real number in \[1e-10, 300\]"):
        check_eps(bad)

@pytest.mark.parametrize("bad", [0, -2, 1.5, float("nan"), "3", None, False])
def test_w_rejected(bad):
    with pytest.raises(ValueError, match=r"w=.* must be an integer >= 1"):
        check_w(bad)

def test_w_accepts_integral_values():
    assert check_w(np.int32(5)) == 5 and check_w(5.0) == 5

def test_fraction_open_interval():
    assert check_fraction(0.25, "theta") == 0.25
    for bad in (0, 1, -0.1, 1.1, float("nan")):
        with pytest.raises(ValueError, match="theta"):
            check_fraction(bad, "theta")

def test_counts_and_categories_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"counts >= 0, found -1.0 at index \(1, 0\)"):
        check_counts([[1, 2], [-1, 0]])
    with pytest.raises(ValueError, match="finite"):
        check_counts([[1, np.inf]])
    with pytest.raises(ValueError, match="dimension"):
        check_counts(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"integers in \[0, 4\).*found 4"):
        check_categories([[0, 4]], d=4)
    with pytest.raises(ValueError, match="non-integral"):
        check_categories([[0.5]], d=4)

def test_stream_types_validate_at_the_door():
    with pytest.raises(ValueError, match="finite"):
        HistogramStream(np.array([[np.nan]]))
    with pytest.raises(ValueError, match=">= 0"):
        HistogramStream(np.array([[-1.0]]))
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        CategoricalPopulation(np.array([[0, 2]]), d=2)
    with pytest.raises(ValueError, match="same number of users"):
        CategoricalAggregate(np.array([[3, 1], [1, 1]]))
    with pytest.raises(ValueError, match=r"\[0.0, 1.0\]"):
        NumericPopulation(np.array([[0.2, -0.1]]))
    with pytest.raises(ValueError, match="shape"):
        PersonalizedPopulation(np.zeros((3, 4), int), 2, eps=np.ones(2), w=np.ones(3, int))
    with pytest.raises(ValueError, match="w must be an integer >= 1"):
        PersonalizedPopulation(np.zeros((2, 4), int), 2, eps=np.ones(2), w=np.array([1, 0]))
    with pytest.raises(ValueError, match=r"\[0, 10\]"):
        ScalarStream(np.array([3.0, 11.0]), 0, 10)
    assert HistogramStream(np.arange(5.0)).counts.shape == (5, 1)

def test_population_counts_and_aggregate():
    g = np.random.default_rng(1)
    v = g.integers(0, 5, size=(300, 7))
    pop = CategoricalPopulation(v, d=5)
    ref = np.stack([np.bincount(v[:, t], minlength=5) for t in range(7)])
    np.testing.assert_array_equal(pop.counts, ref)
    agg = pop.aggregate()
    assert agg.N == 300 and agg.T == 7 and agg.d == 5
    np.testing.assert_allclose(agg.frequencies.sum(1), 1.0)


# ---------------------------------------------------------------- randomness
def test_rng_sources():
    assert as_rng(5).random() == as_rng(5).random()
    g = np.random.default_rng(0)
    assert as_rng(g) is g
    a, b = spawn_rngs(11, 2)
    assert not np.allclose(a.random(100), b.random(100))
    a2, _ = spawn_rngs(11, 2)
    assert a2.random() == spawn_rngs(11, 2)[0].random()
    for bad in ("x", -1, 1.5, True):
        with pytest.raises(ValueError, match="rng"):
            as_rng(bad)

def test_seed_from_key_is_stable_and_distinct():
    assert seed_from_key("a", 1, 0.5) == seed_from_key("a", 1, 0.5)
    seeds = {seed_from_key("m", e, r) for e in (0.1, 0.5, 1.0) for r in range(50)}
    assert len(seeds) == 150
    assert 0 <= seed_from_key("x") < 2 ** 63


# ---------------------------------------------------------------- the ledger
def _max_windows(dense, w):
    "Reference: max over all windows of w (None = whole stream) of each row of a dense spend matrix."
    A, T = dense.shape
    out = np.zeros(A)
    for a in range(A):
        win = T if w is None else int(np.broadcast_to(w, (A,))[a])
        for end in range(T):
            out[a] = max(out[a], dense[a, max(0, end - win + 1): end + 1].sum())
    return out

spend_matrix = st.integers(1, 25).flatmap(lambda T: st.integers(1, 4).flatmap(lambda A: st.lists(
    st.lists(st.floats(0, 0.6, allow_nan=False), min_size=T, max_size=T), min_size=A, max_size=A)))

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spend_matrix, st.integers(1, 8), st.booleans())
def test_ledger_check_equals_brute_force(rows, w, personalized):
    dense = allot(np.array(rows))       # allotted, as mechanisms book: window sums of whole quanta are exact doubles
    A, T = dense.shape
    ws = (np.arange(A) % w) + 1 if personalized else w
    eps = np.linspace(0.8, 1.2, A)
    L = Ledger(T, eps=eps, w=ws, n_accounts=A)
    for t in range(T):
        L.spend(t, dense[:, t], np.arange(A))
    ref = _max_windows(dense, ws)
    np.testing.assert_array_equal(L.max_window_spend(), ref)
    assert L.ok() == bool(np.all(ref <= allot(eps)))       # a budget counts its whole quanta: exact, no tolerance

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 20), st.floats(0.01, 10))
def test_uniform_split_always_passes_and_any_excess_is_caught(T, w, eps):
    L = Ledger.central(T, eps, w)
    L.spend_series(np.full(T, allot(eps / w)))   # a mechanism allots its split (00c_ledger, Books in exact units)
    L.check()
    over = Ledger.central(T, eps, w)
    over.spend_series(np.full(T, eps / w * (1 + 1e-6)))
    if T >= w:  # a full window exists, so the excess is a real overspend
        with pytest.raises(PrivacyBudgetExceeded):
            over.check()
    else:
        over.check()

@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(1, 10), st.data())
def test_population_division_reports_at_most_once_per_window(T, w, data):
    N = 6
    L = Ledger.users(T, N, eps=1.0, w=w)
    last = {}
    legal = True
    for t in range(T):
        reporters = data.draw(st.lists(st.integers(0, N - 1), unique=True, max_size=N))
        for u in reporters:
            if u in last and t - last[u] < w:
                legal = False
            last[u] = t
        L.spend(t, 1.0, reporters)
    assert L.ok() == legal

def test_exception_names_account_window_and_overspend():
    L = Ledger.users(T=30, N=5, eps=1.0, w=10)
    L.spend(3, 0.7, [4]); L.spend(9, 0.5, [4])
    with pytest.raises(PrivacyBudgetExceeded) as e:
        L.check()
    assert e.value.account == "user 4" and e.value.window == (0, 9)
    assert e.value.overspend == pytest.approx(0.2)
    assert "user 4" in str(e.value) and "window t=0..9" in str(e.value)

def test_event_level_ledger_sums_every_spend_of_an_event():
    E = Ledger.events(T=10, eps=1.0)
    E.spend(0, 0.5, [0]); E.spend(9, 0.5, [0]); E.check()
    E.spend(5, 0.01, [0])
    with pytest.raises(PrivacyBudgetExceeded, match="event 0"):
        E.check()

def test_ledger_rejects_bad_spends():
    L = Ledger.central(5, 1.0, 2)
    with pytest.raises(ValueError, match="outside"):
        L.spend(5, 0.1)
    with pytest.raises(ValueError, match="amount"):
        L.spend(0, -0.1)
    with pytest.raises(ValueError, match="amount"):
        L.spend(0, float("nan"))
    with pytest.raises(ValueError, match="accounts"):
        L.spend(0, 0.1, [3])

def test_window_use_matches_definition():
    g = np.random.default_rng(3)
    L = Ledger.users(T=40, N=3, eps=[1.0, 2.0, 0.5], w=[3, 5, 7])
    dense = g.uniform(0, 0.2, size=(3, 40)) * (g.random((3, 40)) < 0.5)
    for t in range(40):
        L.spend(t, dense[:, t], [0, 1, 2])
    ref = np.zeros(40)
    for a, (e, w) in enumerate(zip([1.0, 2.0, 0.5], [3, 5, 7])):
        for t in range(40):
            ref[t] = max(ref[t], dense[a, max(0, t - w + 1): t + 1].sum() / e)
    np.testing.assert_allclose(L.window_use(), ref, atol=1e-12)


def test_every_ledger_reads_the_same_way():
    "window_use on event-level books (explicit and range spends): each event's spends up to t over its eps; `windowed` tells the guarantee."
    g = np.random.default_rng(4)
    T = 30
    for ranges in (False, True):
        E = Ledger.events(T, eps=1.0)
        dense = np.zeros((T, T))                     # dense[account, t]
        for t in range(T):
            lo = int(g.integers(0, T)); hi = int(g.integers(lo, T)) + 1; amt = float(g.uniform(0, 0.1))
            if ranges: E.spend_ranges(t, amt, lo, hi)
            else: E.spend(t, amt, np.arange(lo, hi))
            dense[lo:hi, t] += amt
        cum = np.cumsum(dense, axis=1)
        np.testing.assert_allclose(E.window_use(), cum.max(0), atol=1e-12)
        np.testing.assert_allclose(E.window_use(7), cum[7], atol=1e-12)
        assert not E.windowed
    assert Ledger.central(T, 1.0, 4).windowed and Ledger.users(T, 3, [1.0, 0.5, 2.0], [2, 3, 4]).windowed


# ---------------------------------------------------------------- mechanisms and registry
def test_toy_mechanism_passes_and_overspending_variant_is_caught():
    s = HistogramStream(np.tile([[10.0, 3.0]], (50, 1)))
    r = ToyUniform(1.0, 5).run(s, rng=0).check()
    assert r.estimates.shape == (50, 2) and r.published.all()
    with pytest.raises(PrivacyBudgetExceeded, match="stream"):
        ToyOverspend(1.0, 5).run(s, rng=0).check()
    np.testing.assert_array_equal(ToyUniform(1.0, 5).run(s, rng=4).estimates, ToyUniform(1.0, 5).run(s, rng=4).estimates)

def test_toy_error_matches_laplace_scale():
    s = HistogramStream(np.zeros((2000, 5)))
    r = ToyUniform(2.0, 4).run(s, rng=1)
    b = 4 / 2.0
    mae = np.abs(r.estimates).mean()   # E|Lap(b)| = b, sd(|Lap(b)|) = b
    assert abs(mae - b) < 5 * b / np.sqrt(r.estimates.size)

def test_registry():
    infos = list_mechanisms()
    assert all(i.name and i.paper and i.stream_kind for i in infos)
    with pytest.raises(KeyError, match="no mechanism named"):
        get_mechanism("does-not-exist")

    @register
    class _Tmp(Mechanism):
        name, paper, stream_kind, summary = "TmpTestMech", "test", "histogram", "temporary"
    try:
        assert isinstance(get_mechanism("tmptestmech", eps=1, w=2), _Tmp)
        assert any(i.name == "TmpTestMech" for i in list_mechanisms(paper="test"))
        class _Other(Mechanism):
            name = "TmpTestMech"
        with pytest.raises(ValueError, match="already registered"):
            register(_Other)
    finally:
        from wevent_nb import core
        core._REGISTRY.pop("tmptestmech", None)

def test_mechanism_rejects_wrong_stream_kind():
    with pytest.raises(TypeError, match="HistogramStream"):
        ToyUniform(1.0, 3).run(CategoricalPopulation(np.zeros((2, 3), int), d=2))


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 40), st.integers(1, 8), st.data())
def test_sparse_spends_with_standing_charge_equal_brute_force(T, w, data):
    "Exercises the streaming fast path (spends spread out) and its fallback, with a standing charge."
    A = 4
    L = Ledger(T, eps=1.0, w=w, n_accounts=A)
    dense = np.zeros((A, T))
    for t in range(T):
        acc = data.draw(st.lists(st.integers(0, A - 1), unique=True, max_size=A))
        amt = float(allot(data.draw(st.floats(0.0, 1.2, allow_nan=False))))
        L.spend(t, amt, acc); dense[acc, t] += amt
    start = data.draw(st.integers(0, T - 1)); charge = float(allot(data.draw(st.floats(0.0, 0.5))))
    L.standing(charge, start=start, account=0)
    ref = np.zeros(A)
    for a in range(A):
        for end in range(T):
            s = dense[a, max(0, end - w + 1): end + 1].sum() + (charge if a == 0 and end >= start else 0.0)
            ref[a] = max(ref[a], s)
    np.testing.assert_array_equal(L.max_window_spend(), ref)
    assert L.ok() == bool(np.all(ref <= 1))


# ---------------------------------------------------------------- range spends
AMOUNTS = [0.0, 0.1, 0.125, 0.25, 1 / 3, 0.5, 1.0]

def _exception(L):
    try:
        L.check()
    except PrivacyBudgetExceeded as e:
        return e
    return None

def _verdict(L):
    "None if the ledger passes, else what the exception says: its text, account, window and budget."
    e = _exception(L)
    return None if e is None else (str(e), e.account, e.window, e.budget)

def _same_verdict(R, E):
    "Same account, window and budget, the same spent amount up to float rounding, and the same text around it."
    r, e = _exception(R), _exception(E)
    if r is None or e is None: return r is e
    mask = lambda x: re.sub(r"(spent|overspend) [^ )]+", r"\1 #", str(x))  # the .6g of a sum added in another order may differ
    return ((r.account, r.window, r.budget, mask(r)) == (e.account, e.window, e.budget, mask(e))
            and r.spent == pytest.approx(e.spent, rel=1e-12, abs=1e-12))

@st.composite
def range_ledger_case(draw):
    "A ledger shape (uniform, personalized or event-level) and a mix of range, explicit, standing and exact-split spends."
    T, N = draw(st.integers(1, 20)), draw(st.integers(1, 16))
    mode = draw(st.sampled_from(["uniform", "personalized", "personalized", "event"]))
    if mode == "uniform":
        eps, w = draw(st.sampled_from([0.5, 1.0, 2.0])), draw(st.integers(1, 8))
    elif mode == "personalized":  # per-account values, often in runs (so some segments span several accounts)
        def runs(values):
            r = draw(st.lists(st.tuples(st.integers(1, 4), values), min_size=2, max_size=6))
            reps = np.array([k for k, _ in r]); reps[-1] += max(0, N - reps.sum())
            return np.repeat([v for _, v in r], reps)[:N]
        eps, w = runs(st.sampled_from([0.5, 1.0, 2.0])), runs(st.integers(1, 8))
    else:
        eps, w = draw(st.sampled_from([0.5, 1.0, 2.0])), None
    span = st.integers(0, N).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, N)))
    ranges = st.lists(st.tuples(st.integers(0, T - 1), st.sampled_from(AMOUNTS), span), min_size=1, max_size=4).map(lambda r: ("ranges", r))
    accounts = st.one_of(st.none(), st.lists(st.integers(0, N - 1), unique=True, max_size=N),
                         st.lists(st.booleans(), min_size=N, max_size=N).map(np.array))
    explicit = st.tuples(st.just("spend"), st.integers(0, T - 1), st.sampled_from(AMOUNTS), accounts)
    standing = st.tuples(st.just("standing"), st.sampled_from([0.0, 0.125, 0.25]), st.integers(0, T - 1), st.integers(0, N - 1))
    split = st.tuples(st.just("split"), span, st.sampled_from([1.0, 1.0, 1 + 1.3e-6]))  # exact eps/w per timestamp, or just over
    ops = draw(st.lists(st.one_of(ranges, explicit, standing, split), max_size=10))
    cut = draw(st.integers(0, len(ops)))
    return T, N, eps, w, ops, cut

def _apply(L, op, as_ranges):
    kind = op[0]
    if kind == "ranges":
        t, amt, lo, hi = (np.array(x) for x in zip(*[(t, a, lo, hi) for t, a, (lo, hi) in op[1]]))
        if as_ranges: L.spend_ranges(t, amt, lo, hi)
        else:
            for i in range(t.size): L.spend(t[i], amt[i], np.arange(lo[i], hi[i]))
    elif kind == "spend": L.spend(op[1], op[2], op[3])
    elif kind == "standing": L.standing(op[1], start=op[2], account=op[3])
    else:
        (lo, hi), frac = op[1], op[2]
        if lo == hi: return
        per_t = allot(float(L.eps[lo]) / (L.T if L.w is None else int(L.w[lo])) * frac)  # the block's first account's split, allotted
        if as_ranges: L.spend_ranges(np.arange(L.T), per_t, lo, hi)
        else:
            for t in range(L.T): L.spend(t, per_t, np.arange(lo, hi))

@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(range_ledger_case())
def test_range_spends_equal_the_expanded_spends(case):
    T, N, eps, w, ops, cut = case
    R, E = Ledger(T, eps, w, N), Ledger(T, eps, w, N)
    for op in ops[:cut]:
        _apply(R, op, True); _apply(E, op, False)
    assert R.ok() == E.ok()            # builds (and caches) the segment ledger; the spends below must invalidate it
    R.entries()
    for op in ops[cut:]:
        _apply(R, op, True); _apply(E, op, False)
    assert R.ok() == E.ok()
    assert _same_verdict(R, E)  # same account (the first of its block), window and amount
    close = dict(rtol=1e-12, atol=1e-12)  # sums of the same terms, possibly added in another order
    np.testing.assert_allclose(R.max_window_spend(), E.max_window_spend(), **close)
    for a in (None, *range(N)):
        np.testing.assert_allclose(R.spent_per_timestamp(a), E.spent_per_timestamp(a), **close)
        if w is not None:
            np.testing.assert_allclose(R.window_use(a), E.window_use(a), **close)
    (ra, rt, re), (ea, et, ee) = R.entries(), E.entries()
    np.testing.assert_array_equal(ra, ea); np.testing.assert_array_equal(rt, et)
    np.testing.assert_allclose(re, ee, **close)
    assert repr(R) == repr(E)

def test_range_spends_across_personalized_budgets():
    "One range over accounts whose (eps, w) change inside it: each account is checked against its own budget."
    eps, w = [1.0, 1.0, 0.5, 0.5, 2.0, 2.0], [2, 2, 2, 3, 3, 1]
    R, E = Ledger.users(10, 6, eps, w), Ledger.users(10, 6, eps, w)
    R.spend_ranges([0, 2], 0.25, 0, 6)
    for t in (0, 2): E.spend(t, 0.25, np.arange(6))
    for a in range(6):
        np.testing.assert_allclose(R.window_use(a), E.window_use(a), rtol=1e-12)
    np.testing.assert_allclose(R.window_use(5), [0.125, 0, 0.125, 0, 0, 0, 0, 0, 0, 0])   # eps 2, w 1
    np.testing.assert_allclose(R.window_use(3), [0.5, 0.5, 1.0, 0.5, 0.5, 0, 0, 0, 0, 0])   # eps 0.5, w 3: exactly at budget
    assert R.ok() and E.ok()
    R.spend_ranges(1, 0.01, 1, 5); E.spend(1, 0.01, np.arange(1, 5))   # user 3 (eps 0.5, w 3): 0.25 + 0.01 + 0.25 in t=0..2
    assert _verdict(R) == _verdict(E) and _verdict(R)[1:3] == ("user 3", (0, 2))
    np.testing.assert_allclose(R.max_window_spend(), E.max_window_spend(), rtol=1e-12)

def test_range_spends_exact_split_passes_and_just_over_is_caught():
    T, N, w = 30, 1000, 6
    L = Ledger.users(T, N, eps=1.5, w=w)
    L.spend_ranges(np.arange(T), 1.5 / w, 0, N)
    L.check()
    L.spend_ranges(17, 1.5e-6, 400, 700)
    with pytest.raises(PrivacyBudgetExceeded) as e:
        L.check()
    assert e.value.account == "user 400" and e.value.window == (12, 17)

@pytest.mark.parametrize("args, message", [
    ((5, 0.1, 0, 1), r"t=5 is not allowed: t must be an integer timestamp in \[0, 5\)"),
    ((-1, 0.1, 0, 1), r"t=-1 is not allowed"),
    (([0, 1, 9], 0.1, 0, 1), r"t=9 is not allowed.*\(range 2\)"),
    ((0, 0.1, 3, 2), r"start=3 > stop=2 is not allowed: ranges need 0 <= start <= stop <= n_accounts=10"),
    ((0, 0.1, 0, 11), r"stop=11 is not allowed: ranges need 0 <= start <= stop <= n_accounts=10"),
    ((0, 0.1, -1, 2), r"start=-1 is not allowed"),
    ((0, -0.1, 0, 2), r"amount=-0.1 is not allowed: amount must be finite and >= 0"),
    ((0, [0.1, float("nan")], 0, 2), r"amount=nan is not allowed.*\(range 1\)"),
    ((0, 0.1, 1.0, 2), r"start=1.0 is not allowed: start must be an integer"),
    ((0, 0.1, np.array([0, 1.5]), 2), r"start=.* is not allowed: start must be an integer"),
    ((0.0, 0.1, 0, 2), r"t=0.0 is not allowed: t must be an integer"),
    ((0, "a", 0, 2), r"amount='a' is not allowed"),
    (([0, 1], 0.1, [0, 1, 2], 3), r"must broadcast together"),
    ((0, 0.1, np.zeros((2, 2), int), 3), r"scalars or 1-D arrays"),
])
def test_range_spends_reject_bad_input(args, message):
    L = Ledger.users(T=5, N=10, eps=1.0, w=2)
    with pytest.raises(ValueError, match=message):
        L.spend_ranges(*args)
    assert "0 spends" in repr(L)  # nothing recorded

def test_range_spends_empty_ranges_record_nothing():
    L = Ledger.users(T=5, N=10, eps=1.0, w=2)
    L.spend_ranges([0, 1], 0.5, [3, 10], [3, 10])
    assert "0 spends" in repr(L) and L.entries()[0].size == 0 and L.ok()

def test_population_blocks_reporting_twice_in_a_window_are_caught():
    "Population division with users as contiguous id blocks: block 200..399 reports at t=1, 6, 11, ... and also at t=3 (w=5)."
    T, N, w = 30, 1000, 5
    t = np.arange(T); lo = (t % w) * 200; hi = lo + 200   # block k reports at t = k, k + w, ...: once per window
    R = Ledger.users(T, N, eps=1.0, w=w).spend_ranges(t, 1.0, lo, hi)
    assert R.ok() and np.all(R.max_window_spend() == 1.0)
    R.spend_ranges(3, 1.0, 200, 400)                       # block 1 again 2 steps after its report at t=1
    E = Ledger.users(T, N, eps=1.0, w=w)
    for i in range(T): E.spend(t[i], 1.0, np.arange(lo[i], hi[i]))
    E.spend(3, 1.0, np.arange(200, 400))
    with pytest.raises(PrivacyBudgetExceeded) as e:
        R.check()
    assert e.value.account == "user 200" and e.value.window == (0, 3) and e.value.spent == 2.0
    assert _verdict(R) == _verdict(E)

def test_all_users_ranges_with_explicit_and_standing_spends():
    "LSP-like: all users report every w steps; one user also has a standing charge that tips one window over."
    T, N, w = 40, 50_000, 8
    L = Ledger.users(T, N, eps=1.0, w=w).spend_ranges(np.arange(0, T, w), 0.75, 0, N)
    L.spend(9, 0.25, [123]); L.check()
    L.standing(0.125, start=20, account=31_337); L.check()
    L.spend(30, 0.25, [31_337])                            # window t=23..30: 0.75 + 0.25 + 0.125
    with pytest.raises(PrivacyBudgetExceeded, match="user 31337.*window t=23..30"):
        L.check()
    mws = L.max_window_spend()
    assert mws[31_337] == 1.125 and mws[123] == 1.0 and np.all(np.delete(mws, [123, 31_337]) == 0.75)


def test_standing_charge_accessor():
    from wevent_nb.core import Ledger
    L = Ledger.central(10, 1.0, 3).standing(0.25, start=4)
    assert L.standing_charge() == 0.25 and L.standing_charge(0, 4) == 0.25 and L.standing_charge(0, 3) == 0.0


def test_a_notebooks_redefinition_does_not_outlive_its_notebook(monkeypatch):
    "nbdev-test runs notebooks one after another in a worker process: a class a notebook redefines (module __main__) and registers serves that notebook only; a later notebook, whose __main__ no longer holds it, gets the package's class."
    import sys, wevent_nb.core as core
    from wevent_nb.baselines import BD
    main = sys.modules["__main__"]
    Redef = type("BD", (BD,), {"__module__": "__main__"})
    monkeypatch.setattr(main, "BD", Redef, raising=False)
    monkeypatch.setitem(core._REGISTRY, "bd", core._REGISTRY["bd"])      # restored after the test
    core.register(Redef)
    assert type(core.get_mechanism("BD", eps=1, w=5)) is Redef           # while its notebook runs
    monkeypatch.setattr(main, "BD", BD)                                  # the next notebook imports the package's BD
    assert type(core.get_mechanism("BD", eps=1, w=5)) is BD
    assert next(i for i in core.list_mechanisms() if i.name == "BD").cls is BD
