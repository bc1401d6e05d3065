"Issue 36, part 4: the exact-noise forms keep their integer statistic exactly representable (|S| <= EXACT_MAX = 2^52), and refuse counts beyond it on every path."
import subprocess, sys
import numpy as np
import pytest
from wevent_nb.core import EXACT_MAX, HistogramStream, exact_bound, get_mechanism
from wevent_nb.online import Session, release_stream
from wevent_nb.primitives import ExactLaplace

CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]
EXACT = ("Uniform", "Sample", "BD", "BA", "FAST", "DSAT", "BD-grouping", "SPAS")

def test_bd_counts_near_2_53_are_refused():
    "(a) The old code ran BD exactly on counts 2^52 (d = 2): its d * dis = 2^53 + 1 rounds to 2^53, so +1 changes moved it by 0 or 2."
    a, b = float(2**52 + 1) + 2**52, float(2**52 + 2) + 2**52      # the float sum the old kernel formed for two neighbours
    assert b - a == 2                                               # a +1 change moved the statistic by 2 (loss 2 e1 where e1 is booked)
    s = HistogramStream(np.array([[2.0**52 + 1, 2.0**52], [5.0, 5.0]]))
    with pytest.raises(ValueError, match=r"counts at t=0, bin 0 is 4503599627370497\.0.*at most 1125899906842624 = EXACT_MAX // 4"):
        get_mechanism("BD", eps=1.0, w=5).run(s, rng=ExactLaplace(1))
    with pytest.raises(ValueError, match="EXACT_MAX"):
        get_mechanism("BA", eps=1.0, w=5).run_many(s, 2, rng=ExactLaplace(1))

def test_bd_at_the_bound_is_exact():
    "At the bound a +1 change moves d * dis by exactly 1 (same noise): the statistic the derivation prices."
    d = 2
    m = exact_bound("change_sum", d)
    assert m == EXACT_MAX // (2 * d)
    x = np.array([[m, m - 1], [m, m]], float)
    y = x.copy(); y[0, 1] += 1                                       # the neighbour: one count up by one, still within the bound
    dis = [get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(z), rng=ExactLaplace(7)).info["dis"][0] * d for z in (x, y)]
    assert dis[1] - dis[0] == 1
    with pytest.raises(ValueError, match="EXACT_MAX"):                # one past it: refused
        get_mechanism("BD", eps=1.0, w=5).run(HistogramStream(y + 1), rng=ExactLaplace(7))

def test_uniform_on_1e300_is_refused():
    "(b) Uniform with exact noise on counts 1e300 released the input unchanged (the noise lost): now refused, in run and run_many."
    s = HistogramStream(np.array([[3.0, 4.0], [1e300, 2.0]]))
    for call in (lambda m: m.run(s, rng=ExactLaplace(3)), lambda m: m.run_many(s, 2, rng=ExactLaplace(3))):
        with pytest.raises(ValueError, match=r"counts at t=1, bin 0 is 1e\+300, outside the exact range.*at most 4503599627370496"):
            call(get_mechanism("Uniform", eps=1.0, w=5))
    rel = get_mechanism("Uniform", eps=1.0, w=5).run(s, rng=np.random.default_rng(3))   # float noise: no lattice, no bound (a simulation)
    assert rel.estimates.shape == (2, 2)

@pytest.mark.parametrize("name", EXACT)
def test_every_exact_form_refuses_step_wise(name):
    "(c) start/step, batch and online: the bad row is refused with its timestamp, before anything changes, and the run goes on."
    big = exact_bound(get_mechanism(name, eps=1.0, w=5).exact_statistic, 3) + 1
    for T in (None, 4):
        m = get_mechanism(name, eps=1.0, w=5).start(T, 3, rng=ExactLaplace(2))
        m.step(np.array([4.0, 5.0, 6.0]))
        with pytest.raises(ValueError, match=rf"x at t=1, bin 2 is {float(big)!r}.*EXACT_MAX"):
            m.step(np.array([1.0, 2.0, big]))
        m.step(np.array([4.0, 5.0, 7.0]))                            # the refused row changed nothing
        assert m._t == 2
    with pytest.raises(ValueError, match="EXACT_MAX"):
        get_mechanism(name, eps=1.0, w=5).run(HistogramStream(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 1e300]])), rng=ExactLaplace(2))

def test_session_refuses_and_continues(tmp_path):
    "(c) An online Session with exact noise refuses the row (state unchanged) and releases the next one."
    s = Session(get_mechanism("BD", eps=1.0, w=5), rng=4, state=tmp_path / "s.state", noise="exact", d=2)
    s.step([3.0, 4.0])
    with pytest.raises(ValueError, match=r"x at t=1, bin 1 is 1e\+300.*EXACT_MAX"):
        s.step([3.0, 1e300])
    assert s.t == 1
    s.step([3.0, 5.0]); assert s.t == 2
    s.close()

def test_release_stream_refuses(tmp_path):
    "(c) online.release_stream: the bad lines are reported and skipped, nothing of them released."
    (tmp_path / "in.csv").write_text("1e300,2\n4503599627370497,2\n")
    err = tmp_path / "err.txt"
    with open(err, "w") as fh:
        res = release_stream("Uniform", 1.0, 5, tmp_path / "s.state", input=str(tmp_path / "in.csv"), output=str(tmp_path / "out.csv"), seed=1, err=fh)
    assert res["released"] == 0 and res["bad"] == 2
    text = err.read_text()
    assert "line 1: x at t=0, bin 0 is 1e+300" in text and "line 2: x at t=0, bin 0 is 4503599627370497.0" in text and sum("EXACT_MAX" in l for l in text.splitlines()) == 2
    assert (tmp_path / "out.csv").read_text().count("\n") <= 1          # a header at most: no release

def test_release_command_refuses(tmp_path):
    "(c) `wevent-nb release BD` (exact noise by default) on a line past the bound: one clear message, exit 1 (bad input lines), nothing released."
    (tmp_path / "in.csv").write_text("1125899906842625,0\n")
    done = subprocess.run(CMD + ["release", "BD", "--eps", "1", "--w", "5", "--state", str(tmp_path / "s.state"), "--input",
                                 str(tmp_path / "in.csv"), "--output", str(tmp_path / "out.csv"), "--seed", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    msgs = [l for l in done.stderr.splitlines() if "EXACT_MAX" in l]
    assert len(msgs) == 1 and "line 1: x at t=0, bin 0 is 1125899906842625.0" in msgs[0] and "at most 1125899906842624" in msgs[0], done.stderr
    assert "0 timestamp(s) released" in done.stderr
    out = tmp_path / "out.csv"
    assert not out.exists() or out.read_text().count("\n") <= 1

def test_exact_sampler_refuses_a_centre_off_the_range():
    "The exact sampler: a centre beyond EXACT_MAX is refused before any bit is drawn (the old one returned 1e300 + K = 1e300)."
    g, h = ExactLaplace(5), ExactLaplace(5)
    with pytest.raises(ValueError, match=r"loc=1e\+300 is outside the exact range"):
        g.laplace(1e300, 2.0)
    with pytest.raises(ValueError, match="EXACT_MAX"):
        g.laplace(np.array([0.0, 2.0**53]), 2.0)
    assert g.laplace(float(EXACT_MAX), 2.0) == h.laplace(float(EXACT_MAX), 2.0)    # the refusals drew nothing; the bound itself is taken
