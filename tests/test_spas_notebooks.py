"""SPAS in two notebooks (issue 39, item 3): the library notebook 11_spas (setting, derivations, code, checks, online form,
privacy checks) imports none of the experiment machinery and has no papermill parameters cell; the reproduction notebook
11_spas_repro (grids, figures, claims table) has the parameters cell papermill fills; both keep the house sizes (no
exported cell over 80 lines, no class over 150)."""
import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
MACHINERY = ("wevent_nb.experiments", "wevent_nb.benchmark", "wevent_nb.cli")


def _cells(name):
    return json.loads((NBS / name).read_text(encoding="utf-8"))["cells"]


def _code(cell) -> str:
    return "".join(cell["source"])


def test_the_library_notebook_needs_no_experiment_machinery():
    cells = _cells("11_spas.ipynb")
    imports = [m for c in cells if c["cell_type"] == "code" for m in MACHINERY if m in _code(c)]
    assert not imports, f"11_spas imports {imports}: that belongs in 11_spas_repro"
    assert not any("parameters" in c.get("metadata", {}).get("tags", []) for c in cells)
    assert any("11_spas_repro.ipynb" in _code(c) for c in cells if c["cell_type"] == "markdown")   # it links its reproduction


def test_the_reproduction_notebook_has_the_parameters_cell_and_exports_nothing():
    cells = _cells("11_spas_repro.ipynb")
    params = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(params) == 1 and "scale = " in _code(params[0])
    assert not [c for c in cells if c["cell_type"] == "code" and _code(c).lstrip().startswith(("#| export", "#| default_exp"))]
    assert _code(cells[0]).startswith("# SPAS: reproduction") and "11_spas.ipynb" in _code(cells[1])   # it links back to the library


def test_exported_cells_and_classes_keep_the_house_sizes():
    for c in _cells("11_spas.ipynb"):
        src = _code(c)
        if c["cell_type"] != "code" or not src.replace(" ", "").startswith("#|export"): continue
        n = len(src.rstrip("\n").split("\n"))
        assert n <= 80, f"an exported cell of {n} lines ({src.splitlines()[1][:60]!r})"
        body = "\n".join(l for l in src.split("\n") if not l.startswith("#|"))
        for node in ast.walk(ast.parse(body)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno - node.lineno < 150, f"class {node.name} is {node.end_lineno - node.lineno + 1} lines"
