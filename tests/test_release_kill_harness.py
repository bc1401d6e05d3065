"""Issue 38's kill harness: real SIGKILLs at random points over six mechanisms of the command's two families (central histograms: BD, Uniform,
FAST, SPAS with exact noise; delayed scalar streams: Discontin_pp, Naive with float noise) on three paths: a file in and a file out (the
uninterrupted run's output, byte for byte), a file in and standard output (equal after de-duplicating by t, no t missing: at least once),
and a pipe on standard input into a file (the producer restarts where the resume says: the uninterrupted run's output, byte for byte)."""
import os, signal, subprocess, sys, time
import numpy as np
import pytest
from wevent_nb.core import get_mechanism
from wevent_nb.online import Session, _format_rows, _header, release_status
from test_release_command import CMD

EPS, W, T, SEED, D = 1.0, 5, 60, 5, 3     # short: each step syncs the state and the output (fsync-bound, ~5-40 ms under load)
MECHS = [("BD", "exact"), ("Uniform", "exact"), ("FAST", "exact"), ("SPAS", "exact"), ("Discontin_pp", "float"), ("Naive", "float")]

def data(mech):
    g = np.random.default_rng(sum(map(ord, mech)))
    kind = get_mechanism(mech, eps=EPS, w=W).stream_kind
    if kind == "histogram":
        X = g.integers(0, 40, (T, D)); return kind, X.astype(float), ["\n".join(",".join(map(str, r)) for r in X)]
    v = np.round(g.random(T) * 10, 6); return kind, v, ["\n".join(f"{x:.6f}" for x in v)]

def reference(mech, noise, kind, X) -> list[str]:
    "The uninterrupted run's rows (header first), from a session without a state file."
    kw = dict(d=D) if kind == "histogram" else dict(lo=0.0, hi=10.0)
    s = Session(get_mechanism(mech, eps=EPS, w=W), rng=SEED, noise=noise, **kw)
    rows = [_header(kind, D)]
    for x in X: rows += _format_rows(kind, s.step(x))
    return rows

def argv(tmp, mech, noise, kind, inp, out):
    a = ["release", mech, "--eps", str(EPS), "--w", str(W), "--state", str(tmp / "s.state"), "--input", inp, "--output", out,
         "--seed", str(SEED), "--noise", noise]
    return a + (["--lo", "0", "--hi", "10"] if kind == "scalar" else [])

def count(path):
    try: return path.read_bytes().count(b"\n")
    except FileNotFoundError: return 0

def next_t(tmp):
    return release_status(tmp / "s.state")["next_t"] if (tmp / "s.state").exists() else 0

def run(tmp, a, watch, at, lines=None, sink=None):
    "One process; SIGKILLed once `watch` holds `at` lines (None: let it finish). `lines`: fed on a pipe from the stream's next t."
    r = w = None
    if lines is not None: r, w = os.pipe()
    p = subprocess.Popen(CMD + a, stdin=r, stdout=sink or subprocess.DEVNULL, stderr=subprocess.PIPE)
    if lines is not None:
        os.close(r); os.write(w, "".join(l + "\n" for l in lines[next_t(tmp):]).encode())
        if at is None: os.close(w); w = None
    if at is not None:
        while count(watch) < at and p.poll() is None: time.sleep(0.001)
        p.send_signal(signal.SIGKILL)
    err = p.communicate(timeout=120)[1]
    if w is not None: os.close(w)
    if at is None: assert p.returncode == 0, err.decode()
    return p.returncode

@pytest.mark.parametrize("mech, noise", MECHS)
def test_kill_harness(tmp_path, mech, noise):
    kind, X, (text,) = data(mech)
    lines = text.split("\n")
    (tmp_path / "in.csv").write_text(text + "\n")
    want = reference(mech, noise, kind, X)
    kills = np.random.default_rng(len(mech)).integers(6, T - 10, 3)
    for path, k in zip(("file", "stdout", "fifo"), kills):
        tmp = tmp_path / path; tmp.mkdir()
        out = tmp / "out.csv"
        a = argv(tmp, mech, noise, kind, "-" if path == "fifo" else str(tmp_path / "in.csv"), "-" if path == "stdout" else str(out))
        feed = lines if path == "fifo" else None
        with open(tmp / "stdout.csv", "ab") as sink:
            killed = sum(run(tmp, a, tmp / "stdout.csv" if path == "stdout" else out, int(at), feed, sink) == -signal.SIGKILL for at in [k])
            run(tmp, a, None, None, feed, sink)
        assert killed >= 1, path
        if path == "stdout":
            rows = {}
            for r in (tmp / "stdout.csv").read_text().splitlines():
                assert rows.setdefault(int(r.split(",")[0]), r) == r          # a repeated t repeats its row exactly
            assert sorted(rows) == list(range(len(want) - 1)) and [rows[t] for t in sorted(rows)] == want[1:], path
        else:
            assert out.read_text() == "\n".join(want) + "\n", path
