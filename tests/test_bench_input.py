"""`wevent-nb bench --input FILE`: a stream the user wrote, ranked end to end by subprocess (issue 41, items 1 and 2).

Bad input ends in one line on standard error, never a traceback: exit 2 for flags no input makes right, 1 for a file
missing, empty or malformed (its line named), as the release command does; a good file is ranked beside the family's
zero-budget release, with the settings where releasing nothing wins and the tuning caveat."""
import html, re, subprocess, sys
from pathlib import Path

import numpy as np
import pytest

from wevent_nb.benchmark import SelectionError, TUNING_CAVEAT, benchmark_grids, rank_own, run_benchmark
from wevent_nb.core import HistogramStream, ScalarStream

EXE = Path(sys.executable).parent / "wevent-nb"
COUNTS = "30,12,5\n34,10,6\n41,15,4\n38,11,7\n29,13,5\n33,9,6\n" * 3      # a tiny shop: 18 timestamps, d = 3
VALUES = "0.5\n0.7\n0.2\n0.9\n0.4\n0.6\n" * 3                                # a tiny scalar stream in [0, 1]


def bench(tmp_path, *args):
    "Run `wevent-nb bench ARGS` in tmp_path with a store there: (exit status, stdout, stderr)."
    if not EXE.exists(): pytest.skip("console script not installed")
    r = subprocess.run([str(EXE), "bench", "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--quiet", *map(str, args)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def wrote(tmp_path, text, name="mine.csv"):
    (tmp_path / name).write_text(text)
    return tmp_path / name


def one_line(err):
    "The error is one line on standard error, no traceback."
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("text, lo_hi, says", [
    ("", (), "holds no timestamp"),
    ("\n\n", (), "holds no timestamp"),
    ("1,2\n3\n", (), "line 2: 1 value(s), the first line 2"),
    ("1,2\n3,nan\n", (), "line 2: '3,nan' is not a comma-separated list of numbers"),
    ("1,2\n3,-1\n", (), "line 2: the count -1 is negative"),
    ("1,2\n3,1e999\n", (), "line 2: a value too large to be a finite number"),
    ("1,2\nthree,4\n", (), "line 2: 'three,4' is not a comma-separated list"),
    ("0.5\n1.5\n", ("--lo", 0, "--hi", 1), "line 2: 1.5 lies outside the domain [0, 1]"),
    ("0.5\n0.5,0.5\n", ("--lo", 0, "--hi", 1), "line 2: 2 values, a scalar stream has one a line"),
])
def test_a_bad_file_is_one_line_and_exit_1(tmp_path, text, lo_hi, says):
    code, out, err = bench(tmp_path, "--input", wrote(tmp_path, text), *lo_hi)
    assert code == 1 and says in one_line(err) and "mine.csv" in err, (code, err)
    assert not (tmp_path / "s.sqlite").exists()       # refused before the store is opened


def test_a_file_not_in_utf8_names_its_line(tmp_path):
    (tmp_path / "latin.csv").write_bytes(b"1,2\n3,4\n5,\xe9\n")
    code, _, err = bench(tmp_path, "--input", tmp_path / "latin.csv")
    assert code == 1 and "latin.csv: line 3: not UTF-8 text" in one_line(err)


def test_standard_input_is_read_as_a_file(tmp_path):
    if not EXE.exists(): pytest.skip("console script not installed")
    run = lambda text: subprocess.run([str(EXE), "bench", "--input", "-", "--eps", "1", "--w", "3", "--store", str(tmp_path / "s.sqlite"),
                                       "--workers", "1", "--quiet"], input=text, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    r = run("1,2\n3\n")
    assert r.returncode == 1 and "standard input: line 2: 1 value(s)" in one_line(r.stderr)
    r = run(COUNTS)
    assert r.returncode == 0 and "stdin (central)" in r.stdout and "no guarantee here covers" in r.stdout, r.stderr


def test_a_missing_file_is_exit_1(tmp_path):
    code, _, err = bench(tmp_path, "--input", tmp_path / "absent.csv")
    assert code == 1 and "absent.csv: No such file or directory" in one_line(err)


@pytest.mark.parametrize("args, says", [
    (("--lo", 0), "both ends"),
    (("--lo", 1, "--hi", 0), "lo < hi"),
    (("--family", "central"), "leave out --dataset and --family"),
    (("--dataset", "spas-otp"), "leave out --dataset and --family"),
    (("--eps", 0), "--eps: 0 is not allowed"),
    (("--w", 0), "--w: 0 is not allowed"),
    (("--stand-in", "periodic", "--period", 20), "needs --period P and --amplitude A"),
    (("--mechanism", "Naive"), "event family"),
])
def test_flags_no_input_makes_right_are_exit_2(tmp_path, args, says):
    code, _, err = bench(tmp_path, "--input", wrote(tmp_path, COUNTS), *args)
    assert code == 2 and says in err and "Traceback" not in err, (code, err)


def test_lo_hi_without_a_stream_is_exit_2(tmp_path):
    code, _, err = bench(tmp_path, "--lo", 0, "--hi", 1)
    assert code == 2 and "--lo and --hi" in one_line(err)


def test_a_histogram_file_is_ranked_beside_releasing_nothing(tmp_path):
    code, out, err = bench(tmp_path, "--input", wrote(tmp_path, COUNTS), "--eps", 0.5, 1, "--w", 5, "--reps", 2)
    assert code == 0, err
    assert "mine.csv (central): place by geometric-mean MRE_SPAS over 2 setting(s)" in out
    for m in ("FAST", "SPAS", "BD", "BA", "PeGaSus", "Constant", "(releases nothing)", " of 2"): assert m in out, m
    assert TUNING_CAVEAT in out.replace("\n", " ") or TUNING_CAVEAT in out


def test_a_scalar_file_and_a_stand_in(tmp_path):
    code, out, err = bench(tmp_path, "--input", wrote(tmp_path, VALUES), "--lo", 0, "--hi", 1, "--eps", 1, "--w", 10,
                           "--stand-in", "periodic", "--period", 6, "--amplitude", 0.5)
    assert code == 0, err
    assert "mine.csv (event)" in out and "periodic stand-in (period 6, amplitude 0.5) (event)" in out
    assert "Constant-mid" in out and "BucOrder" in out and "no guarantee here covers" in out


def test_from_python_streams_are_ranked_the_same_way():
    shop = HistogramStream(np.array([[30.0, 12], [34, 10], [41, 15], [38, 11]] * 4))
    grids, missing = benchmark_grids(streams={"shop": shop}, eps=[0.5, 1], w=[4])
    df, failed = run_benchmark(grids, executor="serial", progress=False)
    r = rank_own(df)
    assert failed.empty and df["ledger_ok"].all() and missing == []
    assert set(r.ranks["dataset"]) == {"shop"} and "Constant" in set(r.ranks["mechanism"]) and TUNING_CAVEAT in str(r)
    with pytest.raises(SelectionError, match="registered data set 'spas-otp'"): benchmark_grids(streams={"spas-otp": shop})
    with pytest.raises(SelectionError, match="leaves out"): benchmark_grids(families=["central"], streams={"v": ScalarStream(np.array([0.5]), 0, 1)})


def test_a_report_answers_on_its_first_screen(tmp_path):
    code, out, err = bench(tmp_path, "--input", wrote(tmp_path, COUNTS), "--eps", 0.5, 1, "--w", 5, "--reps", 2, "--report", tmp_path / "rep")
    assert code == 0 and "report: " in out, err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    first, table = page.split("id='whole-table'")                      # the first screen: all before the whole table
    best = re.search(r"^ +1 +(.+?) +[0-9.e+-]+ +\[", out, re.M).group(1)     # place 1 of the printed ranking
    assert f"place 1: <b>{best}</b>" in first and "Releasing nothing (Constant, the zero-budget release)" in first
    assert html.escape(TUNING_CAVEAT) in first and '<img src="error_central.png"' in first
    assert all(f"<td>{m}</td>" in table for m in ("FAST", "SPAS", "BD", "BA", "PeGaSus", "Constant"))   # every method below
    assert (tmp_path / "rep" / "error_central.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["error_central.png", "index.html"]   # no temporary left


def test_a_report_without_input_is_exit_2(tmp_path):
    code, _, err = bench(tmp_path, "--report", tmp_path / "rep")
    assert code == 2 and "--report DIR writes the curator's report of --input FILE" in one_line(err)
    assert not (tmp_path / "rep").exists() and not (tmp_path / "s.sqlite").exists()


def test_a_report_that_names_a_file_is_exit_1_before_running(tmp_path):
    code, _, err = bench(tmp_path, "--input", wrote(tmp_path, COUNTS), "--report", wrote(tmp_path, "", "taken.html"))
    assert code == 1 and "taken.html: a file; the report is a folder" in one_line(err)
    assert not (tmp_path / "s.sqlite").exists()       # refused before the store is opened
