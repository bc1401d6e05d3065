"""The online form of the central family (04_baselines, 11_spas): start(None, d) opens a run with no end whose steps give the
batch release bit for bit, in memory independent of t, with rolling books charged at each step before any draw (issue 22)."""
import math, pickle
from collections import deque

import numpy as np
import pytest

from wevent_nb.baselines import BAStaleLast, BD, CentralBaseline, Uniform, DSATNoThresholdNoise, BDHalfNoise, DSATClipped
from wevent_nb.core import HistogramStream, PrivacyBudgetExceeded, RollingLedger, UnprovenConfiguration, list_mechanisms
from wevent_nb.spas import SPAS

FAMILY = [i for i in list_mechanisms(stream_kind="histogram") if i.cls.__module__ in ("wevent_nb.baselines", "wevent_nb.spas")]
W = 5


def test_the_family_is_registered_and_online():
    assert {i.name for i in FAMILY} == {"Uniform", "Sample", "BD", "BA", "FAST", "DSAT", "AdaPub", "PeGaSus", "Constant", "SPAS"}
    for c in [i.cls for i in FAMILY] + [BAStaleLast, BDHalfNoise, DSATNoThresholdNoise, DSATClipped]: assert c.online is True, c


def configs():
    "Every registered mechanism at its defaults, then at each value of its accounting options (opted in where unproven)."
    out = []
    for i in FAMILY:
        out.append((i.cls, {}))
        for opt, vals in i.cls.accounting_options.items():
            for v in vals:
                kw = {opt: v}
                if i.cls(eps=1.0, w=W, **kw).unproven(): kw["allow_unproven"] = True
                out.append((i.cls, kw))
    return out

CONFIGS = configs()
IDS = [f"{c.name}-{'-'.join(f'{k}={v}' for k, v in kw.items() if k != 'allow_unproven') or 'default'}" for c, kw in CONFIGS]


def stream(T, d, seed=0):
    "Poisson counts around levels that jump every few steps, with runs of zeros: publications, skips and copies."
    r = np.random.default_rng(seed)
    level = np.repeat(r.uniform(0, 400, (T // 4 + 1, d)), 4, axis=0)[:T] * (r.uniform(size=(T, 1)) > 0.15)
    return HistogramStream(r.poisson(level).astype(float))


def online(m, X, seed, pickle_at=None, bad_at=None):
    "The step outputs of an online run: (estimates, published); optionally a pickle round trip or a bad input before a step."
    m.start(None, X.shape[1], seed)
    est, pub = [], []
    for t, x in enumerate(X):
        if t == pickle_at: m = pickle.loads(pickle.dumps(m))
        if t == bad_at: feed_bad(m, X.shape[1])
        e, p = m.step(x)
        est.append(e); pub.append(p)
    return np.array(est), np.array(pub), m


def feed_bad(m, d):
    "Every kind of bad input at one step: each raises a ValueError naming the problem and leaves the mechanism as it was."
    before, rng_state = pickle.dumps(m), m._rng.bit_generator.state
    for x, msg in [(np.ones(d + 1), "shape"), (np.full(d, np.nan), "finite"), (np.r_[-1.0, np.ones(d - 1)], "counts >= 0"),
                   (np.full(d, np.inf), "finite"), (np.ones((2, d)), "dimension"), (["a"] * d, "convert|numeric")]:
        with pytest.raises(ValueError, match=msg): m.step(x)
    assert pickle.dumps(m) == before and m._rng.bit_generator.state == rng_state


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_online_steps_equal_the_batch_run_bit_for_bit(cls, kw, d):
    s = stream(4 * W * 2, d, seed=d)
    rel = cls(eps=1.0, w=W, **kw).run(s, rng=3, check=False)
    est, pub, m = online(cls(eps=1.0, w=W, **kw), s.counts, 3)
    assert est.tobytes() == rel.estimates.tobytes() and np.array_equal(pub, rel.published)
    assert cls.name == "Constant" or (rel.published.any() and rel.ledger.max_window_spend()[0] > 0)
    # the same books: one account, eps, w; the last window holds what the batch ledger's last window holds
    assert isinstance(m.books, RollingLedger) and m.books.n_accounts == rel.ledger.n_accounts == 1
    assert m.books.eps.tolist() == rel.ledger.eps.tolist() and m.books.w.tolist() == rel.ledger.w.tolist()
    assert m.books.window_spent(None, s.T - 1)[0] == pytest.approx(rel.ledger.window_use(0)[-1] * rel.ledger.eps[0], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_pickled_mid_stream_the_run_continues_bit_identically(cls, kw):
    s = stream(5 * W, 3, seed=7)
    rel = cls(eps=1.0, w=W, **kw).run(s, rng=5, check=False)
    for at in (1, 2 * W + 1):
        est, pub, _ = online(cls(eps=1.0, w=W, **kw), s.counts, 5, pickle_at=at)
        assert est.tobytes() == rel.estimates.tobytes() and np.array_equal(pub, rel.published)


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_bad_input_mid_stream_changes_nothing(cls, kw):
    s = stream(4 * W, 2, seed=9)
    clean = online(cls(eps=1.0, w=W, **kw), s.counts, 4)
    est, pub, _ = online(cls(eps=1.0, w=W, **kw), s.counts, 4, bad_at=2 * W + 2)
    assert est.tobytes() == clean[0].tobytes() and np.array_equal(pub, clean[1])


def state_sizes(obj, seen=None):
    "The lengths of every array and container reachable from a mechanism's state."
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool, type(None), np.random.Generator, np.generic)): return []
    seen.add(id(obj))
    if isinstance(obj, np.ndarray): return [obj.size]
    if isinstance(obj, dict): return [len(obj)] + [n for v in obj.values() for n in state_sizes(v, seen)]
    if isinstance(obj, (list, tuple, deque, set)): return [len(obj)] + [n for v in obj for n in state_sizes(v, seen)]
    return state_sizes(vars(obj), seen) if hasattr(obj, "__dict__") else []


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("info", FAMILY, ids=[i.name for i in FAMILY])
def test_state_is_bounded(info, d):
    "The pickled state around 20w and around 200w steps is the same size within a few percent; nothing in it grows with t."
    r = np.random.default_rng(d)
    X = r.poisson(r.uniform(0, 300, (200 * W, d))).astype(float)
    m = info.cls(eps=1.0, w=W).start(None, d, rng=1)
    size, largest = {20: [], 200: []}, {}
    for t, x in enumerate(X, 1):
        m.step(x)
        for k in size:
            if (k - 1) * W < t <= k * W: size[k].append(len(pickle.dumps(m)))
            if t == k * W: largest[k] = max(state_sizes(m))
    a, b = np.mean(size[20]), np.mean(size[200])
    assert abs(b - a) <= 0.05 * a, (info.name, a, b)
    assert max(largest.values()) <= 8 * W * d + 64, (info.name, largest)      # an array of length t would hold 200 W entries
    assert not hasattr(m, "_est") or m._est is None


def first_bad_window_end(rel) -> int:
    "The first timestamp at which the batch ledger's window is over its budget."
    return int(np.flatnonzero(rel.ledger.window_use(0) > 1 + 1e-9)[0])


class UniformOverspend(CentralBaseline):
    "Deliberately wrong: spends eps/(w-1) at every timestamp (not registered)."
    name, diagnostics = "UniformOverspend", ("eps_pub",)
    def _step(self, x):
        e = self.eps / (self.w - 1)
        self._spend(e, "eps_pub")
        return x + self._rng.laplace(0.0, 1.0 / e, self._d), True


class SPASNoBudgetCheck(SPAS):
    "Deliberately wrong: the sampling test runs whether or not the window can pay its release (an infinite slack on the budgets it checks; not registered)."
    def __init__(self, *a, **k): super().__init__(*a, **k); self._tol = math.inf


@pytest.mark.parametrize("make,exact", [(lambda: UniformOverspend(1.0, W), True), (lambda: BAStaleLast(1.0, W), False),
                                        (lambda: SPAS(1.0, 12, m=2, warmup_budget="eps"), False),
                                        (lambda: SPASNoBudgetCheck(1.0, W, direct_release=False), False)],
                         ids=["UniformOverspend", "BAStaleLast", "SPAS-warmup_budget=eps", "SPASNoBudgetCheck"])
def test_overspending_variant_is_refused_before_any_draw(make, exact):
    "Online, the first step that may overspend is refused (PrivacyBudgetExceeded): at or before the batch ledger's first bad window, drawing nothing and changing nothing."
    s = stream(12 * W, 3, seed=2)
    rel = make().run(s, rng=8, check=False)
    bad = first_bad_window_end(rel)
    m = make().start(None, 3, rng=8)
    for t, x in enumerate(s.counts):
        before, rng_state = pickle.dumps(m), m._rng.bit_generator.state
        try: e, p = m.step(x)
        except PrivacyBudgetExceeded as err:
            assert "refused before any noise is drawn" in str(err) and err.budget == 1.0 and err.spent > 1.0
            break
        assert e.tobytes() == rel.estimates[t].tobytes() and p == rel.published[t]      # the releases before it are the batch's
    else: pytest.fail("the overspending run was not refused")
    assert (t == bad) if exact else (t <= bad), (t, bad)
    assert m._rng.bit_generator.state == rng_state and pickle.dumps(m) == before     # no draw, no change
    with pytest.raises(PrivacyBudgetExceeded): m.step(s.counts[t])                    # and refused again


def get(name, **kw): return next(i.cls for i in FAMILY if i.name == name)(1.0, W, **kw)


def test_correct_mechanisms_are_never_refused_at_their_budget_edge():
    "A stream that keeps BD, BA, DSAT, FAST and SPAS publishing whenever they may: the most a step may spend always fits."
    wild = np.tile([[0.0] * 2, [1e6] * 2], (40, 1))
    for m in (get("BD"), get("BD", remaining="w_slots"), get("BD", remaining="history"), get("BA"), get("DSAT", skip=0), get("FAST"),
              SPAS(1.0, W, m=1), SPAS(1.0, W, m=1, svt="strict"), SPAS(1.0, W, m=1, dis="raw")):
        est, pub, _ = online(m, wild, 1)
        assert pub.sum() > 2, m


def test_online_finish_raises_and_last_info_holds_the_latest_step():
    for info in FAMILY:
        m = info.cls(eps=1.0, w=W).start(None, 2, rng=0)
        m.step([3.0, 4.0])
        with pytest.raises(RuntimeError, match="online"): m.finish()
        assert isinstance(m.last_info, dict) and (info.name == "Constant" or m.last_info)
    m = BD(1.0, W).start(None, 2, rng=0)
    m.step([3.0, 4.0])
    assert m.last_info["eps_dis"] == pytest.approx(0.1) and m.last_info["eps_cand"] == pytest.approx(0.25)


def test_online_refuses_what_it_cannot_do_or_prove():
    with pytest.raises(ValueError, match="decay"): SPAS(1.0, W, var_estimator="decay").start(None, 2, rng=0)
    with pytest.raises(UnprovenConfiguration, match="allow_unproven"): SPAS(1.0, W, svt="paper").start(None, 2, rng=0)
    SPAS(1.0, W, svt="paper", allow_unproven=True).start(None, 2, rng=0).step([1.0, 2.0])
    with pytest.raises(RuntimeError, match="start"): Uniform(1.0, W).step([1.0])
