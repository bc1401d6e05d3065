"""The trust table: every registered mechanism and every option that changes its accounting, with its guarantee, where its
notebook derives it, whether a derivation covers it (the opt-in it needs if not), and what each of the three checks says
(the books, the books against the noise drawn, the black-box auditor). Written to claims/trust_table.md, which the docs
serve as a page. Run: .venv/bin/python tools/trust_table.py [--runs N] [--out PATH] (about 10 minutes on 2 cores)."""
import argparse, datetime, inspect, sys, time
from pathlib import Path
import numpy as np
from wevent_nb.core import (HistogramStream, CategoricalPopulation, NumericPopulation, PersonalizedPopulation, ScalarStream,
                            NoiseNotBooked, check_noise_ledger, list_mechanisms)
from wevent_nb.audit import audit

EPS, W, T = 1.0, 3, 24   # the table's setting: small w and T so the auditor's windows are covered by short streams
N_USERS = 30             # users of the local and personalized test populations


def stream(kind, seed=0):
    "A short stream of `kind` whose personalized users declare (EPS, W)."
    g = np.random.default_rng(seed)
    if kind == "histogram": return HistogramStream(np.maximum(0, 50 + np.cumsum(g.normal(0, 3, (T, 3)), axis=0)).round())
    if kind == "categorical": return CategoricalPopulation(g.integers(0, 4, (N_USERS, T)), 4)
    if kind == "numeric": return NumericPopulation(g.random((N_USERS, T)))
    if kind == "personalized": return PersonalizedPopulation(g.integers(0, 4, (N_USERS, T)), 4, np.full(N_USERS, EPS), np.full(N_USERS, W))
    if kind == "scalar": return ScalarStream(g.integers(0, 100, T).astype(float), 0.0, 100.0)
    raise ValueError(kind)


COVERED_BY_TESTS = {"PLBU": "covered by tests/test_pbd_pba.py::test_plbu_reports_booked_and_unbiased (reports, not Laplace draws)"}

def noise_tie(mech, kind):
    "Run the package's ledger-vs-noise check for the stream kind, or name the test that covers it."
    if mech.name in COVERED_BY_TESTS: return COVERED_BY_TESTS[mech.name]
    if kind == "histogram": fn = check_noise_ledger
    elif kind == "scalar": from wevent_nb.delay import check_delay_noise as fn
    elif kind == "personalized": from wevent_nb.pbd_pba import check_personalized_noise as fn
    else: return {"categorical": "covered by tests/test_noise_ledger.py (reports recorded)",
                  "numeric": "covered by tests/test_capp.py::test_ledger_covers_the_reports"}[kind]
    try: fn(mech, stream(kind, 1), seed=7); return "pass"
    except NoiseNotBooked as e: return f"**FAIL**: {str(e)[:80]}"


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


def rows(runs):
    for info in list_mechanisms():
        for label, kw in configurations(info):
            t0 = time.time()
            m, reason = build(info, kw)
            books = all(m.run(stream(info.stream_kind, s), rng=s, check=False).ledger.ok() for s in (0, 1))
            a = audit(m, n_runs=runs, rng=0)
            private = "yes" if not reason else f"**no**: {reason} (needs `allow_unproven=True`)"
            yield (f"| {info.name} | {label} | {m.guarantee} | {info.cls.derivation or '**none**'} | {private} | "
                   f"{'pass' if books else '**FAIL**'} | {noise_tie(m, info.stream_kind)} | "
                   f"{a.eps_lower_bound:.2f} ({'pass' if a.passed else '**FAIL**'}) |")
            print(f"{info.name:22s} {label:32s} {time.time() - t0:6.1f} s", file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=500, help="auditor runs per side (default 500)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "claims" / "trust_table.md"), help="where to write the table")
    a = ap.parse_args(argv)
    if a.runs < 50: ap.error(f"--runs={a.runs} is not allowed: at least 50 runs per side")
    t0 = time.time()
    body = list(rows(a.runs))
    head = ["# Trust table: every mechanism and every option that changes its accounting", "",
            f"- command: `.venv/bin/python tools/trust_table.py --runs {a.runs}`",
            f"- setting: eps = {EPS}, w = {W}, streams of T = {T} (local and personalized: {N_USERS} users); auditor: searched pairs, "
            f"{a.runs} runs per side, alpha 0.05, seed 0",
            f"- date: {datetime.date.today().isoformat()}; {time.time() - t0:.0f} s",
            "- columns: **private** says whether a derivation in the notebook covers the configuration (if not, it runs only with "
            "`allow_unproven=True`, its release says `private=False`, and grids never count it as ledger ok); **books** is "
            "`release.ledger.check()` on two streams; **noise** is the ledger checked against the noise actually drawn; **audit** is "
            "the black-box auditor's lower bound on the privacy loss, which must stay at or below eps (a pass is evidence, not proof).", "",
            "| mechanism | configuration | guarantee | derivation | private | books | noise | audit bound (eps = 1) |",
            "|---|---|---|---|---|---|---|---|"]
    Path(a.out).write_text("\n".join(head + body) + "\n")
    print(f"wrote {a.out}: {len(body)} rows in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
