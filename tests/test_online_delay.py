"Online form of the delay-allowed methods (paper 004): start(None, ...) releases what run releases, in bounded memory, with rolling books charged before any draw."
import pickle
import numpy as np
import pytest
from wevent_nb.core import ScalarStream, RollingLedger, PrivacyBudgetExceeded, list_mechanisms, get_mechanism
from wevent_nb import delay as D

W = 5
METHODS = [i.name for i in list_mechanisms(paper="paper 004")]


def configs():
    "Every registered method at its defaults, and with each private value of its accounting options."
    out = []
    for name in METHODS:
        cls = get_mechanism(name, eps=0.7, w=W).__class__
        out.append((name, {}))
        for key, values in cls.accounting_options.items():
            for v in values:
                if get_mechanism(name, eps=0.7, w=W, **{key: v}).private: out.append((name, {key: v}))
    return out


CONFIGS = configs()
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for n, kw in CONFIGS]


def stream(T, seed=0):
    return ScalarStream(np.random.default_rng(seed).integers(0, 100, T).astype(float), 0.0, 100.0)


def steps(m, values):
    "Each step's (timestamps, values)."
    return [m.step(x) for x in values]


def released(outs, T):
    "The values released, at their timestamps (NaN: not released); each timestamp at most once."
    got = np.full(T, np.nan)
    for ts, v in outs:
        assert np.all(np.isnan(got[ts])), "a timestamp released twice"
        got[ts] = v
    return got


def online(name, kw, seed=3):
    return get_mechanism(name, eps=0.7, w=W, **kw).start(None, 1, seed, lo=0.0, hi=100.0)


def test_every_method_is_online():
    assert CONFIGS and all(get_mechanism(n, eps=0.7, w=W).online for n in METHODS)
    assert D.DiscontinHalfNoise.online and D.CompOrderHalfQuery.online


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_online_steps_equal_the_batch_run_bit_for_bit(name, kw):
    s = stream(4 * W + 3, 1)                                    # four whole batches and a partial one
    rel = get_mechanism(name, eps=0.7, w=W, **kw).run(s, rng=3)
    batch_steps = steps(get_mechanism(name, eps=0.7, w=W, **kw).start(s.T, 1, 3, lo=s.lo, hi=s.hi), s.values)
    assert released(batch_steps, s.T).tobytes() == rel.estimates.tobytes()   # step-wise == run, the same draws
    m = online(name, kw)
    assert isinstance(m.books, RollingLedger)
    on = steps(m, s.values)
    last = 4 * W - 1 if m.batch_len > 1 or name == "CompOrder" else s.T - 1   # the last step whose release a run of unknown length can make
    for t in range(last):                                       # the same timestamps at the same steps, the same numbers
        assert np.array_equal(on[t][0], batch_steps[t][0]) and on[t][1].tobytes() == batch_steps[t][1].tobytes(), t
    got = released(on, s.T)
    r = ~np.isnan(got)
    assert got[r].tobytes() == rel.estimates[r].tobytes() and r[:4 * W - (W if name == "CompOrder" else 0)].all()
    with pytest.raises(RuntimeError, match="online run has no end"):
        m.finish()


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_online_books_charge_what_the_batch_ledger_books(name, kw):
    s = stream(4 * W, 2)
    ledger = get_mechanism(name, eps=0.7, w=W, **kw).run(s, rng=1).ledger.max_window_spend()
    m = online(name, kw, 1)
    for t, x in enumerate(s.values):
        m.step(x)
        if (t + 1) % m.batch_len == 0:                          # a batch closed: its events are booked, in full
            ev = np.arange(t + 1 - m.batch_len, t + 1)
            np.testing.assert_allclose(m.books.window_spent(ev), ledger[ev], rtol=1e-12)


def array_sizes(obj, seen=None):
    "The sizes of every numpy array an object holds (attributes, dicts, lists, nested objects of wevent_nb)."
    seen = set() if seen is None else seen
    if id(obj) in seen: return []
    seen.add(id(obj))
    if isinstance(obj, np.ndarray): return [obj.size]
    if isinstance(obj, dict): return [n for v in obj.values() for n in array_sizes(v, seen)]
    if isinstance(obj, (list, tuple)): return [n for v in obj for n in array_sizes(v, seen)]
    if type(obj).__module__.startswith("wevent_nb"): return array_sizes(vars(obj), seen)
    return []


@pytest.mark.parametrize("name", METHODS)
def test_online_state_is_bounded(name):
    m = online(name, {"truncation": True} if "truncation" in get_mechanism(name, eps=0.7, w=W).accounting_options else {})
    g = np.random.default_rng(4)
    steps(m, g.integers(0, 100, 20 * W).astype(float))
    group = lambda: int(m._base._held[2]) if name == "PeGaSus-event" else 0    # PeGaSus keeps its open group's rows (what its SVT's dev reads)
    size_20, arrays_20, open_20, group_20 = len(pickle.dumps(m)), sorted(array_sizes(m)), len(m.books._open), group()
    steps(m, g.integers(0, 100, 180 * W).astype(float))
    size_200, arrays_200 = len(pickle.dumps(m)), sorted(array_sizes(m))
    assert m._t == 200 * W and abs(size_200 - size_20) <= 0.03 * size_20 + 20 * abs(group() - group_20), (size_20, size_200)
    assert arrays_200 == arrays_20 and max(arrays_200) <= 2 * W * W   # nothing grows with t (CompOrder's order bits: 2w x w)
    assert len(m.books._open) == open_20 <= 3 * W                   # the books keep only the events still open


class LateOverspend(D.Naive):
    "Deliberately wrong: from its third value on it releases with Laplace(Delta_s / (1.5 eps)), and books it."
    def _shares(self, b):
        s = super()._shares(b); s[2] = np.where(np.asarray(b) >= 2, 1.5 * s[2], s[2]); return s
    def _draw_ahead(self, b0, mask, sens, eps_p):
        return super()._draw_ahead(b0, mask, sens, eps_p * np.where(b0 + np.arange(len(mask)) >= 2, 1.5, 1.0))


class GreedyTau(D.DiscontinReduce):
    "Deliberately wrong: selects tau with eps_p / 2 but releases with the whole eps_p (the truncation share is not carved out), and books both."
    def _shares(self, b):
        s = super()._shares(b); s[2] = self.eps_p; return s
    def _process(self, Y, mask, sens, eps_p, ahead=None): return super()._process(Y, mask, sens, np.full(len(Y), self.eps_p), ahead)


@pytest.mark.parametrize("make,first_bad", [(lambda: LateOverspend(0.7, W), 2), (lambda: GreedyTau(0.7, W, truncation=True), W - 1)],
                         ids=["LateOverspend", "GreedyTau"])
def test_an_overspending_variant_is_refused_before_any_draw(make, first_bad):
    s = stream(4 * W, 5)
    with pytest.raises(PrivacyBudgetExceeded):                  # the batch ledger catches it too
        make().run(s, rng=0)
    m = make().start(None, 1, 0, lo=0.0, hi=100.0)
    for x in s.values[:first_bad]: m.step(x)                    # the steps before it go through
    before, rng_state = pickle.dumps(m), m._rng.bit_generator.state
    with pytest.raises(PrivacyBudgetExceeded, match="refused before any noise is drawn"):
        m.step(s.values[first_bad])
    assert m._rng.bit_generator.state == rng_state and pickle.dumps(m) == before   # nothing drawn, nothing changed


@pytest.mark.parametrize("name", METHODS)
def test_bad_input_mid_stream_changes_nothing(name):
    s = stream(3 * W + 2, 6)
    want = steps(online(name, {}), s.values)
    m = online(name, {})
    got = steps(m, s.values[:W + 2])
    before = pickle.dumps(m)
    for bad, msg in ((np.nan, "finite"), (101.0, "domain"), (-0.5, "domain"), ([1.0, 2.0], "one number"), ("ten", "one number"), ([], "one number")):
        with pytest.raises(ValueError, match=msg): m.step(bad)
        assert pickle.dumps(m) == before
    got += steps(m, s.values[W + 2:])
    assert all(np.array_equal(a[0], b[0]) and a[1].tobytes() == b[1].tobytes() for a, b in zip(got, want)) and len(got) == len(want)


@pytest.mark.parametrize("name", METHODS)
def test_pickled_mid_stream_continues_bit_for_bit(name):
    s = stream(5 * W, 7)
    cut = 2 * W + 2                                             # inside a batch (CompOrder: with releases pending)
    m = online(name, {}); head = steps(m, s.values[:cut])
    copy = pickle.loads(pickle.dumps(m))
    tail, tail_copy = steps(m, s.values[cut:]), steps(copy, s.values[cut:])
    whole = steps(online(name, {}), s.values)
    for a, b in zip(head + tail_copy, whole): assert np.array_equal(a[0], b[0]) and a[1].tobytes() == b[1].tobytes()
    for a, b in zip(tail, tail_copy): assert np.array_equal(a[0], b[0]) and a[1].tobytes() == b[1].tobytes()
    assert copy.books.t == m.books.t and copy.books.n_spends == m.books.n_spends
