"""Delay-allowed release (paper 004, nbs/14_delay.ipynb): ledgers, the ledger against the noise drawn, noise scales,
partitions, post-processing, truncation, formulas and bad input."""
import math
import numpy as np
import pytest
from scipy import stats
from wevent_nb.core import UnprovenConfiguration, ScalarStream, NoiseRecorder, NoiseNotBooked, list_mechanisms, get_mechanism
from wevent_nb import delay as D
from wevent_nb.ledger import allot

METHODS = [i.name for i in list_mechanisms(paper="paper 004")]
TRUNCATING = {"Naive", "Contin_reduce", "Contin_pp", "PeGaSus_Delay", "Discontin_reduce", "Discontin_pp", "BucOrder", "CompOrder"}
SHARE = {"Constant-mid": 0.0, "AdaPub-event": 0.8}      # what these spend per event, as a share of eps (others: all of it)


def stream(T, seed=0, hi=100.0):
    return ScalarStream(np.random.default_rng(seed).integers(0, int(hi) + 1, T).astype(float), 0.0, hi)


def settings(name):
    yield {}
    if name in TRUNCATING: yield {"truncation": True}
    if name == "CompOrder": yield {"rule": "artifact"}
    if name.startswith("Discontin"): yield {"threshold": "per_test"}


class ZeroNoise(np.random.Generator):
    "Laplace draws are 0 and uniforms are 0 (GRR keeps): a method's noise-free limit."
    def __init__(self): super().__init__(np.random.PCG64(0))
    def laplace(self, loc=0.0, scale=1.0, size=None):
        return np.zeros(np.broadcast_shapes(np.shape(scale), () if size is None else np.atleast_1d(size))) + loc
    def random(self, size=None, dtype=np.float64, out=None): return np.zeros(() if size is None else size)


def test_registry_holds_the_papers_methods():
    assert set(METHODS) == {"Naive", "PeGaSus-event", "PeGaSus_Delay", "Contin_reduce", "Contin_pp", "Discontin_reduce",
                            "Discontin_pp", "CompOrder", "BucOrder", "AdaPub-event", "Constant-mid"}
    assert all(i.stream_kind == "scalar" for i in list_mechanisms(paper="paper 004"))


@pytest.mark.parametrize("name", METHODS)
def test_ledger_every_event_spends_its_share(name):
    for T, w in ((57, 1), (57, 5), (103, 10), (40, 40)):
        s = stream(T, T + w)
        for kw in settings(name):
            if kw.get("rule") == "artifact" and w == 1: continue
            r = get_mechanism(name, eps=0.7, w=w, **kw).run(s, rng=1).check()
            tot = r.ledger.max_window_spend()
            assert np.allclose(tot, 0.7 * SHARE.get(name, 1.0)), (name, kw, T, w)
            assert r.estimates.shape == (T,) and np.all(np.isfinite(r.estimates))
            assert np.all(r.info["release_time"] >= np.arange(T)) and np.all(r.info["delay"] <= w)


@pytest.mark.parametrize("name", METHODS)
def test_ledger_covers_the_noise_drawn(name):
    for seed, (T, w) in enumerate(((57, 1), (57, 5), (64, 10), (30, 30))):
        s = stream(T, 10 + seed)
        for kw in settings(name):
            if kw.get("rule") == "artifact" and w == 1: continue
            out = D.check_delay_noise(get_mechanism(name, eps=0.9, w=w, **kw), s, seed=seed)
            assert out["draws"] > 0 or name == "Constant-mid"


@pytest.mark.parametrize("bad", [lambda: D.DiscontinHalfNoise(0.7, 5), lambda: D.CompOrderHalfQuery(0.7, 5),
                                 lambda: D.ContinReduce(0.7, 5, dev_sens_factor=1, allow_unproven=True)], ids=["DiscontinHalfNoise", "CompOrderHalfQuery", "Contin-paper-calibration"])
def test_broken_variants_pass_the_books_and_are_caught(bad):
    s = stream(57, 3)
    assert bad().run(s, rng=3, check=False).ledger.ok()
    with pytest.raises(NoiseNotBooked):
        D.check_delay_noise(bad(), s, seed=3)


def _scales(mech, s, seed=0):
    rec = NoiseRecorder(seed)
    mech.start(s.T, 1, rec, lo=s.lo, hi=s.hi)
    for t in range(s.T): rec.t = t; mech.step(s.values[t])
    mech.finish()
    out = {}
    for d in rec.draws: out.setdefault(d.site, set()).add(round(d.scale, 9))
    return out, rec.draws


def test_noise_scales_are_as_specified():
    s, w, eps, Dl = stream(60, 4), 6, 1.0, 100.0
    sc, _ = _scales(D.ContinReduce(eps, w), s)                 # Alg. 6, strict: threshold 2*2D/eps_g, query 4*2D/eps_g
    eg, ep = allot(0.2 * eps), allot(0.8 * eps)                # the shares, allotted (00c_ledger, Books in exact units)
    assert sc["_svt_threshold_noise"] == {round(4 * Dl / eg, 9)} and sc["_svt_query_noise"] == {round(8 * Dl / eg, 9)}
    assert sc["_release_noise"] == {round(Dl / ep, 9)}
    sc, _ = _scales(D.DiscontinPP(eps, w), s)                  # Alg. 2: 2(2w-1)D/eps_g and 4(2w-1)D/eps_g
    assert sc["_svt_threshold_noise"] == {round(2 * (2 * w - 1) * Dl / eg, 9)} and sc["_svt_query_noise"] == {round(4 * (2 * w - 1) * Dl / eg, 9)}
    sc, draws = _scales(D.CompOrder(eps, w), s)                # Alg. 3: rho 4D/eps_g once; queries 8wD/eps_g
    eg, ep = allot(0.25 * eps), allot(0.75 * eps)
    assert sc["_svt_threshold_noise"] == {round(4 * Dl / eg, 9)} and sc["_svt_query_noise"] == {round(8 * w * Dl / eg, 9)}
    assert sum(d.size for d in draws if d.site == "_svt_threshold_noise") == 1
    assert sum(d.size for d in draws if d.site == "_svt_query_noise") == sum(min(t, w) for t in range(s.T))   # w predecessors each
    sc, _ = _scales(D.Naive(eps, w, truncation=True), s)       # RNM 1/eps_s with eps_s = eps_p / 2
    assert sc["_rnm_noise"] == {round(1 / allot(eps / 2), 9)}
    sc, _ = _scales(D.BucOrder(eps, w, m=10), s)
    assert sc["_release_noise"] == {round(Dl / ep, 9)}


@pytest.mark.parametrize("name", METHODS)
def test_step_wise_equals_run_without_noise_and_seeds_repeat(name):
    s = stream(57, 5)
    for kw in settings(name):
        a = get_mechanism(name, eps=0.7, w=5, **kw).run(s, rng=ZeroNoise()).estimates
        m = get_mechanism(name, eps=0.7, w=5, **kw).start(s.T, 1, ZeroNoise(), lo=s.lo, hi=s.hi)
        got = np.full(s.T, np.nan)
        for x in s.values:
            ts, v = m.step(x); got[ts] = v
        np.testing.assert_array_equal(got, a)
        np.testing.assert_array_equal(get_mechanism(name, eps=0.7, w=5, **kw).run(s, rng=9).estimates,
                                      get_mechanism(name, eps=0.7, w=5, **kw).run(s, rng=9).estimates)


def test_noise_free_limits():
    s = stream(80, 6)
    np.testing.assert_array_equal(D.Naive(1.0, 10).run(s, rng=ZeroNoise()).estimates, s.values)
    r = D.BucOrder(1.0, 10, m=10).run(s, rng=ZeroNoise())        # buckets are the true ones
    np.testing.assert_array_equal(r.info["bucket"], D.bucket_of(s.values, 10, 10))
    y = s.values
    g = D.comporder_bits(y, np.zeros((80, 10), bool), 1.0, 10, np.full(80, 100.0), ZeroNoise(), np.zeros(80), 0, 80)
    i, t, k = D.comporder_pairs(80, 10, 0, 80)
    np.testing.assert_array_equal(g[i, k], y[i] > y[t])
    # group releases are the group means
    Y = y.reshape(8, 10); lab = D.discontinuous_grouping(Y, np.ones(Y.shape, bool), 1.0, 40.0, 100.0, 10, ZeroNoise())
    out = D.release_groups(Y, lab, 1.0, 100.0, ZeroNoise(), "reduce")
    for b in range(8):
        for j in np.unique(lab[b]): assert np.allclose(out[b][lab[b] == j], Y[b][lab[b] == j].mean())


def test_partitions():
    g = np.random.default_rng(7)
    Y = g.uniform(0, 100, (200, 12)); mask = np.ones(Y.shape, bool); mask[-1, 7:] = False
    for lab in (D.continuous_grouping(Y, mask, 0.5, 3.0, 100.0, g), D.discontinuous_grouping(Y, mask, 0.5, 3.0, 100.0, 12, g)):
        assert np.all((lab >= 0) == mask)
        for row in lab:
            ids = row[row >= 0]
            assert set(ids) == set(range(ids.max() + 1))           # ids 0..n_g-1, non-empty groups
            assert ids.max() + 1 <= 12
    lab = D.continuous_grouping(Y, mask, 0.5, 3.0, 100.0, g)
    assert np.all(np.diff(np.where(mask, lab, lab.max() + 1), axis=1) >= 0)   # contiguous: ids never decrease in a batch


def test_bucorder_range_and_grr():
    g = np.random.default_rng(8)
    Y = g.uniform(0, 1000, (300, 10)); out, lab = D.bucorder_release(Y, np.ones(Y.shape, bool), 100.0, 10, 1000.0, 0.5, 2.0, 1000.0, g)
    assert np.all((out >= lab * 100.0) & (out <= (lab + 1) * 100.0))
    n, nb, eg = 100_000, 9, 0.7
    b = D.grr_buckets(np.full(n, 4), nb, eg, np.random.default_rng(9))
    p = math.exp(eg) / (math.exp(eg) + nb - 1)
    assert abs(np.mean(b == 4) - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert stats.chisquare(np.bincount(b[b != 4], minlength=nb)[np.arange(nb) != 4]).pvalue > 1e-3
    assert D.bucket_of([1000.0], 100.0, 10)[0] == 9                  # the domain's top value is in the last bucket


def test_comporder_postprocess_interval():
    g = np.random.default_rng(10)
    T, w = 80, 6
    greater = g.random((T, w)) < 0.5; xhat = g.normal(0, 10, T)
    xt = D.comporder_postprocess(xhat, greater, np.zeros(T), w, 0, T)
    for t in range(T):
        js = range(max(0, t - w), t)
        hi = [xt[j] for j in js if greater[j, t - j - 1]]; lo = [xt[j] for j in js if not greater[j, t - j - 1]]
        if not hi or not lo: assert xt[t] == xhat[t]
        elif max(lo) <= min(hi): assert max(lo) <= xt[t] <= min(hi)
        else: assert xt[t] == 0.5 * (max(lo) + min(hi))
    # block-wise processing gives the same result as one pass
    xb = np.zeros(T)
    for lo_t in range(0, T, w): D.comporder_postprocess(xhat, greater, xb, w, lo_t, min(lo_t + w, T))
    np.testing.assert_array_equal(xb, xt)


def test_truncation_quality_and_selection():
    g = np.random.default_rng(11)
    S = g.integers(0, 500, (4, 30)).astype(float); taus = D.tau_candidates(500.0, 5.0)
    Q = D.truncation_quality(S, taus, 0.3, 500.0)
    for r in range(4):
        for j in (0, 17, len(taus) - 1):
            tau = taus[j]; direct = (math.sqrt(2) * 30 * (500 - tau) / 0.3 - sum(v - tau for v in S[r] if v > tau)) / (30 * 500)
            assert abs(Q[r, j] - direct) < 1e-9
    assert np.all(np.diff(Q, axis=1) < 0)                                  # eps_p < sqrt(2): decreasing
    picks = D.select_tau(S, taus, 0.3, 0.15, 500.0, g)
    assert np.all(np.isin(picks, taus))


def test_release_groups_unbiased_with_the_right_variance():
    n, eps_p, sens = 20_000, 0.8, 10.0
    y = np.arange(6.0); lab = np.array([[0, 0, 0, 1, 1, 2]])
    size = np.bincount(lab[0])[lab[0]]; mean = (np.bincount(lab[0], y) / np.bincount(lab[0]))[lab[0]]
    for mode, var in (("reduce", 2 * sens ** 2 / (eps_p ** 2 * size ** 2)), ("pp", 2 * sens ** 2 / (eps_p ** 2 * size))):
        out = D.release_groups(np.repeat(y[None], n, 0), np.repeat(lab, n, 0), eps_p, sens, np.random.default_rng(12), mode)
        assert np.all(np.abs(out.mean(0) - mean) < 5 * np.sqrt(var / n))
        assert np.all(np.abs(out.var(0) / var - 1) < 5 * np.sqrt(5 / n))


def test_naive_mae_is_delta_over_eps():
    big = ScalarStream(np.full(100_000, 30.0), 0.0, 100.0)
    err = np.abs(D.Naive(0.5, 10).run(big, rng=13).estimates - 30.0)
    assert abs(err.mean() - 200.0) < 5 * err.std() / np.sqrt(err.size)


def test_discontinuous_grouping_gains_with_the_delay():
    s = stream(600, 14, hi=600.0)
    mae = {w: np.mean([np.abs(D.DiscontinReduce(0.5, w).run(s, rng=r).estimates - s.values).mean() for r in range(6)]) for w in (10, 100)}
    assert mae[100] < 0.6 * mae[10]


def test_table_one_and_dev():
    n = [2, 20, 40, 60, 80, 100]
    assert np.round(D.improvement_threshold(n, 0.4), 2).tolist() == [1.96, 3.59, 4.50, 5.16, 5.69, 6.14]
    assert np.round(D.improvement_threshold(n, 1.0), 2).tolist() == [0.78, 1.43, 1.80, 2.06, 2.28, 2.46]
    assert D.dev([0.0, 0, 6]) == 8.0 and D.dev([5.0]) == 0.0


def test_bad_input():
    s = stream(30, 15)
    with pytest.raises(ValueError, match="domain"): ScalarStream(np.array([1.0, 120.0]), 0.0, 100.0)
    with pytest.raises(ValueError, match="eps=0"): D.Naive(0, 5)
    with pytest.raises(ValueError, match="eps=-0.5"): D.CompOrder(-0.5, 5)
    with pytest.raises(ValueError, match="w=0"): D.BucOrder(1.0, 0)
    assert D.DiscontinPP(1.0, 31).run(s).T == s.T      # w > T is accepted (one rule across families)
    with pytest.raises(ValueError, match="rule='x'"): D.CompOrder(1.0, 5, rule="x")
    with pytest.raises(ValueError, match="m=0"): D.BucOrder(1.0, 5, m=0)
    with pytest.raises(ValueError, match="theta"): D.ContinPP(1.0, 5, theta=float("nan"))
    with pytest.raises(ValueError, match="interval=0"): D.Naive(1.0, 5, truncation=True, interval=0)
    with pytest.raises(TypeError, match="ScalarStream"): D.Naive(1.0, 5).run(np.zeros(10))
    m = D.Naive(1.0, 5).start(10, 1, 0, lo=0.0, hi=100.0)
    with pytest.raises(ValueError, match="domain"): m.step(-1.0)
    with pytest.raises(ValueError, match="public domain"): D.Naive(1.0, 5).start(10, 1, 0)


def _alg3_pair_by_pair(y, T, w, eps_g, sens, rng, rho, rule):
    "Algorithm 3 over a whole stream, one pair and one Laplace draw at a time, in the order (t, k)."
    greater, q = np.zeros((T, w), bool), (8 * w / eps_g if rule == "paper" else 4 * (2 * w - 1) / eps_g)
    for t in range(T):
        for i in range(t - 1, max(t - (w if rule == "paper" else w - 1), 0) - 1, -1):
            greater[i, t - i - 1] = y[i] - y[t] + rng.laplace(0.0, q * sens[t]) > rho[t]
    return greater


def _alg4_value_by_value(xhat, greater, w, rule):
    "Algorithm 4 one value at a time, collecting the predecessors judged greater / smaller in the order the rule reads them."
    out = np.zeros(len(xhat))
    for t, x in enumerate(xhat):
        js = range(t - 1, max(t - w, 0) - 1, -1) if rule == "paper" else range(max(0, t - w + 1), t - 1)
        up = [out[j] for j in js if greater[j, t - j - 1]]
        down = [out[j] for j in js if not greater[j, t - j - 1]]
        if rule == "paper":
            out[t] = x if (not up or not down or max(down) <= x <= min(up)) else 0.5 * (max(down) + min(up))
        else:
            a, b = max([0.0] + up), min([1e9] + down)
            out[t] = 0.5 * (a + b) if (a > b and not b <= x <= a) else x
    return out


def test_comporder_grid_and_loop_equal_the_plain_algorithms():
    g = np.random.default_rng(16)
    for c in range(60):
        rule, T, w = ("paper", "artifact")[c % 2], int(g.integers(1, 120)), int(g.integers(2, 10))
        blk = int(g.integers(1, 2 * w + 2))
        y, sens, rho = g.random(T) * 50, g.uniform(5, 50, T), g.normal(0, 3, T)
        greater, ra, rb = np.zeros((T, w), bool), np.random.default_rng(c), np.random.default_rng(c)
        xhat = np.round(g.normal(0, 10, T), int(g.integers(0, 2)))          # ties and signed zeros
        xt = np.zeros(T)
        for lo in range(0, T, blk):
            hi = min(lo + blk, T)
            D.comporder_bits(y, greater, 0.7, w, sens[lo:hi], ra, rho[lo:hi], lo, hi, rule)
            D.comporder_postprocess(xhat, greater, xt, w, lo, hi, rule)
        np.testing.assert_array_equal(greater, _alg3_pair_by_pair(y, T, w, 0.7, sens, rb, rho, rule))
        assert ra.random() == rb.random()                                    # the same number of draws
        assert xt.tobytes() == _alg4_value_by_value(xhat, greater, w, rule).tobytes()
    # a long stream on which most windows become steady (the skip's case)
    T, w = 3000, 10
    xhat, greater = g.laplace(500, 1000, T), g.random((T, w)) < 0.5
    ref = _alg4_value_by_value(xhat, greater, w, "paper")
    assert np.mean(ref[w:] == ref[w - 1:-1]) > 0.2
    assert D.comporder_postprocess(xhat, greater, np.zeros(T), w, 0, T).tobytes() == ref.tobytes()


def _dev_with(members, v):
    "dev(G + [v]) added up as the members came, around the mean (sum(G) + v) / (|G| + 1)."
    total = 0.0
    for u in members: total += u
    m, d = (total + v) / (len(members) + 1), 0.0
    for u in members: d += abs(u - m)
    return d + abs(v - m)


def _alg2_value_by_value(Y, mask, eps_g, theta, sens, w, rng):
    "Algorithm 2 over every batch, value by value and group by group; the noise drawn as the vectorised form draws it (at position k, k tests and a threshold per batch)."
    s = 2 * w - 1
    groups, thr, lab = [[] for _ in Y], [[] for _ in Y], np.full(Y.shape, -1)
    for k in range(Y.shape[1]):
        act = np.flatnonzero(mask[:, k])
        z = list(rng.laplace(0.0, 4 * s * sens / eps_g, k * act.size)) if k * act.size else []
        fresh = []
        for b in act:
            zb, z = z[:k], z[k:]                                   # one test per group that can be open; the first len(groups[b]) are used
            j = next((j for j, G in enumerate(groups[b]) if _dev_with(G, Y[b, k]) + zb[j] < thr[b][j]), None)
            if j is None: j = len(groups[b]); groups[b].append([]); fresh.append(b)
            groups[b][j].append(Y[b, k]); lab[b, k] = j
        e = dict(zip(act.tolist(), rng.laplace(0.0, 2 * s * sens / eps_g, act.size))) if act.size else {}   # a threshold per batch, used if it opens a group
        for b in fresh: thr[b].append(theta + e[b])
    return lab


def test_discontinuous_grouping_equals_the_plain_algorithm():
    g = np.random.default_rng(17)
    for c in range(40):
        nb, w, hi = int(g.integers(1, 10)), int(g.choice([3, 8, 15])), float(g.choice([10, 100, 1000]))
        Y = g.random((nb, w)) * hi
        if c % 2: Y = np.floor(Y)
        mask = np.ones(Y.shape, bool); mask[-1, int(g.integers(1, w + 1)):] = False
        args = (np.where(mask, Y, 0.0), mask, float(g.choice([1.0, 30.0, 1000.0])), hi * float(g.choice([0.05, 0.5, 3.0])), hi, w)
        np.testing.assert_array_equal(D.discontinuous_grouping(*args, np.random.default_rng(c)), _alg2_value_by_value(*args, np.random.default_rng(c)))
    # the per-group sums against the membership form they replace
    Y, lab, m = g.random((6, 9)) * 100, g.integers(-1, 4, (6, 9)), g.random((6, 4)) * 100
    dense = (np.abs(Y[:, None, :] - m[:, :, None]) * (lab[:, None, :] == np.arange(4)[None, :, None])).sum(-1)
    np.testing.assert_allclose(D.group_deviations(Y, lab, m), dense, rtol=1e-12)


def test_paper_calibration_of_algorithm_6_is_opt_in():
    "dev_sens_factor=1 (the paper's Algorithm 6) is covered by no derivation: refused by check() without the opt-in, flagged with it."
    s = stream(57, 3)
    for cls in (D.ContinReduce, D.ContinPP, D.PeGaSusDelay):
        with pytest.raises(UnprovenConfiguration, match="dev_sens_factor=1"):
            cls(0.7, 5, dev_sens_factor=1).run(s, rng=3)
        rel = cls(0.7, 5, dev_sens_factor=1, allow_unproven=True).run(s, rng=3)
        assert rel.private is False and "half of dev's sensitivity" in rel.reason
        assert cls(0.7, 5).run(s, rng=3).private


def test_bucorder_monotone_sums_is_the_authors_post_processing():
    "Sums raised to a filled lower neighbour's processed sum, then clipped to [j m n, (j+1) m n - 1]; an empty neighbour lifts nothing."
    S, size, j, bat = np.array([25.0, 5.0, 40.0, 3.0]), np.array([2.0, 1.0, 1.0, 1.0]), np.array([0, 1, 3, 0]), np.array([0, 0, 0, 1])
    np.testing.assert_array_equal(D._monotone_sums(S, size, j, bat, 10.0), [19.0, 19.0, 39.0, 3.0])   # batch 1 starts afresh
    st = D.ScalarStream(np.linspace(0, 600, 100), 0.0, 612.0)
    a = D.BucOrder(0.5, 10, m=100.0, bucket_clip="monotone_sums").run(st, np.random.default_rng(1))
    b = D.BucOrder(0.5, 10, m=100.0).run(st, np.random.default_rng(1))
    assert a.params["bucket_clip"] == "monotone_sums" and not np.array_equal(a.estimates, b.estimates)
    with pytest.raises(ValueError, match="bucket_clip"): D.BucOrder(0.5, 10, bucket_clip="sums")


def _alg2_per_test_one_batch(y, eps_g, theta, sens, w, rng):
    "Algorithm 2 with the authors' threshold on one batch, value by value: at position k, k tests then k thresholds; the j-th test against |G_j| theta plus the j-th threshold."
    s = 2 * w - 1
    groups, lab = [], np.full(len(y), -1)
    for k, v in enumerate(y):
        z, t = rng.laplace(0.0, 4 * s * sens / eps_g, k), rng.laplace(0.0, 2 * s * sens / eps_g, k)
        j = next((j for j, G in enumerate(groups) if _dev_with(G, v) + z[j] < len(G) * theta + t[j]), None)
        if j is None: j = len(groups); groups.append([])
        groups[j].append(v); lab[k] = j
    return lab


def test_discontinuous_per_test_threshold_is_the_authors():
    "threshold='per_test': every judgement against |G| theta plus a threshold noise of its own (k tests, then k thresholds at position k; none per group)."
    g = np.random.default_rng(23)
    for c in range(40):
        w, hi = int(g.choice([3, 8, 15])), float(g.choice([10, 100, 1000]))
        y = g.random(w) * hi
        if c % 2: y = np.floor(y)
        args = (y[None], np.ones((1, w), bool), float(g.choice([1.0, 30.0, 1000.0])), hi * float(g.choice([0.05, 0.5, 3.0])), hi, w)
        np.testing.assert_array_equal(D.discontinuous_grouping(*args, np.random.default_rng(c), "per_test")[0],
                                      _alg2_per_test_one_batch(y, *args[2:], np.random.default_rng(c)))
    y, one = np.array([[0.0, 1.0, 2.0]]), np.ones((1, 3), bool)   # noise off: dev({0, 1, 2}) = 2 is below |G| theta = 3, not below theta = 1.5
    np.testing.assert_array_equal(D.discontinuous_grouping(y, one, 1.0, 1.5, 10.0, 3, ZeroNoise(), "per_test"), [[0, 0, 0]])
    np.testing.assert_array_equal(D.discontinuous_grouping(y, one, 1.0, 1.5, 10.0, 3, ZeroNoise()), [[0, 0, 1]])
    s, w = stream(23, 4), 5                                      # four batches of 5 and one of 3
    _, draws = _scales(D.DiscontinReduce(0.9, w, threshold="per_test"), s)
    svt = [(d.site, d.size) for d in draws if d.site in D.GROUPING_SITES]
    assert svt == [(site, k) for n in (5, 5, 5, 5, 3) for k in range(1, n) for site in ("_svt_query_noise", "_svt_threshold_noise")]
    for cls in (D.DiscontinReduce, D.DiscontinPP):
        a, b = cls(0.9, w, threshold="per_test").run(s, rng=2), cls(0.9, w).run(s, rng=2)
        assert a.params["threshold"] == "per_test" and b.params["threshold"] == "per_group" and not np.array_equal(a.estimates, b.estimates)
        with pytest.raises(ValueError, match="threshold"): cls(0.9, w, threshold="fresh")
    with pytest.raises(ValueError, match="threshold"): D.discontinuous_grouping(y, one, 1.0, 1.5, 10.0, 3, ZeroNoise(), "fresh")
