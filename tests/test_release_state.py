"""The release command's state (issue 38): one writer, checked with two real processes; one self-contained signed file that a
plain copy captures; seeded and unseeded runs that do not mix; one clear error, no traceback, for a state that is empty,
truncated, garbage, of another layout, forged, or cannot be written (a full disk, by RLIMIT_FSIZE in the child)."""
import contextlib, io, json, os, pickle, resource, shutil, signal, sqlite3, subprocess, sys, time
from pathlib import Path
from types import SimpleNamespace
import numpy as np
import pytest
from wevent_nb.cli import main
from wevent_nb.core import get_mechanism
from wevent_nb.online import Session, _format_rows, session_config

MECH, EPS, W, D = "BD", 1.0, 10, 4
CMD = [sys.executable, "-c", "import sys; from wevent_nb.cli import main; sys.exit(main(sys.argv[1:]))"]

def lines(T, seed=0):
    "T timestamps of D counts, and their input lines."
    X = np.random.default_rng(seed).integers(0, 50, (T, D))
    return X.astype(float), ["".join(",".join(map(str, r))) + "\n" for r in X]

def cmd(tmp, *extra, input="in.csv", output="out.csv", state="s.state"):
    return CMD + ["release", MECH, "--eps", str(EPS), "--w", str(W), "--state", str(tmp / state),
                  "--input", input if input == "-" else str(tmp / input), "--output", str(tmp / output), *extra]

def spawn(tmp, *extra, preexec_fn=None, **kw):
    "The command in a process of its own."
    return subprocess.run(cmd(tmp, *extra, **kw), capture_output=True, text=True, timeout=120, preexec_fn=preexec_fn)

def run(tmp, *extra, **kw):
    "The command in this process (its `main`, standard error captured): fast, and the same code path."
    err = io.StringIO()
    with contextlib.redirect_stderr(err): code = main(cmd(tmp, *extra, **kw)[len(CMD):])
    return SimpleNamespace(returncode=code, stderr=err.getvalue())

def rows(path):
    "Release rows in an output file (0 for a missing one or a header alone)."
    try: return max(path.read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError: return 0

def wait_rows(path, n, p, timeout=60):
    end = time.time() + timeout
    while rows(path) < n and p.poll() is None and time.time() < end: time.sleep(0.01)
    assert rows(path) >= n, (rows(path), p.poll(), p.stderr.read() if p.poll() is not None else "")

def reference(X, seed):
    "The uninterrupted run's file: a session without a state file, the same seed, the command's format."
    s = Session(get_mechanism(MECH, eps=EPS, w=W), rng=seed, noise="exact", d=X.shape[1])
    out = ["t,published," + ",".join(f"count_{k}" for k in range(X.shape[1]))]
    for x in X: out += _format_rows("histogram", s.step(x))
    return "\n".join(out) + "\n"

def clear(r, code, words):
    "One clear message naming what is wrong, the exit code of 30_cli's rules, no traceback."
    assert r.returncode == code and words in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr)

# ------------------------------------------------------------------------------------------- finding 1: one writer
@pytest.mark.parametrize("resumed", [False, True])
def test_a_second_process_on_one_state_is_refused_at_once_naming_the_holder(tmp_path, resumed):
    "Two real processes, no --seed: the second is refused at once (pid named, exit 1), reads nothing, releases nothing."
    X, text = lines(30)
    base = 0
    if resumed:                                   # both resume one state (before: their releases differed by exactly x1 - x2)
        (tmp_path / "in.csv").write_text("".join(text[:10]))
        assert run(tmp_path).returncode == 0
        base = 10
        for o in ("out1.csv", "out2.csv"): shutil.copyfile(tmp_path / "out.csv", tmp_path / o)
    p1 = subprocess.Popen(cmd(tmp_path, input="-", output="out1.csv"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    p2 = None
    try:
        p1.stdin.write(text[base]); p1.stdin.flush()
        wait_rows(tmp_path / "out1.csv", base + 1, p1)            # p1 holds the stream
        p2 = subprocess.Popen(cmd(tmp_path, input="-", output="out2.csv"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        p2.stdin.write("".join(text[base + 1:base + 6])); p2.stdin.flush()   # its input stays open: reading it would block
        t0 = time.time(); code = p2.wait(timeout=30); err = p2.stderr.read()
        assert code == 1 and "in use" in err and f"pid {p1.pid}" in err and "Traceback" not in err, (code, err)
        assert time.time() - t0 < 20 and rows(tmp_path / "out2.csv") == base   # refused at once, nothing released
        p1.stdin.write("".join(text[base + 1:])); p1.stdin.close()
        assert p1.wait(timeout=60) == 0, p1.stderr.read()
        assert rows(tmp_path / "out1.csv") == 30
    finally:
        for p in (p1, p2):
            if p is not None and p.poll() is None: p.kill(); p.wait()

def test_a_second_session_in_one_process_is_refused(tmp_path):
    (tmp_path / "in.csv").write_text("".join(lines(5)[1]))
    assert run(tmp_path).returncode == 0
    s = Session.resume(tmp_path / "s.state")
    try:
        with pytest.raises(Exception, match="in use"): Session.resume(tmp_path / "s.state")
    finally: s.close()
    Session.resume(tmp_path / "s.state").close()                   # closed: the next one opens it

# ------------------------------------------------------------------------------- finding 2: one self-contained file
def test_after_a_kill_a_copy_of_the_state_file_alone_holds_the_stream(tmp_path):
    "Killed at t=150: no companion file; a copy of the state alone is the stream at t=150, and with a new output it is refused, not restarted."
    X, text = lines(160)
    (tmp_path / "in.csv").write_text("".join(text))
    p = subprocess.Popen(cmd(tmp_path, input="-"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        p.stdin.write("".join(text[:150])); p.stdin.flush()
        wait_rows(tmp_path / "out.csv", 150, p)
    finally: p.send_signal(signal.SIGKILL); p.wait()
    beside = sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("s.state") and f.name not in ("s.state", "s.state.lock"))
    assert beside == []                                             # before: s.state-wal (1.2 MB at t=300) and s.state-shm
    backup = tmp_path / "backup"; backup.mkdir()
    shutil.copyfile(tmp_path / "s.state", backup / "s.state")      # what a backup of "the state file" takes
    s = Session.resume(backup / "s.state"); assert s.t == 150; s.close()
    r = run(backup, input=str(tmp_path / "in.csv"))                 # a new output: before, t = 0..159 again with fresh noise
    clear(r, 1, "not this stream's output")
    assert rows(backup / "out.csv") == 0

def test_an_empty_state_is_refused_not_a_new_stream(tmp_path):
    (tmp_path / "in.csv").write_text("".join(lines(20)[1]))
    (tmp_path / "s.state").write_bytes(b"")
    clear(run(tmp_path), 1, "empty")
    assert rows(tmp_path / "out.csv") == 0 and (tmp_path / "s.state").read_bytes() == b""

# ------------------------------------------------------------------------ finding 12 (part): a state it cannot trust
@pytest.fixture(scope="module")
def seeded_stream(tmp_path_factory):
    "A folder holding a stream released by the command: 20 timestamps, --seed 3 (each test spoils its own copy)."
    tmp = tmp_path_factory.mktemp("stream")
    (tmp / "in.csv").write_text("".join(lines(20)[1]))
    assert run(tmp, "--seed", "3").returncode == 0
    return tmp

def checkpoint_end(b: bytes) -> int:
    "Where a state file's checkpoint ends (its step records follow): magic, layout and length, signature, body."
    from wevent_nb.online import _HEAD, _MAC, _MAGIC
    return len(_MAGIC) + _HEAD.size + _MAC + _HEAD.unpack_from(b, len(_MAGIC))[1]

@pytest.mark.parametrize("spoil, words", [(lambda b: b[:checkpoint_end(b) // 2], "truncated"), (lambda b: b[:30], "truncated"),
                                          (lambda b: np.random.default_rng(1).bytes(len(b)), "not a wevent_nb state file"),
                                          (lambda b: b + b"\0", "after its end"),
                                          (lambda b: b[:-5] + bytes([b[-5] ^ 1]) + b[-4:], "not signed by this installation's key"),
                                          (lambda b: b[:16] + (99).to_bytes(4, "big") + b[20:], "layout 99")])
def test_a_spoiled_state_is_one_clear_error(tmp_path, seeded_stream, spoil, words):
    "Truncated (before: an UnpicklingError), garbage, longer than written, altered, of another layout: exit 1, nothing released."
    X, text = lines(30)
    shutil.copyfile(seeded_stream / "out.csv", tmp_path / "out.csv")
    (tmp_path / "s.state").write_bytes(spoil((seeded_stream / "s.state").read_bytes()))
    (tmp_path / "in.csv").write_text("".join(text))
    clear(run(tmp_path, "--seed", "3"), 1, words)
    assert rows(tmp_path / "out.csv") == 20

def test_a_state_cut_inside_its_step_records_stands_where_the_cut_is_and_its_longer_output_is_refused(tmp_path, seeded_stream):
    "Cut mid-record (a kill mid-append, or a truncated copy): the records before the cut are the stream; the output holds more: refused, nothing released."
    X, text = lines(30)
    data = (seeded_stream / "s.state").read_bytes()
    cp = checkpoint_end(data); assert len(data) > cp + 1000          # 20 steps: a checkpoint, then records
    shutil.copyfile(seeded_stream / "out.csv", tmp_path / "out.csv")
    (tmp_path / "s.state").write_bytes(data[:(cp + len(data)) // 2])
    s = Session.resume(tmp_path / "s.state", rng=3); t = s.t; s.close()
    assert 1 <= t < 20
    (tmp_path / "in.csv").write_text("".join(text))
    clear(run(tmp_path, "--seed", "3"), 1, f"holds 20 release rows, the state {t}")
    assert rows(tmp_path / "out.csv") == 20

def test_a_layout_2_state_is_refused_naming_its_layout(tmp_path):
    "A state of the previous layout (one signed file rewritten at each step), signed by this installation: refused by its layout, nothing unpickled."
    import hashlib, hmac
    from wevent_nb.online import _HEAD, _MAC, _MAGIC, _pack_state, _state_key
    key = _state_key()[0]
    config = session_config(get_mechanism(MECH, eps=EPS, w=W), {"d": D}, seeded=False, noise="exact")
    new = _pack_state(key, config, 0, 0, pickle.dumps(_Payload(str(tmp_path / "ran"))), None)
    n = len(_MAGIC) + _HEAD.size
    head = new[:len(_MAGIC)] + _HEAD.pack(2, _HEAD.unpack_from(new, len(_MAGIC))[1])
    (tmp_path / "s.state").write_bytes(head + hmac.new(key, head + new[n + _MAC:], hashlib.sha256).digest() + new[n + _MAC:])
    (tmp_path / "in.csv").write_text("".join(lines(5)[1]))
    r = run(tmp_path)
    clear(r, 1, "has layout 2; this wevent_nb reads layout 3")
    assert not (tmp_path / "ran").exists() and rows(tmp_path / "out.csv") == 0

def test_a_state_signed_by_another_installation_is_refused(tmp_path, monkeypatch):
    X, text = lines(30)
    (tmp_path / "in.csv").write_text("".join(text[:20]))
    ours = os.environ["WEVENT_NB_KEY"]
    monkeypatch.setenv("WEVENT_NB_KEY", str(tmp_path / "other" / "state.key"))
    assert run(tmp_path).returncode == 0
    assert (tmp_path / "other" / "state.key").stat().st_mode & 0o777 == 0o600     # made on first use, for its owner only
    (tmp_path / "in.csv").write_text("".join(text))
    monkeypatch.setenv("WEVENT_NB_KEY", ours)
    clear(run(tmp_path), 1, "not signed by this installation's key")
    assert rows(tmp_path / "out.csv") == 20
    monkeypatch.setenv("WEVENT_NB_KEY", str(tmp_path / "other" / "state.key"))
    assert run(tmp_path).returncode == 0 and rows(tmp_path / "out.csv") == 30   # where it was signed, it goes on

# ------------------------------------------------------------------------------ finding 5: opening a state runs no code
class _Payload:
    "Unpickled, it creates the file `marker`: code a state file could run."
    def __init__(self, marker): self.marker = marker
    def __reduce__(self): return (open, (self.marker, "w"))

def test_a_pickled_payload_in_a_layout_1_state_is_never_unpickled(tmp_path):
    "The SQLite layout of wevent_nb <= fd6f15c, this stream's configuration, a payload for a state: refused by its layout, the payload never runs."
    marker = tmp_path / "ran"
    config = session_config(get_mechanism(MECH, eps=EPS, w=W), {"d": D}, seeded=False, noise="exact")
    con = sqlite3.connect(tmp_path / "s.state")
    con.execute("CREATE TABLE stream (id INTEGER PRIMARY KEY CHECK (id = 0), schema INTEGER, config TEXT, t INTEGER, rows INTEGER, state BLOB, last BLOB)")
    con.execute("INSERT INTO stream VALUES (0, 1, ?, 0, 0, ?, NULL)", (json.dumps(config, sort_keys=True), pickle.dumps(_Payload(str(marker)))))
    con.commit(); con.close()
    (tmp_path / "in.csv").write_text("".join(lines(5)[1]))
    r = run(tmp_path)
    assert not marker.exists()                                      # before: the payload ran
    clear(r, 1, "layout 1")

def test_a_pickled_payload_in_an_unsigned_state_is_never_unpickled(tmp_path):
    "The current layout, signed with a key other than this installation's: refused by its signature, the payload never runs."
    import secrets
    from wevent_nb.online import _pack_state
    marker = tmp_path / "ran"
    config = session_config(get_mechanism(MECH, eps=EPS, w=W), {"d": D}, seeded=False, noise="exact")
    (tmp_path / "s.state").write_bytes(_pack_state(secrets.token_bytes(32), config, 0, 0, pickle.dumps(_Payload(str(marker))), None))
    (tmp_path / "in.csv").write_text("".join(lines(5)[1]))
    r = run(tmp_path)
    assert not marker.exists()
    clear(r, 1, "not signed")

# ------------------------------------------------------------------------------------------- finding 4: seeds
def test_a_seeded_stream_says_so_at_every_start_and_is_not_resumed_without_its_seed(tmp_path):
    X, text = lines(30)
    (tmp_path / "in.csv").write_text("".join(text[:20]))
    r = run(tmp_path, "--seed", "7"); assert r.returncode == 0 and "SEEDED stream (--seed 7)" in r.stderr
    (tmp_path / "in.csv").write_text("".join(text))
    clear(run(tmp_path), 1, "holds a seeded stream")                # before: went on with the seeded generator, silently
    assert rows(tmp_path / "out.csv") == 20
    r = run(tmp_path, "--seed", "7"); assert r.returncode == 0 and "SEEDED stream" in r.stderr
    assert (tmp_path / "out.csv").read_text() == reference(X, 7)

def test_an_unseeded_stream_refuses_a_seed(tmp_path):
    X, text = lines(30)
    (tmp_path / "in.csv").write_text("".join(text[:20]))
    r = run(tmp_path); assert r.returncode == 0 and "SEEDED" not in r.stderr
    (tmp_path / "in.csv").write_text("".join(text))
    clear(run(tmp_path, "--seed", "7"), 1, "holds an unseeded stream")
    assert rows(tmp_path / "out.csv") == 20
    assert run(tmp_path).returncode == 0 and rows(tmp_path / "out.csv") == 30

# ------------------------------------------------------------------------- finding 12 (part): a full disk for the state
def _file_size_limit(n):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)                # a write past the limit fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    return limit

def test_a_full_disk_for_the_state_is_one_clear_error_and_nothing_is_released(tmp_path):
    X, text = lines(40)
    (tmp_path / "in.csv").write_text("".join(text[:20]))
    assert run(tmp_path, "--seed", "3").returncode == 0
    (tmp_path / "in.csv").write_text("".join(text[:21]))
    assert run(tmp_path, "--seed", "3").returncode == 0              # a store's first write is a checkpoint: the file is one now
    before = (tmp_path / "s.state").read_bytes(), (tmp_path / "out.csv").read_bytes()
    assert checkpoint_end(before[0]) == len(before[0])
    limit = len(before[0]) - 200                                    # the next checkpoint no longer fits; the output (20 more rows) does
    assert limit > len(before[1]) + 20 * 40, (limit, len(before[1]))
    (tmp_path / "in.csv").write_text("".join(text))
    r = spawn(tmp_path, "--seed", "3", preexec_fn=_file_size_limit(limit))
    clear(r, 1, "could not be written")
    assert "nothing was released for t=21" in r.stderr
    assert (tmp_path / "s.state").read_bytes() == before[0] and (tmp_path / "out.csv").read_bytes() == before[1]
    assert not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]
    assert run(tmp_path, "--seed", "3").returncode == 0               # room again: the same command goes on
    assert (tmp_path / "out.csv").read_text() == reference(X, 3)

def test_a_full_disk_mid_append_leaves_the_state_as_it_was(tmp_path, monkeypatch):
    "The disk fills while a step's record is appended (part of it written): one clear error, the partial record cut off, nothing released; the stream resumes there."
    from wevent_nb import online
    X, text = lines(12)
    s = Session(get_mechanism(MECH, eps=EPS, w=W), rng=3, noise="exact", state=tmp_path / "s.state", d=D)
    got = [s.step(x) for x in X[:8]]
    before = (tmp_path / "s.state").read_bytes()
    assert len(before) > checkpoint_end(before)                      # step records follow the checkpoint: the next step appends
    real = os.pwrite
    def full(fd, data, offset): real(fd, bytes(data[:11]), offset); raise OSError(28, "No space left on device")
    monkeypatch.setattr(online.os, "pwrite", full)
    with pytest.raises(OSError, match="No space left on device.*nothing was released for t=8"): s.step(X[8])
    monkeypatch.setattr(online.os, "pwrite", real)
    with pytest.raises(Exception, match="takes no further step"): s.step(X[8])
    s.close()
    assert (tmp_path / "s.state").read_bytes() == before
    with Session.resume(tmp_path / "s.state", rng=3) as r:
        assert r.t == 8
        got += [r.step(x) for x in X[8:]]
    assert [row for g in got for row in _format_rows("histogram", g)] == reference(X, 3).splitlines()[1:]

def _written() -> int:
    "Bytes this process has passed to write calls so far (/proc/self/io: wchar)."
    with open("/proc/self/io") as f: return next(int(l.split()[1]) for l in f if l.startswith("wchar:"))

def test_the_write_of_a_step_does_not_grow_with_w(tmp_path):
    "Throughput: a durable step writes its own record (a few hundred bytes), at w = 10 as at w = 10^4 (da11186 rewrote the whole state: 300 KB at 10^4)."
    X = np.random.default_rng(0).integers(0, 50, (41, 8)).astype(float)
    median = {}
    for w in (10, 10_000):
        s = Session(get_mechanism("BD", eps=1.0, w=w), rng=1, state=tmp_path / f"{w}.state", d=8)
        s.step(X[0])                                                  # the first write: a checkpoint
        per = []
        for x in X[1:]:
            before = _written(); s.step(x); per.append(_written() - before)
        s.close()
        median[w] = float(np.median(per))                            # a checkpoint now and then does not move the median
    assert median[10] == median[10_000] and median[10] < 1024, median
