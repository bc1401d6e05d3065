"Tests of the `wevent-nb` command line (wevent_nb.cli)."
import json, shutil, subprocess, sys
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
    assert main(["reproduce", "--notebooks-dir", str(tmp_path), "--paper", "zzz", "--out", str(tmp_path / "o")]) == 2
    assert main(["reproduce", "--notebooks-dir", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2


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
