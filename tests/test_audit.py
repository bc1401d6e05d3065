"Tests of the privacy auditor (wevent_nb.audit): Clopper-Pearson, power on broken variants, every shipped mechanism passes, bad input."
import numpy as np
import pytest
from scipy import stats

from wevent_nb.audit import (audit, cp_lower, cp_upper, loss_lower_bound, neighbour_pairs, user_pairs, changed_timestamps, Pair,
                             neighbours, numeric_pairs, personalized_pairs, event_pairs, SUPPORTED_KINDS,
                             ToyLocalMean, ToyLocalMeanHalfNoise, ToyPersonalized, ToyPersonalizedLargest, ToyEventLaplace, ToyEventLaplaceHalfNoise)
from wevent_nb.baselines import BD, BA, DSAT
from wevent_nb.core import HistogramStream, NumericPopulation, PersonalizedPopulation, ScalarStream, ToyUniform, ToyOverspend, list_mechanisms

from wevent_nb.baselines import BDHalfNoise, BAStaleLast

SUPPORTED = SUPPORTED_KINDS
SHIPPED_RUNS = 300          # runs per side for the shipped mechanisms: each audit well under 2 s
POWER_RUNS = 1000           # runs per side for the broken variants (measured: caught at seeds 1, 2, 3 with n_final=3)


@pytest.mark.parametrize("k,n,a", [(0, 10, 0.05), (3, 10, 0.025), (10, 10, 0.05), (57, 400, 0.01), (1, 1, 0.2)])
def test_clopper_pearson_matches_scipy_exact(k, n, a):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 2 * a, method="exact")
    assert cp_lower(k, n, a) == pytest.approx(ci.low, abs=1e-9)
    assert cp_upper(k, n, a) == pytest.approx(ci.high, abs=1e-9)


def test_clopper_pearson_coverage():
    p, n, a, reps = 0.2, 40, 0.05, 20_000
    k = np.random.default_rng(0).binomial(n, p, reps)
    se = np.sqrt(a * (1 - a) / reps)
    assert np.mean(cp_lower(k, n, a) <= p) >= 1 - a - 4 * se
    assert np.mean(cp_upper(k, n, a) >= p) >= 1 - a - 4 * se


def test_laplace_bound_below_eps_and_halved_noise_above():
    eps, n = 1.0, 200_000
    rng = np.random.default_rng(5)
    def bound(scale):
        k0 = (rng.laplace(0, scale, n) > 1).sum(); k1 = (1 + rng.laplace(0, scale, n) > 1).sum()
        return float(loss_lower_bound(k1, k0, n, n, 0.025))
    assert 0.9 * eps < bound(1 / eps) <= eps
    assert bound(0.5 / eps) > eps


def test_toy_overspend_caught_toy_uniform_passes():
    pairs = neighbour_pairs(4, 1, 2, kinds=("run",))
    assert audit(ToyUniform(1.0, 2), pairs, POWER_RUNS, rng=1).passed
    r = audit(ToyOverspend(1.0, 2), pairs, POWER_RUNS, rng=1)
    assert not r.passed and r.eps_lower_bound > 1.0


def test_ba_stale_last_caught_ba_passes():
    pairs = neighbour_pairs(12, 1, 6, kinds=("repeat",), level=0, height=100.0)
    assert audit(BA(1.0, 6), pairs, POWER_RUNS, rng=1).passed
    r = audit(BAStaleLast(1.0, 6), pairs, POWER_RUNS, rng=1)
    assert not r.passed, r


def test_bd_half_noise_caught_against_its_ledger_bd_passes():
    pairs = neighbour_pairs(8, 1, 8, kinds=("one",), level=100.0)[:1]
    ok = audit(BD(4.0, 8), pairs, POWER_RUNS, rng=1, claim="ledger")
    bad = audit(BDHalfNoise(4.0, 8), pairs, POWER_RUNS, rng=1, claim="ledger")
    assert ok.passed and ok.claimed == pytest.approx(4.0 / 16 + 4.0 / 4)     # BD books eps/(2w) + eps/4 at t=0
    assert not bad.passed, bad


@pytest.mark.parametrize("info", list_mechanisms(), ids=lambda i: i.name)
def test_every_shipped_mechanism_passes(info):
    if info.stream_kind not in SUPPORTED:
        pytest.skip(f"stream kind {info.stream_kind!r} is not supported by the auditor (supported: {SUPPORTED})")
    pairs = neighbour_pairs(6, 1, 3, kinds=("one", "run", "repeat")) if info.stream_kind == "histogram" else None   # 6 streams, not 11
    r = audit(info.cls(eps=1.0, w=3), pairs, n_runs=SHIPPED_RUNS, rng=0)
    assert r.passed, r.row()
    if info.name == "Constant": assert r.eps_lower_bound == 0


def test_bad_input_raises_clear_errors():
    m = ToyUniform(1.0, 2)
    for alpha in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"alpha=.* is not allowed: alpha must be in \(0, 1\)"): audit(m, alpha=alpha)
    with pytest.raises(ValueError, match="n_runs"): audit(m, n_runs=0)
    with pytest.raises(ValueError, match="claim='x' is not allowed"): audit(m, claim="x")
    with pytest.raises(ValueError, match="more than w=2"): audit(m, pairs=neighbour_pairs(6, 1, 3, kinds=("run",)))
    h = lambda a: HistogramStream(np.asarray(a, float)[:, None])
    with pytest.raises(ValueError, match="changes by L1 2"): audit(m, pairs=[Pair(h([1, 2]), h([1, 4]))])
    with pytest.raises(ValueError, match="identical"): changed_timestamps(h([1, 2]), h([1, 2]), 2)
    p = user_pairs(5, 4, 2, 2)[0]
    v = p.x1.values.copy(); v[1, 0] = 1 - v[1, 0]
    with pytest.raises(ValueError, match="users differ"): changed_timestamps(p.x0, type(p.x1)(v, 2), 2)


@pytest.mark.parametrize("broken,parent", [(ToyLocalMeanHalfNoise, ToyLocalMean), (ToyPersonalizedLargest, ToyPersonalized),
                                           (ToyEventLaplaceHalfNoise, ToyEventLaplace)], ids=lambda c: c.stream_kind)
def test_every_stream_kind_catches_its_broken_toy(broken, parent):
    assert audit(parent(1.0, 3), n_runs=POWER_RUNS, rng=1).passed
    r = audit(broken(1.0, 3), n_runs=POWER_RUNS, rng=1)
    assert not r.passed and r.eps_lower_bound > 1.0, r


def test_neighbours_of_the_new_kinds():
    x = np.full((3, 4), 0.5); y = x.copy(); y[2, 1:3] = 1.0
    assert neighbours(NumericPopulation(x), NumericPopulation(y), 2)[1] == 2
    with pytest.raises(ValueError, match="more than w=1"): neighbours(NumericPopulation(x), NumericPopulation(y), 1)
    with pytest.raises(ValueError, match="one domain"): neighbours(NumericPopulation(x), NumericPopulation(y, hi=2.0), 2)
    s0, s1 = ScalarStream(np.array([0.2, 0.5, 0.7]), 0, 1), ScalarStream(np.array([0.2, 1.0, 0.7]), 0, 1)
    t, acc = neighbours(s0, s1, 10)
    assert list(t) == [1] and acc == 1
    with pytest.raises(ValueError, match="2 timestamps differ"): neighbours(s0, ScalarStream(np.array([0.0, 1.0, 0.7]), 0, 1), 10)
    P = personalized_pairs(6, 5, 2, eps=[1.0, 2, 2, 2, 2, 2], w=[2, 5, 5, 5, 5, 5])
    assert [len(changed_timestamps(p.x0, p.x1, 1)) for p in P] == [1, 2]       # user 0's own w_0 = 2
    v = P[0].x1.values.copy(); v[1, 0] = 1 - v[1, 0]
    with pytest.raises(ValueError, match="users differ"): neighbours(P[0].x0, PersonalizedPopulation(v, 2, P[0].x0.eps, P[0].x0.w), 2)
    with pytest.raises(ValueError, match="same"): neighbours(P[0].x0, PersonalizedPopulation(P[0].x1.values, 2, P[0].x0.eps * 2, P[0].x0.w), 2)
    assert [neighbours(p.x0, p.x1, 3)[1] for p in event_pairs(8)] == [0, 4, 7, 0, 4, 7]
    assert all(p.x0.N == 1 for p in numeric_pairs(1, 4, 2))
