"""Issue 38's kill harness: real SIGKILLs at random points over six mechanisms of the command's two families (central histograms: BD, Uniform,
FAST, SPAS with exact noise; delayed scalar streams: Discontin_pp, Naive with float noise) on three paths: a file in and a file out (the
uninterrupted run's output, byte for byte), a file in and standard output (equal after de-duplicating by t, no t missing: at least once),
and a pipe on standard input into a file (the producer restarts where the resume says: the uninterrupted run's output, byte for byte).
With --journal (BD exact, Discontin_pp float): the same three paths, and real SIGKILLs placed around the journal's append (after the state
is written and before the journal, in the middle of the journal's record, after the journal and before the output): every resume
recovers (the journal caught up, a torn record set aside), the output is the uninterrupted run's and the journal ends at its last t.
Then kills at the two points of a state write that random kills rarely hit: mid-append of a step record (half of it on disk) and between a
checkpoint's synced temporary and its rename."""
import os, signal, subprocess, sys, time
import numpy as np
import pytest
from wevent_nb.core import get_mechanism
from wevent_nb.online import Session, _format_rows, _header, _scan_journal, _state_key, _unpack_state, release_status
from test_release_command import CMD

EPS, W, T, SEED, D = 1.0, 5, 60, 5, 3     # short: each step syncs the state and the output (fsync-bound, ~5-40 ms under load)
JOURNALED = [("BD", "exact"), ("Discontin_pp", "float")]   # two families with --journal
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

def argv(tmp, mech, noise, kind, inp, out, journal=False):
    a = ["release", mech, "--eps", str(EPS), "--w", str(W), "--state", str(tmp / "s.state"), "--input", inp, "--output", out,
         "--seed", str(SEED), "--noise", noise]
    return a + (["--lo", "0", "--hi", "10"] if kind == "scalar" else []) + (["--journal", str(tmp / "j")] if journal else [])

def journal_of(tmp) -> dict:
    "The journal's records, checked (signatures, chain, order): its last t and the torn bytes at its end."
    return _scan_journal((tmp / "j").read_bytes(), _state_key()[0], "'j'")

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
    harness(tmp_path, mech, noise, journal=False)

@pytest.mark.parametrize("mech, noise", JOURNALED)
def test_kill_harness_with_a_journal(tmp_path, mech, noise):
    harness(tmp_path, mech, noise, journal=True)

def harness(tmp_path, mech, noise, journal):
    kind, X, (text,) = data(mech)
    lines = text.split("\n")
    (tmp_path / "in.csv").write_text(text + "\n")
    want = reference(mech, noise, kind, X)
    kills = np.random.default_rng(len(mech)).integers(6, T - 10, 3)
    for path, k in zip(("file", "stdout", "fifo"), kills):
        tmp = tmp_path / path; tmp.mkdir()
        out = tmp / "out.csv"
        a = argv(tmp, mech, noise, kind, "-" if path == "fifo" else str(tmp_path / "in.csv"), "-" if path == "stdout" else str(out), journal)
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
        if journal: v = journal_of(tmp); assert v["t"] == T - 1 and v["tail"] == b"", (path, v["t"])

KILL_MID_WRITE = """
import os, signal, sys
from wevent_nb.cli import main
where, at, n = os.environ["KILL_WHERE"], int(os.environ["KILL_AT"]), [0]
real_pwrite, real_replace = os.pwrite, os.replace
def pwrite(fd, data, offset):
    if where == "append" and os.readlink(f"/proc/self/fd/{fd}").endswith("/s.state"):
        n[0] += 1
        if n[0] == at:
            real_pwrite(fd, bytes(data[:len(data) // 2]), offset); os.fsync(fd)   # half of the step's record is on disk
            os.kill(os.getpid(), signal.SIGKILL)
    return real_pwrite(fd, data, offset)
def replace(a, b):
    if where == "checkpoint" and str(b).endswith("/s.state"):
        n[0] += 1
        if n[0] == at: os.kill(os.getpid(), signal.SIGKILL)        # the checkpoint written and synced beside the state, not renamed over it
    return real_replace(a, b)
os.pwrite, os.replace = pwrite, replace
sys.exit(main(sys.argv[1:]))
"""

@pytest.mark.parametrize("mech, noise", [MECHS[0], MECHS[1], MECHS[4]])
@pytest.mark.parametrize("path", ["file", "stdout"])
def test_kills_mid_append_and_mid_checkpoint(tmp_path, mech, noise, path):
    "SIGKILL with half a step record appended (twice) and with a checkpoint not yet renamed: the output is the uninterrupted run's (stdout: once de-duplicated by t)."
    kind, X, (text,) = data(mech)
    (tmp_path / "in.csv").write_text(text + "\n")
    want = reference(mech, noise, kind, X)
    out = tmp_path / "out.csv"
    a = argv(tmp_path, mech, noise, kind, str(tmp_path / "in.csv"), "-" if path == "stdout" else str(out))
    key = _state_key()[0]
    with open(tmp_path / "stdout.csv", "ab") as sink:
        for where, at in [("append", 17), ("checkpoint", 1), ("append", 9)]:
            p = subprocess.run([sys.executable, "-c", KILL_MID_WRITE] + a, stdout=sink, stderr=subprocess.PIPE, timeout=120,
                               env=os.environ | {"KILL_WHERE": where, "KILL_AT": str(at)})
            assert p.returncode == -signal.SIGKILL, (where, p.stderr.decode())
            if where == "append": assert _unpack_state((tmp_path / "s.state").read_bytes(), key, "s")["torn"] > 0   # a record cut short
            else: assert (tmp_path / ".s.state.tmp").exists()
        p = subprocess.run(CMD + a, stdout=sink, stderr=subprocess.PIPE, timeout=120)
        assert p.returncode == 0, p.stderr.decode()
    if path == "stdout":
        rows = {}
        for r in (tmp_path / "stdout.csv").read_text().splitlines():
            assert rows.setdefault(int(r.split(",")[0]), r) == r
        assert [rows[t] for t in sorted(rows)] == want[1:]
    else:
        assert out.read_text() == "\n".join(want) + "\n"

KILL_AROUND_JOURNAL = """
import os, signal, sys
from wevent_nb import online
from wevent_nb.cli import main
where, at = os.environ["KILL_WHERE"], int(os.environ["KILL_AT"])
real_append, real_write = online.Journal.append, os.write
def append(self, stream, step, config):
    if step.t == at and where == "before": os.kill(os.getpid(), signal.SIGKILL)      # the state holds t, the journal not yet
    if step.t == at and where == "torn":                                           # the journal's record half written
        def write(fd, data):
            if fd == self._fd: real_write(fd, data[:len(data) // 2]); os.kill(os.getpid(), signal.SIGKILL)
            return real_write(fd, data)
        os.write = write
    real_append(self, stream, step, config)
    if step.t == at and where == "after": os.kill(os.getpid(), signal.SIGKILL)       # the journal holds t, the output not yet
online.Journal.append = append
sys.exit(main(sys.argv[1:]))
"""

@pytest.mark.parametrize("mech, noise", JOURNALED)
@pytest.mark.parametrize("where", ["before", "torn", "after"])
def test_kills_around_the_journal_recover(tmp_path, mech, noise, where):
    "A real SIGKILL between the state and the journal, inside the journal's record, or between the journal and the output: the resume recovers."
    kind, X, (text,) = data(mech)
    (tmp_path / "in.csv").write_text(text + "\n")
    a, at = argv(tmp_path, mech, noise, kind, str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), journal=True), 17
    p = subprocess.run([sys.executable, "-c", KILL_AROUND_JOURNAL] + a, env=dict(os.environ, KILL_WHERE=where, KILL_AT=str(at)),
                       capture_output=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr.decode()
    assert next_t(tmp_path) == at + 1                                             # the state was written before each kill
    v = journal_of(tmp_path)
    assert v["t"] == (at if where == "after" else at - 1) and bool(v["tail"]) == (where == "torn"), (v["t"], v["tail"])
    done = subprocess.run(CMD + a, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.csv").read_text() == "\n".join(reference(mech, noise, kind, X)) + "\n"
    v = journal_of(tmp_path)
    assert v["t"] == T - 1 and v["tail"] == b"" and (b" drop " in (tmp_path / "j").read_bytes()) == (where == "torn")
