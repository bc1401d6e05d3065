"Tests of the `wevent-nb` command line (wevent_nb.cli)."
import importlib.util, json, re, shutil, subprocess, sys
from pathlib import Path

import nbformat
import pytest

from wevent_nb.cli import find_notebooks, has_parameters_cell, main, paper_id, parse_value
from wevent_nb.core import ToyUniform, register

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent


@register
class CliTestToy(ToyUniform):
    "A registered stand-in so that `list` has a known entry."
    name, paper, stream_kind, summary = "CliTestToy", "cli test paper 999", "histogram", "stand-in for the CLI test"


def _nb(path, sources, tag_first=True):
    cells = [nbformat.v4.new_code_cell(s) for s in sources]
    if tag_first: cells[0].metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}})
    nbformat.write(nb, path)
    return path


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.split()[:4] == ["name", "paper", "stream", "kind"] and "CliTestToy" in out
    assert main(["list", "--paper", "999"]) == 0
    out = capsys.readouterr().out
    assert "CliTestToy" in out and "stand-in for the CLI test" in out and len(out.strip().splitlines()) == 2
    assert main(["list", "--paper", "no-such-paper"]) == 1


def test_console_script():
    exe = VENV_BIN / "wevent-nb"
    if not exe.exists(): pytest.skip("console script not installed")
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "reproduce" in r.stdout and "datasets" in r.stdout


def test_datasets(data_home, capsys):
    assert main(["datasets", "--data-home", str(data_home)]) == 0
    out = capsys.readouterr().out
    assert out.strip() and out.strip() != "no data sets"


def test_datasets_generated_lists_the_periodic_presets(capsys):
    from wevent_nb.data import BENCHMARK_PERIODIC
    assert main(["datasets", "--generated"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in BENCHMARK_PERIODIC) and "benchmark_periodic" in out


def test_parse_value():
    for text, want in [("50", 50), ("0.5", 0.5), ("1e-3", 1e-3), ("[0.1, 1]", [0.1, 1]), ("true", True), ("None", None),
                       ("tdrive", "tdrive"), ("[a, b]", ["a", "b"]), ('"x y"', "x y")]:
        got = parse_value(text)
        assert got == want and type(got) is type(want), (text, got)


def test_find_notebooks(tmp_path):
    _nb(tmp_path / "00_core.ipynb", ["x = 1"], tag_first=False)
    _nb(tmp_path / "20_experiments.ipynb", ["scale = 'quick'"])
    assert [p.name for p in find_notebooks(tmp_path)] == ["20_experiments.ipynb"]
    _nb(tmp_path / "10_ldp_ids.ipynb", ["scale = 'quick'"]); _nb(tmp_path / "13_pbd_pba.ipynb", ["scale = 'quick'"])
    assert [p.name for p in find_notebooks(tmp_path)] == ["10_ldp_ids.ipynb", "13_pbd_pba.ipynb"]
    assert [p.name for p in find_notebooks(tmp_path, paper="003")] == ["13_pbd_pba.ipynb"]
    assert [p.name for p in find_notebooks(tmp_path, paper="ldp")] == ["10_ldp_ids.ipynb"]
    assert [p.name for p in find_notebooks(tmp_path, foundation=True)][-1] == "20_experiments.ipynb"
    assert paper_id("14_delay.ipynb") == "004" and paper_id("30_cli.ipynb") is None
    assert main(["reproduce", "--notebooks-dir", str(tmp_path), "--paper", "zzz", "--out", str(tmp_path / "o")]) == 1
    assert main(["reproduce", "--notebooks-dir", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 1


def test_reproduce_tiny_notebooks(tmp_path, capsys):
    src = tmp_path / "nbs"; src.mkdir()
    _nb(src / "10_good.ipynb", ["scale = 'paper'\nn = 2\nname = 'x'", "import os; print('n squared is', n * n, name, scale, os.getcwd())"])
    _nb(src / "11_broken.ipynb", ["scale = 'quick'", "raise RuntimeError('deliberate failure 1234')"])
    _nb(src / "12_untagged.ipynb", ["scale = 'quick'", "print('ran')"], tag_first=False)
    out = tmp_path / "reports"
    rc = main(["reproduce", "--notebooks-dir", str(src), "--out", str(out), "--scale", "quick",
               "-p", "n", "7", "-p", "name", "tdrive"])
    assert rc == 1                                              # a failure makes the exit code non-zero ...
    done = nbformat.read(out / "10_good.ipynb", 4)             # ... but the other notebooks still ran
    assert done.metadata.papermill.parameters == {"scale": "quick", "n": 7, "name": "tdrive"}
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in done.cells)
    page = (out / "10_good.html").read_text()
    assert "n squared is 49 tdrive quick" in page and str(src) in page      # injected values used, cwd = notebooks dir
    index = (out / "index.html").read_text()
    for name in ("10_good", "11_broken", "12_untagged"): assert name in index
    assert 'href="10_good.html"' in index and 'href="10_good.ipynb"' in index
    assert "deliberate failure 1234" in index and "no cell tagged &#x27;parameters&#x27;" in index
    assert index.count(">ok<") == 1 and index.count(">failed<") == 2
    assert (out / "11_broken.html").exists()                   # the failed notebook is rendered up to its error
    assert not (out / "12_untagged.ipynb").exists()            # refused before running
    assert "1/3 report(s) ok" in capsys.readouterr().out


def test_reproduce_embeds_images(tmp_path):
    src = tmp_path / "nbs"; src.mkdir()
    _nb(src / "20_plot.ipynb", ["scale = 'quick'", "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\n"
                                "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]); plt.show()"])
    assert main(["reproduce", "--notebooks-dir", str(src), "--out", str(tmp_path / "o")]) == 0
    page = (tmp_path / "o" / "20_plot.html").read_text()
    assert "data:image/png;base64," in page


def test_nbdev_clean_keeps_parameters_tag(tmp_path):
    "nbdev-clean with the project's config must keep papermill's tag (needs allowed_cell_metadata_keys = ['tags'])."
    nb = tmp_path / "copy.ipynb"
    shutil.copy(ROOT / "nbs" / "20_experiments.ipynb", nb)
    d = json.loads(nb.read_text())
    i = next(k for k, c in enumerate(d["cells"]) if "parameters" in c["metadata"].get("tags", []))
    d["cells"][i]["metadata"]["scrolled"] = True               # a key nbdev-clean must strip: proves it ran
    nb.write_text(json.dumps(d))
    exe = VENV_BIN / "nbdev-clean"
    r = subprocess.run([str(exe), "--fname", str(nb)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    cell = json.loads(nb.read_text())["cells"][i]
    assert "scrolled" not in cell["metadata"], "nbdev-clean did not run"
    assert cell["metadata"].get("tags") == ["parameters"], "nbdev-clean stripped the papermill parameters tag"
    assert has_parameters_cell(nb)
    # and the check can fail: without the setting the tag is stripped
    from nbdev.clean import clean_nb
    d = json.loads(nb.read_text()); clean_nb(d, allowed_cell_metadata_keys=[])
    assert "tags" not in d["cells"][i]["metadata"]


def test_repo_report_notebooks_have_parameters_cells():
    nbs = ROOT / "nbs"
    run = list(dict.fromkeys(find_notebooks(nbs) + find_notebooks(nbs, foundation=True)))
    assert run, "reproduce would find no notebook"
    missing = [p.name for p in run if not has_parameters_cell(p)]
    assert not missing, f"papermill would ignore injected parameters in {missing}"
    assert "20_experiments.ipynb" in [p.name for p in find_notebooks(nbs, foundation=True)]


# ---------------------------------------------------------------- report pages (issue 16: formulas offline, code folded)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TINY_REPORT = [
    "scale = 'quick'",
    "#| default_exp tiny",
    "#| hide\nHIDDEN_SETUP = 'secret-hidden-cell'\nprint('HIDDEN_OUTPUT')",
    "#| export\ndef visible_fn(): return 41 + 1",
    "from IPython.display import display\n"   # a widget view with a static rendering, as the Explorer displays
    "view = 'application/vnd.jupyter.' + 'widget-view+json'      # (spelt in two halves: the folded code is in the page too)\n"
    "display({view: {'model_id': 'model-' + 'abc123', 'version_major': 2, 'version_minor': 0},\n"
    "         'text/html': '<p>STATIC_EXPLORER_STATE</p>', 'text/plain': 'VBox()'}, raw=True)",
    "import matplotlib\nmatplotlib.use('module://matplotlib_inline.backend_inline')\nimport matplotlib.pyplot as plt\n"
    "plt.plot([1, 2, 3]); plt.title(r'$\\varepsilon$ = 1'); plt.show()",
]
TINY_MARKDOWN = ("## Result\nUnder $\\varepsilon$-DP with $w$-event windows, each window costs at most "
                 "$\\sum_{\\tau=t-w+1}^{t}\\varepsilon_\\tau\\le\\varepsilon$, and the error is\n\n"
                 "$$E(c;\\theta)=\\theta(w-c)V+\\big((1-2\\theta)w+2\\theta c\\big)\\frac{2c^2\\Delta_p^2}{\\varepsilon_p^2}$$\n")


def _report_problems(page: str, folder: Path) -> list[str]:
    "Why a report page is not a results-first, offline page: remote loads, code shown by default, MathJax not local."
    from html.parser import HTMLParser
    from wevent_nb.cli import REMOTE
    problems = [f"loads from another host: {m.group(0)[:120]}" for m in REMOTE.finditer(page)]
    problems += [f"script from the network: {s}" for s in re.findall(r'<script[^>]*\bsrc="((?:https?:)?//[^"]*)"', page, re.I)]

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__(); self.stack, self.shown, self.folded = [], 0, 0
        def handle_starttag(self, tag, attrs):
            if tag in ("br", "img", "hr", "meta", "link", "input", "col", "wbr", "source"): return
            a = dict(attrs); self.stack.append((tag, a.get("class") or "", "open" in a))
            if tag == "div" and "jp-Cell-inputArea" in self.stack[-1][1] and any("jp-CodeCell" in c for _, c, _ in self.stack[:-1]):
                if any(t == "details" and not o for t, _, o in self.stack[:-1]): self.folded += 1
                else: self.shown += 1
        def handle_endtag(self, tag):
            while self.stack and self.stack.pop()[0] != tag: pass
    cells = Cells(); cells.feed(page)
    if cells.shown: problems.append(f"{cells.shown} code cell(s) shown by default")
    srcs = [s for s in re.findall(r'<script[^>]*\bsrc="([^"]+)"', page) if "mathjax" in s.lower()]
    if not srcs: problems.append("no MathJax script")
    for src in srcs:
        if re.match(r"^(?:[a-z]+:|/)", src, re.I) or not (folder / src).is_file():
            problems.append(f"MathJax is not served beside the report: {src}")
    return problems


@pytest.fixture(scope="module")
def report_of(tmp_path_factory):
    "`report_of(name, code, markdown, at)`: a notebook of `code` cells and a `markdown` cell at `at` run through `wevent-nb reproduce` (papermill + export_html): the report folder and page."
    from wevent_nb.cli import MathJaxUnavailable, mathjax_dir
    try: mathjax_dir()
    except MathJaxUnavailable as e: pytest.skip(f"MathJax is not cached and no package registry can provide it: {e}")
    def run(name: str, code: list[str], markdown: str, at: int) -> tuple[Path, str]:
        tmp = tmp_path_factory.mktemp(Path(name).stem)
        src = tmp / "nbs"; src.mkdir()
        path = _nb(src / name, code)
        nb = nbformat.read(path, 4); nb.cells.insert(at, nbformat.v4.new_markdown_cell(markdown)); nbformat.write(nb, path)
        assert main(["reproduce", "--notebooks-dir", str(src), "--out", str(tmp / "reports")]) == 0
        return tmp / "reports", (tmp / "reports" / f"{path.stem}.html").read_text(encoding="utf-8")
    return run


@pytest.fixture(scope="module")
def tiny_report(report_of):
    "One tiny notebook (formulas, hidden cells, a widget view, a plot) as a report: the report folder and page."
    return report_of("10_tiny.ipynb", TINY_REPORT, TINY_MARKDOWN, 1)


def test_report_is_offline_with_code_folded(tiny_report):
    out, page = tiny_report
    assert _report_problems(page, out) == []
    assert 'src="_static/mathjax/tex-svg.js"' in page and (out / "_static" / "mathjax" / "tex-svg.js").is_file()
    assert "require.js" not in page and "unpkg.com" not in page and "cdnjs" not in page
    assert 'id="wn-toggle-code"' in page and page.count('<details class="wn-code">') == 5   # parameters, injected, export, display, plot
    for gone in ("HIDDEN_SETUP", "secret-hidden-cell", "HIDDEN_OUTPUT", "#|", "default_exp", WIDGET_VIEW, "model-abc123", "jupyter-widgets"):
        assert gone not in page, f"{gone!r} is in the report"
    for kept in ("def", "visible_fn", "STATIC_EXPLORER_STATE", "data:image/png;base64,", "$\\varepsilon$-DP"):
        assert kept in page, f"{kept!r} is missing from the report"


def test_report_checker_catches_a_plain_nbconvert_page(tiny_report):
    "The check above fails on what nbconvert makes by default: CDN scripts, every cell's code shown."
    from nbconvert import HTMLExporter
    out, _ = tiny_report
    plain, _ = HTMLExporter(embed_images=True).from_filename(str(out / "10_tiny.ipynb"))
    problems = "\n".join(_report_problems(plain, out))
    assert "loads from another host" in problems and "script from the network" in problems
    assert "code cell(s) shown by default" in problems and "MathJax is not served beside the report" in problems
    opened = tiny_report[1].replace('<details class="wn-code">', '<details class="wn-code" open>')
    assert any("shown by default" in p for p in _report_problems(opened, out))
    cdn = tiny_report[1].replace('src="_static/mathjax/tex-svg.js"', 'src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-svg.js"')
    assert len(_report_problems(cdn, out)) == 3


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed")
def test_report_formulas_render_from_file_url(tiny_report, tmp_path):
    "Opened from file:// in headless Chromium without network, MathJax typesets every formula: no raw $ left in the prose."
    out, _ = tiny_report
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
                        "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path}", "--virtual-time-budget=15000",
                        "--dump-dom", (out / "10_tiny.html").as_uri()], capture_output=True, text=True, timeout=120)
    dom = r.stdout
    assert "</html>" in dom, r.stderr[-2000:]
    assert dom.count("<mjx-container") == 4, "MathJax did not typeset the 4 formulas"
    prose = re.sub(r"<(script|style|details|pre)\b.*?</\1>", "", dom, flags=re.S)
    text = re.sub(r"<[^>]+>", "", prose)
    assert "$" not in text, text[max(0, text.find("$") - 80):text.find("$") + 80]
    assert "STATIC_EXPLORER_STATE" in text and "visible_fn" not in text     # code folded, results shown


def test_report_shows_callouts_as_boxes_not_fences():
    import nbformat
    from wevent_nb.cli import report_notebook
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("::: {.callout-warning}\n## Erratum: x\nThe paper's $a$ is wrong.\n:::")]
    src = report_notebook(nb).cells[0].source
    assert ":::" not in src and src.startswith("> **⚠ Erratum: x**") and "> The paper's $a$ is wrong." in src


# ---------------------------------------------------------------- bad input (issue 24): one clear line, never a traceback

def _usage_error(argv, capsys) -> str:
    "Run `argv`, expect argparse's usage error (exit 2) and return its last line."
    with pytest.raises(SystemExit) as e: main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def test_refuses_too_few_reps_and_workers(tmp_path, capsys):
    "reps < 2 (one seed has no spread) and workers < 1 are refused at parse time; an empty data home keeps the old code from running."
    empty, store = tmp_path / "empty", str(tmp_path / "s.sqlite"); empty.mkdir()
    bench = ["bench", "--data-home", str(empty), "--store", store]
    for flag, value in [("--reps", "0"), ("--reps", "1"), ("--reps", "-2")]:
        line = _usage_error(bench + [flag, value], capsys)
        assert f"argument --reps: {value} is not allowed: at least 2" in line and "spread over seeds" in line
    for value in ("0", "-1"):
        assert f"argument --workers: {value} is not allowed: at least 1" in _usage_error(bench + ["--workers", value], capsys)
    assert "not a whole number" in _usage_error(bench + ["--reps", "two"], capsys)
    repro = ["reproduce", "--notebooks-dir", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]
    for value in ("0", "1", "2.5"):
        assert f"reps {value} is not allowed: reps must be a whole number >= 2" in _usage_error(repro + ["-p", "reps", value], capsys)
    assert "workers 0 is not allowed" in _usage_error(repro + ["-p", "workers", "0"], capsys)
    assert main(repro + ["-p", "reps", "3", "-p", "workers", "serial"]) == 1      # accepted; the missing folder is what stops it
    assert "does not exist" in capsys.readouterr().err


def test_unknown_flag_is_named(capsys):
    line = _usage_error(["--bogus"], capsys)
    assert "unrecognized arguments: --bogus" in line and all(c in line for c in ("list", "datasets", "bench", "reproduce", "release"))
    assert "no command given" in _usage_error([], capsys)
    assert "unrecognized arguments: --bogus" in _usage_error(["list", "--bogus"], capsys)


def test_runtime_failures_exit_1_and_usage_errors_2(tmp_path, data_home, monkeypatch, capsys):
    "Exit 2 is argparse's usage error: a command line wrong whatever the files hold. What is missing or failing at run time exits 1."
    from wevent_nb import experiments
    empty, nbs = tmp_path / "empty", tmp_path / "nbs"; empty.mkdir(); nbs.mkdir(); _nb(nbs / "10_one.ipynb", ["scale = 'quick'"])
    repro, bench = ["reproduce", "--out", str(tmp_path / "o"), "--notebooks-dir"], ["bench", "--store", str(tmp_path / "s.sqlite")]
    cases = [(repro + [str(tmp_path / "missing")], 1, "does not exist"),
             (repro + [str(empty)], 1, "no report notebook"),
             (repro + [str(nbs), "--paper", "zzz"], 1, "matches paper='zzz'"),
             (bench + ["--family", "event", "--data-home", str(empty)], 1, "no data set found"),
             (bench + ["--family", "global", "--data-home", str(data_home)], 2, "--family='global' is not allowed")]
    if importlib.util.find_spec("distributed"):
        monkeypatch.setattr(experiments, "CONNECT_TIMEOUT", 2)
        cases += [(repro + [str(nbs), "--scheduler", "no-port-here"], 2, "missing port number"),
                  (repro + [str(nbs), "--scheduler", "tcp://127.0.0.1:1"], 1, "Timed out")]      # nothing listens there
    for argv, code, why in cases:
        assert main(argv) == code, argv
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err, (argv, err)


def _truncated_store(path: Path) -> bytes:
    from wevent_nb.experiments import ResultStore
    with ResultStore(path) as st:
        for i in range(300):
            st.write(dict(key=f"k{i}", dataset="d", mechanism="m", params={"eps": 1.0}, fixed={}, rep=0, seed=i, seconds=0.1,
                          ledger_ok=True, ledger_error="", values=[("mae", 1.0)]))
        st.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()[: path.stat().st_size // 2]
    path.write_bytes(data)
    return data


def test_bad_store_is_reported_and_left_untouched(tmp_path, capsys):
    "A store that is not SQLite, a truncated one, one under a regular file or a folder: exit 1, one line naming it, nothing lost."
    import sqlite3
    from wevent_nb.experiments import ResultStore
    empty = tmp_path / "empty"; empty.mkdir()
    text = tmp_path / "notes.sqlite"; text.write_text("not a database\n")
    trunc = tmp_path / "trunc.sqlite"; before = _truncated_store(trunc)
    afile = tmp_path / "afile"; afile.write_text("x")
    cases = [(text, "not a readable SQLite database"), (trunc, "not a readable SQLite database"),
             (afile / "x.sqlite", f"{afile} is a file, not a folder"), (afile / "sub" / "x.sqlite", f"{afile} is a file, not a folder"),
             (empty, "is a folder, not a file")]
    for store, why in cases:
        assert main(["bench", "--data-home", str(empty), "--store", str(store)]) == 1, store
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert f"result store {store}" in err and why in err, err
        with pytest.raises(sqlite3.DatabaseError, match=re.escape(why)): ResultStore(store)
    assert text.read_text() == "not a database\n" and trunc.read_bytes() == before


def test_csv_checked_before_computing(tmp_path, data_home, monkeypatch, capsys):
    "An unwritable --csv is refused before the grids run (the benchmark is replaced by a tripwire)."
    from wevent_nb import benchmark as B
    def tripwire(*a, **k): raise AssertionError("the benchmark ran before the --csv check")
    monkeypatch.setattr(B, "run_benchmark", tripwire)
    afile = tmp_path / "afile"; afile.write_text("x")
    for csv, why in [(tmp_path / "missing" / "r.csv", "no such folder"), (tmp_path, "is a folder"),
                     (afile / "r.csv", "is a file, not a folder")]:
        assert main(["bench", "--data-home", str(data_home), "--store", str(tmp_path / "s.sqlite"), "--csv", str(csv), "--quiet"]) == 1
        err = capsys.readouterr().err
        assert f"--csv {csv}" in err and why in err and len(err.strip().splitlines()) == 1, err


def test_datasets_missing_home(tmp_path, capsys):
    assert main(["datasets", "--data-home", str(tmp_path / "nonexistent")]) == 1
    err = capsys.readouterr().err
    assert f"--data-home {tmp_path / 'nonexistent'}: no such folder" in err and len(err.strip().splitlines()) == 1


def _cells(line: str) -> list[str]: return re.split(r"\s{2,}", line.strip())


def _cut_at_a_word(cell: str, full: str, breaks: str = " ") -> bool:
    "The cell is the whole text, or its start up to a word boundary followed by an ellipsis."
    full = " ".join(str(full).split())
    if cell == full: return True
    stem = cell[:-1].rstrip(" ,;:")
    return cell.endswith("…") and full.startswith(stem) and (full[len(stem)] in breaks + ",;:" or stem[-1] in breaks)


def test_list_fits_the_terminal(monkeypatch, capsys):
    from wevent_nb.core import list_mechanisms
    infos = {i.name: i for i in list_mechanisms()}
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and max(map(len, lines)) <= 80, max(lines, key=len)
    assert any(l.endswith("…") for l in lines)
    for line in lines[1:]:
        name, paper, kind, summary = _cells(line)
        assert _cut_at_a_word(summary, infos[name].summary) and _cut_at_a_word(paper, infos[name].paper), line
    assert main(["list", "--long"]) == 0
    out = capsys.readouterr().out
    assert all(" ".join(i.summary.split()) in out for i in infos.values()) and "…" not in out


def test_datasets_cut_at_word_boundaries(data_home, monkeypatch, capsys):
    from wevent_nb import data
    full = data.list_datasets(str(data_home)).set_index("name")["description"]
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["datasets", "--data-home", str(data_home)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    cut = 0
    for line in lines[1:]:
        cells = _cells(line)
        assert _cut_at_a_word(cells[-1], full[cells[0]]), line
        cut += cells[-1].endswith("…")
    assert cut, "no description was long enough to be cut: the check proves nothing"


def test_kernel_tcp_warning_filtered_exactly():
    import os, threading
    from wevent_nb.cli import forward_stderr
    r, w = os.pipe(); r2, w2 = os.pipe()
    t = threading.Thread(target=forward_stderr, args=(r,), kwargs=dict(to=w2)); t.start()
    os.write(w, b"[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All communication ...\n"
                b"[IPKernelApp] WARNING | something else\nplain line\n")
    os.close(w); t.join(10); os.close(w2)
    with os.fdopen(r2, "rb") as f: assert f.read() == b"[IPKernelApp] WARNING | something else\nplain line\n"


def test_reproduce_quiet_with_time_estimate(tmp_path, capfd):
    "No kernel TCP warning on the terminal; an estimate before running, from the last run once there is one."
    src = tmp_path / "nbs"; src.mkdir()
    _nb(src / "10_ldp_ids_repro.ipynb", ["scale = 'quick'", "print('ran')"]); _nb(src / "11_spas_repro.ipynb", ["scale = 'quick'", "print('ran')"])
    argv = ["reproduce", "--notebooks-dir", str(src), "--out", str(tmp_path / "o")]
    assert main(argv) == 0
    out, err = capfd.readouterr()
    assert "without encryption" not in err and "Kernel is running over TCP" not in err, err
    first = out.splitlines()[0]
    assert first == "2 notebook(s) at the quick scale: about 2 min (the quick-run figures of 2026-12-02)", first    # 67 s + 48 s measured
    assert main(argv) == 0
    first = capfd.readouterr().out.splitlines()[0]
    assert re.fullmatch(rf"2 notebook\(s\) at the quick scale: about 1 min \(2 from their last run in {re.escape(str(tmp_path / 'o'))}\)", first), first
    assert main(argv[:-2] + ["--out", str(tmp_path / "p"), "--scale", "paper"]) == 0
    assert "no time estimate (no earlier paper-scale run recorded" in capfd.readouterr().out


# ---------------------------------------------------------------- report titles, source links, prompts, the index (issue 24)

@pytest.fixture(scope="module")
def paper_report(report_of):
    "A paper-like notebook (a heading, a show_doc entry of a name nbdev finds no line for, a value, a display) run by `reproduce`."
    return report_of("12_tiny.ipynb", ["scale = 'quick'", "from nbdev.showdoc import show_doc\nfrom wevent_nb.capp import CAPP\nshow_doc(CAPP)",
                                       "1 + 1", "from IPython.display import display\ndisplay(40 + 2)", "3 + 4"],
                     "# Tiny paper: a *dual* title\n\n> A. Author and B. Author, *A Tiny Paper* (VENUE 2031): x.", 0)


def test_report_renders_show_doc_source_links(paper_report):
    "show_doc's Pandoc link `[source](url){target=...}` is an HTML link in the report, never text, and never to line None."
    _, page = paper_report
    assert "CAPP" in page and "{target=" not in page and "font-size:smaller\"}" not in page
    assert "#LNone" not in page
    assert re.search(r'<div class="wn-source" style="float:right; font-size:smaller"><a href="https://github\.com/[^"]*/capp\.py" target="_blank">source</a></div>', page)


def test_report_title_is_the_notebooks_heading(paper_report):
    _, page = paper_report
    assert re.search(r"<title>\s*Tiny paper: a \*dual\* title\s*</title>", page), re.search(r"<title>.*?</title>", page, re.S).group(0)


def test_report_has_no_output_prompts_and_no_sticky_bar(paper_report):
    "No 'Out[n]:' on some outputs only: no output prompt at all; the folded-code bar scrolls away instead of covering headings."
    _, page = paper_report
    assert "42" in page and ">7<" in page.replace("\n", "")
    assert not re.search(r"Out\[\s*(\d+|&nbsp;)?\s*\]:", page)
    bar = re.search(r"\.wn-bar\s*\{[^}]*\}", page).group(0)
    assert "sticky" not in bar and "fixed" not in bar


def test_report_signatures_wrap_at_the_page_edge(paper_report, sideways_overflow):
    "show_doc's signature lines (a code block in a markdown output, each parameter's doc a comment) wrap instead of running off the right edge (JupyterLab's CSS wraps output blocks)."
    out, page = paper_report
    assert re.search(r'jp-RenderedMarkdown jp-OutputArea-output[^>]*>\s*<hr/>.*?<pre><span></span><span class="k">def</span>', page, re.S)
    over = sideways_overflow(out / "12_tiny.html", ".jp-OutputArea-output.jp-RenderedMarkdown pre", width=800)
    assert over and max(over) == 0, over


def test_index_names_each_paper_and_its_committed_counts(tmp_path):
    "reports/index.html: per paper notebook its heading, authors/title/venue where stated, a link to claims/00N_*.md and its CSV's counts."
    from wevent_nb.cli import find_notebooks, notebook_info, write_index
    from wevent_nb.experiments import claim_counts, read_claims
    out = tmp_path / "reports"; out.mkdir()
    nbs = [p for p in find_notebooks(ROOT / "nbs") if paper_id(p)]
    assert len(nbs) == 5
    recs = [dict(notebook=p.stem, source=str(p), parameters={"scale": "quick"}, status="ok", error="", seconds=1.0,
                 ipynb=p.name, html=p.stem + ".html") for p in nbs]
    page = write_index(out, recs).read_text(encoding="utf-8")
    import html as H
    for p in nbs:
        info = notebook_info(p)
        assert f'<a href="{p.stem}.html">{H.escape(info["title"])}</a>' in page
        assert info["paper"] and H.escape(info["paper"]) in page
        for k in ("authors", "venue"):
            if info[k]: assert H.escape(info[k]) in page
        md = next((ROOT / "claims").glob(f"{paper_id(p)}_*.md"))
        assert re.search(rf'<a href="[^"]*claims/{md.name}">{md.name}</a>', page)
        counts = ", ".join(f"{n} {v}" for v, n in claim_counts(read_claims(md)).items())
        assert H.escape(counts) in page, (md.name, counts)
    # the claims links resolve from the index's folder
    for href in re.findall(r'href="([^"]*claims/[^"]*\.md)"', page):
        assert (out / href).resolve().is_file(), href
    info = {p.stem: notebook_info(p) for p in nbs}
    assert info["13_pbd_pba_repro"]["venue"].startswith("PVLDB") and info["14_delay_repro"]["venue"] == "NDSS 2025"
    assert info["10_ldp_ids_repro"]["venue"] == "SIGMOD 2022" and "Ren" in info["10_ldp_ids_repro"]["authors"]
