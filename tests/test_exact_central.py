"Exact noise in the central mechanisms: the ones whose notebook derives an exact form release integers, tie their exact draws to their books, run online as in batch; every other mechanism refuses exact noise."
import numpy as np
import pytest
from wevent_nb.baselines import BDHalfNoise
from wevent_nb.core import HistogramStream, NoiseNotBooked, check_noise_ledger, get_mechanism, list_mechanisms
from wevent_nb.online import Session
from wevent_nb.primitives import ExactLaplace

X = np.random.default_rng(0).integers(0, 60, (70, 4)).astype(float)
SHIPPED = lambda infos: [i for i in infos if i.cls.__module__.startswith("wevent_nb.")]   # not the toys other test files register
EXACT = [i for i in SHIPPED(list_mechanisms()) if i.cls.exact_noise]
FLOAT_ONLY = [i for i in SHIPPED(list_mechanisms(stream_kind="histogram")) if not i.cls.exact_noise]

def test_the_exact_forms_are_the_derived_ones():
    assert {i.name for i in EXACT} == {"Uniform", "Sample", "BD", "BA", "Constant", "FAST", "DSAT", "SPAS", "BD-grouping"}

@pytest.mark.parametrize("info", EXACT, ids=lambda i: i.name)
@pytest.mark.parametrize("w", [1, 5])
def test_exact_releases_are_integers_online_equals_batch_and_books_cover_draws(info, w):
    rel = get_mechanism(info.name, eps=1.0, w=w).run(HistogramStream(X), rng=ExactLaplace(4))
    assert info.name == "FAST" or np.all(rel.estimates == np.round(rel.estimates))   # FAST's Kalman filter smooths its exact samples
    s = Session(get_mechanism(info.name, eps=1.0, w=w), rng=4, noise="exact", d=4)
    assert np.array_equal(np.array([s.step(x).release[0] for x in X]), rel.estimates)
    check_noise_ledger(get_mechanism(info.name, eps=1.0, w=w), HistogramStream(X), seed=4, noise="exact")

def test_exact_differs_from_float_and_is_deterministic():
    a = get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(X), rng=ExactLaplace(4))
    b = get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(X), rng=ExactLaplace(4))
    c = get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(X), rng=4)
    assert np.array_equal(a.estimates, b.estimates) and not np.array_equal(a.estimates, c.estimates)

def test_bd_dissimilarity_is_on_its_lattice():
    "d * dis = sum |x - last| + integer noise: an integer, so the comparison reads nothing finer than the lattice."
    rel = get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(X), rng=ExactLaplace(4))
    dd = rel.info["dis"] * 4
    assert np.allclose(dd, np.round(dd), rtol=0, atol=1e-9)

def test_dsat_exact_threshold_and_query_in_units_of_one_over_d():
    "DSAT's exact SVT: both noises integers in units of 1/d, so d * threshold - d * base is an integer."
    rel = get_mechanism("DSAT", eps=1.0, w=10).run(HistogramStream(X), rng=ExactLaplace(4))
    u = (rel.secret_diagnostics()["threshold"] - rel.info["base"]) * 4
    assert np.allclose(u, np.round(u), rtol=0, atol=1e-9) and np.any(u != 0)

@pytest.mark.parametrize("kw", [{"svt": "strict"}, {"dis": "raw"}, {"direct_release": False}])
def test_spas_exact_forms(kw):
    rel = get_mechanism("SPAS", eps=1.0, w=8, **kw).run(HistogramStream(X), rng=ExactLaplace(4))
    assert np.all(rel.estimates == np.round(rel.estimates)) and rel.info["compared"].any()
    check_noise_ledger(get_mechanism("SPAS", eps=1.0, w=8, **kw), HistogramStream(X), seed=4, noise="exact")

def test_half_noise_caught_under_exact_noise():
    with pytest.raises(NoiseNotBooked, match="BDHalfNoise"):
        check_noise_ledger(BDHalfNoise(1.0, 5), HistogramStream(X), seed=2, noise="exact")

@pytest.mark.parametrize("info", FLOAT_ONLY, ids=lambda i: i.name)
def test_mechanisms_without_an_exact_form_refuse_exact_noise(info):
    with pytest.raises(ValueError, match="no exact-noise form"):
        get_mechanism(info.name, eps=1.0, w=5).run(HistogramStream(X), rng=ExactLaplace(1))
    with pytest.raises(ValueError, match="no exact-noise form"):
        Session(get_mechanism(info.name, eps=1.0, w=5), noise="exact", d=4)

def test_non_integer_counts_refused_with_exact_noise():
    with pytest.raises(ValueError, match="integer counts"):
        get_mechanism("Uniform", eps=1.0, w=5).run(HistogramStream(X + 0.5), rng=ExactLaplace(1))
    s = Session(get_mechanism("BD", eps=1.0, w=5), rng=1, noise="exact", d=4)
    with pytest.raises(ValueError, match="integer counts"): s.step([1.5, 2, 3, 4])
    s.step([1, 2, 3, 4])
