"""The online form of CAPP's local numeric mechanisms (12_capp, section Online form): start(None, ...) takes one slot at a
time in bounded memory, books each report in a RollingLedger before drawing it, equals the batch run bit for bit, refuses an
overspending report before its draw, refuses bad input without a trace, and pickles mid-stream."""
import pickle
import numpy as np
import pytest

from wevent_nb import capp as C
from wevent_nb.core import (NumericPopulation, PrivacyBudgetExceeded, RollingLedger, UnprovenConfiguration, get_mechanism,
                            list_mechanisms)

W, N = 5, 12
FAMILY = [i.name for i in list_mechanisms(paper="CAPP")]
CONFIGS = [(name, {}) for name in FAMILY] + [
    (i.name, {opt: v, "allow_unproven": True}) for i in list_mechanisms(paper="CAPP")
    for opt, vals in i.cls.accounting_options.items() for v in vals] + [
    ("APP", {"Lq": 7}), ("APP", {"acc_window": 3}), ("IPP", {"Lq": 3}), ("CAPP-S", {"n_s": 3, "acc_window": 2}),
    ("Sampling", {"n_s": 4, "Lq": 8}), ("CAPP", {"variant": "authors_code"}), ("CAPP", {"shrink": 0.2}), ("APP", {"smooth": None})]


def population(T, seed=1, N=N, lo=0.0, hi=1.0):
    return NumericPopulation(lo + (hi - lo) * np.random.default_rng(seed).random((N, T)), lo, hi)


def online(name, kw, pop, seed=7):
    return get_mechanism(name, eps=1.0, w=W, **kw).start(None, pop.N, seed, pop.lo, pop.hi)


def outputs(m, pop, ts):
    return [m.step(pop.values[:, t]) for t in ts]


def same(a, b):
    "Step outputs equal bit for bit (NaN where a sampled slot is not reported yet)."
    return len(a) == len(b) and all(pa == pb and (ea == eb or (np.isnan(ea) and np.isnan(eb))) for (ea, pa), (eb, pb) in zip(a, b))


@pytest.mark.parametrize("name,kw", CONFIGS, ids=str)
def test_online_equals_batch(name, kw):
    "T = 4 w' whole runs (w' = the longer of w and Lq): the online steps are the batch steps, and the batch release's raw reports."
    mech = get_mechanism(name, eps=1.0, w=W, **kw)
    pop = population(4 * max(W, mech.Lq) * (2 if kw.get("Lq") == 3 else 1), lo=5.0, hi=15.0)
    rel = mech.run(pop, rng=7)
    m = online(name, kw, pop)
    got = outputs(m, pop, range(pop.T))
    raw = rel.info["raw"]
    known = np.ones(pop.T, bool) if name == "BA-SW" else rel.published     # a PP report is known at its slot; BA-SW repeats the last
    want = [(float(np.mean(raw[:, t])) if known[t] else np.nan, bool(rel.published[t])) for t in range(pop.T)]
    assert same(got, want)
    b = get_mechanism(name, eps=1.0, w=W, **kw).start(pop.T, pop.N, 7, pop.lo, pop.hi)
    assert same(got, outputs(b, pop, range(pop.T)))                       # the batch step loop: the same engine
    assert isinstance(m.books, RollingLedger) and m.books.n_accounts == pop.N
    assert np.array_equal(m.books.w, rel.ledger.w) and np.array_equal(m.books.eps, rel.ledger.eps)
    span = int(rel.ledger.w[0])                                            # the last window's spends, per user, as the batch books
    last = np.array([rel.ledger.spent_per_timestamp(a)[-span:].sum() for a in range(pop.N)])
    np.testing.assert_allclose(m.books.window_spent(), last, rtol=1e-12)
    assert m.online and type(m).online


def test_every_registered_method_is_online():
    assert all(get_mechanism(n, eps=1.0, w=W).online for n in FAMILY) and C.APPDoubleBudget.online and C.APPNoClip.online


def arrays(obj, seen=None, path="m"):
    "Every numpy array reachable through instance dicts (the mechanism, its books), by path."
    seen = set() if seen is None else seen
    if isinstance(obj, np.ndarray): return {path: obj.shape}
    if id(obj) in seen: return {}
    seen.add(id(obj))
    out = {}
    items = obj.items() if isinstance(obj, dict) else vars(obj).items() if hasattr(obj, "__dict__") and not isinstance(obj, np.random.Generator) else (
        enumerate(obj) if isinstance(obj, (list, tuple)) else ())
    for k, v in items: out |= arrays(v, seen, f"{path}.{k}")
    return out


@pytest.mark.parametrize("name,kw", [("APP", {}), ("CAPP-S", {}), ("APP", {"acc_window": 3}), ("BA-SW", {}), ("SW-direct", {}),
                                     ("APP", {"Lq": 7})], ids=str)
def test_bounded_state(name, kw):
    "After 20 w and 200 w steps: the same arrays (shapes), and pickles of the same size within 5%."
    pop = population(200 * W, seed=3, N=8)
    m = online(name, kw, pop)
    outputs(m, pop, range(20 * W))
    shapes, size = arrays(m), len(pickle.dumps(m))
    outputs(m, pop, range(20 * W, 200 * W))
    assert arrays(m) == shapes
    assert abs(len(pickle.dumps(m)) - size) <= 0.05 * size
    assert max(max(s, default=0) for s in shapes.values()) <= 2 * W + max(m.Lq, N)   # nothing near the 1000 steps


class APPOverspend(C.APP):
    "Broken on purpose: books and draws each report at twice its share."
    name = "APPOverspend"
    def _setup(self): super()._setup(); self.eps_report *= 2


class BASWOverspend(C.BASW):
    "Broken on purpose: its dissimilarity and publications cost twice the unit (M1 alone then fills each window)."
    name = "BASWOverspend"
    def _setup(self): super()._setup(); self.unit *= 2


class Counting(np.random.Generator):
    "A Generator recording (t, size) of every uniform draw (the randomizers' only draws here)."
    def __init__(self, seed):
        super().__init__(np.random.PCG64(seed)); self.t, self.calls = 0, []
    def random(self, size=None, *a, **k):
        self.calls.append((self.t, size)); return super().random(size, *a, **k)


def drive_until_refused(m, pop, rng):
    for t in range(pop.T):
        rng.t, state = t, pickle.dumps(rng.bit_generator.state)
        try: m.step(pop.values[:, t])
        except PrivacyBudgetExceeded as err: return t, state, err
    raise AssertionError("never refused")


def test_overspending_report_refused_before_its_draw():
    "APPOverspend: reports of 2/9 over a 9-slot window; the 5th would hold 10/9 > 1 and is refused with nothing drawn."
    pop = population(4 * W)
    assert not APPOverspend(1.0, W).run(pop, rng=0, check=False).ledger.ok()     # the batch books catch it at the end ...
    rng = Counting(0)
    m = APPOverspend(1.0, W).start(None, pop.N, rng)
    t, state, err = drive_until_refused(m, pop, rng)                              # ... the online books at the step
    assert m.eps_report == pytest.approx(2 / 9) and t == 4 and "window t=0..4" in str(err)
    assert pickle.dumps(rng.bit_generator.state) == state and not [c for c in rng.calls if c[0] == t]


def test_overspending_basw_refused_before_the_draw_it_would_pay_for():
    "BASWOverspend (one user, seeds 0-5): refused either at M1's spend (nothing drawn) or at a publication's (M1's draw only, booked)."
    pop = NumericPopulation(np.r_[np.full(W - 1, 0.5), np.ones(3 * W + 1)][None, :])
    drawn = []
    for seed in range(6):
        rng = Counting(seed)
        m = BASWOverspend(1.0, W).start(None, 1, rng)
        t, state, err = drive_until_refused(m, pop, rng)
        at_t = [c for c in rng.calls if c[0] == t]
        assert at_t in ([], [(t, (1,)), (t, (1,))]) and (at_t or pickle.dumps(rng.bit_generator.state) == state)
        assert m.books.window_spent()[0] <= 1.0 + 1e-12 and "user 0" in str(err)   # the refused spend is not on the books
        drawn.append(bool(at_t))
    assert any(drawn) and not all(drawn)                                           # both paths are exercised


@pytest.mark.parametrize("name", ["APP", "CAPP-S", "BA-SW"])
def test_bad_input_leaves_no_trace(name):
    pop = population(4 * W, seed=5)
    clean = outputs(online(name, {}, pop), pop, range(pop.T))
    m = online(name, {}, pop)
    got = outputs(m, pop, range(7))
    before = pickle.dumps(m)
    bad = [np.full(N + 1, 0.5), np.r_[np.nan, np.full(N - 1, 0.5)], np.r_[1.5, np.full(N - 1, 0.5)], np.r_[-0.1, np.full(N - 1, 0.5)],
           np.full((N, 2), 0.5), ["a"] * N]
    for x in bad:
        with pytest.raises(ValueError, match="x"): m.step(x)
        assert pickle.dumps(m) == before
    got += outputs(m, pop, range(7, pop.T))
    assert same(got, clean)


@pytest.mark.parametrize("name", ["CAPP", "APP-S", "IPP", "BA-SW"])
def test_pickle_mid_stream_continues(name):
    pop = population(5 * W, seed=9)
    m = online(name, {}, pop)
    head = outputs(m, pop, range(8))
    clone = pickle.loads(pickle.dumps(m))
    tail, tail2 = outputs(m, pop, range(8, pop.T)), outputs(clone, pop, range(8, pop.T))
    assert same(tail, tail2) and same(head + tail, outputs(online(name, {}, pop), pop, range(pop.T)))


def test_online_run_has_no_end_and_unproven_needs_the_opt_in():
    pop = population(W)
    m = online("APP", {}, pop); outputs(m, pop, range(3))
    with pytest.raises(RuntimeError, match="online run"): m.finish()
    with pytest.raises(UnprovenConfiguration, match="allow_unproven"): C.APP(1.0, W, strict=False).start(None, N)
    assert C.APP(1.0, W, strict=False, allow_unproven=True).start(None, N).books.w[0] == W   # the paper's window, opted in
    assert C.SWDirect(1.0, W, strict=False).start(None, N).books.w[0] == W                      # nothing read past: proven
