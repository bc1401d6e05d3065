"""RescueDP and RescueDP1D (08_rescuedp): books pass on real data under the shared window, the benchmark's per-location
accounting overspends (measured) and needs the opt-in, bad parameters raise, the half-noise variant is caught, and the
kernel's step-wise, online and batched forms give run's releases."""
import numpy as np
import pytest

from wevent_nb.core import HistogramStream, NoiseNotBooked, PrivacyBudgetExceeded, UnprovenConfiguration, check_noise_ledger
from wevent_nb.data import load
from wevent_nb.rescuedp import RescueDP, RescueDP1D, RescueDPHalfNoise, group_locations, rescue_allocation

FORMS = [RescueDP, RescueDP1D]


@pytest.fixture(scope="module")
def flu():
    return load("spas-flu")


@pytest.mark.parametrize("cls", FORMS, ids=lambda c: c.name)
@pytest.mark.parametrize("eps,w", [(1.0, 40), (0.1, 120)])
def test_books_pass_on_real_data(flu, cls, eps, w):
    rel = cls(eps, w).run(flu, rng=0)                      # run checks every window
    assert rel.private and 0 < rel.ledger.max_window_spend()[0] <= eps * (1 + 1e-9)
    booked = rel.ledger.spent_per_timestamp(0)
    assert np.array_equal(booked, rel.info["eps_pub"]) and np.all(rel.info["sampled"] >= rel.info["groups"])
    assert np.all(np.isfinite(rel.estimates))


def test_grouping_groups(flu):
    rel = RescueDP(1.0, 40).run(flu, rng=0)
    assert (rel.info["groups"] < rel.info["sampled"]).any()          # some sampled locations share a group
    one = RescueDP1D(1.0, 40).run(flu, rng=0)
    assert np.array_equal(one.info["groups"], one.info["sampled"])


@pytest.mark.parametrize("eps,w", [(1.0, 40), (0.1, 120)])
def test_per_location_accounting_overspends(flu, eps, w):
    m = RescueDP1D(eps, w, accounting="per_location", allow_unproven=True)
    rel = m.run(flu, rng=0, check=False)
    assert rel.ledger.max_window_spend()[0] > 2 * eps        # measured: several times eps (the erratum)
    assert not rel.private and rel.allow_unproven
    with pytest.raises(PrivacyBudgetExceeded): rel.check()


def test_per_location_needs_the_opt_in(flu):
    s = HistogramStream(flu.counts[:50])
    with pytest.raises(UnprovenConfiguration, match="allow_unproven=True"): RescueDP(1.0, 10, accounting="per_location").run(s, rng=0)
    with pytest.raises(UnprovenConfiguration): RescueDP(1.0, 10, accounting="per_location").run(s, rng=0, check=False).check()
    with pytest.raises(UnprovenConfiguration): RescueDP(1.0, 10, accounting="per_location").start(None, 3)


@pytest.mark.parametrize("kw,name", [(dict(p_max=1.0), "p_max"), (dict(phi=0.0), "phi"), (dict(e_max=1.5), "e_max"),
                                     (dict(pi=0), "pi"), (dict(kappa=1), "kappa"), (dict(tau2=2.0), "tau2"), (dict(Q=-1.0), "Q"),
                                     (dict(R=0.0), "R"), (dict(accounting="own"), "accounting"), (dict(theta=-1.0), "theta"),
                                     (dict(I0=0), "I0"), (dict(tau1=0.0), "tau1"), (dict(Kp=np.nan), "Kp"), (dict(P0=0.0), "P0")])
def test_bad_parameters_raise(kw, name):
    with pytest.raises(ValueError, match=rf"{name}=.* is not allowed"): RescueDP(1.0, 10, **kw)


def test_the_1d_form_has_no_grouping_parameters():
    with pytest.raises(TypeError): RescueDP1D(1.0, 10, tau1=5.0)
    assert "tau1" not in RescueDP1D(1.0, 10).params and "tau1" in RescueDP(1.0, 10).params


def test_half_noise_caught_by_the_noise_tie(flu):
    s = HistogramStream(flu.counts[:200])
    for cls in FORMS:
        out = check_noise_ledger(cls(1.0, 40), s, seed=3)
        assert np.allclose(out["implied"], out["booked"])
    with pytest.raises(NoiseNotBooked): check_noise_ledger(RescueDPHalfNoise(1.0, 40), s, seed=3)


@pytest.mark.parametrize("cls", FORMS, ids=lambda c: c.name)
def test_step_online_and_run_many_equal_run(flu, cls):
    s = HistogramStream(flu.counts[:150, :12])
    ref = cls(1.0, 20).run(s, rng=5)
    m = cls(1.0, 20).start(s.T, s.d, rng=5)
    steps = np.array([m.step(x)[0] for x in s.counts])
    o = cls(1.0, 20).start(None, s.d, rng=5)
    live = np.array([o.step(x)[0] for x in s.counts])
    g = np.random.default_rng(5)
    first, second = cls(1.0, 20).run(s, rng=g), cls(1.0, 20).run(s, rng=g)
    many = cls(1.0, 20).run_many(s, 2, rng=5)
    assert steps.tobytes() == ref.estimates.tobytes() == live.tobytes() == first.estimates.tobytes()
    assert many.estimates[0].tobytes() == first.estimates.tobytes() and many.estimates[1].tobytes() == second.estimates.tobytes()
    assert np.array_equal(many.spent[0], ref.ledger.spent_per_timestamp(0))


def test_allocation_and_grouping_units():
    assert rescue_allocation(1.0, 1.0, 0.2, 0.6, 0.2) == pytest.approx(0.2 * np.log(2.0))
    assert rescue_allocation(1.0, 1e9, 0.2, 0.6, 1.0) == 0.6 and rescue_allocation(10.0, 99.0, 0.2, 0.6, 2.0) == 2.0
    recent = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.5], [3.0, 2.0, 1.0], [10.0, 11.0, 13.0], [50.0, 60.0, 70.0]])
    gid = np.full(5, -1)
    assert group_locations(recent.mean(1), recent, recent.mean(1) <= 30.0, 30.0, 0.5, 25.0, gid) == 2
    assert gid.tolist() == [0, 0, 1, 0, -1]
