"""Tests of the exact noise of wevent_nb.primitives: the discrete Laplace distribution, its exact sampler
(Canonne, Kamath & Steinke 2020), the ExactLaplace generator, and Mironov's attack on float noise.

Statistical tests use fixed seeds and tolerances from the estimator's own spread (5 standard errors, or a binomial
bound); every test can fail (the wrong scale, a broken formula, a lost class on unpickling, a missed draw).
"""
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from wevent_nb.core import Draw, HistogramStream, NoiseNotBooked, NoiseRecorder, ToyUniform, check_noise_ledger
from wevent_nb.primitives import (ExactLaplace, discrete_laplace, discrete_laplace_pmf, discrete_laplace_variance,
                                  laplace_mechanism)

K = 5.0  # tolerance in standard errors


def var_se(x):
    x = np.asarray(x, float); R = x.shape[0]
    dev = x - x.mean(0)
    s2 = (dev ** 2).sum(0) / (R - 1); m4 = (dev ** 4).mean(0)
    return s2, np.sqrt(np.maximum(m4 - s2 ** 2 * (R - 3) / (R - 1), 0) / R)


# ---------------------------------------------------------------- chi-square of draws against the pmf
def bins(N, b, min_expected=5.0):
    "Single integers |k| < K, the tails |k| >= K pooled; every bin expects >= min_expected of N draws."
    a, k = math.exp(-1 / b), 1
    while N * discrete_laplace_pmf(k, b) >= min_expected: k += 1
    while k > 1 and N * a ** k / (1 + a) < min_expected: k -= 1
    return k


def bin_probs(k, b):
    tail = math.exp(-k / b) / (1 + math.exp(-1 / b))          # Pr[K >= k] = a^k / (1 + a)
    return np.r_[tail, discrete_laplace_pmf(np.arange(-k + 1, k), b), tail]


def chi2_pvalue(x, b):
    k = bins(x.size, b)
    counts = np.bincount(np.clip(x, -k, k) + k, minlength=2 * k + 1)
    expected = x.size * bin_probs(k, b)
    return float(stats.chi2.sf(((counts - expected) ** 2 / expected).sum(), 2 * k))


def chi2_power(N, b, b_true, alpha=0.01):
    k = bins(N, b); p, q = bin_probs(k, b), bin_probs(k, b_true)
    return float(stats.ncx2.sf(stats.chi2.isf(alpha, 2 * k), 2 * k, N * ((q - p) ** 2 / p).sum()))


# ---------------------------------------------------------------- the distribution
@pytest.mark.parametrize("b", [0.2, 1.0, 2.5, 10.0, Fraction(7, 3)])
def test_pmf_sums_to_one_with_variance_and_tight_ratio(b):
    ks = np.arange(-3000, 3001); p = discrete_laplace_pmf(ks, b); bf = float(b)
    assert abs(p.sum() - 1) < 1e-12
    assert abs((ks.astype(float) ** 2 * p).sum() / discrete_laplace_variance(b) - 1) < 1e-10
    ok = (p[:-1] > 1e-300) & (p[1:] > 1e-300)
    np.testing.assert_allclose(np.abs(np.log(p[:-1][ok] / p[1:][ok])), 1 / bf, rtol=1e-9)   # exactly e^(1/b): eps = 1/b
    assert discrete_laplace_pmf(3, b) == discrete_laplace_pmf(-3, b)


def test_variance_formula_limits():
    assert discrete_laplace_variance(1.0) == pytest.approx(2 * math.e / (math.e - 1) ** 2, rel=1e-14)
    for b in (10.0, 100.0):
        assert discrete_laplace_variance(b) == pytest.approx(2 * b * b - 1 / 6, abs=1 / (50 * b * b))
    assert discrete_laplace_variance(1e-3) == 0.0 and discrete_laplace_pmf(0, 1e-3) == 1.0


@pytest.mark.parametrize("b, seed", [(1.0, 1), (10.0, 2), (Fraction(7, 3), 3), (0.3, 4)])
def test_distribution_right_scale_passes(b, seed):
    assert chi2_pvalue(discrete_laplace(b, 50_000, rng=seed), float(b)) > 0.01


@pytest.mark.parametrize("factor", [0.5, 0.9])
def test_distribution_wrong_scale_fails(factor):
    N, b = 50_000, 10.0
    assert chi2_power(N, b, factor * b) > 0.999                # the test has the power to see it ...
    assert chi2_pvalue(discrete_laplace(factor * b, N, rng=5), b) < 1e-6   # ... and does


@pytest.mark.parametrize("b, seed", [(0.3, 6), (1.0, 7), (4.0, 8), (50.0, 9)])
def test_variance_matches_monte_carlo(b, seed):
    x = discrete_laplace(b, 200_000, rng=seed)
    v, sv = var_se(x)
    assert abs(v - discrete_laplace_variance(b)) < K * sv
    assert abs(x.mean()) < K * x.std() / math.sqrt(x.size)


def test_seed_determinism_types_and_shapes():
    np.testing.assert_array_equal(discrete_laplace(3.0, (4, 5), rng=11), discrete_laplace(3.0, (4, 5), rng=11))
    assert not np.array_equal(discrete_laplace(3.0, 100, rng=11), discrete_laplace(3.0, 100, rng=12))
    x = discrete_laplace(3.0, (4, 5), rng=11)
    assert x.shape == (4, 5) and x.dtype == np.int64
    assert type(discrete_laplace(3.0, rng=11)) is int and discrete_laplace(3.0, 0, rng=1).shape == (0,)
    g = np.random.default_rng(13)
    assert [discrete_laplace(3.0, rng=g) for _ in range(3)] != [discrete_laplace(3.0, rng=g) for _ in range(3)]   # the rng advances


@pytest.mark.parametrize("bad", [0, 0.0, -1.0, float("nan"), float("inf"), -float("inf"), True, np.True_, "1", None, 2.0 ** 60])
def test_bad_scale_is_refused(bad):
    for f in (lambda: discrete_laplace(bad), lambda: discrete_laplace_pmf(0, bad), lambda: discrete_laplace_variance(bad),
              lambda: ExactLaplace(0).laplace(0.0, bad)):
        with pytest.raises(ValueError, match=r"is not allowed: scale must be a finite real number > 0"):
            f()


def test_bad_size_and_k_are_refused():
    with pytest.raises(ValueError, match="size=-1"): discrete_laplace(1.0, -1)
    with pytest.raises(ValueError, match="k must hold integers"): discrete_laplace_pmf([0.5], 1.0)


# ---------------------------------------------------------------- ExactLaplace
@pytest.mark.parametrize("size, shape", [(None, ()), (1, (1,)), (7, (7,)), ((2, 3), (2, 3)), ((2, 0), (2, 0))])
def test_exact_laplace_shapes_and_integer_values(size, shape):
    g, ref = ExactLaplace(1), np.random.default_rng(1)
    y, y_ref = g.laplace(5.0, 2.5, size), ref.laplace(5.0, 2.5, size)
    assert type(y) is type(y_ref) and np.shape(y) == np.shape(y_ref) == shape   # numpy's types and shapes
    y = np.asarray(y)
    assert y.dtype == np.float64 and np.all(y == np.round(y))


def test_exact_laplace_broadcasts_loc_and_array_scale():
    g = ExactLaplace(2)
    y = g.laplace(np.zeros((2, 3)), np.array([[1.0], [1000.0]]))
    assert y.shape == (2, 3) and np.all(y == np.round(y))
    big = ExactLaplace(3).laplace(0.0, np.r_[np.full(500, 0.5), np.full(500, 50.0)])
    assert np.abs(big[:500]).mean() < 1 < 10 < np.abs(big[500:]).mean()
    assert g.laplace(np.arange(3.0), 1.0).shape == (3,) and g.laplace([1.0, 2.0], 3.0, size=(4, 2)).shape == (4, 2)
    assert float(g.laplace(0.5, 3.0)) % 1 == 0.5


def test_exact_laplace_shares_the_bit_generator():
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    e = ExactLaplace(a)
    assert e.bit_generator is a.bit_generator and isinstance(e, np.random.Generator)
    np.testing.assert_array_equal(e.laplace(0.0, 4.0, 6), discrete_laplace(4.0, 6, b))
    np.testing.assert_array_equal(a.integers(0, 10 ** 9, 3), b.integers(0, 10 ** 9, 3))   # the wrapped generator moved on too
    np.testing.assert_array_equal(ExactLaplace(9).normal(size=3), np.random.default_rng(9).normal(size=3))
    assert all(type(c) is ExactLaplace for c in e.spawn(2)) and type(ExactLaplace(e)) is ExactLaplace


def test_pickle_round_trip_keeps_class_and_state():
    g = ExactLaplace(21); g.laplace(0.0, 3.0, 10)
    assert type(pickle.loads(pickle.dumps(np.random.default_rng(0)))) is np.random.Generator   # numpy's default reduce
    h = pickle.loads(pickle.dumps(g))
    assert type(h) is ExactLaplace and h.bit_generator.state == g.bit_generator.state
    np.testing.assert_array_equal(h.laplace(0.0, 7.0, 20), g.laplace(0.0, 7.0, 20))
    np.testing.assert_array_equal(h.random(3), g.random(3))


def test_noise_recorder_logs_exact_draws_with_caller_and_scale():
    rec = NoiseRecorder(0); rec.t = 4
    ex = ExactLaplace(rec)

    def release_step(): return ex.laplace(0.0, 2.5, 3)
    release_step()
    rec.t = 5; ex.laplace(1.0, np.array([3.0, 0.5]))
    assert rec.draws == [Draw(4, 2.5, 3, "release_step"), Draw(5, 0.5, 2, "test_noise_recorder_logs_exact_draws_with_caller_and_scale")]
    assert ExactLaplace(0).recorder is None and pickle.loads(pickle.dumps(ex)).recorder is None


def test_recorder_subclass_methods_stay_in_force():
    class LoggingRecorder(NoiseRecorder):
        def __init__(self, seed=None): super().__init__(seed); self.binomials = []
        def binomial(self, n, p, size=None): self.binomials.append((n, p)); return super().binomial(n, p, size)
    lr = LoggingRecorder(1)
    ExactLaplace(lr).binomial(10, 0.5)
    assert lr.binomials == [(10, 0.5)]


class _ExactToy(ToyUniform):
    name = "ExactToy"
    def start(self, T, d, rng=None):
        super().start(T, d, rng); self._rng = ExactLaplace(self._rng); return self


class _ExactToyHalfNoise(_ExactToy):
    name = "ExactToyHalfNoise"
    def step(self, x):
        e = self.eps / self.w
        self._est[self._t] = np.asarray(x, float) + self._rng.laplace(0.0, 0.5 / e, size=self._d)
        self.books.spend(self._t, e); self._t += 1
        return self._est[self._t - 1], True


def test_noise_ledger_tie_sees_exact_draws():
    s = HistogramStream(np.tile([[50.0, 20.0, 5.0]], (30, 1)))
    out = check_noise_ledger(_ExactToy(eps=1.0, w=10), s, seed=1)
    assert out["draws"] == 30 and np.allclose(out["implied"], 0.1, rtol=1e-12)
    est = out["release"].estimates
    assert np.all(est == np.round(est)) and np.any(est != s.counts)
    with pytest.raises(NoiseNotBooked, match="ExactToyHalfNoise"):
        check_noise_ledger(_ExactToyHalfNoise(eps=1.0, w=10), s, seed=1)


def test_compiled_steps_draw_exact_noise_through_their_port():
    "A compiled step draws in compiled code (numpy's continuous sampler) only from a plain Generator: from an ExactLaplace it draws through its port."
    from wevent_nb.baselines import BD
    X = np.random.default_rng(0).poisson(30, (40, 3)).astype(float)
    rel = BD(1.0, 5).run(HistogramStream(X), rng=ExactLaplace(2))
    assert np.all(rel.estimates == np.round(rel.estimates)) and rel.published.any()
    np.testing.assert_array_equal(laplace_mechanism(np.arange(5.0), 0.5, rng=ExactLaplace(1)) % 1, np.zeros(5))


# ---------------------------------------------------------------- Mironov's attack
TWO53 = 2.0 ** 53


def numpy_laplace_at(k, loc, b):
    "numpy's Generator.laplace(loc, b) for the 53-bit uniform U = k/2^53."
    U = k / TWO53
    return loc + b * math.log(U + U) if U < 0.5 else loc - b * math.log(2.0 - U - U)


def float_can_output(y, x, b, window=3):
    d = y - x
    for u in (math.exp(min(d, 0.0) / b) / 2, 1 - math.exp(-max(d, 0.0) / b) / 2):
        k0 = round(u * TWO53)
        if any(1 <= k < 2 ** 53 and numpy_laplace_at(k, x, b) == y for k in range(k0 - window, k0 + window + 1)): return True
    return False


def exact_can_output(y, x, b):
    return float(y - x).is_integer()


def mironov_attack(gen, can_output, b, trials, seed):
    r = np.random.default_rng(seed)
    xs = r.integers(0, 2, trials)
    ys = gen.laplace(xs.astype(float), b)
    ok = np.array([[can_output(y, 0.0, b), can_output(y, 1.0, b)] for y in ys.tolist()])
    assert ok[np.arange(trials), xs].all()                     # the true secret is always consistent
    decided = ok[:, 0] != ok[:, 1]
    guess = np.where(decided, ok[:, 1], r.integers(0, 2, trials))
    return float((guess == xs).mean()), float(decided.mean())


def test_attacker_models_numpy_exactly():
    r1, r2 = np.random.default_rng(11), np.random.default_rng(11)
    ks = (r2.bit_generator.random_raw(600) >> np.uint64(11)).astype(np.int64); ks = ks[ks > 0][:500]
    np.testing.assert_array_equal(r1.laplace(1.0, 10.0, 500), [numpy_laplace_at(int(k), 1.0, 10.0) for k in ks])


@pytest.mark.parametrize("b", [1.0, 100.0])
def test_mironov_attack_breaks_float_noise(b):
    acc, decided = mironov_attack(np.random.default_rng(20), float_can_output, b, 3000, seed=21)
    assert decided > 0.7 and acc > 0.85                         # measured: about 0.81 decided, accuracy 0.90


@pytest.mark.parametrize("b", [1.0, 100.0])
def test_mironov_attack_has_no_signal_on_exact_noise(b):
    n = 3000
    acc, decided = mironov_attack(ExactLaplace(20), exact_can_output, b, n, seed=21)
    assert decided == 0 and abs(acc - 0.5) < 4 * math.sqrt(0.25 / n)
