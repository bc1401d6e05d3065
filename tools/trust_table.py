"""The trust table: every registered mechanism and every option that changes its accounting, with its guarantee, where its
notebook derives it, whether a derivation covers it (the opt-in it needs if not), and what each of the three checks says
(the books, the books against the noise drawn, the black-box auditor: `wevent_nb.contract.check_mechanism`, the same checks
`wevent-nb check` runs). Written to claims/trust_table.md, which the docs serve as a page.
Besides, per row: the neighbouring relation the guarantee holds for, the `Release.info` keys classified secret, and which of
the mechanism's declared branches the check streams exercised (`contract.BRANCHES`).
Run: .venv/bin/python tools/trust_table.py [--runs N] [--out PATH] [--only NAME,...] (about 10 minutes on 2 cores)."""
import argparse, datetime, inspect, sys, time
from pathlib import Path
from wevent_nb import core
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


def relation(m) -> str:
    "The neighbouring relation `m` states (its `describe()` where it has one), '' when it states none."
    r = getattr(m, "relation", "")
    return str(r.describe() if callable(getattr(r, "describe", None)) else r)


def secret_keys(cls) -> str:
    "The info keys `core.info_classification(cls)` classifies secret ({key: 'secret' or ('secret', why)}, or {'secret': keys}); '' when core has none."
    classify = getattr(core, "info_classification", None)
    if classify is None: return ""
    c = classify(cls)
    if isinstance(c, dict) and "secret" in c and not isinstance(c["secret"], (str, tuple)): keys = list(c["secret"])   # {"secret": keys, "public": keys}
    else: keys = [k for k, v in (c.items() if isinstance(c, dict) else c) if "secret" in str(v[0] if isinstance(v, (tuple, list)) else v).lower()]
    return ", ".join(f"`{k}`" for k in sorted(keys)) or "none"


def reach(row) -> str:
    "The branches row as the table shows it: the branches reached, or **partial** with the ones not reached."
    if row.verdict == "pass": return row.detail.split(": ", 1)[-1]
    if row.verdict == "partial": return f"**partial**: {row.detail}"
    return cell(row)


def rows(runs, only=None):
    for info in list_mechanisms():
        if only and info.name.lower() not in only: continue
        for label, kw in configurations(info):
            t0 = time.time()
            m, reason = build(info, kw)
            c = check_mechanism(m, runs=runs).set_index("check")
            books, noise, audit, branches = (c.loc[k] for k in ("books", "noise", "audit", "branches"))
            private = "yes" if not reason else f"**no**: {reason} (needs `allow_unproven=True`)"
            bound = f"{audit.value:.2f} ({'pass' if audit.verdict == 'pass' else '**FAIL**'})" if audit.value == audit.value else cell(audit)
            yield (f"| {info.name} | {label} | {m.guarantee} | {relation(m)} | {info.cls.derivation or '**none**'} | {private} | "
                   f"{'pass' if books.verdict == 'pass' else '**FAIL**'} | {cell(noise)} | {bound} | {secret_keys(info.cls)} | {reach(branches)} |")
            print(f"{info.name:22s} {label:32s} {time.time() - t0:6.1f} s", file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=500, help="auditor runs per side (default 500)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "claims" / "trust_table.md"), help="where to write the table")
    ap.add_argument("--only", default="", help="comma-separated registered names: only their rows (a partial table, for checking)")
    a = ap.parse_args(argv)
    if a.runs < CHECK_RUNS_MIN: ap.error(f"--runs={a.runs} is not allowed: at least {CHECK_RUNS_MIN} runs per side")
    only = {n.strip().lower() for n in a.only.split(",") if n.strip()}
    if bad := sorted(only - {i.name.lower() for i in list_mechanisms()}): ap.error(f"--only: {', '.join(bad)} not registered (wevent-nb list)")
    t0 = time.time()
    body = list(rows(a.runs, only))
    head = ["# Trust table: every mechanism and every option that changes its accounting", "",
            f"- command: `.venv/bin/python tools/trust_table.py --runs {a.runs}" + (f" --only {a.only}" if only else "") + "`",
            f"- setting: eps = {EPS}, w = {W}, streams of T = {T} (local and personalized: {N_USERS} users); auditor: searched pairs, "
            f"{a.runs} runs per side, alpha 0.05, seed 0",
            f"- date: {datetime.date.today().isoformat()}; {time.time() - t0:.0f} s",
            "- columns: **private** says whether a derivation in the notebook covers the configuration (if not, it runs only with "
            "`allow_unproven=True`, its release says `private=False`, and grids never count it as ledger ok); **books** is "
            "`release.check()` on two streams; **noise** is the ledger checked against the noise actually drawn; **audit** is "
            "the black-box auditor's lower bound on the privacy loss, which must stay at or below eps (a pass is evidence, not proof). "
            "The three are `wevent_nb.contract.check_mechanism` (`wevent-nb check` for one mechanism). **relation** is the "
            "neighbouring relation the guarantee holds for (`Mechanism.relation`); **secret keys** the `Release.info` keys "
            "classified secret (reachable only through `secret_diagnostics()`); **branches exercised** the mechanism's declared "
            "branches (`contract.BRANCHES`) that the books' streams reached (**partial** names the ones they did not).", "",
            "| mechanism | configuration | guarantee | relation | derivation | private | books | noise | audit bound (eps = 1) | secret keys | branches exercised |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    Path(a.out).write_text("\n".join(head + body) + "\n")
    print(f"wrote {a.out}: {len(body)} rows in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
