"""The trust table: every registered mechanism and every option that changes its accounting, with its guarantee, where its
notebook derives it, whether a derivation covers it (the opt-in it needs if not), and what each of the three checks says
(the books, the books against the noise drawn, the black-box auditor: `wevent_nb.contract.check_mechanism`, the same checks
`wevent-nb check` runs). Written to claims/trust_table.md, which the docs serve as a page.
Run: .venv/bin/python tools/trust_table.py [--runs N] [--out PATH] (about 10 minutes on 2 cores)."""
import argparse, datetime, inspect, sys, time
from pathlib import Path
from wevent_nb.cli import CHECK_RUNS_MIN
from wevent_nb.contract import CHECK_EPS as EPS, CHECK_W as W, CHECK_T as T, CHECK_USERS as N_USERS, check_mechanism
from wevent_nb.core import list_mechanisms


def configurations(info):
    "The default, then each accounting option's other values."
    yield "default", {}
    for opt, values in getattr(info.cls, "accounting_options", {}).items():
        for v in values: yield f"`{opt}={v!r}`", {opt: v}


def build(info, kw):
    "The mechanism at (EPS, W) with `kw`, and the reason no derivation covers it ('' when one does); opted in when needed."
    m = info.cls(eps=EPS, w=W, **kw)
    reason = m.unproven()
    if reason and "allow_unproven" in inspect.signature(info.cls).parameters: m = info.cls(eps=EPS, w=W, allow_unproven=True, **kw)
    return m, reason


def cell(row) -> str:
    "A check's verdict as the table shows it: pass, the reason a check is not run here, or **FAIL** with its reason."
    if row.verdict == "pass": return "pass"
    if row.verdict == "skip": return row.detail
    return f"**FAIL**: {row.detail[:80]}"


def rows(runs):
    for info in list_mechanisms():
        for label, kw in configurations(info):
            t0 = time.time()
            m, reason = build(info, kw)
            c = check_mechanism(m, runs=runs).set_index("check")
            books, noise, audit = (c.loc[k] for k in ("books", "noise", "audit"))
            private = "yes" if not reason else f"**no**: {reason} (needs `allow_unproven=True`)"
            bound = f"{audit.value:.2f} ({'pass' if audit.verdict == 'pass' else '**FAIL**'})" if audit.value == audit.value else cell(audit)
            yield (f"| {info.name} | {label} | {m.guarantee} | {info.cls.derivation or '**none**'} | {private} | "
                   f"{'pass' if books.verdict == 'pass' else '**FAIL**'} | {cell(noise)} | {bound} |")
            print(f"{info.name:22s} {label:32s} {time.time() - t0:6.1f} s", file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=500, help="auditor runs per side (default 500)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "claims" / "trust_table.md"), help="where to write the table")
    a = ap.parse_args(argv)
    if a.runs < CHECK_RUNS_MIN: ap.error(f"--runs={a.runs} is not allowed: at least {CHECK_RUNS_MIN} runs per side")
    t0 = time.time()
    body = list(rows(a.runs))
    head = ["# Trust table: every mechanism and every option that changes its accounting", "",
            f"- command: `.venv/bin/python tools/trust_table.py --runs {a.runs}`",
            f"- setting: eps = {EPS}, w = {W}, streams of T = {T} (local and personalized: {N_USERS} users); auditor: searched pairs, "
            f"{a.runs} runs per side, alpha 0.05, seed 0",
            f"- date: {datetime.date.today().isoformat()}; {time.time() - t0:.0f} s",
            "- columns: **private** says whether a derivation in the notebook covers the configuration (if not, it runs only with "
            "`allow_unproven=True`, its release says `private=False`, and grids never count it as ledger ok); **books** is "
            "`release.check()` on two streams; **noise** is the ledger checked against the noise actually drawn; **audit** is "
            "the black-box auditor's lower bound on the privacy loss, which must stay at or below eps (a pass is evidence, not proof). "
            "The three are `wevent_nb.contract.check_mechanism` (`wevent-nb check` for one mechanism).", "",
            "| mechanism | configuration | guarantee | derivation | private | books | noise | audit bound (eps = 1) |",
            "|---|---|---|---|---|---|---|---|"]
    Path(a.out).write_text("\n".join(head + body) + "\n")
    print(f"wrote {a.out}: {len(body)} rows in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
