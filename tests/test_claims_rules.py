"""Issue 37: claims a careful reviewer would accept. The cause vocabulary, the paper's claims tallied apart from our own
readings, the many-cell rule for a plain general sentence, verdicts off the paper's setting, and paper 002's committed
table (Table I judged against a mean of 100 runs; Fig. 9's SW claim as stated; every departure with its cause)."""
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wevent_nb import experiments as ex
from wevent_nb.experiments import claim_cells, claim_counts, claim_number, claim_sign, claims_table, read_claims, write_claims
from claims_support import assert_causes, committed_table, paper_text, quote_found

ROOT = Path(__file__).resolve().parents[1]


def _cells(seed=40, seeds=20):
    g = np.random.default_rng(seed)
    paper = {f"set{i}": g.normal(2.0, 1.0, seeds) for i in range(32)} | {f"und{i}": g.normal(0.0, 1.0, seeds) for i in range(7)}
    return paper, {"Taxi (stand-in)": g.normal(-2.0, 1.0, seeds)}


def test_many_cells_general_sentence_holds_in_k_of_n_on_the_papers_cells():
    """32 of 40 cells hold, 7 undecided, the one opposite cell a stand-in: "every" refuted it; a general sentence read over
    the paper's 39 cells is reproduced, "holds in 32 of 39, except 7 undecided", the stand-in reported apart.
    Fails on fd6f15c: no "generally" quantifier and no `extra=` there."""
    paper, standin = _cells()
    assert claim_cells("X beats Y", "", paper | standin, "every")["verdict"] == "refuted"
    row = claim_cells("X beats Y", "", paper, "generally", extra=standin)
    assert row["verdict"] == "reproduced", row["why"]
    assert "holds in 32 of 39, except 7 undecided" in row["why"]
    assert "not in the verdict): 0 of 1 cells hold, 1 the other way (Taxi (stand-in))" in row["why"]


def test_general_sentence_threshold_and_error_rates():
    "At least 3 of 4 cells: a claim true in only half the cells is never reproduced; true everywhere, it is; opposite in a third, refuted."
    g = np.random.default_rng(5)
    assert ex.GENERALLY == 0.75
    for _ in range(30):
        half = {i: g.normal(1.5 if i < 20 else 0.0, 1.0, 20) for i in range(40)}
        assert claim_cells("g", "", half, "generally")["verdict"] != "reproduced"
        null = {i: g.normal(0.0, 1.0, 20) for i in range(40)}
        assert claim_cells("g", "", null, "generally")["verdict"] == "inconclusive"
    every = {i: g.normal(3.0, 1.0, 20) for i in range(40)}
    assert claim_cells("g", "", every, "generally")["verdict"] == "reproduced"
    third = {i: g.normal(3.0 if i < 26 else -3.0, 1.0, 20) for i in range(40)}
    assert claim_cells("g", "", third, "generally")["verdict"] == "refuted"


def test_cause_vocabulary_enforced():
    "Fails on fd6f15c: claim_* take no cause=, origin= or setting=."
    x = np.random.default_rng(0).normal(-2.0, 1.0, 20)
    row = claim_sign("A < B", "p", x, cause="stand-in data: Flu-states for Taxi")
    assert row["verdict"] == "refuted" and row["cause"] == "stand-in data: Flu-states for Taxi"
    assert claim_sign("A > B", "p", -x, cause="not determined: x")["cause"] == ""        # reproduced: no departure
    for bad in ("bad luck: it happens", "not determined", "not determined: ", "stand-in data"):
        with pytest.raises(ValueError, match="kind one of"): claim_sign("A", "p", x, cause=bad)
    with pytest.raises(TypeError): claim_sign("A", "p", x, cause=3)
    for kind in ex.CAUSES: assert claim_number("n", 1.0, [1.0, 2.0], cause=f"{kind}: evidence")["cause"] == f"{kind}: evidence"


def test_paper_scale_write_requires_a_cause(tmp_path):
    x = np.random.default_rng(0).normal(-2.0, 1.0, 20)
    t = claims_table([claim_sign("A < B", "p", x), claim_sign("C > D", "p", -x)])
    with pytest.raises(ValueError, match="give no cause .*A < B"): write_claims(t, tmp_path / "c", "t", "cmd", "0..19", "paper (eps [1])")
    write_claims(t, tmp_path / "q", "t", "cmd", "0..2", "quick")                        # a quick run: no causes needed
    ok = claims_table([claim_sign("A < B", "p", x, cause="our error: a test")])
    md = write_claims(ok, tmp_path / "c", "t", "cmd", "0..19", "paper", date="2026-01-02").read_text()
    assert "- verdicts: reproduced 0, differs 0, refuted 1, inconclusive 0" in md and "our error: a test" in md
    assert read_claims(tmp_path / "c")["cause"].tolist() == ["our error: a test"]
    # a paper whose rows are not yet reviewed for causes is written, and its header says so
    md = write_claims(t, tmp_path / "r", "t", "cmd", "0..19", "paper", causes_reviewed=False).read_text()
    assert "- causes: not yet reviewed row by row" in md


def test_origin_tallied_apart_and_setting_read(tmp_path):
    "Fails on fd6f15c: one count over every row, refuted on a stand-in counted as refuted."
    g = np.random.default_rng(1)
    rows = [claim_sign("paper", "p", g.normal(2.0, 1.0, 20)),
            claim_sign("ours", "p", g.normal(-2.0, 1.0, 20), origin="ours", cause="inferred by us: our factor"),
            claim_sign("stand-in", "p", g.normal(-2.0, 1.0, 20), setting="stand-in", cause="stand-in data: flu"),
            claim_sign("corrected", "p", g.normal(-2.0, 1.0, 20), setting="corrected", cause="the authors' code: overspends")]
    t = claims_table(rows)
    assert claim_counts(t) == {"reproduced": 1, "differs": 0, "refuted": 0, "inconclusive": 0,
                               "not reproduced on the stand-in": 1, "differs once corrected": 1}
    assert claim_counts(t, "ours")["refuted"] == 1 and sum(claim_counts(t, None).values()) == 4
    md = write_claims(t, tmp_path / "c", "t", "cmd", "0..19", "paper", date="2026-01-02").read_text()
    assert "- our readings: reproduced 0, differs 0, refuted 1, inconclusive 0" in md
    assert "- counted: the paper's 3 claims above; our own 1 readings (origin ours) apart" in md
    view = repr(ex.show_claims(t))
    assert "ours [ours]" in view and "not reproduced on the stand-in: " in view and "cause: stand-in data: flu" in view


def test_old_tables_load_without_the_new_columns(tmp_path):
    "A table written before origin/setting/cause: loads with its six columns, every row the paper's, no cause invented."
    p = tmp_path / "old.csv"
    pd.DataFrame([["a", "1", "1", "±0", "refuted", "r"]], columns=ex.CLAIM_COLS).to_csv(p, index=False)
    t = read_claims(p)
    assert list(t.columns) == ex.CLAIM_COLS and "cause" not in t
    assert claim_counts(t) == {"reproduced": 0, "differs": 0, "refuted": 1, "inconclusive": 0}
    assert sum(claim_counts(t, "ours").values()) == 0
CAPP = ROOT / "claims" / "002_capp.csv"


def _capp(): return committed_table("002_capp")


def test_capp_table_i_against_a_mean_of_100_runs():
    """Sec. VI-A: "The experiments are conducted 100 times and the results were subsequently averaged": the tolerance is
    t(3, n) sd sqrt(1/100 + 1/n), not sd sqrt(1 + 1/n) (fd6f15c's table: paper_runs=1, every row reproduced)."""
    t = read_claims(CAPP)
    tab = t[t.claim.str.startswith("Table I") & t["paper says"].str.match(r"^[\d.]+$")]
    assert len(tab) == 12
    for r in tab.itertuples():
        m = re.match(r"([\d.e+-]+) ± ([\d.e+-]+) \(n=(\d+)\)", r.measured)
        sd, n = float(m.group(2)), int(m.group(3))
        want = max(ex.t_factor(ex.Z_CLAIM, n) * sd * math.sqrt(1 / 100 + 1 / n), 0.0005)
        assert float(r.tolerance[1:]) == pytest.approx(want, rel=2e-3), (r.claim, r.tolerance, want)


def test_capp_rows_quote_the_paper_and_give_causes():
    t = _capp()
    assert_causes(t)
    sw = t[t.claim == "Fig. 9: SW is superior to all other randomizers (MSE)"].iloc[0]
    assert "superior performance compared to all other mechanisms" in sw["paper says"] and sw.origin == "paper"
    assert sw.verdict == "reproduced", sw.why
    far = t[t.claim.str.startswith("Fig. 9: SW is by far")].iloc[0]
    assert far.origin == "ours"
    fig8 = t[t.claim.str.startswith("Fig. 8")]
    assert len(fig8) and (fig8.setting == "stand-in").all()
    text = paper_text("002", drop=r"\s*(<sup>|Fig\. \d+:)")          # a page break puts footnotes and captions inside a sentence
    if text is not None:
        for says in t["paper says"]:
            for q in re.findall(r'"([^"]{20,})"', says):
                for part in q.split(" ... "):
                    assert quote_found(part, text), f"not in the paper: {part!r}"




def test_quote_found_rejects_what_the_paper_does_not_say():
    "The shared quote check can fail: a sentence the paper has is found, the same sentence with one word changed is not."
    text = paper_text("004")
    if text is None: pytest.skip("the paper's text (../shared/papers/004_*.txt) is not here")
    words = text.split()
    said = " ".join(words[200:212])
    assert quote_found(said, text)
    assert not quote_found(said + " zebra", text) and not quote_found("the mechanism is not private at all on streams", text)
