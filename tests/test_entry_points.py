"""Issue 36, part 1: one exact-noise guard that every public entry point crosses (nbs/00_core.ipynb, "Private by default" rule 4).

Exact (discrete) noise is private only on the integer lattice a mechanism's notebook derives (`exact_noise`). On fd6f15c
`run()`, `run_many(check=True)` and `online.Session` refused it, but `start()`/`step()` of the central and delay families
and `run_many(check=False)` did not: `Naive` and `RescueDP1D` started with an ExactLaplace generator released values on a
lattice that a +1 change moves (Naive: an output event in 400/400 runs on one stream, 0/400 on its neighbour). Here every
registered mechanism, every entry point and a user's own subclass are driven with a generator they may not use; the
refusal must come before the first draw (a recording generator shows no draw and an untouched bit generator)."""
import subprocess, sys, textwrap

import numpy as np
import pytest

from wevent_nb.contract import check_mechanism, load_mechanism
from wevent_nb.core import (CategoricalPopulation, HistogramStream, NoiseRecorder, NumericPopulation, PersonalizedPopulation,
                            ScalarStream, list_mechanisms)
from wevent_nb.online import Session, release_stream
from wevent_nb.primitives import ExactLaplace

MECHS = list_mechanisms()
FLOAT_ONLY = [i for i in MECHS if not i.cls.exact_noise]
EXACT = [i for i in MECHS if i.cls.exact_noise]
T, D, N, EPS, W = 12, 3, 12, 1.0, 4
REFUSED = "no exact-noise form"
CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]


def stream_of(kind, seed=0):
    "A small stream of `kind`, and the keyword arguments its mechanisms' start takes besides T and rng."
    g = np.random.default_rng(seed)
    if kind == "histogram": return HistogramStream(g.integers(0, 40, (T, D)).astype(float)), dict(d=D)
    if kind == "categorical": return CategoricalPopulation(g.integers(0, D, (N, T)), D), dict(d=D, N=N)
    if kind == "numeric": return NumericPopulation(g.random((N, T))), dict(N=N)
    if kind == "personalized":
        e, w = np.full(N, EPS), np.full(N, W)
        return PersonalizedPopulation(g.integers(0, D, (N, T)), D, e, w), dict(d=D, eps_i=e, w_i=w)
    if kind == "scalar": return ScalarStream(g.random(T), 0.0, 1.0), dict(lo=0.0, hi=1.0)
    raise ValueError(kind)


def recording():
    "An ExactLaplace over a NoiseRecorder (they share one bit generator), and a test that nothing was drawn from it."
    rec = NoiseRecorder(11)
    state = rec.bit_generator.state
    return ExactLaplace(rec), lambda: rec.draws == [] and rec.bit_generator.state == state


def entry_points(info):
    "Every way to start a run of `info`'s mechanism with a generator g: name -> call(g)."
    s, kw = stream_of(info.stream_kind)
    m = lambda: info.cls(eps=EPS, w=W)
    return {"run": lambda g: m().run(s, rng=g),
            "run(check=False)": lambda g: m().run(s, rng=g, check=False),
            "run_many(check=True)": lambda g: m().run_many(s, 2, rng=g),
            "run_many(check=False)": lambda g: m().run_many(s, 2, rng=g, check=False),
            "start(T)/step": lambda g: m().start(T, rng=g, **kw),
            "start(None)/step": lambda g: m().start(None, rng=g, **kw)}


# ---------------------------------------------------------------- every registered mechanism without an exact form refuses, everywhere
@pytest.mark.parametrize("info", FLOAT_ONLY, ids=lambda i: i.name)
def test_every_entry_point_refuses_exact_noise_before_the_first_draw(info):
    for name, call in entry_points(info).items():
        g, untouched = recording()
        with pytest.raises(ValueError, match=REFUSED):
            call(g)
        assert untouched(), f"{info.name} {name}: drew before refusing"


@pytest.mark.parametrize("info", FLOAT_ONLY, ids=lambda i: i.name)
def test_sessions_refuse_exact_noise_before_the_first_draw_and_before_a_state_file(info, tmp_path):
    _, kw = stream_of(info.stream_kind)
    for state in (None, tmp_path / "s.db"):
        g, untouched = recording()
        with pytest.raises(ValueError, match=REFUSED):                 # noise="exact" wraps the session's generator
            Session(info.cls(eps=EPS, w=W), rng=g, state=state, noise="exact", **kw)
        with pytest.raises(ValueError, match=REFUSED):                 # an exact generator handed in directly
            Session(info.cls(eps=EPS, w=W), rng=ExactLaplace(g), state=state, **kw)
        assert untouched() and not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("info", EXACT, ids=lambda i: i.name)
def test_mechanisms_with_an_exact_form_still_take_it_and_refuse_counts_off_its_lattice(info, tmp_path):
    s, kw = stream_of(info.stream_kind)
    for name, call in entry_points(info).items():
        call(ExactLaplace(3))
    Session(info.cls(eps=EPS, w=W), rng=3, state=tmp_path / "s.db", noise="exact", **kw).step(s.counts[0])
    off = HistogramStream(s.counts + 0.5)
    for call in (lambda g: info.cls(eps=EPS, w=W).run(off, rng=g, check=False),
                 lambda g: info.cls(eps=EPS, w=W).run_many(off, 2, rng=g, check=False)):
        g, untouched = recording()
        with pytest.raises(ValueError, match="integer counts"):
            call(g)
        assert untouched()


# ---------------------------------------------------------------- the measured case: step-wise Naive and RescueDP1D
@pytest.mark.parametrize("name", ["Naive", "RescueDP1D"])
def test_step_wise_naive_and_rescuedp1d_refuse_exact_noise(name):
    "On fd6f15c start() took the ExactLaplace generator and step() released on a lattice a +1 change moves; now start refuses."
    info = next(i for i in MECHS if i.name == name)
    _, kw = stream_of(info.stream_kind)
    g, untouched = recording()
    with pytest.raises(ValueError, match=REFUSED):
        info.cls(eps=EPS, w=W).start(T, rng=g, **kw)
    assert untouched()


def test_why_the_guard_matters_naive_on_the_lattice():
    "Naive forced to take exact noise (a subclass that claims an exact form it does not have): its outputs sit on x's lattice, so one release tells x from x + 0.5 (the leak the guard refuses)."
    naive = next(i for i in MECHS if i.name == "Naive").cls
    Liar = type("Liar", (naive,), {"exact_noise": True})
    def outputs(x):
        s = ScalarStream(np.full(T, x), 0.0, 1.0)
        return np.concatenate([Liar(eps=EPS, w=W).run(s, rng=ExactLaplace(r)).estimates for r in range(20)])
    frac = lambda v: np.round(np.mod(v, 1.0), 9)
    a, b = frac(outputs(0.25)), frac(outputs(0.75))
    assert not np.intersect1d(a, b).size, "the output lattices overlap: the leak this guard prevents is gone"


# ---------------------------------------------------------------- the release command, as a function and as a command
@pytest.mark.parametrize("name,extra", [("RescueDP", {}), ("Naive", dict(lo=0.0, hi=1.0))])
def test_release_stream_refuses_exact_noise(name, extra, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("\n".join("3,4,5" if not extra else "0.5" for _ in range(4)) + "\n")
    with pytest.raises(ValueError, match=REFUSED):
        release_stream(name, EPS, W, tmp_path / "s.db", input=str(src), output=str(tmp_path / "out.csv"), seed=1, **extra)
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("name,extra", [("RescueDP", []), ("Naive", ["--lo", "0", "--hi", "1"])])
def test_release_command_refuses_exact_noise(name, extra, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("\n".join("3,4,5" if not extra else "0.5" for _ in range(4)) + "\n")
    r = subprocess.run(CMD + ["release", name, "--eps", "1", "--w", "4", "--state", str(tmp_path / "s.db"), "--input", str(src),
                              "--output", str(tmp_path / "out.csv"), *extra], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and REFUSED in r.stderr, r.stderr
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "out.csv").exists()


# ---------------------------------------------------------------- a user's own mechanism has the guard without asking
USER = textwrap.dedent('''
    from wevent_nb.baselines import CentralBaseline

    class FloatOnly(CentralBaseline):
        "Uniform written by a user, who says nothing about exact noise (exact_noise=False)."
        name, paper, summary = "FloatOnly (test)", "tests/test_entry_points.py", "eps/w every timestamp"
        noise_roles = {"_step": ("release", 1.0)}
        def _step(self, x):
            self._spend(self.eps / self.w)
            return x + self._rng.laplace(0.0, self.w / self.eps, self._d), True
''')


def test_a_user_subclass_refuses_exact_noise_at_every_entry_point(tmp_path):
    (tmp_path / "mine.py").write_text(USER)
    cls = load_mechanism(f"{tmp_path / 'mine.py'}:FloatOnly")
    assert cls.exact_noise is False
    info = type("Info", (), dict(cls=cls, name=cls.name, stream_kind="histogram"))
    for name, call in entry_points(info).items():
        g, untouched = recording()
        with pytest.raises(ValueError, match=REFUSED):
            call(g)
        assert untouched(), name
    g, untouched = recording()
    with pytest.raises(ValueError, match=REFUSED):
        Session(cls(eps=EPS, w=W), rng=g, noise="exact", d=D)
    assert untouched()
    df = check_mechanism(cls(eps=EPS, w=W), runs=50)                 # float noise: the contract's checks pass
    assert df.attrs["passed"], df
    with pytest.raises(ValueError, match=REFUSED):                    # its noise check under exact noise meets the guard at start
        from wevent_nb.core import check_noise_ledger
        check_noise_ledger(cls(eps=EPS, w=W), stream_of("histogram")[0], noise="exact")
