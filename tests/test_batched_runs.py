"Batched runs: `run_many(stream, n, rng)` gives, for every registered mechanism, the releases and books of n calls `run(stream, rng=g)` sharing one generator, and checks each run's windows."
import numpy as np
import pytest
from wevent_nb.core import HistogramStream, PrivacyBudgetExceeded, UnprovenConfiguration, get_mechanism
from wevent_nb.baselines import BD, DSAT, Uniform
from test_release_fingerprints import streams, shipped

N, SEED = 3, 11

def build(info, w=3): return get_mechanism(info.name) if info.stream_kind == "personalized" else get_mechanism(info.name, eps=1.0, w=w)

@pytest.mark.parametrize("info", shipped(), ids=lambda i: i.name)
def test_run_many_equals_single_runs(info):
    for sname, stream in streams(info.stream_kind).items():
        runs = build(info).run_many(stream, N, rng=SEED)
        assert runs.n == N
        g = np.random.default_rng(SEED)
        for r in range(N):
            rel = build(info).run(stream, rng=g)
            assert np.array_equal(runs.estimates[r], np.asarray(rel.estimates, float)), (sname, r)
            assert np.array_equal(runs.published[r], rel.published)
            assert np.allclose(runs.spent[r], rel.ledger.spent_per_timestamp(0), rtol=1e-12, atol=0)
            assert runs.standing[r] == pytest.approx(rel.ledger.standing_charge(0))

def test_run_many_checks_every_run():
    s = HistogramStream(np.repeat(np.r_[np.full(15, 1e6), np.tile([0.0, 1e6], 8)][:, None], 20, axis=1))
    class BDNoSplit(BD): pub_share = 1.0          # publications take the whole eps: windows overspend
    with pytest.raises(PrivacyBudgetExceeded, match="run 0"):
        BDNoSplit(1.0, 10, threshold="std").run_many(s, 2, rng=0)
    assert BDNoSplit(1.0, 10, threshold="std").run_many(s, 2, rng=0, check=False).window_spends(10).max() > 1.0
    class BDUnproven(BD):
        def unproven(self): return "a configuration no derivation covers (test)"
    with pytest.raises(UnprovenConfiguration):
        BDUnproven(1.0, 10).run_many(s, 1, rng=0)
    m = BDUnproven(1.0, 10); m.allow_unproven = True; m.run_many(s, 1, rng=0)

def test_standing_charge_and_booked():
    s = HistogramStream(np.random.default_rng(1).poisson(30, (40, 4)).astype(float))
    runs = DSAT(1.0, 8).run_many(s, 2, rng=3)
    g = np.random.default_rng(3); DSAT(1.0, 8).run(s, rng=g); rel = DSAT(1.0, 8).run(s, rng=g)
    assert runs.standing[1] == pytest.approx(rel.ledger.standing_charge(0)) and runs.standing[1] > 0
    ts = [10, 11, 12]
    assert runs.booked(ts)[1] == pytest.approx(rel.ledger.spent_per_timestamp(0)[ts].sum() + rel.ledger.standing_charge(0, 12))

@pytest.mark.parametrize("bad", [0, -1, 1.5, "x", True])
def test_bad_n(bad):
    with pytest.raises(ValueError, match="n="):
        Uniform(1.0, 3).run_many(HistogramStream(np.ones((5, 2))), bad)
