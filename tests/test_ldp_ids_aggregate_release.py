"""Issue 36, part 3 (LDP-IDS aggregate mode): aggregate mode is a simulation device, not a release (nbs/10_ldp_ids.ipynb,
"Aggregate mode is a simulation device"). It re-draws each timestamp's reporters from that timestamp's counts, so one
unit differing at every timestamp of a window can be reported at several of them while the books pass: counts [N, 0]
against [N-1, 1], event "every report says 1", LPU at w = N = 2 loses 2 ln((e^eps + 1) / 2) = 1.24 eps (per user: eps).
On fd6f15c an online Session accepted counts in this mode and released them, and a run's Release did not say so."""
import itertools, subprocess, sys

import numpy as np
import pytest

from wevent_nb.core import CategoricalAggregate, CategoricalPopulation, list_mechanisms
from wevent_nb import ldp_ids
from wevent_nb.ldp_ids import LPU
from wevent_nb.online import Session, release_stream
from wevent_nb.primitives import fo_probabilities

LDP = list_mechanisms(stream_kind="categorical")
CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]
D, N = 3, 8


@pytest.mark.parametrize("info", LDP, ids=lambda i: i.name)
def test_sessions_refuse_aggregate_mode_at_construction(info, tmp_path):
    for state in (None, tmp_path / "s.db"):
        with pytest.raises(ValueError, match="simulation device.*per-user mode"):
            Session(info.cls(1.0, 2, mode="aggregate"), rng=0, state=state, d=D, N=N)
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("info", LDP, ids=lambda i: i.name)
def test_sessions_refuse_a_count_vector_and_go_on_with_per_user_values(info, tmp_path):
    for state in (None, tmp_path / "s.db"):
        s = Session(info.cls(1.0, 2), rng=0, state=state, d=D, N=N)       # mode="auto": the input decides
        with pytest.raises(ValueError, match="simulation device.*per-user mode"):
            s.step([4, 2, 2])                                              # d counts summing to N: aggregate mode
        assert s.t == 0
        out = s.step(np.arange(N) % D)                                     # the N users' own values: released
        assert out.t == 0 and s.t == 1
        with pytest.raises(ValueError):                                    # the mode is now per user: counts are bad input
            s.step([4, 2, 2])
        s.close()


def test_release_command_refuses_a_categorical_feed(tmp_path):
    src = tmp_path / "in.csv"; src.write_text("4,2,2\n")
    with pytest.raises(ValueError, match="aggregate mode, a simulation device.*per-user values"):
        release_stream("LPU", 1.0, 2, tmp_path / "s.db", input=str(src), output=str(tmp_path / "out.csv"), seed=1)
    r = subprocess.run(CMD + ["release", "LPU", "--eps", "1", "--w", "2", "--state", str(tmp_path / "s.db"), "--input", str(src),
                              "--output", str(tmp_path / "out.csv")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "simulation device" in r.stderr, r.stderr
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("info", LDP, ids=lambda i: i.name)
def test_an_aggregate_run_says_simulation_only_and_still_runs(info):
    g = np.random.default_rng(0)
    pop = CategoricalPopulation(g.integers(0, D, (N, 10)), D)
    agg, pu = info.cls(1.0, 2).run(pop.aggregate(), rng=1), info.cls(1.0, 2).run(pop, rng=1)
    assert agg.private and "simulation only" in agg.guarantee
    assert agg.guarantee.endswith("; " + ldp_ids.AGGREGATE_SIMULATION_ONLY)
    assert pu.guarantee == info.cls(1.0, 2).guarantee and "simulation" not in pu.guarantee
    batch = info.cls(1.0, 2).run_many(pop.aggregate(), 2, rng=1)           # the grids' path: unchanged, checked
    np.testing.assert_array_equal(batch.estimates[0], agg.estimates)


def test_the_exact_loss_of_aggregate_mode_exceeds_eps_and_the_code_realises_it():
    "Counts [2, 0] against [1, 1] at both timestamps, LPU at w = N = 2, event 'every report says 1': enumerated, then tied to the releases."
    eps = 1.0
    p, q = fo_probabilities("grr", eps, 2)
    def event(laws):   # one reporter a timestamp, holding 1 with probability laws[t]
        return sum(np.prod([(a if v else 1 - a) * (p if v else q) for a, v in zip(laws, vs)]) for vs in itertools.product((0, 1), repeat=len(laws)))
    base, agg, per_user = event([0, 0]), event([0.5, 0.5]), p * q
    assert np.log(agg / base) == pytest.approx(2 * np.log((np.e + 1) / 2)) and np.log(agg / base) > 1.2 * eps
    assert np.log(per_user / base) == pytest.approx(eps)
    n = 1500
    for stream, want in ((CategoricalAggregate(np.array([[1, 1], [1, 1]])), agg),
                         (CategoricalPopulation(np.array([[1, 1], [0, 0]]), 2), per_user),
                         (CategoricalAggregate(np.array([[2, 0], [2, 0]])), base)):
        est = LPU(eps, 2).run_many(stream, n, rng=3).estimates
        f = np.mean(np.all(est[:, :, 1] > est[:, :, 0], axis=1))
        assert abs(f - want) < 4 * np.sqrt(want * (1 - want) / n), (type(stream).__name__, f, want)
