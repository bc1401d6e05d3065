"""The committed paper-scale claims tables (claims/*.md + .csv) say how they were made, and the README (and the docs
home page) quote their verdict counts exactly."""
import json
import re
from pathlib import Path
import pytest
from wevent_nb.experiments import claim_counts, read_claims

ROOT = Path(__file__).resolve().parents[1]
PAPER_NOTEBOOKS = {p.name[:2]: p.stem for p in (ROOT / "nbs").glob("1[0-9]_*.ipynb") if not p.stem.endswith("_repro")}   # "10" -> "10_ldp_ids" (its library notebook)
CLAIMS = sorted((ROOT / "claims").glob("*.csv"))


def _notebook_of(claims_csv: Path) -> str:
    "claims/000_ldp_ids.csv -> 10_ldp_ids (paper 00N is notebook 1N_*)."
    return PAPER_NOTEBOOKS[f"1{int(claims_csv.stem[:3])}"]


def counts_text(counts: dict) -> str:
    "The counts as the README quotes them: every verdict of VERDICTS, then the readings off the paper's setting (tables with them)."
    return ", ".join(f"{n} {v}" for v, n in counts.items())


def _status_rows(text: str) -> dict:
    return {m.group(1): line for line in text.splitlines() if (m := re.match(r"\|\s*`(1\d_\w+)`", line))}


def _docs_home() -> str:
    nb = json.loads((ROOT / "nbs" / "index.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_the_shipped_papers_have_committed_claims():
    have = {_notebook_of(p) for p in CLAIMS}
    assert set(PAPER_NOTEBOOKS.values()) <= have, f"paper-scale claims tables missing for {sorted(set(PAPER_NOTEBOOKS.values()) - have)}"


@pytest.mark.parametrize("csv", CLAIMS, ids=lambda p: p.stem)
def test_claims_file_says_how_it_was_made(csv):
    md = csv.with_suffix(".md").read_text(encoding="utf-8")
    for key in ("command", "scale", "seeds", "date"):
        assert re.search(rf"^- {key}: \S", md, re.M), f"{csv.with_suffix('.md').name} lacks its {key}"
    assert re.search(r"^- scale: paper\b", md, re.M), "the committed tables are the paper-scale ones"
    t = read_claims(csv)
    assert len(t) > 0 and f"- verdicts: {', '.join(f'{k} {v}' for k, v in claim_counts(t).items())}" in md


@pytest.mark.parametrize("csv", CLAIMS, ids=lambda p: p.stem)
@pytest.mark.parametrize("doc", ["README.md", "nbs/index.ipynb"])
def test_status_quotes_the_claims_counts(csv, doc):
    text = (ROOT / doc).read_text(encoding="utf-8") if doc.endswith(".md") else _docs_home()
    nb = _notebook_of(csv)
    row = _status_rows(text).get(nb)
    assert row is not None, f"{doc} has no status row for `{nb}`"
    t = read_claims(csv)
    want = counts_text(claim_counts(t))
    assert want in row, f"{doc}'s row for {nb} must quote '{want}' (from claims/{csv.stem}.csv): {row}"
    if "origin" in t:                    # the paper's claims quoted first, our own readings apart (issue 37)
        ours = f"our own readings, apart: {counts_text(claim_counts(t, 'ours'))}"
        assert ours in row and row.index(want) < row.index(ours), f"{doc}'s row for {nb} must quote '{ours}' after the paper's counts: {row}"
    assert f"claims/{csv.stem}.md" in row
