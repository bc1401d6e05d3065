"Issue 38, findings 6-10 and --status: every input and output path keeps its promise, with real processes and SIGKILLs where a kill is the point."
import fcntl, os, signal, subprocess, sys, time
from pathlib import Path
import numpy as np
import pytest
from wevent_nb.cli import main
from wevent_nb import online
from test_release_command import CMD, D, EPS, SEED, W, feed, reference, args, rows_written

def by_t(text):
    "Rows of an at-least-once output, de-duplicated by t (a repeated t must repeat its row exactly)."
    rows = {}
    for r in text.splitlines():
        if r.startswith("t,"): continue
        t = int(r.split(",")[0])
        assert rows.setdefault(t, r) == r, (t, rows[t], r)
    return rows

def test_torn_last_line_waits_for_its_newline(tmp_path, capsys):
    "Finding 9: a last line with no newline yet is not data; once completed it is released as written (fd6f15c released '...,4' and later skipped '...,45')."
    X = feed(tmp_path / "in.csv", 8)
    full = (tmp_path / "in.csv").read_text()
    X[-1, -1] = 45
    complete = full[:full.rfind("\n", 0, len(full) - 1) + 1] + ",".join(str(int(v)) for v in X[-1]) + "\n"
    (tmp_path / "in.csv").write_text(complete[:-2])             # the producer has written "...,4" of "...,45\n"
    assert main(args(tmp_path)) == 1
    assert "line 8: the input ended inside it" in capsys.readouterr().err
    (tmp_path / "in.csv").write_text(complete)
    assert main(args(tmp_path)) == 0
    assert (tmp_path / "out.csv").read_text() == reference(X)

def test_resume_with_only_the_next_lines_is_refused(tmp_path, capsys):
    "Finding 10: a file holding only the lines after the consumed ones is refused by the prefix digest (fd6f15c skipped them silently)."
    X = feed(tmp_path / "in.csv", 30)
    lines = (tmp_path / "in.csv").read_text().splitlines(keepends=True)
    (tmp_path / "in.csv").write_text("".join(lines[:20]))
    assert main(args(tmp_path)) == 0
    before = (tmp_path / "out.csv").read_bytes()
    (tmp_path / "in.csv").write_text("".join(lines[20:] + lines[:15]))     # as long as the prefix, other lines
    assert main(args(tmp_path)) == 1
    assert "not the lines this stream consumed" in capsys.readouterr().err
    assert (tmp_path / "out.csv").read_bytes() == before
    (tmp_path / "in.csv").write_text("".join(lines))
    assert main(args(tmp_path)) == 0 and (tmp_path / "out.csv").read_text() == reference(X)

def test_another_streams_output_is_refused(tmp_path, capsys):
    "Finding 10: stream B's output, of the same length, given to stream A's state is refused (fd6f15c compared row counts only)."
    for s in "ab":
        (tmp_path / s).mkdir(); feed(tmp_path / s / "in.csv", 20, seed=ord(s))
        assert main(args(tmp_path / s)) == 0
    (tmp_path / "a" / "out.csv").write_bytes((tmp_path / "b" / "out.csv").read_bytes())
    feed(tmp_path / "a" / "in.csv", 25, seed=ord("a"))
    assert main(args(tmp_path / "a")) == 1
    assert "differ from the releases this stream wrote" in capsys.readouterr().err

def test_fifo_stdin_killed_loses_at_most_the_line_in_flight(tmp_path):
    "Finding 8: `--input -` on a pipe, SIGKILLed: the lines it consumed and did not release are at most the one in flight (fd6f15c: 386 and 351 buffered lines lost)."
    feed(tmp_path / "in.csv", 3000)
    lines = (tmp_path / "in.csv").read_bytes().splitlines(keepends=True)
    a = args(tmp_path); a[a.index("--input") + 1] = "-"
    lost = []
    for k in (150, 400):
        r, w = os.pipe()
        p = subprocess.Popen(CMD + a, stdin=r, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        t0 = Session_t(tmp_path)
        os.write(w, b"".join(lines[t0:t0 + 2000]))                 # 2000 short lines: all in the pipe's buffer at once
        while rows_written(tmp_path / "out.csv") < t0 + k and p.poll() is None: time.sleep(0.001)
        p.send_signal(signal.SIGKILL); p.wait()
        os.close(w)
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_NONBLOCK)
        left = b""
        while chunk := os.read(r, 1 << 16): left += chunk
        os.close(r)
        consumed = 2000 - left.count(b"\n")
        lost.append(t0 + consumed - Session_t(tmp_path))
    assert all(0 <= n <= 1 for n in lost), lost

def Session_t(tmp):
    "The stream's next t (its writer is dead: the lock is free)."
    if not (tmp / "s.state").exists(): return 0
    return online.release_status(tmp / "s.state")["next_t"]

def test_stdout_killed_at_random_points_misses_no_t(tmp_path):
    "Finding 6: `--output -` killed 8 times: every t the state counts released was printed (the last release again on resume: at least once)."
    X = feed(tmp_path / "in.csv", 3000)
    a = args(tmp_path); a[a.index("--output") + 1] = "-"
    got = tmp_path / "stdout.csv"
    kills = np.sort(np.random.default_rng(8).choice(np.arange(50, 2900), 8, replace=False))
    with open(got, "ab") as sink:
        for k in kills:
            p = subprocess.Popen(CMD + a, stdout=sink, stderr=subprocess.DEVNULL)
            while Session_t_fast(tmp_path, got) < k and p.poll() is None: time.sleep(0.001)
            p.send_signal(signal.SIGKILL); p.wait()
        assert subprocess.run(CMD + a, stdout=sink, stderr=subprocess.PIPE, timeout=300).returncode == 0
    want = reference(X).splitlines()[1:]
    rows = by_t(got.read_text())
    assert sorted(rows) == list(range(len(X))) and [rows[t] for t in range(len(X))] == want

def Session_t_fast(tmp, got):
    try: return got.read_bytes().count(b"\n")
    except FileNotFoundError: return 0

KILL_AT_REPAIR = """
import os, signal, sys, builtins
from wevent_nb.cli import main
real = builtins.open
def open_(f, mode="r", *a, **k):
    fh = real(f, mode, *a, **k)
    if "wb" in mode and "out.csv" in str(f):       # the repair writes the output (fd6f15c: in place; now: its temporary)
        fh.write(b"t,"); fh.flush(); os.kill(os.getpid(), signal.SIGKILL)
    return fh
builtins.open = open_
sys.exit(main(sys.argv[1:]))
"""

def test_killed_during_the_output_repair(tmp_path):
    "Finding 7: a real SIGKILL in the middle of the repair leaves the output whole (fd6f15c: cut to nothing, every later resume refused)."
    X = feed(tmp_path / "in.csv", 40)
    lines = (tmp_path / "in.csv").read_text().splitlines(keepends=True)
    (tmp_path / "in.csv").write_text("".join(lines[:30]))
    assert main(args(tmp_path)) == 0
    text = (tmp_path / "out.csv").read_text()
    (tmp_path / "out.csv").write_text(text[:text.rfind("\n", 0, len(text) - 1) + 1] + "29,1,3")   # the last row lost, a torn one
    size = (tmp_path / "out.csv").stat().st_size
    (tmp_path / "in.csv").write_text("".join(lines))
    p = subprocess.run([sys.executable, "-c", KILL_AT_REPAIR] + args(tmp_path), capture_output=True, timeout=120)
    assert p.returncode == -signal.SIGKILL
    assert (tmp_path / "out.csv").stat().st_size == size            # untouched: the repair was being written beside it
    assert main(args(tmp_path)) == 0
    assert (tmp_path / "out.csv").read_text() == reference(X)

def test_status(tmp_path):
    "`release --status --state FILE`: mechanism, parameters, next t, window budget used, the binding account, what the next step and the next window may spend, read without the lock."
    feed(tmp_path / "in.csv", 25)
    assert main(args(tmp_path)) == 0
    from wevent_nb.online import StateStore
    held = StateStore(tmp_path / "s.state")                          # a writer holds the lock: --status still reads
    try:
        r = subprocess.run(CMD + ["release", "--status", "--state", str(tmp_path / "s.state")], capture_output=True, text=True, timeout=60)
    finally: held.close()
    assert r.returncode == 0, r.stderr
    assert "mechanism: BD" in r.stdout and '"w": 10' in r.stdout and "next t: 25" in r.stdout, r.stdout
    s = online.release_status(tmp_path / "s.state")
    assert 0 < s["window_used"] <= EPS and 0 <= s["spendable"] <= s["remaining"] <= EPS and s["binding"] == "stream"
    assert f"the next step (t={s['t']}) may spend" in r.stdout and f"the {s['k']} steps from t={s['t']} may spend" in r.stdout
    from wevent_nb.online import Session
    with Session.resume(tmp_path / "s.state", rng=SEED) as live:          # a seeded stream: resumed with its seed
        books = live.mech.books
        assert s["window_used"] == books.window_spent()[0]               # exact books: equal, not close
        assert s["spendable"] == EPS - books.window_spent(t=25)[0] and s["t"] == 25
        assert live.budget() == {k: s[k] for k in live.budget()}         # a Session answers the same record

KILL_AFTER_STATE = """
import os, signal, sys
from wevent_nb.cli import main
from wevent_nb.online import StateStore
real, n = StateStore.commit, [0]
def commit(self, *a):
    real(self, *a)                                                 # a checkpoint or a step record, synced
    n[0] += 1
    if n[0] == int(os.environ["KILL_AT"]): os.kill(os.getpid(), signal.SIGKILL)   # the state holds the step, stdout not yet
StateStore.commit = commit
sys.exit(main(sys.argv[1:]))
"""

def test_stdout_killed_between_state_and_print_reprints(tmp_path):
    "Finding 6, the exact point: SIGKILL right after a step's state is written, before its row is printed; the resume prints it (fd6f15c never did)."
    X = feed(tmp_path / "in.csv", 60)
    a = args(tmp_path); a[a.index("--output") + 1] = "-"
    got = tmp_path / "stdout.csv"
    with open(got, "ab") as sink:
        for at in (17, 9):
            p = subprocess.run([sys.executable, "-c", KILL_AFTER_STATE] + a, stdout=sink, stderr=subprocess.DEVNULL,
                               env=os.environ | {"KILL_AT": str(at)}, timeout=120)
            assert p.returncode == -signal.SIGKILL
        assert subprocess.run(CMD + a, stdout=sink, stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    rows = by_t(got.read_text())
    assert sorted(rows) == list(range(len(X))) and [rows[t] for t in range(len(X))] == reference(X).splitlines()[1:]
