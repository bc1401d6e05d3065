"One engine: for every registered mechanism with an online form, a Session (start(None), one step a timestamp) gives the batch run's releases bit for bit."
import numpy as np
import pytest
from wevent_nb.core import (CategoricalAggregate, CategoricalPopulation, HistogramStream, NumericPopulation, PersonalizedPopulation,
                            ScalarStream, list_mechanisms, get_mechanism)
from wevent_nb.online import Session

W, T, SEED = 4, 19, 5        # T: several windows and a partial last batch (19 = 4 * 4 + 3)

def case(kind, rng):
    "A small stream of the kind, the session's start arguments, the rows it feeds, and how to read the batch release per timestamp."
    if kind == "histogram":
        X = rng.integers(0, 40, (T, 3)).astype(float)
        return HistogramStream(X), dict(d=3), list(X)
    if kind == "categorical":
        V = rng.integers(0, 3, (60, T))
        return CategoricalPopulation(V, 3), dict(d=3, N=60), list(V.T)
    if kind == "numeric":
        V = rng.random((40, 5 * W))                          # whole runs of Lq = w slots (a cut last run packs samples closer)
        return NumericPopulation(V), dict(N=40, lo=0.0, hi=1.0), list(V.T)
    if kind == "personalized":
        V = rng.integers(0, 3, (60, T))
        eps, w = np.repeat([0.5, 1.0], 30), np.repeat([W, 2 * W], 30)
        return PersonalizedPopulation(V, 3, eps, w), dict(d=3, eps_i=eps, w_i=w), list(V.T)
    v = rng.random(T) * 10
    return ScalarStream(v, 0.0, 10.0), dict(d=1, lo=0.0, hi=10.0), list(v)

def build(info):
    return get_mechanism(info.name) if info.stream_kind == "personalized" else get_mechanism(info.name, eps=1.0, w=W)

ONLINE = [i for i in list_mechanisms() if i.cls.online]
OFFLINE = [i for i in list_mechanisms() if not i.cls.online]

@pytest.mark.parametrize("info", ONLINE, ids=lambda i: i.name)
def test_online_equals_batch(info):
    stream, start, rows = case(info.stream_kind, np.random.default_rng(0))
    batch = build(info).run(stream, rng=SEED)
    s = Session(build(info), rng=SEED, **start)
    steps = [s.step(x).release for x in rows]
    if info.stream_kind == "scalar":
        got = np.full(T, np.nan)
        for ts, vals in steps: got[ts] = vals
        done = ~np.isnan(got)                 # online, a value is released when its delay ends: the last w may still wait
        assert done[:T - W].all()
        assert np.array_equal(got[done], batch.estimates[done])
    elif info.stream_kind == "numeric":   # a step releases the users' reports; the smoothed estimate needs the next slot (12_capp, Online form)
        raw, known = batch.info["raw"], np.ones(batch.T, bool) if info.name == "BA-SW" else batch.published
        want = [float(np.mean(raw[:, t])) if known[t] else np.nan for t in range(batch.T)]
        assert np.array_equal(np.array([e for e, _ in steps]), np.array(want), equal_nan=True)
        assert np.array_equal(np.array([p for _, p in steps]), batch.published)
    else:
        assert np.array_equal(np.array([e for e, _ in steps]), batch.estimates)
        assert np.array_equal(np.array([p for _, p in steps]), batch.published)

@pytest.mark.parametrize("info", ONLINE, ids=lambda i: i.name)
def test_online_state_does_not_grow(info):
    "The pickled session (what the durable state writes) is the same size after 10 and after 60 windows: nothing grows with t."
    import pickle
    _, start, rows = case(info.stream_kind, np.random.default_rng(1))
    s = Session(build(info), rng=SEED, **start)
    def run(n):
        for k in range(n): s.step(rows[k % len(rows)])
    run(10 * W); a = len(pickle.dumps(s.mech))
    run(50 * W); b = len(pickle.dumps(s.mech))
    assert b <= a * 1.02 + 64, (a, b)

def test_every_registered_mechanism_is_online():
    assert not OFFLINE, [i.name for i in OFFLINE]

@pytest.mark.parametrize("info", ONLINE, ids=lambda i: i.name)
def test_a_durable_session_reopens_by_replay_bit_for_bit(info, tmp_path):
    "Durable: a checkpoint, then a step record per timestamp; reopened, the records are replayed on the checkpoint (each release checked against its digest) and the stream goes on as if never closed."
    from wevent_nb.online import _release_digest
    _, start, rows = case(info.stream_kind, np.random.default_rng(2))
    mem = Session(build(info), rng=SEED, **start)
    want = [_release_digest(mem.step(x).release) for x in rows]
    s = Session(build(info), rng=SEED, state=tmp_path / "s.state", **start)
    got = [_release_digest(s.step(x).release) for x in rows[:11]]
    assert s.store.records_bytes > 0                      # steps 1..10 are records after the first step's checkpoint
    s.close()
    with Session.resume(tmp_path / "s.state", rng=SEED) as r:   # replays t = 1..10 (a seeded stream resumes with its seed)
        assert r.t == 11 and _release_digest(r.last.release) == want[10]
        got += [_release_digest(r.step(x).release) for x in rows[11:]]
    assert got == want
