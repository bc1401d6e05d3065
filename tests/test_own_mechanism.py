"""A mechanism of your own, end to end (issue 25, nbs/31_your_mechanism.ipynb): a class in a file outside the package is
checked three ways by `wevent-nb check` and ranked beside the shipped methods by `wevent-nb bench --mechanism`, in worker
processes that load the file themselves."""
import re, sqlite3, subprocess, sys, textwrap

import pytest

from wevent_nb import benchmark as B
from wevent_nb.cli import main
from wevent_nb.contract import MechanismRef, check_mechanism, load_mechanism, mechanism_entry

CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]

EVERY_K = textwrap.dedent('''
    import math
    from wevent_nb.baselines import CentralBaseline
    from wevent_nb.core import check_int
    from wevent_nb.ledger import allot_share

    class EveryK(CentralBaseline):
        "Publish every k-th timestamp with eps / ceil(w/k); repeat the last release in between."
        name, paper, summary = "EveryK (test)", "tests/test_own_mechanism.py", "eps/ceil(w/k) every k-th timestamp"
        diagnostics = ("eps_pub",)
        noise_roles = {"_step": ("release", 1.0)}
        noise_share = 1.0

        def __init__(self, eps, w, k=2):
            super().__init__(eps, w)
            self.k = check_int(k, "k", minimum=1)

        @property
        def params(self): return {**super().params, "k": self.k}

        def _init(self): self.eps_k = allot_share(self.eps / math.ceil(self.w / self.k), "eps/ceil(w/k)")   # whole quanta of the books

        def _step(self, x):
            if self._t % self.k: return self._last, False
            self._spend(self.eps_k, "eps_pub")
            return x + self._rng.laplace(0.0, self.noise_share / self.eps_k, self._d), True

    class HalfNoise(EveryK):
        "Deliberately wrong: draws half the noise it books."
        noise_share = 0.5

    NOT_A_MECHANISM = 3
''')


@pytest.fixture
def user_file(tmp_path):
    "The user's mechanism file, in a folder of its own outside the package."
    p = tmp_path / "mine" / "every_k.py"
    p.parent.mkdir()
    p.write_text(EVERY_K)
    return p


def cli(*args, cwd=None, timeout=120):
    return subprocess.run(CMD + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def test_check_command_passes_a_good_mechanism_and_fails_a_broken_one(user_file, tmp_path):
    r = cli("check", f"{user_file}:EveryK", "-p", "k", "2", "--runs", "200", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("EveryK(eps=1.0, w=3, k=2)") and lines[1].split() == ["check", "verdict", "detail"]
    assert [l.split()[:2] for l in lines[2:6]] == [["books", "pass"], ["noise", "pass"], ["audit", "pass"], ["branches", "pass"]]
    assert lines[-1].startswith("verdict: pass")
    r = cli("check", f"{user_file}:HalfNoise", cwd=tmp_path)                  # the auditor's default 500 runs: bound 1.28 > 1
    assert r.returncode == 1, r.stderr
    assert re.search(r"^noise +FAIL +NoiseNotBooked", r.stdout, re.M) and "verdict: FAIL (noise, audit)" in r.stdout


def test_check_command_refuses_a_missing_file_in_one_line(user_file):
    r = cli("check", f"{user_file.parent}/missing.py:EveryK")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "no such file" in r.stderr, r.stderr


@pytest.mark.parametrize("spec, params, says", [
    ("{file}:Nope", [], "no such class in"),
    ("{file}:NOT_A_MECHANISM", [], "NOT_A_MECHANISM is a int, not a Mechanism subclass"),
    ("no_such_module_xyz:EveryK", [], "no module named 'no_such_module_xyz'"),
    ("NoSuchRegisteredName", [], "not a registered name"),
    ("{file}:EveryK", ["-p", "k", "0"], "k=0 is not allowed"),
    ("{file}:EveryK", ["-p", "kk", "2"], "takes no parameter 'kk'"),
    ("{file}:EveryK", ["--eps", "-1"], "eps=-1.0 is not allowed"),
])
def test_check_command_refuses_bad_specs_with_exit_2(user_file, spec, params, says, capsys):
    assert main(["check", spec.format(file=user_file), *params]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err


def test_check_mechanism_and_the_spec_round_trip(user_file):
    cls = load_mechanism(f"{user_file}:EveryK")
    assert load_mechanism(f"{user_file}:EveryK") is cls                       # loaded once a process
    from wevent_nb.baselines import Uniform
    assert load_mechanism("wevent_nb.baselines:Uniform") is Uniform is load_mechanism("uniform")   # a module's class, a registered name
    ok = check_mechanism(f"{user_file}:EveryK", {"k": 3}, runs=100)
    assert ok.attrs["passed"] and list(ok.verdict) == ["pass"] * 4
    bad = check_mechanism(load_mechanism(f"{user_file}:HalfNoise")(1.0, 3))
    assert not bad.attrs["passed"] and list(bad.verdict) == ["pass", "FAIL", "FAIL", "pass"]
    label, ref, params = mechanism_entry(f"{user_file}:EveryK:k=3")
    assert (label, params, ref.stream_kind, B.family_of(ref)) == ("EveryK (test)(k=3)", {"k": 3}, "histogram", "central")
    assert isinstance(ref, MechanismRef) and type(ref(eps=1.0, w=10, k=3)) is cls


def test_a_class_loaded_from_a_file_pickles_by_value(user_file, tmp_path):
    "What `benchmark_grids(mechanisms=[cls])` sends to worker processes: a process that never saw the file rebuilds and runs the class."
    import cloudpickle
    (tmp_path / "cls.pkl").write_bytes(cloudpickle.dumps(load_mechanism(f"{user_file}:EveryK")))
    code = ("import pickle, sys; from wevent_nb.core import HistogramStream; cls = pickle.load(open(sys.argv[1], 'rb')); "
            "print(cls(1.0, 4, k=2).run(HistogramStream([[1.0]] * 8), rng=0).published.sum())")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "cls.pkl")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "4", r.stderr


def test_bench_command_ranks_a_user_mechanism_in_two_workers(user_file, data_home, tmp_path):
    store = tmp_path / "bench.sqlite"
    r = cli("bench", "--family", "central", "--dataset", "spas-otp", "--mechanism", f"{user_file}:EveryK:k=3",
            "--store", store, "--workers", 2, "--quiet", "--data-home", data_home, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 local process(es)" in r.stdout
    assert "EveryK (test)(k=3) on central/spas-otp: place " in r.stdout         # the ranking names it, with its place
    con = sqlite3.connect(store)
    mine = con.execute("SELECT count(*), sum(ledger_ok) FROM cells WHERE mechanism = 'EveryK (test)(k=3)'").fetchone()
    con.close()
    assert mine[0] == mine[1] == 10                                  # every cell of it (5 points x 2 seeds) ran in the workers, books passed


def test_bench_command_refuses_what_its_families_cannot_take(user_file, data_home, tmp_path, capsys):
    base = ["bench", "--store", str(tmp_path / "s.sqlite"), "--quiet", "--data-home", str(data_home)]
    for extra, says in [(["--family", "event", "--mechanism", f"{user_file}:EveryK"], "which families=['event'] leaves out"),
                        (["--mechanism", f"{user_file}:EveryK:k=0"], "k=0 is not allowed"),
                        (["--mechanism", f"{user_file}:EveryK:k"], "'k' is not a parameter: write name=value"),
                        (["--mechanism", f"{user_file}:Nope"], "no such class"),
                        (["--family", "central", "--dataset", "no-such-set"], "'no-such-set' not among")]:
        assert main(base + extra) == 2, extra
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, (extra, err)
