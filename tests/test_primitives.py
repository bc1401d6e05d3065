"""Tests of wevent_nb.primitives: Laplace, SVT, frequency oracles (GRR, OUE, OLH) and the exact aggregate samplers.

Statistical tests use fixed seeds and a tolerance of 5 standard errors of the estimate itself.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from wevent_nb.core import seed_from_key

from wevent_nb.primitives import (FO_NAMES, GRR, OLH, OUE, SVT, FrequencyOracle, OLHReports, adaptive_choice,
                                  fo_mean_variance, fo_probabilities, get_fo, grr_mean_variance, laplace_mechanism,
                                  laplace_scale, laplace_variance, olh_hash, olh_mean_variance, oue_mean_variance)

K = 5.0  # tolerance in standard errors


# ---------------------------------------------------------------- helpers
def mean_se(x):
    x = np.asarray(x, float)
    return x.mean(0), x.std(0, ddof=1) / np.sqrt(x.shape[0])


def var_se(x):
    x = np.asarray(x, float); R = x.shape[0]
    dev = x - x.mean(0)
    s2 = (dev ** 2).sum(0) / (R - 1); m4 = (dev ** 4).mean(0)
    return s2, np.sqrt(np.maximum(m4 - s2 ** 2 * (R - 3) / (R - 1), 0) / R)


def z_max(est, target, se):
    return float(np.max(np.abs(np.asarray(est) - np.asarray(target)) / np.maximum(se, 1e-300)))


def per_user_counts(fo, nk, R, seed):
    rng = np.random.default_rng(seed)
    vals = np.repeat(np.arange(fo.d), nk)
    return np.stack([fo.support_counts(fo.perturb(vals, rng)) for _ in range(R)])


def exact_moments(fo, nk):
    n = nk.sum()
    return nk * fo.p + (n - nk) * fo.q, nk * fo.p * (1 - fo.p) + (n - nk) * fo.q * (1 - fo.q)


def grr_cov(fo, nk):
    pi = np.full((fo.d, fo.d), fo.q) + np.eye(fo.d) * (fo.p - fo.q)
    return np.diag((nk[:, None] * pi).sum(0)) - np.einsum("k,ki,kj->ij", nk, pi, pi)


def cov_z(samples, cov):
    b = np.asarray(samples, float); R = b.shape[0]
    dev = b - b.mean(0); prod = dev[:, :, None] * dev[:, None, :]
    return z_max(prod.mean(0) * R / (R - 1), cov, prod.std(0) / np.sqrt(R))


# ---------------------------------------------------------------- Laplace
def test_laplace_scale_and_variance():
    assert laplace_scale(0.5) == 2.0 and laplace_scale(0.5, sensitivity=3) == 6.0
    assert laplace_variance(0.5, 3) == 72.0
    y = laplace_mechanism(np.zeros(200_000), eps=2.0, sensitivity=1.0, rng=0)
    v, sv = var_se(y)
    assert z_max(v, 2 * 0.5 ** 2, sv) < K
    m, sm = mean_se(np.abs(y))
    assert z_max(m, 0.5, sm) < K


def test_laplace_shape_rng_and_scalar():
    x = np.arange(12.0).reshape(3, 4)
    out = laplace_mechanism(x, 1.0, rng=3)
    assert out.shape == (3, 4) and not np.array_equal(out, x)
    np.testing.assert_array_equal(out, laplace_mechanism(x, 1.0, rng=3))
    assert isinstance(laplace_mechanism(2.0, 1.0, rng=1), float)


def test_laplace_dp_ratio_bounded():
    R, eps = 300_000, 1.0
    a, b = laplace_mechanism(np.zeros(R), eps, rng=1), laplace_mechanism(np.ones(R), eps, rng=2)
    bins = np.linspace(-5, 6, 45)
    ha, _ = np.histogram(a, bins); hb, _ = np.histogram(b, bins)
    ok = (ha > 400) & (hb > 400)
    pa, pb = ha[ok] / R, hb[ok] / R
    lr, se = np.abs(np.log(pa / pb)), np.sqrt((1 - pa) / (R * pa) + (1 - pb) / (R * pb))
    assert np.all(lr <= eps + K * se)
    assert lr.max() > 0.9 * eps  # the bound is tight for Laplace: the test could see a violation


@pytest.mark.parametrize("kw, msg", [
    (dict(x=[1.0], eps=0), "eps=0 is not allowed"),
    (dict(x=[1.0], eps=-1.0), "eps=-1.0"),
    (dict(x=[1.0], eps=float("nan")), "eps=nan"),
    (dict(x=[1.0], eps=1.0, sensitivity=0), "sensitivity=0"),
    (dict(x=[1.0, float("nan")], eps=1.0), "x must be finite"),
    (dict(x=[[1.0], [2.0, 3.0]], eps=1.0), "x"),
])
def test_laplace_bad_inputs(kw, msg):
    with pytest.raises(ValueError, match=None) as e:
        laplace_mechanism(**kw)
    assert msg in str(e.value)


# ---------------------------------------------------------------- SVT
def test_svt_scales_and_cost():
    s = SVT(0.25, 0.75, sensitivity=2.0, c=3)
    assert s.eps == 1.0 and s.threshold_scale == 8.0
    assert s.query_scale() == pytest.approx(2 * 3 * 2 / 0.75) and s.query_scale(c=1) == pytest.approx(2 * 2 / 0.75)
    assert SVT(0.25, 0.75, sensitivity=2.0, c=3, monotonic=True).query_scale() == pytest.approx(3 * 2 / 0.75)
    assert s.top_cost() == pytest.approx(0.25) and s.top_cost(c=5) == pytest.approx(0.15)
    assert s.cost(0) == 0.25 and s.cost(3) == pytest.approx(1.0) and s.cost(2) == pytest.approx(0.75)


def test_svt_basic_behaviour():
    s = SVT(1.0, 1.0, c=2)
    q = np.r_[np.full(3, -1e5), np.full(4, 1e5)]
    np.testing.assert_array_equal(s.run(q, 0.0, rng=0), [3, 4])      # stops after c = 2 tops
    assert s.run(np.full(5, -1e5), 0.0, rng=0).size == 0
    assert SVT(1, 1).above_threshold(q, 0.0, rng=1) == 3
    assert SVT(1, 1).above_threshold(np.full(4, -1e5), 0.0, rng=1) == -1
    assert s.run([], 0.0, rng=0).size == 0
    np.testing.assert_array_equal(s.run([0.1, 0.2, 5.0], 1.0, rng=9), s.run([0.1, 0.2, 5.0], 1.0, rng=9))
    assert isinstance(s.above(3.0, 1.0, rng=0), bool)
    assert s.above(np.zeros((4, 3)), np.zeros((4, 1)), rng=0).shape == (4, 3)
    assert s.noisy_threshold(1.0, rng=0, size=7).shape == (7,)


def _svt_exact(svt, q, T, n_grid=100_001):
    b1, bn = svt.threshold_scale, svt.query_scale()
    z = np.linspace(-50 * b1, 50 * b1, n_grid); w = np.exp(-np.abs(z) / b1) / (2 * b1) * (z[1] - z[0])
    cdf = lambda x: np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / bn), 1 - 0.5 * np.exp(-np.maximum(x, 0) / bn))
    out, alive = [], np.ones_like(z)
    for qi in q:
        below = cdf(T + z - qi); out.append(np.sum(w * alive * (1 - below))); alive = alive * below
    return np.array(out + [np.sum(w * alive)])


def test_svt_output_distribution_and_privacy():
    svt, q, q2, T = SVT(0.1, 0.9), (0.0, 0.0, 1.0), (1.0, 1.0, 0.0), 0.0
    P, P2 = _svt_exact(svt, q, T), _svt_exact(svt, q2, T)
    assert abs(P.sum() - 1) < 1e-6 and np.all(np.abs(np.log(P / P2)) <= svt.eps)
    R, rng = 15_000, np.random.default_rng(5)
    first = np.array([svt.above_threshold(q, T, rng) for _ in range(R)])
    emp = np.bincount(np.where(first < 0, 3, first), minlength=4) / R
    assert z_max(emp, P, np.sqrt(P * (1 - P) / R)) < K
    # the same queries declared monotonic (wrongly) lose the guarantee: the exact ratio exceeds e^eps
    bad = SVT(0.1, 0.9, monotonic=True)
    assert np.log(_svt_exact(bad, q, T) / _svt_exact(bad, q2, T)).max() > svt.eps


@pytest.mark.parametrize("f, msg", [
    (lambda: SVT(0, 1), "eps1=0"), (lambda: SVT(1, 0), "eps2=0"), (lambda: SVT(1, 1, sensitivity=-1), "sensitivity=-1"),
    (lambda: SVT(1, 1, c=0), "c=0"), (lambda: SVT(1, 1, c=1.5), "c=1.5"), (lambda: SVT(1, 1, monotonic=1), "monotonic"),
    (lambda: SVT(1, 1).run([[0.0, 1.0]], 0.0), "queries must have 1 dimension"),
    (lambda: SVT(1, 1).run([0.0, float("nan")], 0.0), "queries must be finite"),
    (lambda: SVT(1, 1).run([0.0], float("inf")), "threshold must be finite"),
    (lambda: SVT(1, 1).noisy_threshold([1.0, 2.0]), "threshold must have 0 dimension"),
    (lambda: SVT(1, 1).query_scale(c=0), "c=0"), (lambda: SVT(1, 1, c=2).cost(3), "n_top=3"),
])
def test_svt_bad_inputs(f, msg):
    with pytest.raises(ValueError) as e:
        f()
    assert msg in str(e.value)


# ---------------------------------------------------------------- FO probabilities and V(eps, n)
@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("d", [2, 3, 10, 100])
def test_fo_probabilities(eps, d):
    g, o, h = GRR(eps, d), OUE(eps, d), OLH(eps, d)
    assert g.p + (d - 1) * g.q == pytest.approx(1, abs=1e-12) and g.p / g.q == pytest.approx(math.exp(eps), rel=1e-12)
    assert o.p == 0.5 and o.p * (1 - o.q) / ((1 - o.p) * o.q) == pytest.approx(math.exp(eps), rel=1e-12)
    assert h.g == int(round(math.exp(eps))) + 1 and h.q == 1 / h.g
    assert h.p * (h.g - 1) / (1 - h.p) == pytest.approx(math.exp(eps), rel=1e-12)  # GRR over g buckets


def test_mean_variance_closed_forms_and_guards():
    e, n, d = 0.8, 500, 7
    ee = math.exp(e)
    assert grr_mean_variance(e, n, d) == pytest.approx((d - 2 + ee) / (n * (ee - 1) ** 2) + (d - 2) / (d * n * (ee - 1)), rel=1e-12)
    assert grr_mean_variance(e, n, d, paper_typo=True) == pytest.approx((d - 2 + ee) / (n * (ee - 1) ** 2) + (d - 2) / (n * (ee - 1)), rel=1e-12)
    assert oue_mean_variance(e, n, d) == pytest.approx(4 * ee / (n * (ee - 1) ** 2) + 1 / (d * n), rel=1e-12)
    for name in ("grr", "oue", "olh"):  # bin average of Eq. (4) for any f summing to 1
        fo = get_fo(name, e, d)
        for f in np.random.default_rng(1).dirichlet(np.ones(d), 5):
            assert fo.variance(n, f).mean() == pytest.approx(fo.mean_variance(n), rel=1e-12)
    assert olh_mean_variance(e, n, d) == pytest.approx(fo_mean_variance("olh", e, n, d))
    assert grr_mean_variance(e, 0, d) == math.inf and oue_mean_variance(e, -3, d) == math.inf
    assert grr_mean_variance(0.0, n, d) == math.inf and fo_mean_variance("adaptive", -1.0, n, d) == math.inf
    np.testing.assert_array_equal(GRR(1, 3).mean_variance([0, 10, -1])[[0, 2]], [np.inf, np.inf])
    v = fo_mean_variance("grr", np.array([0.5, 1.0]), np.array([[100], [200]]), 4)
    assert v.shape == (2, 2) and np.all(np.isfinite(v))


def test_grr_variance_matches_eq2():
    for eps in (0.1, 1.0, 4.0):
        for d in (2, 5, 40):
            f = np.random.default_rng(d).dirichlet(np.ones(d)); n = 321; ee = math.exp(eps)
            eq2 = (d - 2 + ee) / (n * (ee - 1) ** 2) + f * (d - 2) / (n * (ee - 1))
            np.testing.assert_allclose(GRR(eps, d).variance(n, f), eq2, rtol=1e-12)
            np.testing.assert_allclose(OUE(eps, d).variance(n, f), 4 * ee / (n * (ee - 1) ** 2) + f / n, rtol=1e-12)


def test_adaptive_rule():
    assert adaptive_choice(1.0, 10) == "grr" and adaptive_choice(1.0, 11) == "oue"
    assert isinstance(get_fo("adaptive", 1.0, 10), GRR) and isinstance(get_fo("Adaptive", 1.0, 11), OUE)
    assert fo_mean_variance("adaptive", 1.0, 100, 11) == oue_mean_variance(1.0, 100, 11)
    assert fo_mean_variance("adaptive", 1.0, 100, 10) == grr_mean_variance(1.0, 100, 10)
    assert set(FO_NAMES) == {"grr", "oue", "olh", "adaptive"}


# ---------------------------------------------------------------- per-user vs aggregate
GRR_CASES = [(1.0, [120, 30, 0, 50, 100]), (0.5, [70, 130]), (2.5, [0, 0, 9, 1, 0, 40, 0, 0, 3, 2])]


@pytest.mark.parametrize("method", ["uniform", "others"])
@pytest.mark.parametrize("eps, nk", GRR_CASES)
def test_grr_aggregate_matches_per_user(eps, nk, method):
    nk = np.array(nk); g = GRR(eps, len(nk)); R = 2500
    a = per_user_counts(g, nk, R, 10)
    b = g.sample_counts(np.tile(nk, (R, 1)), rng=11, method=method)
    (ma, sa), (mb, sb), (va, sva), (vb, svb) = mean_se(a), mean_se(b), var_se(a), var_se(b)
    mean, var = exact_moments(g, nk)
    assert z_max(ma - mb, 0, np.hypot(sa, sb)) < K and z_max(va - vb, 0, np.hypot(sva, svb)) < K
    assert z_max(mb, mean, sb) < K and z_max(vb, var, svb) < K and z_max(ma, mean, sa) < K
    assert np.all(a.sum(1) == nk.sum()) and np.all(b.sum(1) == nk.sum())


@pytest.mark.parametrize("method", ["uniform", "others"])
def test_grr_aggregate_covariance(method):
    g, nk, R = GRR(0.7, 4), np.array([300, 0, 100, 600]), 30_000
    assert cov_z(g.sample_counts(np.tile(nk, (R, 1)), rng=12, method=method), grr_cov(g, nk)) < K


def test_covariance_check_has_power():
    # a naive GRR sampler with independent per-bin binomials has the right means and variances but the wrong
    # covariances (and does not preserve n): the covariance check must reject it
    g, nk, R = GRR(0.7, 4), np.array([300, 0, 100, 600]), 30_000
    rng = np.random.default_rng(13)
    naive = rng.binomial(np.tile(nk, (R, 1)), g.p) + rng.binomial(np.tile(nk.sum() - nk, (R, 1)), g.q)
    assert cov_z(naive, grr_cov(g, nk)) > 3 * K


@pytest.mark.parametrize("eps, nk", [(1.0, [120, 30, 0, 50, 100]), (3.0, [70, 130]), (0.2, [5, 0, 0, 1, 50, 2])])
def test_oue_aggregate_matches_per_user(eps, nk):
    nk = np.array(nk); o = OUE(eps, len(nk)); R = 2500
    a = per_user_counts(o, nk, R, 20)
    b = o.sample_counts(np.tile(nk, (R, 1)), rng=21)
    (ma, sa), (mb, sb), (va, sva), (vb, svb) = mean_se(a), mean_se(b), var_se(a), var_se(b)
    mean, var = exact_moments(o, nk)
    assert z_max(ma - mb, 0, np.hypot(sa, sb)) < K and z_max(va - vb, 0, np.hypot(sva, svb)) < K
    assert z_max(mb, mean, sb) < K and z_max(vb, var, svb) < K and z_max(ma, mean, sa) < K
    assert cov_z(b, np.diag(var)) < K  # OUE bins are independent


def test_oue_perturb_blocks_do_not_change_distribution():
    o = OUE(1.0, 7); v = np.arange(7000) % 7
    a = o.perturb(v, rng=1, block_elems=64); b = o.perturb(v, rng=1)
    assert a.shape == b.shape == (7000, 7) and a.dtype == bool
    fa, fb = a.mean(0), b.mean(0); exp_ = (1 / 7) * o.p + (6 / 7) * o.q
    se = np.sqrt(exp_ * (1 - exp_) / 7000)
    assert z_max(fa, exp_, se) < K and z_max(fb, exp_, se) < K


# ---------------------------------------------------------------- unbiasedness and variance
@pytest.mark.parametrize("name", ["grr", "oue"])
@pytest.mark.parametrize("d", [2, 5, 20])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_unbiased_and_variance_formula(name, d, eps):
    rng = np.random.default_rng(seed_from_key("fo-unbiased", name, d, eps))
    fo = get_fo(name, eps, d)
    nk = rng.multinomial(400, rng.dirichlet(np.ones(d))); n = nk.sum(); R = 4000
    est = fo.estimate_from_counts(fo.sample_counts(np.tile(nk, (R, 1)), rng=rng), np.full(R, n))
    m, sm = mean_se(est); v, sv = var_se(est)
    assert z_max(m, nk / n, sm) < K
    assert z_max(v, fo.variance(n, nk / n), sv) < K
    assert z_max(v.mean(), fo.mean_variance(n), sv.mean()) < K


def test_olh_unbiased_and_variance_per_user():
    ol, nk, R = OLH(2.0, 5), np.array([100, 50, 0, 30, 20]), 1500
    est = ol.estimate_from_counts(per_user_counts(ol, nk, R, 30), nk.sum())
    m, sm = mean_se(est); v, sv = var_se(est)
    assert z_max(m, nk / nk.sum(), sm) < K and z_max(v, ol.variance(nk.sum(), nk / nk.sum()), sv) < K


def test_olh_hash_uniform_and_reports():
    h = olh_hash(np.arange(100_000, dtype=np.uint64), 3, 5)
    fr = np.bincount(h, minlength=5) / h.size
    assert z_max(fr, 0.2, np.sqrt(0.16 / h.size)) < K
    rep = OLH(1.0, 6).perturb([0, 1, 5], rng=0)
    assert isinstance(rep, OLHReports) and rep.seeds.dtype == np.uint64 and rep.y.max() < 4
    with pytest.raises(NotImplementedError, match="no exact aggregate sampler"):
        OLH(1.0, 6).sample_counts([1, 2, 3, 4, 5, 6])


def test_grr_estimates_sum_to_one():
    for s in range(10):
        g = GRR(0.2 + s * 0.3, 2 + s)
        assert g.estimate(g.perturb(np.arange(500) % g.d, rng=s)).sum() == pytest.approx(1.0, abs=1e-10)
        c = g.sample_counts(np.tile(np.arange(g.d) + 3, (4, 1)), rng=s)
        np.testing.assert_allclose(g.estimate_from_counts(c, c.sum(1)).sum(1), 1.0, atol=1e-10)


def test_estimate_from_counts_vectorised():
    g = GRR(1.0, 3)
    c = np.array([[10, 20, 30], [5, 5, 0]])
    e = g.estimate_from_counts(c, [60, 10])
    np.testing.assert_allclose(e[1], g.estimate_from_counts(c[1], 10))
    np.testing.assert_allclose(e[0], (c[0] / 60 - g.q) / (g.p - g.q))
    assert g.estimate_from_counts(c, 60).shape == (2, 3)


def test_reproducible():
    for fo in (GRR(1, 5), OUE(1, 5)):
        np.testing.assert_array_equal(fo.sample_counts([[1, 2, 3, 4, 5]] * 3, rng=7), fo.sample_counts([[1, 2, 3, 4, 5]] * 3, rng=7))
    r1, r2 = OLH(1, 5).perturb([1, 2, 3], rng=3), OLH(1, 5).perturb([1, 2, 3], rng=3)
    np.testing.assert_array_equal(r1.seeds, r2.seeds); np.testing.assert_array_equal(r1.y, r2.y)


# ---------------------------------------------------------------- bad inputs
g3, o3, l3 = GRR(1.0, 3), OUE(1.0, 3), OLH(1.0, 3)


@pytest.mark.parametrize("f, msg", [
    (lambda: GRR(0, 3), "eps=0 is not allowed"), (lambda: OUE(-1, 3), "eps=-1"), (lambda: OLH(float("nan"), 3), "eps=nan"),
    (lambda: GRR(1, 1), "d=1 is not allowed: d must be an integer >= 2"), (lambda: OUE(1, 2.5), "d=2.5"),
    (lambda: get_fo("rappor", 1, 3), "name='rappor'"), (lambda: get_fo("grr", 0, 3), "eps=0"), (lambda: get_fo("oue", 1, 0), "d=0"),
    (lambda: fo_mean_variance("sue", 1, 10, 3), "name='sue'"), (lambda: fo_probabilities("sue", 1, 3), "name='sue'"),
    (lambda: grr_mean_variance(float("nan"), 10, 3), "eps must be finite"), (lambda: grr_mean_variance(1, 10, 1), "d=1"),
    (lambda: g3.perturb([0, 1, 3]), "values must be integers in [0, 3)"),
    (lambda: g3.perturb([-1, 1]), "values must be integers in [0, 3)"),
    (lambda: o3.perturb([0.0, float("nan")]), "NaN"), (lambda: l3.perturb([0.5]), "non-integral"),
    (lambda: g3.perturb([[0, 1]]), "values must have 1 dimension"),
    (lambda: g3.support_counts([0, 5]), "reports must be integers in [0, 3)"),
    (lambda: o3.support_counts(np.ones((4, 2), bool)), "reports must have shape"),
    (lambda: o3.support_counts(np.full((4, 3), 2)), "bits"),
    (lambda: l3.support_counts(([1, 2], [0])), "same length"), (lambda: l3.support_counts([1, 2]), "OLHReports"),
    (lambda: g3.sample_counts([1, 2]), "true_counts must have d=3 columns"),
    (lambda: o3.sample_counts([1, -2, 3]), "counts >= 0"), (lambda: g3.sample_counts([1.5, 2, 3]), "integer"),
    (lambda: g3.sample_counts([1, float("nan"), 3]), "finite"), (lambda: g3.sample_counts(np.ones((2, 2, 3))), "dimension"),
    (lambda: g3.sample_counts([1, 2, 3], method="x"), "method='x'"),
    (lambda: g3.estimate_from_counts([1, 2, 3], 0), "n=0"), (lambda: g3.estimate_from_counts([1, 2], 3), "d=3 columns"),
    (lambda: g3.estimate_from_counts([[1, 2, 3]] * 2, [5, 6, 7]), "one entry per row"),
    (lambda: g3.estimate_from_counts([1, float("nan"), 3], 5), "finite"),
    (lambda: g3.variance(10, [0.5, 0.5]), "f must have d=3"), (lambda: g3.variance(10, [0.5, 1.5, 0]), "[0.0, 1.0]"),
])
def test_fo_bad_inputs(f, msg):
    with pytest.raises(ValueError) as e:
        f()
    assert msg in str(e.value), str(e.value)


# ---------------------------------------------------------------- properties
counts_2d = st.integers(2, 12).flatmap(lambda d: st.lists(st.lists(st.integers(0, 500), min_size=d, max_size=d), min_size=1, max_size=6))


@settings(max_examples=60, deadline=None)
@given(counts=counts_2d, eps=st.floats(0.01, 10), seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["uniform", "others"]))
def test_grr_sample_counts_preserves_n_and_shape(counts, eps, seed, method):
    nk = np.array(counts); g = GRR(eps, nk.shape[1])
    c = g.sample_counts(nk, rng=seed, method=method)
    assert c.shape == nk.shape and c.dtype.kind == "i" and c.min() >= 0
    np.testing.assert_array_equal(c.sum(1), nk.sum(1))
    c1 = g.sample_counts(nk[0], rng=seed, method=method)
    assert c1.shape == (nk.shape[1],) and c1.sum() == nk[0].sum()


@settings(max_examples=60, deadline=None)
@given(counts=counts_2d, eps=st.floats(0.01, 10), seed=st.integers(0, 2**32 - 1))
def test_oue_sample_counts_in_range(counts, eps, seed):
    nk = np.array(counts); o = OUE(eps, nk.shape[1])
    c = o.sample_counts(nk, rng=seed)
    assert c.shape == nk.shape and c.min() >= 0 and np.all(c <= nk.sum(1, keepdims=True))
    assert o.estimate_from_counts(c, np.maximum(nk.sum(1), 1)).shape == nk.shape


@settings(max_examples=60, deadline=None)
@given(d=st.integers(2, 50), eps=st.floats(0.01, 10), n=st.integers(1, 10**6), name=st.sampled_from(["grr", "oue", "olh"]))
def test_variance_uniform_f_equals_mean_variance(d, eps, n, name):
    fo = get_fo(name, eps, d)
    np.testing.assert_allclose(fo.variance(n, np.full(d, 1 / d)), fo.variance(n), rtol=1e-9)
    assert fo.variance(n).shape == (d,) and fo.mean_variance(n) > 0


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 9), min_size=1, max_size=200), eps=st.floats(0.05, 6), seed=st.integers(0, 2**32 - 1))
def test_per_user_report_shapes(values, eps, seed):
    v = np.array(values); n = v.size
    g, o, l = GRR(eps, 10), OUE(eps, 10), OLH(eps, 10)
    rg, ro, rl = g.perturb(v, seed), o.perturb(v, seed), l.perturb(v, seed)
    assert rg.shape == (n,) and rg.min() >= 0 and rg.max() < 10
    assert ro.shape == (n, 10) and ro.dtype == bool
    assert rl.seeds.shape == rl.y.shape == (n,) and rl.y.max() < l.g
    assert g.support_counts(rg).sum() == n
    for fo, r in ((g, rg), (o, ro), (l, rl)):
        assert fo.estimate(r).shape == (10,) and fo.n_reports(r) == n
    assert g.estimate(rg).sum() == pytest.approx(1.0, abs=1e-9)
