"""Issue 39 for paper 000 (LDP-IDS): the paper in two notebooks. `nbs/10_ldp_ids.ipynb` is the library (setting,
derivations, code, checks, online form, privacy checks) and imports no experiment machinery; `nbs/10_ldp_ids_repro.ipynb`
is the reproduction (grids, figures, claims table), the notebook `wevent-nb reproduce --paper 000` runs."""
import ast
import json
import re
from pathlib import Path

from wevent_nb.cli import find_notebooks, has_parameters_cell

ROOT = Path(__file__).resolve().parents[1]
LIB, REPRO = ROOT / "nbs" / "10_ldp_ids.ipynb", ROOT / "nbs" / "10_ldp_ids_repro.ipynb"
MACHINERY = re.compile(r"\bwevent_nb\.(experiments|benchmark|cli)\b|from wevent_nb import [^\n]*\b(experiments|benchmark|cli)\b")


def _code(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def test_library_notebook_imports_no_experiment_machinery():
    found = [src.splitlines()[0] for src in _code(LIB) if MACHINERY.search(src)]
    assert not found, f"10_ldp_ids imports the experiment machinery in the cells starting {found}"
    assert not has_parameters_cell(LIB), "the library notebook has no experiments to scale: no papermill parameters cell"


def test_reproduction_notebook_is_the_papers_report():
    assert has_parameters_cell(REPRO)
    assert find_notebooks(ROOT / "nbs", paper="000") == [REPRO]
    code = "\n".join(_code(REPRO))
    assert "claims_table(" in code and "from wevent_nb.experiments import" in code
    assert not any(src.lstrip().startswith("#| export") for src in _code(REPRO)), "the reproduction notebook exports nothing"


def test_notebooks_keep_the_house_sizes():
    "No exported cell over 80 lines, no class over 150 (CONTRIBUTING.md), in both notebooks."
    for path in (LIB, REPRO):
        for src in _code(path):
            if not src.replace(" ", "").startswith("#|export"): continue
            n = len(src.rstrip("\n").split("\n"))
            assert n <= 80, f"{path.name}: an exported cell of {n} lines ({src.splitlines()[1][:60]!r})"
            body = "\n".join(l for l in src.split("\n") if not l.startswith("#|"))
            for node in ast.walk(ast.parse(body)):
                if isinstance(node, ast.ClassDef):
                    assert node.end_lineno - node.lineno < 150, f"{path.name}: class {node.name} is {node.end_lineno - node.lineno + 1} lines"


# what a user starts from (issue 39, item 4): the methods and their base, the options' values, the analysis and the metrics
PUBLIC = {"LDP_IDS_FOS", "LDP_IDS_MODES", "V", "dissimilarity", "IdRanges", "LDPIDSMechanism", "LBU", "LSP", "LBD", "LBA", "LPU", "LPD",
          "LPA", "forced_decisions", "mse_lbu", "mse_lpu", "mse_lsp", "mse_window_sum", "cfpu_theory", "mre_metric", "cfpu_metric",
          "cfpu_fullwin_metric", "event_series", "auc_metric"}
# kernels, draw-site constants, kernel helpers and the reproduction's values: internal, still importable by name
INTERNAL = ("mv_hypergeometric", "sample_available", "SPARSE_POOL", "NUMPY_SAMPLERS", "BINOMIAL_STATE_WORDS", "bitgen_address",
            "GRR_KIND", "OUE_KIND", "fo_row_estimate", "draw_counts", "LOG_PER_STEP", "AGGREGATE_SIMULATION_ONLY", "TABLE2", "TABLE2_TOL")


def test_public_surface_is_what_a_user_starts_from():
    import wevent_nb.ldp_ids as L
    assert set(L.__all__) == PUBLIC, (sorted(set(L.__all__) - PUBLIC), sorted(PUBLIC - set(L.__all__)))
    assert all(hasattr(L, n) for n in INTERNAL) and not set(INTERNAL) & set(L.__all__)
