"""What the per-paper claims tests share: the committed table (regenerated with origin, setting and cause), one row by
the start of its claim, the paper's plain text, and whether a quoted fragment stands in it."""
import re
from pathlib import Path

from wevent_nb import experiments as ex
from wevent_nb.experiments import read_claims

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = {"origin", "setting", "cause"}     # issue 37's columns: without them a table predates the review


def committed_table(stem: str):
    "claims/<stem>.csv, checked to carry issue 37's columns."
    t = read_claims(ROOT / "claims" / stem)
    assert COLUMNS <= set(t.columns), f"claims/{stem} must be the table regenerated with origin, setting and cause"
    return t


def claim_row(t, start: str):
    "The one row whose claim starts with `start`."
    rows = t[t.claim.str.startswith(start)]
    assert len(rows) == 1, (start, rows.claim.tolist())
    return rows.iloc[0]


def assert_causes(t):
    "Every row not reproduced names a cause, and every cause is a kind of CAUSES with its evidence."
    bad = t[(t.verdict != "reproduced") & (t.cause.str.strip() == "")]
    assert bad.empty, f"rows not reproduced without a cause: {bad.claim.tolist()}"
    for c in t.cause[t.cause != ""]: ex.check_cause(c)


def paper_text(paper: str, drop=None) -> str | None:
    "The paper's text (../shared/papers/<paper>_*.txt) on one line, without the lines `drop` matches; None when it is not here."
    p = next((ROOT.parent / "shared" / "papers").glob(f"{paper}_*.txt"), None)
    if p is None: return None
    lines = p.read_text(encoding="utf-8").splitlines()
    return " ".join(" ".join(l for l in lines if not (drop and re.match(drop, l))).split())


MATH = r"\b(?:eps|delta|w|q|x)\b|\d+(?:\.\d+)?%"   # what a row writes in ASCII where the paper's text has its maths
_TYPO = {"ï": "i", "×": "x", "ϵ": ""}

def _plain(s: str) -> str: return re.sub(r"[^a-z]+", "", s.lower())
def _no_latex(s: str) -> str:
    s = re.sub(r"\$[^$]*\$|\*\*", "", s.lower())
    for a, b in _TYPO.items(): s = s.replace(a, b)
    return re.sub(r"[^a-z0-9]+", "", s)

def quote_found(part: str, text: str) -> bool:
    """A quoted fragment stands in the paper's text up to its maths and typography: the fragment's ASCII maths (eps, w,
    68%) split it, and each piece is found with the text read as letters only (papers whose maths the text doubles, as
    'AMREAMRE') or with its LaTeX spans removed (papers that keep $\\epsilon$)."""
    for norm in (_plain, _no_latex):
        nt = norm(text)
        if all(norm(w) in nt for w in re.split(MATH, part) if norm(w)): return True
    return False
