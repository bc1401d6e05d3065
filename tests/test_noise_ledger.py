"""The ledger is tied to the noise drawn: every registered central mechanism, run step-wise with a recording
Generator, books at every timestamp (and in its standing charge) at least the eps its Laplace draws imply
(`core.noise_spends`), and its vectorised `run` draws the same numbers. Broken variants are caught."""
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
CENTRAL = [i for i in list_mechanisms(stream_kind="histogram")]
SETTINGS = [(0.5, 4), (2.0, 10)]


def test_every_central_mechanism_is_covered():
    names = {i.name for i in CENTRAL}
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
    run = B.CentralBaseline.run
    def _step(self, x):
        if self._t % self.w: return self._last, False
        self._spend(self.eps, "eps_pub")
        return x + self._rng.laplace(0.0, 0.5 / self.eps, self._d), True


class PeGaSusNoThreshold(B.PeGaSus):
    "The grouper's thresholds without noise."
    name = "PeGaSusNoThreshold"
    def _new_thresholds(self, k): return np.full(k, self.theta_mult / self.eps_g)


class AdaPubUnbookedTest(B.AdaPub):
    "Declares its time-grouping draw as a release of a histogram (sensitivity 1) but halves its scale."
    name = "AdaPubUnbookedTest"
    def _deviation(self, x): return np.abs(x - self._last) + self._rng.laplace(0.0, 0.25 * self.w / self.eps_c, self._d)


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
