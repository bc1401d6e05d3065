"Tests of wevent_nb.metrics: test vectors, zero handling, validation, AUC vs brute force, properties."
import math
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra import numpy as hnp
from scipy.stats import mannwhitneyu
import wevent_nb.metrics as M

FIN = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
SET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

def pairs(min_size=1, max_size=30):
    "Two same-shape 1-D float arrays."
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(hnp.arrays(float, n, elements=FIN), hnp.arrays(float, n, elements=FIN)))

def brute_auc(s, y):
    s, y = np.asarray(s, float), np.asarray(y, bool)
    d = s[y][:, None] - s[~y][None, :]
    return float(np.mean((d > 0) + 0.5 * (d == 0)))

# ---------------------------------------------------------------- test vectors
def test_mae_mse_vectors():
    assert M.mae([1, 2, 3, 4], [1, 0, 5, 4]) == 1.0
    assert M.mse([[1, 2], [3, 4]], [[1, 0], [5, 4]]) == 2.0
    assert M.amre([[1, 2, 3], [0, 0, 0]], [[1, 0, 3], [0, 3, 0]]) == pytest.approx((4 / 3 + 3) / 2)

def test_generic_mre_zero_rules():
    r, c = [1.5, 0.5, 2.0], [1.0, 0.0, 4.0]
    assert M.mre(r, c) == pytest.approx(0.5)
    assert M.mre(r, c, delta=0.25) == pytest.approx(1.0)
    assert M.mre(r, c, zero="exclude") == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"zero at index \(1,\)"): M.mre(r, c, zero="raise")
    with pytest.raises(ValueError, match="zero everywhere"): M.mre(r, [0, 0, 0], zero="exclude")
    with pytest.raises(ValueError, match="zero must be one of"): M.mre(r, c, zero="skip")
    with pytest.raises(ValueError, match="delta"): M.mre(r, c, delta=-1)
    assert M.mre([2.0, 3.0], [1.0, 2.0], zero="raise") == pytest.approx((1 + 0.5) / 2)

def test_mre_ldp_ids_vector_and_zero():
    r = np.array([[0.5, 0.5], [0.05, 0.95]]); c = np.array([[0.4, 0.6], [0.0, 1.0]])
    want = (0.1 / 0.4 + 0.1 / 0.6 + 0.05 / 0.1 + 0.05 / 1.0) / 4
    assert M.mre_ldp_ids(r, c, N=10) == pytest.approx(want, rel=1e-12)
    assert M.mre_ldp_ids(r, c, delta=0.1) == pytest.approx(want, rel=1e-12)
    # all-zero truth: the denominator is delta = 1/N everywhere
    assert M.mre_ldp_ids([0.01, 0.0], [0.0, 0.0], N=100) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="needs the number of users N"): M.mre_ldp_ids(r, c)
    with pytest.raises(ValueError, match="not both"): M.mre_ldp_ids(r, c, N=10, delta=0.1)
    with pytest.raises(ValueError, match="N="): M.mre_ldp_ids(r, c, N=0)
    with pytest.raises(ValueError, match="true must be counts >= 0"): M.mre_ldp_ids(r, -c, N=10)

def test_mre_spas_vector_and_zero():
    assert M.mre_spas([3, 5, -1], [0, 4, -2]) == pytest.approx(1.25)
    assert M.mre_spas([2.0, 0.0], [0.0, 0.0]) == pytest.approx(1.0)  # zero truth: absolute error
    assert M.mre_spas([0.5], [0.25]) == pytest.approx(0.25)  # |H| < 1 divides by 1

def test_amre_is_zero_safe():
    assert M.amre([[0.3, 0.0]], [[0.0, 0.0]]) == pytest.approx(0.045)

@pytest.mark.parametrize("f,kw", [(M.mae, {}), (M.mse, {}), (M.amre, {}), (M.mre_spas, {}), (M.mre_ldp_ids, {"N": 5}),
                                  (M.mre, {"zero": "exclude"}), (M.mse_mean, {}), (M.ajsd, {}), (M.range_query_mre, {"rng": 0})])
def test_identical_inputs_give_zero(f, kw):
    x = np.array([[0.0, 3.0], [1.0, 2.0], [4.0, 0.5]])
    assert f(x, x, **kw) == pytest.approx(0.0, abs=1e-15)

def test_range_queries():
    H, Hh = np.array([1., 2, 3, 4, 5]), np.array([1., 2, 3, 4, 6])
    assert M.range_counts(H, [2.5, 5.5, 2.0], [5.5, 5.9, 4.0]).tolist() == [3, 0, 2]
    assert M.range_query_mre(Hh, H, queries=([2.5], [5.5])) == pytest.approx(1 / 3)
    # zero true count: divide by 1
    assert M.range_query_mre(np.array([5.7, 1, 1, 1, 1.]), H, queries=([5.5], [5.9])) == pytest.approx(1.0)
    g = np.random.default_rng(0)
    S = g.integers(0, 30, size=(100, 2)).astype(float)
    x, y = M.draw_range_queries(S, 200, rng=3)
    assert x.shape == (200, 2) and np.all(x < y) and np.all(x >= 0) and np.all(y <= S.max(0))
    brute = np.array([[np.sum((S[:, b] >= x[j, b]) & (S[:, b] < y[j, b])) for b in range(2)] for j in range(200)])
    assert np.array_equal(M.range_counts(S, x, y), brute)
    np.testing.assert_array_equal(M.draw_range_queries(S, 10, rng=9)[1], M.draw_range_queries(S, 10, rng=9)[1])
    # same queries shared -> same result; drawn from seed -> reproducible
    E = S + g.normal(0, 3, S.shape)
    assert M.range_query_mre(E, S, rng=4) == M.range_query_mre(E, S, queries=M.draw_range_queries(S, 1000, rng=4))
    with pytest.raises(ValueError, match="x must be < y"): M.range_counts(H, [3.0], [2.0])
    with pytest.raises(ValueError, match="positive maximum"): M.draw_range_queries(np.zeros(4))
    with pytest.raises(ValueError, match="n_queries"): M.draw_range_queries(H, 0)

def test_range_query_uniformity():
    # x and y are the min and max of two U(0, m): E[x] = m/3, E[y] = 2m/3, sd m*sqrt(1/18)
    S = np.array([0.0, 9.0])
    x, y = M.draw_range_queries(S, 20000, rng=11)
    se = 9 * math.sqrt(1 / 18) / math.sqrt(20000)
    assert abs(x.mean() - 3) < 5 * se and abs(y.mean() - 6) < 5 * se

def test_capp_metrics():
    assert M.mse_mean([[1.0, 1.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]) == pytest.approx(0.625)
    assert M.cosine_distance([1, 1], [1, 0]) == pytest.approx(1 - 1 / math.sqrt(2))
    assert M.cosine_distance([-1, 0], [1, 0]) == pytest.approx(2.0)
    assert M.cosine_similarity([2, 2], [1, 1]) == pytest.approx(1.0)
    assert math.isnan(M.cosine_distance([0, 0], [1, 0])) and math.isnan(M.cosine_distance([1, 0], [0, 0]))
    assert M.wasserstein_w1([0.2], [0.5]) == pytest.approx(0.3)
    assert M.wasserstein_grid([0.2], [0.5], K=10) == 3.0
    g = np.random.default_rng(1)
    a, b = g.beta(2, 5, 200), g.beta(3, 3, 300)
    assert M.wasserstein_grid(a, b, K=20000) / 20000 == pytest.approx(M.wasserstein_w1(a, b), abs=1e-3)
    with pytest.raises(ValueError, match="K="): M.wasserstein_grid(a, b, K=0)
    with pytest.raises(ValueError, match="est must have 1 dimension"): M.wasserstein_w1(np.ones((2, 2)), a)

def test_ajsd_vectors():
    assert M.ajsd([5, 0], [0, 1]) == pytest.approx(math.log(2))
    assert M.ajsd([-3, 2], [0, 7]) == pytest.approx(0.0)
    assert M.ajsd([[-1, -1]], [[1, 1]]) == pytest.approx(0.0)  # all-zero after clipping -> uniform
    assert M.ajsd([[1, 0], [1, 1]], [[0, 1], [1, 1]]) == pytest.approx(math.log(2) / 2)
    with pytest.raises(ValueError, match="true must be counts >= 0"): M.ajsd([1, 1], [-1, 1])

def test_cfpu_table2_lsp():
    N, T, w = 500, 886, 20
    n = np.zeros(T); n[::w] = N
    assert M.cfpu(n, N) == pytest.approx(45 / 886)
    assert M.cfpu_fullwin(n, N, w) == 0.05
    lbd = np.full(T, N, float); lbd[[3, 40, 100]] = 2 * N  # LBD/LBA: 2N reports at a publication
    assert M.cfpu(lbd, N) == pytest.approx(1 + 3 / T)
    with pytest.raises(ValueError, match="complete window"): M.cfpu_fullwin(n[:5], N, w)
    with pytest.raises(ValueError, match="w="): M.cfpu_fullwin(n, N, 0)
    with pytest.raises(ValueError, match="n_reports must be counts >= 0"): M.cfpu([1, -2], N)
    with pytest.raises(ValueError, match="n_reports must be finite"): M.cfpu([1, np.nan], N)
    with pytest.raises(ValueError, match="N="): M.cfpu(n, 0)

# ---------------------------------------------------------------- ROC / AUC
def test_roc_vector():
    fpr, tpr, thr = M.roc_curve([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0])
    assert fpr.tolist() == [0, 0, 0.5, 1] and tpr.tolist() == [0, 0.5, 1, 1]
    assert thr[0] == np.inf and thr[1:].tolist() == [0.9, 0.8, 0.3]
    assert M.roc_auc([0.9, 0.8, 0.8, 0.3], [1, 0, 1, 0]) == 0.875
    assert M.roc_auc([1, 1, 1, 1], [1, 0, 1, 0]) == 0.5
    assert M.auc([0, 1], [0, 1]) == 0.5

def test_auc_vs_brute_force_with_ties():
    g = np.random.default_rng(7)
    for _ in range(50):
        n = int(g.integers(2, 300))
        y = g.random(n) < 0.4; y[0], y[-1] = True, False
        s = g.integers(0, int(g.integers(1, 8)), n).astype(float)  # heavy ties
        a = M.roc_auc(s, y)
        assert a == pytest.approx(brute_auc(s, y), abs=1e-12)
        assert a == pytest.approx(mannwhitneyu(s[y], s[~y]).statistic / (y.sum() * (~y).sum()), abs=1e-12)

def test_roc_errors():
    with pytest.raises(ValueError, match="both classes"): M.roc_curve([1, 2, 3], [0, 0, 0])
    with pytest.raises(ValueError, match="0/1"): M.roc_curve([1, 2], [0, 2])
    with pytest.raises(ValueError, match="labels must have the same shape"): M.roc_curve([1, 2, 3], [0, 1])
    with pytest.raises(ValueError, match="scores must be finite"): M.roc_curve([np.nan, 1], [0, 1])
    with pytest.raises(ValueError, match="non-decreasing"): M.auc([0, 1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match="fpr.shape=.* and tpr.shape="): M.auc([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="at least 2 points"): M.auc([0], [0])

def test_event_monitoring():
    c = np.array([0.1, 0.2, 0.9, 0.5, 0.95, 0.3])
    assert M.event_labels(c).tolist() == [False, False, True, False, True, False]
    assert M.event_labels(c, frac=0.0).sum() == 5
    assert M.event_auc(c, c) == 1.0 and M.event_auc(-c, c) == 0.0
    np.testing.assert_allclose(M.mean_category_index([[0.5, 0.5], [0.0, 1.0], [1.0, 0.0]]), [1.5, 2.0, 1.0])
    with pytest.raises(ValueError, match="both classes"): M.event_auc(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="frac"): M.event_labels(c, frac=-0.1)

# ---------------------------------------------------------------- validation
ESTTRUE = [M.mae, M.mse, M.mre, M.mre_spas, M.amre, M.ajsd, M.mse_mean, M.cosine_distance, M.range_query_mre, M.event_auc]

@pytest.mark.parametrize("f", ESTTRUE)
def test_shape_mismatch_names_both(f):
    with pytest.raises(ValueError, match=r"est and true must have the same shape.*est\.shape=\(3,\).*true\.shape=\(4,\)"):
        f(np.ones(3), np.ones(4))

@pytest.mark.parametrize("f", ESTTRUE)
@pytest.mark.parametrize("which", ["est", "true"])
def test_nan_names_argument(f, which):
    good, bad = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, np.nan, 3.0, 4.0])
    args = (bad, good) if which == "est" else (good, bad)
    with pytest.raises(ValueError, match=f"{which} must be finite"): f(*args)

def test_empty_and_non_numeric():
    with pytest.raises(ValueError, match="must not be empty"): M.mae([], [])
    with pytest.raises(ValueError, match="est must be numeric"): M.mae(np.array(["a"]), [1.0])

def test_cross_method_summaries():
    assert M.delta_mre({"SPAS": 2.0, "Uniform": 5.0}) == {"SPAS": 1.0, "Uniform": 2.5}
    assert M.ratio_to({"Naive": 4.0, "BucOrder": 1.0}, "Naive") == {"Naive": 1.0, "BucOrder": 0.25}
    assert M.relative_reduction([0.2, 0.1], [0.1, 0.1]) == pytest.approx(0.25)
    assert M.relative_reduction([math.e**-2], [math.e**-3], log=True) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="reference='Naive'"): M.ratio_to({"a": 1.0}, "Naive")
    with pytest.raises(ValueError, match="must be > 0"): M.relative_reduction([0.0], [1.0])
    with pytest.raises(ValueError, match="at least one method"): M.delta_mre({})

def test_registry():
    assert set(M.METRICS) >= {"MAE", "MSE", "MRE_LDPIDS", "MRE_SPAS", "RANGE_MRE", "AMRE", "AJSD", "MSE_MEAN",
                              "COS_DIST", "COS_SIM", "W1", "W_GRID", "CFPU", "CFPU_FULLWIN", "AUC"}
    for k, m in M.METRICS.items():
        assert k == m.name == k.upper() and callable(m.fn) and m.paper and m.description
    assert M.get_metric("mae")([1, 2], [1, 0]) == 1.0
    assert M.get_metric("cos-dist") is M.METRICS["COS_DIST"]
    assert M.get_metric("MRE_LDPIDS").bind(N=10)([0.5], [0.4]) == pytest.approx(0.25)
    assert M.get_metric("AUC").lower_is_better is False and M.get_metric("MAE").lower_is_better is True
    with pytest.raises(KeyError, match="ambiguous"): M.get_metric("MRE")
    with pytest.raises(KeyError, match="no metric named"): M.get_metric("RMSE")
    assert [m.name for m in M.list_metrics("PBD/PBA")] == ["AMRE", "AJSD"]

# ---------------------------------------------------------------- statistical
def test_mse_is_variance_plus_bias_squared():
    g = np.random.default_rng(12)
    theta, b, sigma, R = 1.0, -0.2, 0.7, 20000
    est = theta + g.normal(b, sigma, R)
    m = M.mse(est, np.full(R, theta))
    assert m == pytest.approx(est.var() + (est.mean() - theta) ** 2, rel=1e-12)
    se = ((est - theta) ** 2).std(ddof=1) / math.sqrt(R)
    assert abs(m - (sigma**2 + b**2)) < 5 * se

def test_laplace_mae():
    # E|Lap(s)| = s (the Delay paper's Naive MAE = sensitivity/eps); sd of |Lap(s)| is s
    g = np.random.default_rng(13)
    s, n = 4.0, 40000
    x = g.uniform(0, 10, n)
    assert abs(M.mae(x + g.laplace(0, s, n), x) - s) < 5 * s / math.sqrt(n)

# ---------------------------------------------------------------- properties
@SET
@given(pairs())
def test_mae_properties(p):
    a, b = p
    m = M.mae(a, b)
    assert m >= 0 and m == pytest.approx(M.mae(b, a))
    assert M.mse(a, b) >= m**2 * (1 - 1e-9) - 1e-12  # Jensen
    assert M.mae(a + 7.0, b + 7.0) == pytest.approx(m, rel=1e-9, abs=1e-9)

@SET
@given(pairs(), st.floats(-100, 100).filter(lambda c: abs(c) > 1e-3))
def test_scale_equivariance(p, c):
    a, b = p
    assert M.mae(c * a, c * b) == pytest.approx(abs(c) * M.mae(a, b), rel=1e-9, abs=1e-9)
    assert M.mse(c * a, c * b) == pytest.approx(c * c * M.mse(a, b), rel=1e-9, abs=1e-9)
    if np.any(np.abs(b) > 1e-6):
        b = np.where(np.abs(b) > 1e-6, b, 0.0)
        assert M.mre(c * a, c * b, zero="exclude") == pytest.approx(M.mre(a, b, zero="exclude"), rel=1e-9)

@SET
@given(pairs())
def test_mre_bounds(p):
    a, b = p
    # den = max(|c|, 1) >= 1, so MRE_SPAS <= MAE; and the generic 'max' rule is decreasing in delta
    assert M.mre_spas(a, b) <= M.mae(a, b) + 1e-12
    assert M.mre(a, b, delta=2.0) <= M.mre(a, b, delta=1.0) + 1e-12

@SET
@given(st.integers(2, 60).flatmap(lambda n: st.tuples(
    hnp.arrays(float, n, elements=st.integers(-5, 5).map(float)), hnp.arrays(bool, n))))
def test_auc_properties(p):
    s, y = p
    if y.all() or not y.any(): y = y.copy(); y[0] = not y[0]
    a = M.roc_auc(s, y)
    assert 0.0 <= a <= 1.0
    assert a + M.roc_auc(-s, y) == pytest.approx(1.0, abs=1e-12)
    assert a == pytest.approx(brute_auc(s, y), abs=1e-12)
    assert M.roc_auc(3 * s + 1, y) == pytest.approx(a, abs=1e-12)  # invariant under increasing maps
    fpr, tpr, _ = M.roc_curve(s, y)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0) and fpr[-1] == tpr[-1] == 1.0

@SET
@given(pairs(min_size=2))
def test_cosine_properties(p):
    a, b = p
    d = M.cosine_distance(a, b)
    if np.linalg.norm(a) == 0 or np.linalg.norm(b) == 0: assert math.isnan(d); return
    assert -1e-12 <= d <= 2 + 1e-12 and d == pytest.approx(M.cosine_distance(b, a), abs=1e-12)
    assert M.cosine_distance(a * 3.0, b) == pytest.approx(d, abs=1e-9)

@SET
@given(st.integers(1, 8).flatmap(lambda d: st.tuples(
    hnp.arrays(float, (3, d), elements=FIN), hnp.arrays(float, (3, d), elements=st.floats(0, 1e3)))))
def test_ajsd_bounds(p):
    r, c = p
    j = M.ajsd(r, c)
    assert -1e-12 <= j <= math.log(2) + 1e-12
