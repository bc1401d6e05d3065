"""BD with grouping (nbs/09_bd_grouping.ipynb, issue 25): the books on real data, one group is BD, the benchmark's per-bin
accounting measured as an overspend and refused without its opt-in, bad input, broken variants caught, and the step-wise,
online and batched forms equal to run."""
import pickle
import numpy as np
import pytest
from wevent_nb import data
from wevent_nb.audit import audit, neighbour_pairs
from wevent_nb.baselines import BD
from wevent_nb.core import (HistogramStream, NoiseNotBooked, PrivacyBudgetExceeded, UnprovenConfiguration, check_noise_ledger,
                            get_mechanism)
from wevent_nb.grouping import BDGrouping, BDGroupingHalfNoise, default_groups


@pytest.fixture(scope="module")
def flu(data_home): return data.load("spas-flu", data_home=data_home)


@pytest.fixture(scope="module")
def tdv(data_home): return data.load("spas-tdv", data_home=data_home)


def climbing(T=60, n=50):
    "Two blocks of n bins that climb by 1e6 at alternate timestamps: one group passes its test at each step."
    t = np.arange(T)
    return HistogramStream(1e6 * np.repeat(np.c_[t // 2 + 1, (t + 1) // 2], n, axis=1))


def test_registered_under_its_name():
    m = get_mechanism("BD-grouping", eps=1.0, w=10, groups=3)
    assert type(m) is BDGrouping and m.private and m.params["groups"] == 3 and m.params["period"] == 10


@pytest.mark.parametrize("key", ["spas-flu", "spas-tdv"])
def test_books_pass_on_real_data_with_several_groups_publishing_at_once(key, flu, tdv):
    s = {"spas-flu": flu, "spas-tdv": tdv}[key]
    for eps, w in ((1.0, 40), (0.1, 120)):
        rel = BDGrouping(eps, w, groups=4).run(s, rng=0)            # run() checks the books
        assert rel.ledger.max_window_spend()[0] <= eps * (1 + 1e-9)
        assert (rel.info["groups_published"] >= 2).any()
        np.testing.assert_allclose(rel.info["eps_dis"], eps / (2 * w))
        assert np.array_equal(rel.info["eps_pub"], np.where(rel.published, rel.info["eps_cand"], 0.0))


@pytest.mark.parametrize("eps,w", [(1.0, 40), (0.1, 120)])
def test_one_group_is_bd_bit_for_bit(eps, w, flu, tdv):
    for s in (flu, tdv):
        for seed in (0, 1):
            a, b = BD(eps, w).run(s, rng=seed), BDGrouping(eps, w, groups=1).run(s, rng=seed)
            assert a.estimates.tobytes() == b.estimates.tobytes() and np.array_equal(a.published, b.published)
            assert np.array_equal(a.ledger.spent_per_timestamp(0), b.ledger.spent_per_timestamp(0))


def test_the_default_is_the_benchmarks_rule():
    assert [default_groups(d) for d in (1, 55, 64, 999, 1000, 2600)] == [1, 1, 1, 1, 2, 5]
    s = climbing(20, 3)
    assert BDGrouping(1.0, 5).run(s, rng=2).estimates.tobytes() == BD(1.0, 5).run(s, rng=2).estimates.tobytes()


def test_the_benchmarks_per_bin_accounting_overspends(flu, tdv):
    "The erratum: per-bin windows (the Java form) book more than eps in some window, on real data and on the climbing stream."
    for s in (flu, tdv):
        rel = BDGrouping(1.0, 40, groups=4, accounting="per_group", allow_unproven=True).run(s, rng=0, check=False)
        assert rel.ledger.max_window_spend()[0] > 1.5
        with pytest.raises(PrivacyBudgetExceeded, match="window"): rel.ledger.check()
    rel = BDGrouping(1.0, 20, groups=2, period=1000, accounting="per_group", allow_unproven=True).run(climbing(), rng=0, check=False)
    np.testing.assert_allclose(rel.info["eps_pub"][:6], [1/4, 1/4, 1/8, 1/8, 1/16, 1/16])
    assert rel.ledger.max_window_spend()[0] > 1.45
    ok = BDGrouping(1.0, 20, groups=2, period=1000).run(climbing(), rng=0)
    np.testing.assert_allclose(ok.info["eps_pub"][:6], [1/4, 1/8, 1/16, 1/32, 1/64, 1/128])


def test_the_per_bin_accounting_needs_the_opt_in():
    s = climbing(30, 2)
    m = BDGrouping(1.0, 10, groups=2, accounting="per_group")
    assert not m.private and "per_group" in m.unproven()
    with pytest.raises(UnprovenConfiguration, match="allow_unproven=True"): m.run(s, rng=0)
    with pytest.raises(UnprovenConfiguration, match="allow_unproven"): m.start(None, 4, rng=0)
    rel = BDGrouping(1.0, 10, groups=2, accounting="per_group", allow_unproven=True).run(s, rng=0, check=False)
    assert rel.private is False and rel.allow_unproven and rel.reason


@pytest.mark.parametrize("kw,msg", [({"groups": 0}, "groups=0"), ({"groups": -2}, "groups=-2"), ({"groups": 1.5}, "groups=1.5"),
                                    ({"groups": "4"}, "groups='4'"), ({"period": 0}, "period=0"), ({"threshold": "x"}, "threshold='x'"),
                                    ({"accounting": "per_bin"}, "accounting='per_bin'"), ({"allow_unproven": "yes"}, "allow_unproven"),
                                    ({"eps": 0.0}, "eps=0.0"), ({"w": 0}, "w=0")])
def test_bad_parameters_raise_value_errors(kw, msg):
    args = {"eps": 1.0, "w": 10, **kw}
    with pytest.raises(ValueError, match=msg): BDGrouping(**args)


def test_more_groups_than_bins_gives_one_bin_per_group():
    s = climbing(30, 1)                                                   # d = 2
    a, b = BDGrouping(1.0, 10, groups=7).run(s, rng=4), BDGrouping(1.0, 10, groups=2).run(s, rng=4)
    assert a.estimates.tobytes() == b.estimates.tobytes() and a.params["groups"] == 7


def test_broken_variants_are_caught(flu):
    small = HistogramStream(flu.counts[:300, :12])
    tie = check_noise_ledger(BDGrouping(1.0, 10, groups=3), small, seed=1)
    assert np.all(tie["implied"] <= tie["booked"] * (1 + 1e-9)) and tie["draws"] > 300
    check_noise_ledger(BDGrouping(1.0, 10, groups=3, accounting="per_group", allow_unproven=True), small, seed=1)   # honest books ...
    with pytest.raises(PrivacyBudgetExceeded):                                                                   # ... that fail
        BDGrouping(1.0, 20, groups=2, period=1000, accounting="per_group", allow_unproven=True).run(climbing(), rng=0)
    BDGroupingHalfNoise(1.0, 10, groups=3).run(small, rng=1)                                  # its books pass ...
    with pytest.raises(NoiseNotBooked, match="BDGroupingHalfNoise"):                           # ... its noise does not
        check_noise_ledger(BDGroupingHalfNoise(1.0, 10, groups=3), small, seed=1)
    pair = neighbour_pairs(8, 3, 8, kinds=("one",), level=100.)[:1]
    assert not audit(BDGroupingHalfNoise(4.0, 8, groups=3), pair, 1000, claim="ledger", rng=1).passed
    assert audit(BDGrouping(4.0, 8, groups=3), pair, 1000, claim="ledger", rng=1).passed


def test_stepwise_online_and_batched_forms_equal_run(flu):
    s = HistogramStream(flu.counts[:200, :12])
    make = lambda: BDGrouping(1.0, 10, groups=3, period=4)
    ref = make().run(s, rng=5)
    m = make().start(s.T, s.d, rng=5)
    for x in s.counts: m.step(x)
    fin = m.finish()
    assert fin.estimates.tobytes() == ref.estimates.tobytes() and np.array_equal(fin.info["groups_published"], ref.info["groups_published"])
    m = make().start(None, s.d, rng=5); out = []
    for t, x in enumerate(s.counts):
        if t == 100: m = pickle.loads(pickle.dumps(m))
        out.append(m.step(x)[0])
    assert np.array(out).tobytes() == ref.estimates.tobytes()
    g = np.random.default_rng(9)
    runs = make().run_many(s, 3, rng=np.random.default_rng(9))
    for i in range(3): assert runs.estimates[i].tobytes() == make().run(s, rng=g).estimates.tobytes()
    on = BDGrouping(1.0, 20, groups=2, period=1000, accounting="per_group", allow_unproven=True).start(None, 100, rng=0)
    with pytest.raises(PrivacyBudgetExceeded): [on.step(x) for x in climbing().counts]


def test_exact_noise_gives_integer_releases_tied_to_its_books(flu):
    from wevent_nb.primitives import ExactLaplace
    s = HistogramStream(flu.counts[:300, :12])
    rel = BDGrouping(1.0, 10, groups=3).run(s, rng=ExactLaplace(2))
    assert np.all(rel.estimates == np.round(rel.estimates)) and rel.published.any()
    check_noise_ledger(BDGrouping(1.0, 10, groups=3), s, seed=2, noise="exact")
    a, b = BDGrouping(1.0, 10, groups=1).run(s, rng=ExactLaplace(4)), BD(1.0, 10).run(s, rng=ExactLaplace(4))
    assert a.estimates.tobytes() == b.estimates.tobytes()
