"""Issue 37 for paper 000 (LDP-IDS): the committed claims table quotes the paper, judges its general sentences over the
paper's data sets with the stand-ins apart, tests Fig. 6(c)'s sweep with the stream's level held, keeps 21.72 (our
formulas' value) as rows of our own, and gives every row not reproduced a cause with its evidence. Fails on the table
of 2026-11-27: no origin, setting or cause column; H2 and H3 (d) refuted by one cell; H3 (c) on paths whose level rises."""
import re
from pathlib import Path

import pytest

from wevent_nb import experiments as ex
from claims_support import assert_causes, claim_row, committed_table, paper_text, quote_found

ROOT = Path(__file__).resolve().parents[1]
LDP = ROOT / "claims" / "000_ldp_ids"


def _ldp(): return committed_table("000_ldp_ids")




def _counts(row):
    "(cells holding, cells, cells the other way) of a claim_cells row's 'measured'."
    k, n, r = map(int, re.match(r"(\d+)/(\d+) cells as claimed, (\d+) opposite", row.measured).groups())
    return k, n, r


def test_ldp_rows_not_reproduced_give_a_valid_cause():
    t = _ldp()
    assert_causes(t)
    assert "not yet reviewed" not in (LDP.with_suffix(".md")).read_text(encoding="utf-8")




def test_ldp_rows_quote_the_paper():
    t = _ldp()
    paper = t[t.origin == "paper"]
    assert all(re.search(r'"[^"]{20,}"', s) for s in paper["paper says"]), "a paper row quotes nothing"
    assert all(re.match(r"(Sec\. \d|Table 2)", s) for s in paper["paper says"]), "a paper row does not say where its quote stands"
    text = paper_text("000")
    if text is None: pytest.skip("the paper's text (../shared/papers/000_*.txt) is not here")
    quoted = [q for s in paper["paper says"] for q in re.findall(r'"([^"]{20,})"', s)]
    assert len(quoted) >= 30
    for q in quoted: assert quote_found(q, text), f"not in the paper: {q!r}"


def test_ldp_general_sentences_are_judged_on_the_papers_sets_with_the_stand_ins_apart():
    """H2's "LPD manages to achieve smaller MRE than baseline LPU" and H3 (d)'s "much higher utility" are plain general
    sentences: judged 'generally' over the paper's LNS, Sin, Log cells, the stand-ins' and Flu's apart (the old table
    refuted both by one cell, H2's on the Taxi stand-in)."""
    t = _ldp()
    for start, n in (("H2: LPD below LPU", 15), ("H3 (d): population division below budget division on Sin", 20)):
        row = claim_row(t, start)
        k, n_, r = _counts(row)
        assert n_ == n and row.why.startswith("generally"), (start, row.measured, row.why[:80])
        want = "reproduced" if k >= ex.GENERALLY * n_ else "refuted" if r > (1 - ex.GENERALLY) * n_ else "inconclusive"
        assert row.verdict == want, (start, row.verdict, row.measured)
    assert "outside the paper's setting" in claim_row(t, "H2: LPD below LPU").why          # the stand-ins, reported apart
    for row in t[t.why.str.contains("outside the paper's setting")].itertuples():
        assert not re.search(r"\(stand-in\)|pseudo-users", row.measured), row.claim


def test_ldp_sqrt_q_sweep_holds_the_level():
    "H3 (c) and H5 (b) run on one walk scaled per sqrt(Q) with its mean held at 0.05 (the old paths' level rose 0.062 -> 0.110)."
    t = _ldp()
    for start in ("H3 (c): MRE grows with sqrt(Q)", "H3 (c): LPD/LPA above LPU at large Q", "H5 (b): LPD/LPA CFPU grows with Q"):
        row = claim_row(t, start)
        levels = [float(v) for v in re.findall(r"0\.00\d: (0\.\d+)", row.why)]
        assert len(levels) == 5 and set(levels) == {0.05}, (start, row.why)
        assert row.verdict == "reproduced" or row.cause.startswith(("inferred by us: ", "not determined: ")), row.cause


def test_ldp_h7_tests_the_inequality_and_keeps_21_72_as_ours():
    t = _ldp()
    thm = claim_row(t, "H7 Thm 6.1")
    assert thm.origin == "paper" and "Theorem 6.1" in thm["paper says"]
    ours = t[t.claim.str.contains("MSE_LBU / MSE_LPU")]
    assert len(ours) == 5 and (ours.origin == "ours").all()
    log = claim_row(t, "H7 simulated: MSE_LBU / MSE_LPU on Log against the formulas' 21.72")
    assert log.verdict == "reproduced" or (log.cause.startswith("the paper's error: ") and "sampled users" in log.cause), log.cause
    assert claim_row(t, "H7 simulated: MSE_LBU / MSE_LPU on Log against the formulas with LPU's sampling variance").verdict == "reproduced"


def test_ldp_table2_lpa_names_its_cause():
    t = _ldp()
    lpa = claim_row(t, "H6 Table 2: CFPU of LPA")
    assert lpa.verdict == "reproduced" or (lpa.cause.startswith("not determined: ") and "cross-check" in lpa.cause and "would determine" in lpa.cause)
    assert claim_row(t, "H6 Table 2: CFPU of LBD, LBA, LPD").verdict == "reproduced"


def test_ldp_header_names_the_command_with_a_relative_data_path():
    md = LDP.with_suffix(".md").read_text(encoding="utf-8")
    cmd = re.search(r"^- command: `([^`]*)`", md, re.M).group(1)
    assert cmd.startswith("WEVENT_NB_DATA=../shared/data .venv/bin/wevent-nb reproduce --paper 000 --scale paper"), cmd
