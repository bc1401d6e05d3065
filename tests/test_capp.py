"""CAPP (paper 002): the Square Wave formulas, the feedback algorithms' identities, the accounting (the default books the
feedback path; the paper's is an opt-in, flagged not private), the ledger tied to the randomness every method draws, the
sampling schedule, and bad input."""
from contextlib import contextmanager

import numpy as np
import pytest

import wevent_nb.capp as C
from wevent_nb.core import NumericPopulation, NoiseNotBooked, UnprovenConfiguration, get_mechanism, list_mechanisms
from wevent_nb.experiments import Grid, run_grid

METHODS = [i.name for i in list_mechanisms(paper="CAPP")]
FAMILY = [n for n in METHODS if n != "BA-SW"]                # the feedback family (PPMechanism): every option of `strict`
PAPER_ACCOUNTING = {"strict": False, "allow_unproven": True}   # the paper's accounting, with the opt-in
Z = 5.0                      # standard errors allowed in the Monte Carlo tests


def _pop(N=30, T=26, seed=5, lo=0.0, hi=1.0):
    g = np.random.default_rng(seed)
    base = np.repeat(g.random((N, 4)), -(-T // 4), axis=1)[:, :T]          # piecewise-constant streams with some jitter
    return NumericPopulation(lo + (hi - lo) * np.clip(base + g.normal(0, 0.1, (N, T)), 0, 1), lo, hi)


def test_every_method_is_registered():
    assert {"SW-direct", "IPP", "APP", "CAPP", "Sampling", "APP-S", "CAPP-S", "BA-SW", "ToPL", "PM-APP", "Laplace-direct",
            "Laplace-APP", "SR-direct", "SR-APP"} <= set(METHODS)


# ------------------------------------------------------------------ the Square Wave mechanism and its moments
@pytest.mark.parametrize("eps", [1e-6, 0.01, 0.5, 3.0, 20.0])
def test_sw_identities(eps):
    b, p, q = C.sw_params(eps)
    assert 2 * b * p + q == pytest.approx(1, abs=1e-12) and p / q == pytest.approx(np.exp(eps), rel=1e-9)
    assert 0 < b < 0.5


@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("v", [0.0, 0.3, 1.0])
def test_sw_sampler_matches_moments(eps, v):
    y = C.sw_perturb(np.full(400_000, v), eps, np.random.default_rng(1))
    b = C.sw_params(eps)[0]
    assert y.min() >= -b and y.max() <= 1 + b
    m, var = C.sw_moments(v, eps)
    assert abs(y.mean() - m) < Z * np.sqrt(var / y.size)
    assert abs(y.var() - var) < Z * np.sqrt((np.mean((y - y.mean()) ** 4) - var ** 2) / y.size)


def test_sw_v1_reference_values():
    ref = {0.05: (0.51229, 0.32248, 0.18728), 0.5: (0.60653, 0.24420, 0.11288), 1.0: (0.68394, 0.18663, 0.07530), 3.0: (0.84163, 0.08858, 0.03478)}
    for e, want in ref.items(): np.testing.assert_allclose(C.sw_v1_moments(e), want, atol=2e-5)
    assert abs(C.sw_sigma2_printed(1.0) - C.sw_v1_moments(1.0)[1]) > 0.02      # the printed sigma^2 is wrong (erratum)


@pytest.mark.parametrize("fn,var", [(C.pm_perturb, C.pm_variance), (C.laplace_perturb, C.laplace_variance), (C.sr_perturb, C.sr_variance)])
def test_other_randomizers_unbiased_with_stated_variance(fn, var):
    for v in (-1.0, -0.2, 0.7):
        y = fn(np.full(300_000, v), 0.8, np.random.default_rng(2))
        assert abs(y.mean() - v) < Z * np.sqrt(var(v, 0.8) / y.size)
        assert abs(y.var() / var(v, 0.8) - 1) < Z * np.sqrt(3 / y.size) * 3


def test_capp_offset_table_and_bounds():
    for e, T in {0.01: 0.0692, 0.05: 0.0607, 0.3: 0.0158, 1.0: -0.0603, 3.0: -0.1260}.items():
        assert C.capp_offset(e)[2] == pytest.approx(T, abs=1e-4)
    l, u = C.capp_bounds(0.05); assert 0 < l < u < 1
    assert C.capp_bounds(0.05, "printed")[0] < 0 and C.capp_bounds(0.2, shrink=-0.5) == (-0.5, 1.5)


def test_choose_ns_and_segments():
    assert [C.choose_ns(e, 10, 10) for e in (0.5, 1, 1.5, 2, 2.5, 3)] == [10, 10, 10, 10, 5, 3]
    st, sp = C.segments(11, 3)
    assert st.tolist() == [0, 3, 6] and sp.tolist() == [3, 6, 11]
    assert C.choose_ns(1.0, 10, 1) == 1


def test_required_population():
    assert C.required_population(0.0, 0.1, 0.05) == int(np.ceil(np.log(40) / 0.02))
    with pytest.raises(ValueError, match="delta"): C.required_population(0.0, 0.1, 1.5)


def test_sma_modes():
    x = np.arange(6.0)
    np.testing.assert_allclose(C.sma(x), [0.5, 1, 2, 3, 4, 4.5])
    np.testing.assert_allclose(C.sma(x, mode="trailing"), [0, 0.5, 1, 2, 3, 4])


# ------------------------------------------------------------------ the algorithms' identities
def test_ipp_fig2_worked_example(monkeypatch):
    reports = iter([0.0, 0.19])
    monkeypatch.setattr(C, "randomize", lambda base, v, eps, rng: np.full(np.shape(v), next(reports)))
    rel = C.IPP(1.0, 2).run(NumericPopulation(np.array([[0.01, 0.15]])), rng=0)
    np.testing.assert_allclose(rel.secret_diagnostics()["D"][0], [0.01, -0.04], atol=1e-12)


@pytest.mark.parametrize("name", ["APP", "CAPP", "APP-S", "CAPP-S"])
def test_telescoping_identity(name):
    pop = _pop()
    m = get_mechanism(name, eps=2.0, w=6, **({"n_s": 3} if name.endswith("-S") else {}))
    r = m.run(pop, rng=4)
    raw, D = r.info["raw"], r.secret_diagnostics()["D"]
    slots = r.info["report_slots"]
    for run0 in range(0, pop.T, 6):
        ends = [t for t in slots if run0 <= t < run0 + 6]
        for k, t in enumerate(ends):
            n = k + 1 if name.endswith("-S") else t - run0 + 1          # equal segments: D is over the segment means
            np.testing.assert_allclose(raw[:, run0:t + 1].mean(1) - pop.values[:, run0:t + 1].mean(1), -D[:, t] / n, atol=1e-12)


def test_app_with_window_one_is_ipp():
    pop = _pop()
    np.testing.assert_array_equal(C.APP(1.0, 8, acc_window=1).run(pop, rng=3).info["raw"], C.IPP(1.0, 8).run(pop, rng=3).info["raw"])


def test_sw_input_stays_in_domain(monkeypatch):
    seen = []
    orig = C.randomize
    monkeypatch.setattr(C, "randomize", lambda base, v, eps, rng: (seen.append((base, np.asarray(v).copy())), orig(base, v, eps, rng))[1])
    pop = NumericPopulation(np.random.default_rng(0).choice([0.0, 1.0], (40, 30)))
    for name in ("IPP", "APP", "CAPP", "APP-S", "CAPP-S", "PM-APP", "SR-APP", "Laplace-APP"):
        get_mechanism(name, eps=0.5, w=10).run(pop, rng=1)
    for base, v in seen:
        lo = 0.0 if base == "SW" else -1.0
        assert v.min() >= lo and v.max() <= 1.0


def test_sw_direct_bias_towards_half():
    M, ew = 0.157, 0.1
    b, p, q = C.sw_params(ew)
    rel = C.SWDirect(1.0, 10).run(NumericPopulation(np.full((20_000, 10), M)), rng=0)
    means = rel.info["raw"].mean(1) - M
    assert abs(means.mean() - q * (1 + 2 * b) * (0.5 - M)) < Z * means.std() / np.sqrt(means.size)


def test_stepwise_equals_run():
    pop = _pop(lo=2.0, hi=7.0)
    for name in METHODS:
        r = get_mechanism(name, eps=1.0, w=5).run(pop, rng=9)
        m = get_mechanism(name, eps=1.0, w=5).start(pop.T, pop.N, 9, pop.lo, pop.hi)
        for t in range(pop.T): m.step(pop.values[:, t])
        np.testing.assert_array_equal(m.finish().info["raw"], r.info["raw"])
        assert np.all((r.estimates > -50) & (r.estimates < 60))


# ------------------------------------------------------------------ accounting: the default (strict) and the paper's
@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("eps,w,Lq", [(1.0, 4, None), (2.0, 6, 9), (0.5, 5, 3)])
def test_ledger_passes(name, eps, w, Lq):
    pop = _pop()
    for kw in ([{}] if name == "BA-SW" else [{}, PAPER_ACCOUNTING]):
        m = get_mechanism(name, eps=eps, w=w, Lq=Lq, **kw)
        rel = m.run(pop, rng=1).check()
        assert rel.private == (not kw or m.reach() == 0)


def test_strict_budget_and_window():
    pop = _pop(T=40)
    for name, reach in (("SW-direct", 0), ("IPP", 1), ("APP", 9), ("CAPP", 9)):
        r = get_mechanism(name, eps=1.0, w=10, strict=True).run(pop, rng=0)
        assert r.info["ledger_window"] == 10 + reach and r.info["eps_report"] == pytest.approx(1.0 / (10 + reach))
    r = C.APP(1.0, 10, strict=True, acc_window=3).run(pop, rng=0)
    assert r.info["ledger_window"] == 13


def test_sampling_budget_respects_windows():
    r = C.APPS(1.0, 20, Lq=30, n_s=4).run(_pop(T=30), rng=0)
    assert r.info["eps_report"] == pytest.approx(1 / 4) and len(r.info["report_slots"]) == 4   # the feedback reaches the whole run
    paper = C.APPS(1.0, 20, Lq=30, n_s=4, **PAPER_ACCOUNTING).run(_pop(T=30), rng=0)
    assert paper.info["eps_report"] == pytest.approx(1 / 3) and not paper.private          # at most 3 reports per 20 slots
    slots = np.asarray(r.info["report_slots"])
    assert max(((slots >= a) & (slots < a + 20)).sum() for a in range(30)) * paper.info["eps_report"] <= 1 + 1e-12


# ------------------------------------------------------------------ the ledger is tied to the randomness drawn
@contextmanager
def recorded_reports():
    "Wrap the four randomizers: record (t, eps per report, number of reports) with the clock the test driver sets."
    calls, clock = [], {"t": 0}
    names = ("sw_perturb", "pm_perturb", "laplace_perturb", "sr_perturb")
    saved = {n: getattr(C, n) for n in names}
    def wrap(orig):
        def f(v, eps, rng, *a, **k):
            e = np.broadcast_to(np.asarray(eps, float), np.shape(v))
            calls.append((clock["t"], float(e.sum()), float(e.max()) if e.size else 0.0, int(np.size(v))))
            return orig(v, eps, rng, *a, **k)
        return f
    for n, f in saved.items(): setattr(C, n, wrap(f))
    try: yield calls, clock
    finally:
        for n, f in saved.items(): setattr(C, n, f)


def check_reports_booked(mech, pop, seed):
    with recorded_reports() as (calls, clock):
        mech.start(pop.T, pop.N, seed, pop.lo, pop.hi)
        for t in range(pop.T): clock["t"] = t; mech.step(pop.values[:, t])
        rel = mech.finish()
    assert calls, "no report was recorded"
    ct, esum, emax, n = (np.array(x) for x in zip(*calls))
    implied_total = np.bincount(ct, esum, minlength=pop.T)
    implied_max = np.zeros(pop.T); np.maximum.at(implied_max, ct, emax)
    a, t, e = rel.ledger.entries()
    booked_total = np.bincount(t, e, minlength=pop.T)
    booked_max = np.zeros(pop.T); np.maximum.at(booked_max, t, e)
    slack = lambda x: x * (1 + 1e-9) + 1e-15
    bad = np.flatnonzero((implied_total > slack(booked_total)) | (implied_max > slack(booked_max)))
    if bad.size:
        raise NoiseNotBooked(f"{type(mech).__name__} at t={bad[0]}: reports imply {implied_total[bad[0]]:.6g} (largest {implied_max[bad[0]]:.6g}), "
                             f"the ledger books {booked_total[bad[0]]:.6g} (largest {booked_max[bad[0]]:.6g})")
    return rel


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("eps,w,strict", [(1.0, 3, False), (4.0, 6, False), (1.0, 5, True)])
def test_ledger_covers_the_reports(name, eps, w, strict):
    kw = {} if name == "BA-SW" else {"strict": strict, "allow_unproven": not strict}
    rel = check_reports_booked(get_mechanism(name, eps=eps, w=w, **kw), _pop(), seed=3)
    rel.check()


def test_double_budget_is_caught():
    pop = _pop()
    C.APPDoubleBudget(1.0, 4).run(pop, rng=3).check()                       # the books alone pass
    with pytest.raises(NoiseNotBooked, match="APPDoubleBudget"):
        check_reports_booked(C.APPDoubleBudget(1.0, 4), pop, seed=3)


def test_no_clip_is_caught_by_the_auditor():
    from wevent_nb.audit import audit
    assert audit(C.APP(1.0, 3), n_runs=400, rng=1).passed
    assert not audit(C.APPNoClip(1.0, 3), n_runs=1000, rng=1).passed


# ------------------------------------------------------------------ bad input
def test_bad_input():
    with pytest.raises(ValueError, match=r"values must lie in the domain \[0.0, 1.0\]"): NumericPopulation(np.array([[0.5, 1.2]]))
    with pytest.raises(ValueError, match="finite"): NumericPopulation(np.array([[0.5, np.nan]]))
    for eps in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="eps="): C.CAPP(eps, 10)
    with pytest.raises(ValueError, match="w="): C.APP(1.0, 0)
    with pytest.raises(ValueError, match="Lq=0 is not allowed"): C.APP(1.0, 10, Lq=0)
    with pytest.raises(ValueError, match="Lq=50 is not allowed: the query length must be <= the stream's length T=20"):
        C.query_population(NumericPopulation(np.zeros((1, 20))), 50, 3)
    with pytest.raises(ValueError, match="shrink=0.6 is not allowed"): C.CAPP(1.0, 10, shrink=0.6)
    with pytest.raises(ValueError, match="variant='x' is not allowed"): C.CAPP(1.0, 10, variant="x")
    with pytest.raises(ValueError, match="n_s=3 is not allowed"): C.APP(1.0, 10, n_s=3)
    with pytest.raises(ValueError, match="strict='yes' is not allowed"): C.APP(1.0, 10, strict="yes")
    with pytest.raises(TypeError, match="takes a NumericPopulation"): C.APP(1.0, 4).run(np.zeros((2, 5)))
    m = C.CAPP(1.0, 4).start(3, 2)
    with pytest.raises(ValueError, match="must lie in the domain"): m.step([0.1, 2.0])
    with pytest.raises(ValueError, match="one value per user"): m.step([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="mode='x' is not allowed"): C.sma([1.0, 2.0], mode="x")


# ------------------------------------------------------------------ finding 1: the feedback path, booked by default
W1, EPS1, SHIFT1 = 10, 1.0, 0.3


def _neighbours(first=1, T=40, N=3, seed=0):
    "Numeric populations that differ only in user 0's slots first..first+W1-1 (raised by SHIFT1: partial sums never cancel)."
    g = np.random.default_rng(seed)
    x = NumericPopulation(0.3 + 0.2 * g.random((N, T)))
    v = x.values.copy(); v[0, first:first + W1] += SHIFT1
    return x, NumericPopulation(v)


def influenced_reports(mech, x, y, monkeypatch, seed=0):
    """User 0's report slots whose input v_t + D_t (what the report's clip-and-randomize receives) differs between x and y when
    both see the same public reports (y's run replays x's); with x's release and what the ledger books and the randomizer
    draws for user 0 on those slots. Clipping cannot hide a difference here: the input is compared before the clip."""
    clock, outs, drawn = {"t": 0}, {}, {}
    orig = C.randomize
    def budget(base, v, eps, rng):
        drawn[clock["t"]] = float(np.max(eps)); return orig(base, v, eps, rng)
    monkeypatch.setattr(C, "randomize", budget)
    def run(pop, replay):
        seen, perturb = {}, type(mech)._perturb.__get__(mech)
        def record(v):
            t = clock["t"]; seen[t] = float(v[0])
            if not replay: outs[t] = perturb(v)
            return outs[t]
        mech._perturb = record
        try:
            mech.start(pop.T, pop.N, seed, pop.lo, pop.hi)
            for t in range(pop.T): clock["t"] = t; mech.step(pop.values[:, t])
            return mech.finish(), seen
        finally: del mech._perturb
    (rel, sx), (_, sy) = run(x, False), run(y, True)
    assert sx.keys() == sy.keys()
    slots = sorted(t for t in sx if abs(sx[t] - sy[t]) > 1e-9)
    a, t, e = rel.ledger.entries()
    return slots, rel, float(e[(a == 0) & np.isin(t, slots)].sum()), float(sum(drawn[s] for s in slots))


def test_finding1_app_books_every_report_the_window_moves(monkeypatch):
    "w = 10, eps = 1, user 0 differs in slots 1..10: 19 reports move; the default books eps on them, the paper's accounting 1.9 eps."
    x, y = _neighbours()
    slots, rel, booked, drawn = influenced_reports(C.APP(EPS1, W1), x, y, monkeypatch)
    assert slots == list(range(1, 20)) and rel.private
    assert booked == pytest.approx(1.0) and booked <= EPS1 + 1e-12 and drawn <= EPS1 + 1e-12
    slots, rel, booked, drawn = influenced_reports(C.APP(EPS1, W1, **PAPER_ACCOUNTING), x, y, monkeypatch)
    assert slots == list(range(1, 20)) and not rel.private and rel.ledger.ok()     # its own books pass ...
    assert booked == pytest.approx(1.9) and booked > EPS1                            # ... yet the window costs 1.9 eps


CONFIGS = [(n, {"n_s": 5} if get_mechanism(n, eps=1.0, w=W1).sampling else {}) for n in FAMILY] + [
    ("APP", {"acc_window": 3}), ("APP", {"Lq": 25}), ("CAPP", {"Lq": 7}), ("IPP", {"Lq": 15}), ("Sampling", {"n_s": 4, "Lq": 20}),
    ("CAPP-S", {"n_s": 3, "acc_window": 2}), ("CAPP", {"variant": "authors_code"}), ("CAPP", {"sign": "printed"})]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=lambda v: str(v))
def test_finding1_every_window_costs_at_most_eps(name, kw, monkeypatch):
    "At every 3rd position of the changed window: the default books <= eps on the moved reports; the paper's accounting books > eps on some of these windows exactly where it is flagged (reach > 0)."
    worst_default = worst_paper = 0.0
    for first in range(0, 40 - W1 + 1, 3):
        x, y = _neighbours(first)
        slots, rel, booked, drawn = influenced_reports(get_mechanism(name, eps=EPS1, w=W1, **kw), x, y, monkeypatch)
        assert slots and rel.private
        worst_default = max(worst_default, booked, drawn)
        m = get_mechanism(name, eps=EPS1, w=W1, **kw, **PAPER_ACCOUNTING)
        slots, rel, booked, _ = influenced_reports(m, x, y, monkeypatch)
        assert rel.private == (m.reach() == 0) and bool(m.unproven()) == (m.reach() > 0)
        worst_paper = max(worst_paper, booked)
    assert worst_default <= EPS1 + 1e-12
    assert (worst_paper > EPS1 + 0.05) == (m.reach() > 0)                    # the test has power exactly where the flag is raised


def test_finding1_a_halved_noise_is_caught(monkeypatch):
    "APPDoubleBudget books eps on the moved reports but its randomizer draws 2 eps there."
    x, y = _neighbours()
    slots, rel, booked, drawn = influenced_reports(C.APPDoubleBudget(EPS1, W1), x, y, monkeypatch)
    assert booked <= EPS1 + 1e-12 and drawn == pytest.approx(2.0)


def test_private_by_default_and_the_opt_in():
    s = _pop(T=40)
    rel = C.APP(1.0, 10).run(s, rng=0)
    assert rel.private and rel.reason == "" and C.APP.derivation and C.BASW.derivation
    with pytest.raises(UnprovenConfiguration, match="allow_unproven=True"): C.APP(1.0, 10, strict=False).run(s, rng=0)
    loose = C.APP(1.0, 10, strict=False).run(s, rng=0, check=False)
    assert loose.private is False and "feedback path" in loose.reason
    with pytest.raises(UnprovenConfiguration): loose.check()
    opted = C.APP(1.0, 10, strict=False, allow_unproven=True).run(s, rng=0)
    assert opted.private is False and opted.allow_unproven and "feedback path" in opted.reason
    for name in ("SW-direct", "ToPL", "Laplace-direct", "SR-direct"):             # reach 0: the paper's accounting is the default's
        assert get_mechanism(name, eps=1.0, w=10, strict=False).run(s, rng=0).private
    with pytest.raises(ValueError, match="allow_unproven='yes' is not allowed"): C.APP(1.0, 10, allow_unproven="yes")


def test_grid_records_the_unproven_form_as_not_private():
    g = Grid({"pop": _pop(T=30)}, {"APP": ("APP", {"w": 10}), "APP paper": ("APP", {"w": 10, **PAPER_ACCOUNTING}),
                                   "APP paper, no opt-in": ("APP", {"w": 10, "strict": False})},
             params={"eps": [1.0]}, reps=1, metrics=[("mean", lambda est, truth: float(np.mean(est)))], truth=lambda s: s.values)
    df = run_grid(g, executor="serial", progress=False).set_index("mechanism")
    assert df.loc["APP", "private"] and df.loc["APP", "ledger_ok"]
    for m in ("APP paper", "APP paper, no opt-in"):
        assert not df.loc[m, "private"] and not df.loc[m, "ledger_ok"]


@pytest.mark.parametrize("name", METHODS)
def test_window_longer_than_the_stream_is_accepted(name):
    "w > T: one window covers the stream, so eps over its reports; the books pass, by default and (opt-in) under the paper's accounting."
    pop = _pop(T=7)
    for kw in ([{}] if name == "BA-SW" else [{}, PAPER_ACCOUNTING, {"Lq": 3}]):
        rel = get_mechanism(name, eps=1.0, w=20, **kw).run(pop, rng=0)
        assert rel.ledger.max_window_spend().max() <= 1.0 + 1e-12 and np.all(np.isfinite(rel.estimates))
        if name != "BA-SW": assert rel.info["eps_report"] == pytest.approx(1 / 7)      # 7 reports, all in one window


# ------------------------------------------------------------------ the sliding deviation sum reads only its window (issue 36, part 3)

def _inputs_with_fixed_reports(name, values, **kw):
    "The randomizer's inputs (each value plus its fed-back D) at every report, every report forced to the same value in every run."
    m = get_mechanism(name, eps=1.0, w=values.shape[1], **kw)
    seen, ys = [], np.random.default_rng(9).random((values.shape[1], values.shape[0]))
    def report(v): seen.append(np.array(v, float)); return ys[len(seen) - 1][: len(v)].copy()
    m._perturb = report
    m.run(NumericPopulation(values), rng=0, check=False)
    return np.array(seen)


@pytest.mark.parametrize("name,kw,first", [("IPP", {}, 6), ("APP", {"acc_window": 2}, 7), ("CAPP", {"acc_window": 1}, 6),
                                           ("PM-APP", {"acc_window": 1}, 6), ("CAPP-S", {"n_s": 12, "acc_window": 2}, 7)])
def test_report_reads_only_the_slots_its_books_charge(name, kw, first):
    "Neighbours differing in slots 2-4, same reports: the inputs of every report whose window of A deviations excludes slots 2-4 are bit-identical (D summed afresh; the running sum D += d; D -= old carried the rounding of slots 2-4, 5.6e-17 on fd6f15c)."
    g = np.random.default_rng(3)
    a = g.random((5, 12)); b = a.copy(); b[:, 2:5] = g.random((5, 3))
    A, B = _inputs_with_fixed_reports(name, a, **kw), _inputs_with_fixed_reports(name, b, **kw)
    assert not np.array_equal(A[first - 1], B[first - 1])          # the last report that reads slot 4 does see the change
    for t in range(first, 12): assert np.array_equal(A[t], B[t]), (name, t, np.abs(A[t] - B[t]).max())
