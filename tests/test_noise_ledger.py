"""The ledger is tied to the noise drawn: every registered central mechanism, run step-wise with a recording
Generator, books at every timestamp (and in its standing charge) at least the eps its Laplace draws imply
(`core.noise_spends`), and its vectorised `run` draws the same numbers. Broken variants are caught."""
from wevent_nb.ledger import allot
import numpy as np
import pytest
from wevent_nb import baselines as B
from wevent_nb.core import (HistogramStream, NoiseNotBooked, NoiseRecorder, check_noise_ledger, list_mechanisms,
                            noise_spends, ToyUniform)


def _streams():
    g = np.random.default_rng(11)
    walk = np.maximum(0, 50 + np.cumsum(g.normal(0, 3, (48, 3)), axis=0)).round()
    return {
        "steps_d1": HistogramStream(np.repeat([[0.0], [5.0], [0.0], [5.0]], 12, axis=0)),   # tests answer both ways
        "walk_d3": HistogramStream(walk),
        "flat_d4": HistogramStream(np.full((40, 4), 100.0)),
        "alternating_d1": HistogramStream(np.tile([[0.0], [400.0]], (20, 1))),                # publishes whenever allowed
    }


STREAMS = _streams()
CENTRAL = list_mechanisms(stream_kind="histogram")
SETTINGS = [(0.5, 4), (2.0, 10)]


def test_every_central_mechanism_is_covered():
    names = {i.name for i in list_mechanisms(stream_kind="histogram")}
    assert {"Uniform", "Sample", "BD", "BA", "FAST", "DSAT", "AdaPub", "PeGaSus", "Constant", "SPAS"} <= names


@pytest.mark.parametrize("info", CENTRAL, ids=lambda i: i.name)
@pytest.mark.parametrize("eps,w", SETTINGS)
def test_ledger_covers_the_noise_drawn(info, eps, w):
    for name, s in STREAMS.items():
        out = check_noise_ledger(info.cls(eps=eps, w=w), s, seed=7)
        out["release"].check()
        # the implied spends themselves respect the budget in every window (they are covered by the books)
        imp = out["implied"]
        win = np.convolve(imp, np.ones(w))[: len(imp)] + out["standing"]
        assert win.max() <= eps * (1 + 1e-9), (info.name, name, win.max())


class SampleHalfNoise(B.Sample):
    "Books eps per sample, draws Laplace(1/(2 eps))."
    name = "SampleHalfNoise"
    def _step(self, x):
        if self._t % self.w: return self._last, False
        self._spend(self.eps, "eps_pub")
        return x + self._rng.laplace(0.0, 0.5 / self.eps, self._d), True


class PeGaSusNoThreshold(B.PeGaSus):
    "The grouper's thresholds without noise."
    name, threshold_noise = "PeGaSusNoThreshold", False


class AdaPubUnbookedTest(B.AdaPub):
    "Declares its time-grouping draw as a release of a histogram (sensitivity 1) but halves its scale."
    name, deviation_scale = "AdaPubUnbookedTest", 0.25


@pytest.mark.parametrize("broken", [B.BDHalfNoise, B.DSATNoThresholdNoise, B.DSATClipped, SampleHalfNoise,
                                    PeGaSusNoThreshold, AdaPubUnbookedTest], ids=lambda c: c.__name__)
def test_broken_noise_is_caught(broken):
    s = STREAMS["steps_d1"] if broken is not AdaPubUnbookedTest else STREAMS["walk_d3"]
    broken(eps=1.0, w=10).run(s, rng=7).check()          # the books alone pass
    with pytest.raises(NoiseNotBooked, match=broken.__name__):
        check_noise_ledger(broken(eps=1.0, w=10), s, seed=7)


def test_a_run_that_is_not_the_recorded_one_is_caught():
    class Drifting(B.Uniform):
        name = "Drifting"
        def run(self, stream, rng=None):
            return super().run(stream, rng=None if rng is None else rng + 1)
    with pytest.raises(NoiseNotBooked, match="differs from its recorded step-wise run"):
        check_noise_ledger(Drifting(eps=1.0, w=5), STREAMS["walk_d3"], seed=3)


def test_noise_spends_rules():
    class M(ToyUniform):
        noise_roles = {"thr": ("svt_threshold", 0.5), "q": ("svt_query", 0.5), "stat": ("statistic", 0.25)}
    D = lambda t, b, site: type("D", (), {"t": t, "scale": b, "size": 1, "site": site})()
    pub = np.array([False, True, False, True])
    draws = [D(0, 1.0, "thr"), D(1, 2.0, "q"), D(2, 2.0, "q"), D(2, 0.5, "stat"), D(3, 1.0, "release_site")]
    for mode, want, stand in [("single", [0, 0.5, 0, 1.0], 0.5), ("restart", [0, 1.0, 0.25, 1.0], 1.0)]:
        M.svt_mode = mode
        per_t, st = noise_spends(M, draws, 4, 1, pub)
        np.testing.assert_allclose(per_t, np.array(want) + [0, 0, 0.5, 0]); assert st == stand
    M.svt_mode = "per_step"
    per_t, st = noise_spends(M, draws, 4, 1, pub)
    np.testing.assert_allclose(per_t, [0, 1.0, 1.0 + 0.5, 1.0]); assert st == 0
    M.svt_mode = "nope"
    with pytest.raises(ValueError, match="svt_mode"): noise_spends(M, draws, 4, 1, pub)
    M.svt_mode, M.noise_roles = "single", {"thr": ("mystery", 1.0)}
    with pytest.raises(ValueError, match="roles are"): noise_spends(M, draws, 4, 1, pub)


# ------------------------------------------------------------------ local mechanisms: reports against the books
# A local mechanism's noise is its users' randomized responses: every frequency-oracle report made with budget e
# implies e for that user at that timestamp. The FOs' `perturb` is wrapped to record (t, e, number of reporting
# users); the per-user run must book at least that: for one account standing for all users (budget division)
# the sum of the report budgets at t, where every report is by all users; for per-user accounts the total
# user-budget at t and the largest single report budget.
from contextlib import contextmanager
from wevent_nb.core import CategoricalPopulation
from wevent_nb.primitives import GRR, OUE, OLH
from wevent_nb import ldp_ids as L


@contextmanager
def recorded_reports():
    calls, clock = [], {"t": 0}
    saved = {c: c.__dict__["perturb"] for c in (GRR, OUE, OLH)}
    def wrap(orig):
        def perturb(self, values, *a, **k):
            calls.append((clock["t"], self.eps, len(values)))
            return orig(self, values, *a, **k)
        return perturb
    for c, f in saved.items(): c.perturb = wrap(f)
    try: yield calls, clock
    finally:
        for c, f in saved.items(): c.perturb = f


def check_reports_booked(mech, pop, seed):
    with recorded_reports() as (calls, clock):
        mech.start(pop.T, pop.d, rng=seed, N=pop.N)
        for t in range(pop.T): clock["t"] = t; mech.step(pop.values[:, t])
        rel = mech.finish()
    assert calls, "no report was recorded"
    ct, ce, cn = (np.array(x) for x in zip(*calls))
    a, t, e = rel.ledger.entries()
    booked_total = np.bincount(t, e, minlength=pop.T)
    booked_max = np.zeros(pop.T); np.maximum.at(booked_max, t, e)
    slack = lambda x: x * (1 + 1e-9) + 1e-15
    if rel.ledger.n_accounts == 1:
        assert np.all(cn == pop.N), "one account stands for all users, but some report was by a subset"
        implied = np.bincount(ct, ce, minlength=pop.T)
        bad = np.flatnonzero(implied > slack(booked_total))
    else:
        implied = np.bincount(ct, ce * cn, minlength=pop.T)
        imax = np.zeros(pop.T); np.maximum.at(imax, ct, ce)
        bad = np.flatnonzero((implied > slack(booked_total)) | (imax > slack(booked_max)))
    if bad.size: raise NoiseNotBooked(f"{mech.name} at t={bad[0]}: reports imply {implied[bad[0]]:.6g}, the ledger books {booked_total[bad[0]]:.6g}")
    return rel


def _population(N=60, T=24, d=3, seed=5):
    g = np.random.default_rng(seed)
    base = np.repeat(g.integers(0, d, (N, 4)), T // 4, axis=1)               # values change every T/4 steps
    flip = g.random((N, T)) < 0.1
    return CategoricalPopulation(np.where(flip, g.integers(0, d, (N, T)), base), d=d)


LOCAL = list_mechanisms(stream_kind="categorical")


def test_every_local_mechanism_is_covered():
    assert {"LBU", "LSP", "LBD", "LBA", "LPU", "LPD", "LPA"} <= {i.name for i in LOCAL}


@pytest.mark.parametrize("info", LOCAL, ids=lambda i: i.name)
@pytest.mark.parametrize("eps,w,fo", [(1.0, 3, "grr"), (4.0, 6, "oue")])
def test_local_ledger_covers_the_reports(info, eps, w, fo):
    pop = _population()
    check_reports_booked(info.cls(eps=eps, w=w, fo=fo, mode="per_user"), pop, seed=3).check()


class LBUUnbooked(L.LBU):
    "Reports with 2 eps/w, books eps/w."
    name = "LBUUnbooked"
    def _step_t(self, t):
        self._charge(t, allot(self.eps / self.w))                   # allotted, so that the books alone pass (exact books)
        self._prev = self._sim.all_users(2 * allot(self.eps / self.w))


class LPUForgetsToBook(L.LPU):
    "Does not book the reports of the first group."
    name = "LPUForgetsToBook"
    def _book(self, t, ids):
        if t % self.w: super()._book(t, ids)


@pytest.mark.parametrize("broken", [LBUUnbooked, LPUForgetsToBook], ids=lambda c: c.__name__)
def test_local_unbooked_reports_are_caught(broken):
    pop = _population()
    broken(eps=1.0, w=3, mode="per_user").run(pop, rng=3).check()        # the books alone pass
    with pytest.raises(NoiseNotBooked, match=broken.__name__):
        check_reports_booked(broken(eps=1.0, w=3, mode="per_user"), pop, seed=3)


# ------------------------------------------------------------------ SPAS: both SVT modes, and a dropped threshold noise
from wevent_nb.spas import SPAS


class SPASNoThreshold(SPAS):
    "svt='paper' with its threshold noise dropped, the standing charge still booked."
    name, threshold_scale = "SPASNoThreshold", 0.0


@pytest.mark.parametrize("svt", ["redraw", "strict", "paper"])
@pytest.mark.parametrize("eps,w", SETTINGS)
def test_spas_svt_modes_cover_their_noise(svt, eps, w):
    "Every SVT form books the noise it draws; the paper's single threshold noise does too, but only runs with the opt-in (its gap is in the accounting)."
    for s in STREAMS.values():
        check_noise_ledger(SPAS(eps=eps, w=w, m=2, svt=svt, allow_unproven=svt == "paper"), s, seed=7)["release"].check()


def test_spas_without_threshold_noise_is_caught():
    s = STREAMS["steps_d1"]
    SPASNoThreshold(eps=1.0, w=4, m=2).run(s, rng=7).check()
    with pytest.raises(NoiseNotBooked, match="SPASNoThreshold"):
        check_noise_ledger(SPASNoThreshold(eps=1.0, w=4, m=2), s, seed=7)
