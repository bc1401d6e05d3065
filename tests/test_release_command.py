"The release command: killed with SIGKILL and resumed, it writes exactly an uninterrupted run's output; bad lines and wrong states are clear errors."
import os, signal, subprocess, sys, time
from pathlib import Path
import numpy as np
import pytest
from wevent_nb.cli import main
from wevent_nb.core import get_mechanism
from wevent_nb.online import Session, _format_rows

MECH, EPS, W, D, SEED = "BD", 1.0, 10, 4, 11
CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]

def feed(path, T, seed=0):
    X = np.random.default_rng(seed).integers(0, 50, (T, D))
    path.write_text("\n".join(",".join(map(str, r)) for r in X) + "\n")
    return X.astype(float)

def reference(X, mech=MECH, seed=SEED):
    "The uninterrupted run's file: a session without a state file, the same seed, the command's format."
    s = Session(get_mechanism(mech, eps=EPS, w=W), rng=seed, noise="exact", d=X.shape[1])   # exact noise: the command's default
    rows = ["t,published," + ",".join(f"count_{k}" for k in range(X.shape[1]))]
    for x in X: rows += _format_rows("histogram", s.step(x))
    return "\n".join(rows) + "\n"

def args(tmp, *extra):
    return ["release", MECH, "--eps", str(EPS), "--w", str(W), "--state", str(tmp / "s.state"),
            "--input", str(tmp / "in.csv"), "--output", str(tmp / "out.csv"), "--seed", str(SEED), *extra]

def rows_written(path):
    try: return path.read_bytes().count(b"\n") - 1
    except FileNotFoundError: return 0

def test_killed_at_random_points_and_resumed_writes_the_uninterrupted_output(tmp_path):
    T = 10_000
    X = feed(tmp_path / "in.csv", T)
    kills = np.sort(np.random.default_rng(5).choice(np.arange(200, T - 200), size=6, replace=False))
    killed = 0
    for k in kills:
        p = subprocess.Popen(CMD + args(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while rows_written(tmp_path / "out.csv") < k and p.poll() is None: time.sleep(0.002)
        if p.poll() is None: p.send_signal(signal.SIGKILL); killed += 1
        p.wait()
    assert killed >= 5
    done = subprocess.run(CMD + args(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "(resumed)" in done.stderr
    assert (tmp_path / "out.csv").read_text() == reference(X)
    s = Session.resume(tmp_path / "s.state", rng=SEED)                    # a seeded stream: resumed with its seed
    assert s.t == T and float(s.mech.books.window_spent()[0]) <= EPS * (1 + 1e-9)   # the books pass at the end
    s.close()

def test_bad_line_is_reported_and_skipped(tmp_path, capsys):
    X = feed(tmp_path / "in.csv", 30)
    lines = (tmp_path / "in.csv").read_text().splitlines()
    bad = ["1,2,3", "1,2,nan,4", "1,-2,3,4", "a,b,c,d"]
    (tmp_path / "in.csv").write_text("\n".join(lines[:10] + bad + lines[10:]) + "\n")
    assert main(args(tmp_path)) == 1
    err = capsys.readouterr().err
    for n, what in zip(range(11, 15), ["d=4", "nan", ">= 0", "not a comma-separated list"]):
        assert f"line {n}" in err and what in err.split(f"line {n}")[1].split("\n")[0], err
    assert (tmp_path / "out.csv").read_text() == reference(X)     # the bad lines changed nothing

def test_other_parameters_are_refused(tmp_path, capsys):
    feed(tmp_path / "in.csv", 20)
    assert main(args(tmp_path)) == 0
    a = args(tmp_path); a[a.index("--eps") + 1] = "2.0"
    assert main(a) == 1                                      # a state that disagrees: a failure at run time, not a usage error
    assert "holds another stream" in capsys.readouterr().err
    a = args(tmp_path); a[1] = "Uniform"
    assert main(a) == 1

def test_output_of_another_stream_is_refused(tmp_path, capsys):
    feed(tmp_path / "in.csv", 20)
    (tmp_path / "out.csv").write_text("t,published,count_0,count_1,count_2,count_3\n0,1,1,2,3,4\n")
    assert main(args(tmp_path)) == 1
    assert "not this stream's output" in capsys.readouterr().err

@pytest.mark.parametrize("extra, msg, code", [(["--input", "/no/such.csv"], "No such file", 1),           # 1: the files disagree
                                              (["--state", "/no/such/dir/s.state"], "does not exist", 1),
                                              (["-p", "threshold", "nope"], "threshold", 2)])           # 2: the command line is wrong
def test_clear_errors(tmp_path, capsys, extra, msg, code):
    feed(tmp_path / "in.csv", 5)
    a = args(tmp_path)
    for i in range(0, len(extra), 3 if extra[0] == "-p" else 2):
        if extra[0] == "-p": a += extra
        else: a[a.index(extra[0]) + 1] = extra[1]
    assert main(a) == code
    assert msg in capsys.readouterr().err

def test_bad_flag_and_unknown_mechanism(tmp_path, capsys):
    with pytest.raises(SystemExit) as e: main(["release", "BD", "--eps", "x", "--w", "3", "--state", "s"])
    assert e.value.code == 2
    a = args(tmp_path); a[1] = "NoSuchMechanism"
    feed(tmp_path / "in.csv", 5)
    assert main(a) == 2 and "no mechanism named" in capsys.readouterr().err

def test_scalar_stream_released_after_its_delay_and_resumed(tmp_path, capsys):
    "An event-level scalar stream (the delay family, float noise: no exact form on real values): rows 't,value' as each batch closes."
    v = np.random.default_rng(2).random(40) * 10
    (tmp_path / "in.csv").write_text("\n".join(f"{x:.6f}" for x in v[:23]) + "\n")
    a = ["release", "Discontin_pp", "--eps", "1", "--w", "5", "--state", str(tmp_path / "s.state"), "--input", str(tmp_path / "in.csv"),
         "--output", str(tmp_path / "out.csv"), "--seed", "3", "--lo", "0", "--hi", "10"]
    assert main(a) == 2 and "no exact-noise form" in capsys.readouterr().err
    assert main(a + ["--noise", "float"]) == 0
    (tmp_path / "in.csv").write_text("\n".join(f"{x:.6f}" for x in v) + "\n")
    assert main(a + ["--noise", "float"]) == 0                        # resumed: the same command, a longer file
    rows = (tmp_path / "out.csv").read_text().splitlines()
    assert rows[0] == "t,value" and [int(r.split(",")[0]) for r in rows[1:]] == list(range(40))
    s = Session(get_mechanism("Discontin_pp", eps=1.0, w=5), rng=3, d=1, lo=0.0, hi=10.0)
    want = {}
    for x in np.array([float(f"{x:.6f}") for x in v]):
        ts, vals = s.step(x).release; want.update(zip(ts.tolist(), vals.tolist()))
    assert [float(r.split(",")[1]) for r in rows[1:]] == [want[t] for t in range(40)]
    assert main(a[:-4] + ["--noise", "float"]) == 2                   # no --lo/--hi
