"""The online form of the personalized mechanisms (13_pbd_pba, section Online form): start(None, d, rng, eps_i, w_i) takes one
slot at a time in bounded memory, books every spend per user (held to the declared eps_i, w_i) before the noise it pays for,
equals the batch run bit for bit, refuses an overspend before the draw it would pay for, refuses bad input without a trace, and
pickles mid-stream. The same for BD and BA at the conservative pair (ConservativeBD/BA, not registered): the inner BD/BA of
04_baselines online at (min eps_i, max w_i), each of its spends charged to every user's account first."""
import pickle
import numpy as np
import pytest

from wevent_nb.primitives import GRR
from wevent_nb.baselines import BD
from wevent_nb.core import PersonalizedPopulation, PrivacyBudgetExceeded, RollingLedger, UnprovenConfiguration, list_mechanisms
from wevent_nb.pbd_pba import (PBD, PBA, PLBU, ConservativeBD, ConservativeBA, EveryUserBooks, PBAStaleLast, PBDHalfNoise,
                               SamplingRecorder, assigned_population)

EPS, WS = (0.2, 0.5, 1.0), (2, 3, 5)
WMAX = max(WS)
REGISTERED = {i.name: i.cls for i in list_mechanisms(paper="Personalized")}
CONFIGS = [(cls, {}) for cls in REGISTERED.values()] + [(PBD, {"threshold": "kellaris"}), (PBA, {"threshold": "kellaris"}),
                                                         (PBD, {"users": "levels", "eps": 0.5, "w": 3}), (PBA, {"users": "levels", "eps": 0.5, "w": 3}),
                                                         (PBD, {"users": "uniform", "eps": 0.2, "w": 5})]
CONSERVATIVE = [ConservativeBD, ConservativeBA]
CONFIGS += [(cls, kw) for cls in CONSERVATIVE for kw in ({}, {"threshold": "std"}, {"users": "levels", "eps": 0.5, "w": 3})]


def jumpy(N=40, T=4 * WMAX, d=3, seed=4, period=None):
    "Values that jump every `period` slots (T/6 by default: every method publishes); (eps_i, w_i) drawn per block of 10 users."
    r = np.random.default_rng(seed)
    period = period or -(-T // 6)
    k = -(-T // period)
    base = np.repeat(r.integers(0, d, (N, k)), period, axis=1)[:, :T]
    g = -(-N // 10)
    return PersonalizedPopulation(base, d, np.repeat(r.choice(EPS, g), 10)[:N], np.repeat(r.choice(WS, g), 10)[:N])


def online(cls, kw, pop, seed=5):
    return cls(**kw).start(None, pop.d, seed, pop.eps, pop.w)


def outputs(m, pop, ts):
    return [m.step(pop.values[:, t]) for t in ts]


def same(a, b):
    return len(a) == len(b) and all(pa == pb and np.array_equal(ea, eb) for (ea, pa), (eb, pb) in zip(a, b))


def test_the_family_is_registered_and_online():
    assert set(REGISTERED) == {"PBD", "PBA", "PLBU"} and all(cls.online for cls in REGISTERED.values())
    assert PBAStaleLast.online and ConservativeBD.online and ConservativeBA.online


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=str)
def test_online_equals_batch(cls, kw):
    "T = 4 max w_i: the online steps are the batch release, bit for bit; the books are per user, at the declared budgets."
    pop = jumpy()
    if kw.get("users") == "levels": pop = assigned_population(pop, "levels", eps=kw["eps"], w=kw["w"])   # users declaring Table 3's levels
    rel = cls(**kw).run(pop, rng=5)
    m = online(cls, kw, pop)
    got = outputs(m, pop, range(pop.T))
    assert same(got, list(zip(rel.estimates, rel.published)))
    assert isinstance(m.books, RollingLedger) and m.books.n_accounts == pop.N
    np.testing.assert_array_equal(m.books.eps, pop.eps); np.testing.assert_array_equal(m.books.w, pop.w)
    np.testing.assert_array_equal(m.books.eps, rel.ledger.eps); np.testing.assert_array_equal(m.books.w, rel.ledger.w)
    spent = np.zeros((pop.N, pop.T))
    a, t, e = rel.ledger.entries(); np.add.at(spent, (a, t), e)
    last = np.array([spent[i, pop.T - pop.w[i]:].sum() for i in range(pop.N)])   # each user's own last window
    np.testing.assert_allclose(m.books.window_spent(), last, rtol=1e-12, atol=1e-15)
    if cls in CONSERVATIVE:                  # the inner BD/BA online at (min eps_i, max w_i) of the budgets computed with
        e, w = (kw["eps"], kw["w"]) if "users" in kw else (pop.eps, pop.w)
        assert (m._inner.eps, m._inner.w) == (np.min(e), np.max(w)) and (rel.info["eps_uniform"], rel.info["w_uniform"]) == (m._inner.eps, m._inner.w)
        assert isinstance(m._inner.books, EveryUserBooks) and m._inner.books.users is m.books and m._inner.books.n_accounts == 1


def test_conservative_online_does_not_clamp_w():
    "A stream shorter than max w_i: the batch run clamps BD's window to T (the whole stream); online the window is max w_i (no T)."
    pop = jumpy(T=WMAX - 1)
    pop = PersonalizedPopulation(pop.values, pop.d, pop.eps, np.r_[WMAX, pop.w[1:]])
    assert ConservativeBD().run(pop, rng=0).info["w_uniform"] == WMAX - 1
    m = online(ConservativeBD, {}, pop); outputs(m, pop, range(pop.T))
    assert m._inner.w == WMAX and m._inner.books.w[0] == WMAX


def arrays(obj, seen=None, path="m"):
    "Every numpy array reachable through instance dicts, lists and tuples (the mechanism, its books, types, oracles), by path."
    seen = set() if seen is None else seen
    if isinstance(obj, np.ndarray): return {path: obj.shape}
    if id(obj) in seen: return {}
    seen.add(id(obj))
    if isinstance(obj, dict): items = obj.items()
    elif isinstance(obj, (list, tuple)): items = enumerate(obj)
    elif hasattr(obj, "__dict__") and not isinstance(obj, np.random.Generator): items = vars(obj).items()
    else: return {}
    out = {}
    for k, v in items: out |= arrays(v, seen, f"{path}.{k}")
    return out


@pytest.mark.parametrize("cls", [PBD, PBA, PLBU] + CONSERVATIVE)
def test_bounded_state(cls):
    "After 20 and 200 max w_i steps: the same arrays (shapes, none near the stream's length), pickles of the same size within 5%."
    pop = jumpy(N=30, T=200 * WMAX, period=3, seed=8)
    m = online(cls, {}, pop)
    outputs(m, pop, range(20 * WMAX))
    shapes, size = arrays(m), len(pickle.dumps(m))
    outputs(m, pop, range(20 * WMAX, 200 * WMAX))
    assert arrays(m) == shapes and max(max(s, default=0) for s in shapes.values()) <= max(pop.N, WMAX)
    assert abs(len(pickle.dumps(m)) - size) <= 0.05 * size


class PBDGreedyDC(PBD):
    "Broken on purpose: its private dissimilarity costs 3 eps_i/(2 w_i), so DC alone overspends every window of w_i >= 2 slots."
    name = "PBDGreedyDC"
    def _init(self): super()._init(); self._e1 = 3 * self._e1


class PLBUDouble(PLBU):
    "Broken on purpose: books and draws GRR at 2 eps_i/w_i."
    name = "PLBUDouble"
    def start(self, *a, **k):
        super().start(*a, **k); self._rate = 2 * self._rate                 # the allotted rate, doubled: booked and drawn for
        self._fos = [GRR(r, self._d) for r in self._rate]; return self


def drive_until_refused(m, pop, rng):
    for t in range(pop.T):
        rng.t, state, draws = t, pickle.dumps(rng.bit_generator.state), len(rng.draws)
        try: m.step(pop.values[:, t])
        except PrivacyBudgetExceeded as err: return t, state, draws, err
    raise AssertionError("never refused")


class ConservativeBDShortWindow(ConservativeBD):
    "Broken on purpose: BD at (min eps_i, min w_i): its central books pass, the users' of w_i > min w_i overspend (the users' books refuse)."
    name = "ConservativeBDShortWindow"
    def _pair(self): return float(self._ty.eps.min()), int(self._ty.w.min())


class BDGreedy(BD):
    "Broken on purpose: its dissimilarity takes 3/2 of eps per window (its own central books refuse)."
    dis_share = 1.5


class ConservativeBDGreedy(ConservativeBD):
    name, base = "ConservativeBDGreedy", BDGreedy


def first_overspend(rel, most=False):
    """The first slot at which some user's window in the batch run holds more than the user's eps_i; most=True: the first at which
    the inner BD/BA's window would, if the slot spent its most (its dissimilarity and its candidate publication, what BD's step affords)."""
    if most:
        i = rel.info
        spent, eps, w = i["eps_t"][None, :].copy(), np.array([i["eps_uniform"]]), np.array([i["w_uniform"]])
        extra = i["eps_dis"] + np.maximum(i["eps_cand"], 0) - i["eps_t"]             # the slot's most, beyond what it spent
    else:
        spent, eps, w = np.zeros(rel.ledger.eps.shape + (rel.T,)), rel.ledger.eps, rel.ledger.w
        a, t, e = rel.ledger.entries(); np.add.at(spent, (a, t), e)
        extra = np.zeros(rel.T)
    c = np.c_[np.zeros(len(spent)), np.cumsum(spent, 1)]
    lo = np.maximum(np.arange(1, rel.T + 1)[None, :] - w[:, None], 0)
    over = np.take_along_axis(c, lo, 1) < c[:, 1:] + extra[None, :] - eps[:, None] * (1 + 1e-9)
    return int(np.flatnonzero(over.any(0))[0])


@pytest.mark.parametrize("cls", [ConservativeBDShortWindow, ConservativeBDGreedy])
def test_conservative_overspend_refused_at_its_first_slot_before_any_draw(cls):
    """The users' books (short window: the first slot a user's window overflows) or the inner's central books (greedy: the first its
    window would if the slot spent its most, before any user's) refuse the slot, the generator and the users' books untouched."""
    pop = jumpy(seed=0)
    rel = cls().run(pop, rng=0, check=False)
    assert not rel.ledger.ok()
    rng = SamplingRecorder(0)
    m = cls().start(None, pop.d, rng, pop.eps, pop.w)
    t, state, draws, err = drive_until_refused(m, pop, rng)
    greedy = cls is ConservativeBDGreedy
    assert t == first_overspend(rel, most=greedy) and (not greedy or t < first_overspend(rel)) and pickle.dumps(rng.bit_generator.state) == state and len(rng.draws) == draws
    assert ("asked for" if greedy else "user") in str(err)       # the central step's afford, or a user's account
    assert (m.books.window_spent() <= pop.eps * (1 + 1e-9)).all()
    assert same(outputs(cls().start(None, pop.d, 0, pop.eps, pop.w), pop, range(t)), list(zip(rel.estimates[:t], rel.published[:t])))


@pytest.mark.parametrize("cls", [PBDGreedyDC, PLBUDouble])
def test_overspend_refused_before_any_draw(cls):
    "DC (or PLBU's reports) over budget: refused at the step the window overflows, with the generator untouched."
    pop = jumpy()
    assert not cls().run(pop, rng=0, check=False).ledger.ok()                # the batch books catch it at the end
    rng = SamplingRecorder(0)
    m = cls().start(None, pop.d, rng, pop.eps, pop.w)
    t, state, _, err = drive_until_refused(m, pop, rng)
    assert pickle.dumps(rng.bit_generator.state) == state and not [s for s in rng.samples if s[0] == t]
    assert t == 1 and "user" in str(err)     # users with w_i <= 3 hold >= 3/4 eps_i after slot 0: slot 1's first spend overflows


def test_stale_last_publication_refused_before_its_noise():
    "PBAStaleLast absorbs shares it already spent: refused at its first overspending publication, after DC's (booked) draw, before SM's."
    pop = jumpy()
    rng = SamplingRecorder(1)
    m = PBAStaleLast().start(None, pop.d, rng, pop.eps, pop.w)
    t, _, before, err = drive_until_refused(m, pop, rng)
    assert [d.site for d in rng.draws[before:]] == ["dissimilarity"]        # the DC draw only: no sm_disturb, no sample after it
    assert all(pos <= before for s_t, _, _, pos in rng.samples if s_t == t)
    assert "window" in str(err) and (m.books.window_spent() <= pop.eps * (1 + 1e-9)).all()


def test_assigned_budgets_above_the_declared_are_refused():
    "users='uniform' at (1.0, 2) for users declaring at most (0.2..1.0, 2..5): the declared books refuse it online."
    pop = jumpy()
    m = online(PBD, {"users": "uniform", "eps": 1.0, "w": 2}, pop)
    with pytest.raises(PrivacyBudgetExceeded, match="user"): outputs(m, pop, range(pop.T))


@pytest.mark.parametrize("cls", [PBD, PBA, PLBU] + CONSERVATIVE)
def test_bad_input_leaves_no_trace(cls):
    pop = jumpy(seed=6)
    clean = outputs(online(cls, {}, pop), pop, range(pop.T))
    m = online(cls, {}, pop)
    got = outputs(m, pop, range(7))
    before = pickle.dumps(m)
    N, d = pop.N, pop.d
    for x in (np.zeros(N + 1, int), np.r_[d, np.zeros(N - 1, int)], np.r_[-1, np.zeros(N - 1, int)], np.r_[np.nan, np.zeros(N - 1)],
              np.r_[0.5, np.zeros(N - 1)], np.zeros((N, 2), int)):
        with pytest.raises(ValueError, match="x"): m.step(x)
        assert pickle.dumps(m) == before
    got += outputs(m, pop, range(7, pop.T))
    assert same(got, clean)


@pytest.mark.parametrize("cls", [PBD, PBA, PLBU] + CONSERVATIVE)
def test_pickle_mid_stream_continues(cls):
    pop = jumpy(seed=2, T=5 * WMAX)
    m = online(cls, {}, pop)
    head = outputs(m, pop, range(9))
    clone = pickle.loads(pickle.dumps(m))
    tail, tail2 = outputs(m, pop, range(9, pop.T)), outputs(clone, pop, range(9, pop.T))
    assert same(tail, tail2) and same(head + tail, list(zip(*(lambda r: (r.estimates, r.published))(cls().run(pop, rng=5)))))


def test_online_run_has_no_end_and_unproven_needs_the_opt_in():
    pop = jumpy()
    for cls in (PBD, ConservativeBD, ConservativeBA):
        m = online(cls, {}, pop); outputs(m, pop, range(3))
        with pytest.raises(RuntimeError, match="online run"): m.finish()
    assert ConservativeBA().run(pop, rng=0).ledger.ok()               # batch again after an online run: unchanged
    with pytest.raises(UnprovenConfiguration, match="allow_unproven"): online(PBDHalfNoise, {}, pop)
    outputs(online(PBDHalfNoise, {"allow_unproven": True}, pop), pop, range(3))


def test_shared_budget_counts_path_unchanged():
    "The benchmark drives PBD through _advance with a histogram as one type's counts: batch releases as before, online too."
    pop = jumpy(N=1, T=4 * WMAX)
    counts = np.eye(pop.d)[pop.values[0]][:, None, :] * 50
    one = lambda T: PBD(users="uniform", eps=1.0, w=3).start(T, pop.d, 3, np.array([1.0]), np.array([3]))
    b, o = one(pop.T), one(None)
    assert same([b._advance(c) for c in counts], [o._advance(c) for c in counts])
