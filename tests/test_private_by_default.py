"""Private by default (issue 21): run() checks, budgets and outputs at the edges, one rule for w > T, and every registered
mechanism at its default parameters passes its books as a private configuration."""
import re
import numpy as np
import pytest

from wevent_nb.core import (HistogramStream, CategoricalPopulation, NumericPopulation, PersonalizedPopulation, ScalarStream,
                            PrivacyBudgetExceeded, UnprovenConfiguration, GUARANTEES, EPS_MIN, EPS_MAX, list_mechanisms, get_mechanism)

MECHS = list_mechanisms()
N_USERS = 30      # users of the short local populations: enough for every local method's grouping, few for speed


def short_stream(kind, T, w, eps=1.0, seed=0):
    "A short stream of `kind` (T timestamps) whose personalized users declare (eps, w)."
    rng = np.random.default_rng(seed)
    if kind == "histogram": return HistogramStream(rng.integers(0, 50, (T, 3)).astype(float))
    if kind == "categorical": return CategoricalPopulation(rng.integers(0, 4, (N_USERS, T)), 4)
    if kind == "numeric": return NumericPopulation(rng.random((N_USERS, T)))
    if kind == "personalized":
        return PersonalizedPopulation(rng.integers(0, 4, (N_USERS, T)), 4, np.full(N_USERS, eps), np.full(N_USERS, w))
    if kind == "scalar": return ScalarStream(rng.random(T), 0.0, 1.0)
    raise ValueError(kind)


# ---------------------------------------------------------------- finding 5: run() checks by default
def test_run_raises_when_the_books_fail():
    s = HistogramStream(np.repeat([[10.0], [60.0], [10.0], [60.0]], 50, axis=0))
    bd = get_mechanism("BD", eps=1, w=10)
    bd.pub_share = 1.0                       # a user's edit after construction: the publication gets the whole half
    with pytest.raises(PrivacyBudgetExceeded) as e:
        bd.run(s, rng=0)
    err = e.value
    assert err.account == "stream" and err.spent > err.budget == 1.0 and err.window[1] - err.window[0] < 10
    loose = bd.run(s, rng=0, check=False)     # the opt-out, for the auditor and the reproduction of unproven forms
    assert not loose.ledger.ok()


def test_check_flag_is_validated():
    with pytest.raises(ValueError, match="check"):
        get_mechanism("BD", eps=1, w=10).run(HistogramStream(np.ones((5, 2))), check="no")


# ---------------------------------------------------------------- finding 6: numbers at the edges
@pytest.mark.parametrize("name,eps", [("Uniform", 5e-324), ("LBD", 1e-300), ("LBU", 1e-300), ("CAPP", 1e300), ("BD", 1e-11), ("BD", 301.0)])
def test_budgets_outside_the_representable_range_are_clear_errors(name, eps):
    with pytest.raises(ValueError, match=rf"eps={re.escape(repr(eps))} is not allowed: eps must be a finite real number in \[{EPS_MIN:g}, {EPS_MAX:g}\]"):
        get_mechanism(name, eps=eps, w=10)


@pytest.mark.parametrize("name", ["Uniform", "LBU", "LBD", "BD", "APP"])
def test_the_edges_of_the_range_give_finite_releases(name):
    kind = get_mechanism(name, eps=1.0, w=5).stream_kind
    for eps in (EPS_MIN, EPS_MAX):
        rel = get_mechanism(name, eps=eps, w=5).run(short_stream(kind, 8, 5), rng=0)
        assert np.all(np.isfinite(rel.estimates)), (name, eps)


# ---------------------------------------------------------------- one rule for w > T: accepted everywhere
@pytest.mark.parametrize("info", MECHS, ids=lambda i: i.name)
def test_a_stream_shorter_than_a_window_is_accepted(info):
    T, w = 6, 9
    m = info.cls(eps=1.0, w=w)
    rel = m.run(short_stream(info.stream_kind, T, w), rng=0)
    assert rel.T == T and np.all(np.isfinite(rel.estimates))


# ---------------------------------------------------------------- every registered mechanism, default parameters
@pytest.mark.parametrize("info", MECHS, ids=lambda i: i.name)
def test_every_mechanism_states_its_guarantee_and_is_private_by_default(info):
    m = info.cls(eps=1.0, w=5)
    assert m.guarantee == f"{GUARANTEES[info.stream_kind]}; neighbours: {m.relation.describe()}" and m.private, (info.name, m.unproven())
    assert info.cls.derivation, f"{info.name} does not say where its notebook derives its guarantee"
    rel = m.run(short_stream(info.stream_kind, 24, 5), rng=1)          # run() checks: books, cover, finite outputs
    assert rel.private and rel.reason == "" and rel.guarantee == m.guarantee


OPTIONS = [(i, opt, v) for i in MECHS for opt, vals in i.cls.accounting_options.items() for v in vals]


@pytest.mark.parametrize("info,opt,value", OPTIONS, ids=[f"{i.name}-{o}={v}" for i, o, v in OPTIONS])
def test_every_unproven_option_is_refused_without_its_opt_in(info, opt, value):
    "An option no derivation covers: run() and check() raise UnprovenConfiguration without allow_unproven=True; with it the release is flagged."
    m = info.cls(eps=1.0, w=5, **{opt: value})
    if not m.unproven(): pytest.skip(f"{info.name}({opt}={value!r}) is covered by a derivation")
    s = short_stream(info.stream_kind, 24, 5)
    with pytest.raises(UnprovenConfiguration, match="allow_unproven=True"):
        m.run(s, rng=0)
    with pytest.raises(UnprovenConfiguration):
        m.run(s, rng=0, check=False).check()
    rel = info.cls(eps=1.0, w=5, allow_unproven=True, **{opt: value}).run(s, rng=0, check=False)
    assert rel.private is False and rel.reason and rel.allow_unproven
