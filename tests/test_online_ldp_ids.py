"""LDP-IDS (paper 000) online: `start(None, ...)` opens an unbounded run of the seven methods.

The step loop is the one engine: online steps give the batch `run` release bit for bit (estimates, published flags,
and each step's `last_info` against the batch `info` row), the rolling books charge what the batch ledger books, the
state stays bounded, pickles mid-stream, refuses an overspending step before the reports it would pay for are drawn,
and a rejected input changes nothing.
"""
import pickle
from collections import deque

import numpy as np
import pytest

import wevent_nb.ldp_ids as L
from wevent_nb.core import PrivacyBudgetExceeded, RollingLedger, list_mechanisms
from wevent_nb.data import markov_population

FAMILY = [i for i in list_mechanisms(stream_kind="categorical") if i.cls.__module__ == "wevent_nb.ldp_ids"]
MODES = ("per_user", "aggregate")


def configs():
    "(class, constructor kwargs): each method at its defaults, and at each value of its accounting options (none today)."
    out = []
    for info in FAMILY:
        out.append((info.cls, {}))
        for opt, values in info.cls.accounting_options.items():
            out += [(info.cls, {opt: v}) for v in values]
    return out

CONFIGS = configs()
ids = lambda c: f"{c[0].name}{''.join(f'-{k}={v}' for k, v in c[1].items())}" if isinstance(c, tuple) else str(c)


def population(N=64, T=18, d=3, seed=5):
    return markov_population(N, T, d, stay=0.6, drift=0.5, rng=seed)

def rows(stream, mode):
    return stream.values.T if mode == "per_user" else stream.counts

def online(m, stream, mode, seed):
    "Start m online on the stream's d and N; return it."
    return m.start(None, stream.d, rng=seed, N=stream.N)

def dense(ledger, T):
    "The batch ledger as a dense (accounts, T) matrix of spends."
    a, t, e = ledger.entries()
    M = np.zeros((ledger.n_accounts, T)); np.add.at(M, (a, t), e)
    return M

def window_sums(M, w):
    c = np.concatenate([np.zeros((M.shape[0], 1)), np.cumsum(M, 1)], 1)
    T = M.shape[1]
    return c[:, 1:] - c[:, np.maximum(np.arange(1, T + 1) - w, 0)]


# ----------------------------------------------------------------------------------------------- the contract
def test_every_method_is_online():
    assert {i.name for i in FAMILY} == {"LBU", "LSP", "LBD", "LBA", "LPU", "LPD", "LPA"}
    for info in FAMILY: assert info.cls.online is True, info.name

@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
def test_online_books_and_finish(cfg):
    cls, kw = cfg
    m = cls(1.5, 4, mode="aggregate", **kw).start(None, 3, rng=0, N=40)
    books = m.books
    assert isinstance(books, RollingLedger) and np.all(books.eps == 1.5) and np.all(books.w == 4)
    if cls.name in ("LBU", "LBD", "LBA"): assert books.n_accounts == 1 and books.names == ["all users"]
    else: assert books.n_accounts == 40
    m.step([10, 20, 10])
    with pytest.raises(ValueError, match=r"online run.*no end"): m.finish()
    assert cls(1.5, 4, **kw).start(5, 3, rng=0, N=40).books is None          # a batch run books its Ledger at finish


# ----------------------------------------------------------------------------------------------- online == batch
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
@pytest.mark.parametrize("fo", ["grr", "oue"])
@pytest.mark.parametrize("mode", MODES)
def test_online_steps_equal_the_batch_run(cfg, fo, mode):
    "T = 18 = 4.5 w: every step's estimate, flag and info row equal the batch run's; after every step the books' windows equal the batch ledger's."
    cls, kw = cfg
    pop, w = population(), 4
    s = pop if mode == "per_user" else pop.aggregate()
    rel = cls(1.0, w, fo=fo, mode=mode, **kw).run(s, rng=17)
    M = window_sums(dense(rel.ledger, s.T), w)
    m = online(cls(1.0, w, fo=fo, mode=mode, **kw), s, mode, 17)
    for t, x in enumerate(rows(s, mode)):
        est, pub = m.step(x)
        np.testing.assert_array_equal(est, rel.estimates[t]); assert pub == bool(rel.published[t]) and type(pub) is bool
        assert m.last_info["t"] == t
        for k, v in m.last_info.items():
            if k == "t": continue
            b = rel.info[k][t]
            assert (v == b) or (v != v and b != b), (t, k, v, b)
        np.testing.assert_allclose(m.books.window_spent(None, t), M[:, t], rtol=1e-12, atol=1e-15)
    if cls.name in ("LBD", "LBA", "LPD", "LPA"): assert 0 < rel.published.sum() < s.T   # both branches occur
    assert not hasattr(m, "_est") or m._est is None


# ----------------------------------------------------------------------------------------------- bounded state
def walk(obj, path="m", seen=None):
    "Yield (path, length) for every array dimension and container reachable from obj (the generator aside)."
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (np.random.Generator, str, bytes, int, float, bool, type(None), np.generic)): return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.ndim: yield path, max(obj.shape)
        if obj.dtype == object:
            for i, x in enumerate(obj.ravel()): yield from walk(x, f"{path}[{i}]", seen)
        return
    if isinstance(obj, dict):
        yield path, len(obj)
        for k, v in obj.items(): yield from walk(v, f"{path}[{k!r}]", seen)
        return
    if isinstance(obj, (list, tuple, deque)):
        yield path, len(obj)
        for i, v in enumerate(obj): yield from walk(v, f"{path}[{i}]", seen)
        return
    state = getattr(obj, "__dict__", None) or {k: getattr(obj, k) for k in getattr(type(obj), "__slots__", ()) if hasattr(obj, k)}
    for k, v in state.items(): yield from walk(v, f"{path}.{k}", seen)

@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
@pytest.mark.parametrize("mode", MODES)
def test_online_state_is_bounded(cfg, mode):
    "After 20 w and 200 w steps: the pickled state has the same size (within 5%), and nothing in it is longer than N (200 w = 600 > N = 60)."
    cls, kw = cfg
    N, d, w, g = 60, 3, 3, np.random.default_rng(1)
    m = cls(1.0, w, mode=mode, **kw).start(None, d, rng=2, N=N)
    size = {}
    for t in range(200 * w):
        v = g.integers(0, d, N) if t % 5 else np.zeros(N, np.int64)    # changes and steady spells: both decisions occur
        m.step(v if mode == "per_user" else np.bincount(v, minlength=d))
        if t + 1 in (20 * w, 200 * w): size[t + 1] = len(pickle.dumps(m))
    assert abs(size[200 * w] / size[20 * w] - 1) < 0.05, size
    longest = max(walk(m), key=lambda p: p[1])
    assert longest[1] <= N, longest


# ----------------------------------------------------------------------------------------------- refusal
class LBUOverspends(L.LBU):
    "Broken on purpose: charges and draws 2 eps/w per timestamp."
    name = "LBUOverspends"
    def _step_t(self, t):
        self._charge(t, 2 * self.eps / self.w)
        self._prev = self._sim.all_users(2 * self.eps / self.w)

class NoCapLBD(L.LBD):
    "Broken on purpose: forgets the publication budget already spent in the window, and always publishes."
    name = "NoCapLBD"
    def _remaining(self, spent_in_window): return self.eps / 2
    def _decide(self, t, dis, err): return True

class EarlyRecyclingLPD(L.LPD):
    "Broken on purpose: users come back one timestamp too early."
    name = "EarlyRecyclingLPD"
    def _returning(self, t): return t - self.w + 2

def first_overspend(rel, eps):
    "The first timestamp at which some window of the (unchecked) batch ledger exceeds eps."
    a, t, s = rel.ledger.window_spends()
    return int(t[s > eps].min())                    # exact books: no tolerance

def recording(m):
    "Record (t, eps) of every report the mechanism's simulation draws."
    sim, calls = m._sim, []
    def wrap(f):
        def g(*a):
            calls.append((sim.t, a[-1])); return f(*a)
        return g
    sim.all_users, sim.report = wrap(sim.all_users), wrap(sim.report)
    return calls

@pytest.mark.parametrize("cls,mode,m1_first,rng_untouched", [
    (LBUOverspends, "aggregate", False, True), (LBUOverspends, "per_user", False, True),   # the step's one charge comes first
    (EarlyRecyclingLPD, "aggregate", False, True),                                        # U1's ids are taken without a draw
    (EarlyRecyclingLPD, "per_user", False, False),                                        # U1's ids are sampled, then refused
    (NoCapLBD, "aggregate", True, False)])                                                # M1 is paid for; the publication is refused
def test_overspending_step_is_refused_before_its_reports(cls, mode, m1_first, rng_untouched):
    """Refused at the first step where the batch ledger overspends; no report the refused charge pays for is drawn (the
    generator untouched where the refused charge is the step's first); the refused charge is not recorded; the run stops."""
    w, s = 4, population(N=64, T=20, d=3, seed=3)
    s = s if mode == "per_user" else s.aggregate()
    t_bad = first_overspend(cls(1.0, w, mode=mode).run(s, rng=9, check=False), 1.0)
    assert t_bad >= 1
    m = online(cls(1.0, w, mode=mode), s, mode, 9)
    calls = recording(m)
    X = rows(s, mode)
    for t in range(t_bad): m.step(X[t])
    state, before = m._sim.rng.bit_generator.state, len(calls)
    with pytest.raises(PrivacyBudgetExceeded, match="refused before any noise is drawn"): m.step(X[t_bad])
    assert calls[before:] == ([(t_bad, m._e1)] if m1_first else [])
    assert (m._sim.rng.bit_generator.state == state) is rng_untouched
    assert m.books.window_spent(None, t_bad).max() <= 1.0
    with pytest.raises(ValueError, match=f"stopped at t={t_bad}"): m.step(X[t_bad])


@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("forced", [None, "always", "coin"])
def test_every_report_is_charged_before_it_is_drawn(cfg, mode, forced):
    "At every report drawn at t, the books already hold, at t, its budget for each reporting user (one account: the step's draws so far)."
    cls, kw = cfg
    if forced: cls = L.forced_decisions(cls, (lambda t: True) if forced == "always" else (lambda t: (t * 7919) % 3 != 0), forced)
    s = population(N=64, T=16, d=3, seed=2)
    s = s if mode == "per_user" else s.aggregate()
    m = online(cls(1.0, 4, mode=mode, **kw), s, mode, 5)
    sim, books, seen = m._sim, m.books, {"base": None, "drawn": 0.0, "n": 0}
    def charged_at_t(): return books.window_spent(None, sim.t) - seen["base"]
    def check(ids, eps):
        seen["n"] += 1
        if books.n_accounts == 1:
            seen["drawn"] += eps
            assert charged_at_t()[0] >= seen["drawn"] * (1 - 1e-12), (sim.t, eps)
        else:
            c = charged_at_t()[np.asarray(ids, np.int64)]
            assert c.size and np.all(c >= eps * (1 - 1e-12)), (sim.t, eps)
    all_users, report = sim.all_users, sim.report
    def all_users_checked(eps): check(np.arange(sim.N), eps); return all_users(eps)
    def report_checked(ids, hist, eps): check(ids, eps); return report(ids, hist, eps)
    sim.all_users, sim.report = all_users_checked, report_checked
    X = rows(s, mode)
    for t, x in enumerate(X):
        seen.update(base=books.window_spent(None, t), drawn=0.0)   # the windows ending at t, before step t charges anything
        m.step(x)
    assert seen["n"] >= s.T // 4


# ----------------------------------------------------------------------------------------------- bad input
BAD_AGG = [lambda x: x[:-1], lambda x: np.r_[x[:-1], np.nan], lambda x: np.r_[x[0] + 1, x[1:]],
           lambda x: np.r_[x[0] + x[1] + 1, -1, x[2:]],
           lambda x: x + 0.5, lambda x: np.stack([x, x])]
BAD_PU = [lambda x: x[:-1], lambda x: np.where(np.arange(x.size) == 0, np.nan, x), lambda x: np.where(np.arange(x.size) == 0, 3, x),
          lambda x: np.where(np.arange(x.size) == 0, -1, x), lambda x: x + 0.5, lambda x: np.stack([x, x])]

@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
@pytest.mark.parametrize("mode", MODES)
def test_bad_input_mid_stream_changes_nothing(cfg, mode):
    "Bad x at steps 0 and 7 (wrong shape, NaN, count or value out of range, non-integral) raise ValueError; the releases are those of a run without them."
    cls, kw = cfg
    s = population(N=64, T=16, d=3, seed=4)
    s = s if mode == "per_user" else s.aggregate()
    ref = [cls(1.0, 4, mode=mode, **kw).start(None, s.d, rng=6, N=s.N)]
    ref = [ref[0].step(x) for x in rows(s, mode)]
    m = cls(1.0, 4, mode="auto", **kw).start(None, s.d, rng=6, N=s.N)            # auto: the first valid x decides the mode
    out = []
    for t, x in enumerate(rows(s, mode)):
        if t == 0:                                                               # a bad x of the other mode's length fixes no mode
            other = np.full(s.N, s.d) if mode == "aggregate" else np.r_[np.full(s.d - 1, np.nan), 0.0]
            with pytest.raises(ValueError, match="x"): m.step(other)
        if t in (0, 7):
            for bad in (BAD_AGG if mode == "aggregate" else BAD_PU):
                with pytest.raises(ValueError, match="x"): m.step(bad(np.asarray(x)))
        out.append(m.step(x))
    for (a, p), (b, q) in zip(out, ref): np.testing.assert_array_equal(a, b); assert p == q


# ----------------------------------------------------------------------------------------------- pickle
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
@pytest.mark.parametrize("mode", MODES)
def test_pickle_mid_stream_continues_bit_identically(cfg, mode):
    cls, kw = cfg
    s = population(N=64, T=20, d=3, seed=8)
    s = s if mode == "per_user" else s.aggregate()
    X = rows(s, mode)
    a = cls(1.0, 4, mode=mode, **kw).start(None, s.d, rng=3, N=s.N)
    for x in X[:9]: a.step(x)
    b = pickle.loads(pickle.dumps(a))
    assert b.books is not a.books and b._sim.rng is not a._sim.rng
    for x in X[9:]:
        (ea, pa), (eb, pb) = a.step(x), b.step(x)
        np.testing.assert_array_equal(ea, eb); assert pa == pb and a.last_info.keys() == b.last_info.keys()
    np.testing.assert_array_equal(a.books.window_spent(None), b.books.window_spent(None))
    rel = cls(1.0, 4, mode=mode, **kw).run(s, rng=3)
    np.testing.assert_array_equal(eb, rel.estimates[-1])
