"Issue 38, findings 11 and 12: flags and outputs refused once, before a line is read; Ctrl-C, bad bytes, odd numbers and special files end cleanly."
import os, random, signal, subprocess, sys, time
from pathlib import Path
import numpy as np
import pytest
from wevent_nb.cli import main
from test_release_command import CMD, feed, reference, args, rows_written

LINES = "".join(f"{k},1,2,3\n" for k in range(5))

def run_then_cat(argv, stdin=LINES, timeout=60):
    "Run the command with `stdin` on a pipe, then `cat` on the same pipe: what cat prints is what the command left unread."
    sh = " ".join(map(repr, CMD + argv)) + "; echo rc=$? >&2; cat"
    return subprocess.run(["sh", "-c", sh], input=stdin, capture_output=True, text=True, timeout=timeout)

@pytest.mark.parametrize("flags", [["--seed", "-5"], ["--d", "0"], ["--seed", "1", "--lo", "10", "--hi", "0"]])
def test_bad_flag_one_message_exit_2_nothing_read(tmp_path, flags):
    "A flag no input makes right: one line, exit 2, and every stdin line is still there for the next reader (on fd6f15c the first line was read first)."
    mech = ["Naive", "--noise", "float"] if "--lo" in flags else ["BD"]
    r = run_then_cat(["release", *mech, "--eps", "1", "--w", "3", "--state", str(tmp_path / "s.state"), *flags])
    err = [l for l in r.stderr.splitlines() if not l.startswith("rc=")]
    assert "rc=2" in r.stderr and len(err) == 1, r.stderr
    assert r.stdout == LINES
    assert not (tmp_path / "s.state").exists()

def test_refused_output_one_message_nothing_read(tmp_path):
    "Another stream's output: one message (not one per input line), exit 1 (30_cli: the files disagree), nothing read."
    (tmp_path / "out.csv").write_text("t,published,count_0,count_1,count_2,count_3\n0,1,1,2,3,4\n")
    r = run_then_cat(["release", "BD", "--eps", "1", "--w", "3", "--state", str(tmp_path / "s.state"), "--output", str(tmp_path / "out.csv")])
    err = [l for l in r.stderr.splitlines() if not l.startswith("rc=")]
    assert "rc=1" in r.stderr and len(err) == 1 and "not this stream's output" in err[0], r.stderr
    assert r.stdout == LINES

def test_ctrl_c_at_random_points_exits_130_in_one_line(tmp_path):
    "SIGINT to the real process at random points of a run: exit 130, one line, never a traceback; the resumed output is the uninterrupted one."
    X = feed(tmp_path / "in.csv", 4000)
    rnd = random.Random(3)
    for k in range(6):
        p = subprocess.Popen(CMD + args(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        start = rows_written(tmp_path / "out.csv")
        while rows_written(tmp_path / "out.csv") <= start and p.poll() is None: time.sleep(0.001)
        time.sleep(rnd.uniform(0, 0.05))
        if p.poll() is None: p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=60)[1]
        assert "Traceback" not in err and "Error" not in err, err
        if p.returncode == 0: break
        assert p.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("wevent-nb release: interrupted"), err
    assert main(args(tmp_path)) == 0
    assert (tmp_path / "out.csv").read_text() == reference(X)

def test_ctrl_c_while_waiting_for_stdin(tmp_path):
    "Blocked on an open pipe with no data: Ctrl-C still exits 130 with one line."
    p = subprocess.Popen(CMD + ["release", "BD", "--eps", "1", "--w", "3", "--state", str(tmp_path / "s.state")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p.stdin.write("1,2,3\n"); p.stdin.flush()
    assert p.stdout.readline().startswith("0,")
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=30)[1]
    assert p.returncode == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err

def test_invalid_utf8_names_its_line_and_keeps_the_others(tmp_path, capsys):
    "A line that is not UTF-8: reported with its line number, skipped; the valid lines before and after are released (fd6f15c stopped with a byte position)."
    X = feed(tmp_path / "in.csv", 12)
    lines = (tmp_path / "in.csv").read_bytes().splitlines(keepends=True)
    (tmp_path / "in.csv").write_bytes(b"".join(lines[:7] + [b"1,2,\xff,4\n"] + lines[7:]))
    assert main(args(tmp_path)) == 1
    err = capsys.readouterr().err
    assert "line 8: not UTF-8" in err, err
    assert (tmp_path / "out.csv").read_text() == reference(X)

@pytest.mark.parametrize("bad", ["1_000,2,3,4", "\u0661,2,3,4", "1,2,3,\u0664\u0662"])
def test_only_ascii_decimal_numbers(tmp_path, capsys, bad):
    "`1_000` and Arabic-Indic digits are not numbers of the input grammar (fd6f15c released them)."
    X = feed(tmp_path / "in.csv", 6)
    lines = (tmp_path / "in.csv").read_text().splitlines()
    (tmp_path / "in.csv").write_text("\n".join(lines[:3] + [bad] + lines[3:]) + "\n")
    assert main(args(tmp_path)) == 1
    err = capsys.readouterr().err
    assert "line 4" in err and "ASCII decimals" in err, err
    assert (tmp_path / "out.csv").read_text() == reference(X)

def test_output_dev_stdout_into_a_pipe_does_not_hang(tmp_path):
    "`--output /dev/stdout | cat`: written, never read back (fd6f15c read its own pipe and hung); resumed, the last release is printed again."
    X = feed(tmp_path / "in.csv", 20)
    a = args(tmp_path); a[a.index("--output") + 1] = "/dev/stdout"
    sh = " ".join(map(repr, CMD + a)) + " | cat"
    r = subprocess.run(["sh", "-c", sh], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "".join(reference(X).splitlines(keepends=True)[1:])
    r2 = subprocess.run(["sh", "-c", sh], capture_output=True, text=True, timeout=60)
    assert r2.returncode == 0 and r2.stdout == reference(X).splitlines(keepends=True)[-1], r2.stderr

def test_output_dev_null_resumes(tmp_path, capsys):
    "`--output /dev/null` twice: the second run resumes (fd6f15c refused it: /dev/null read back as an empty output)."
    feed(tmp_path / "in.csv", 10)
    a = args(tmp_path); a[a.index("--output") + 1] = "/dev/null"
    assert main(a) == 0
    feed(tmp_path / "in.csv", 15)
    assert main(a) == 0, capsys.readouterr().err
