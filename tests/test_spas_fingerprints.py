"""Bit-identity guard for the paths of SPAS (paper 001) that `test_release_fingerprints.py` does not reach (it runs SPAS at its
defaults, w = 3 and 10, on two short streams): every option value (svt strict/paper, dis raw, var_estimator cumulative/decay,
direct_budget, unbooked_s2_topup, share_s2_leftover, warmup_budget, c_max, direct_release, theta_design, n_E, ratio_s, delta,
m, the authors' code), other budgets and windows, longer streams with level shifts (tests that fire, direct releases), more
than 128 bins (numpy's pairwise sums), and every form: `run`, a recording generator, exact noise (ExactLaplace on a recorder),
the step-wise form, the online form and `run_many`. Each case hashes the releases, the per-timestamp diagnostics, the books
(spends and standing charge), the recorded draws where there are some, and where the run leaves its generator. Recorded on
main before SPAS's compiled step (issue 23); regenerate only for a documented change: `python tests/test_spas_fingerprints.py --write`.
Re-recorded for issue 40 (books in exact units): every amount SPAS spends is allotted (eps_s, eps_p, the test's budgets,
the warm-up's, a direct release's and a test's shares: the largest multiple of the books' quantum at or below), and every
noise scale is drawn for the allotted amount, so most cases moved in their last bits (those whose amounts were already
whole quanta, e.g. eps = 20 on short streams and the authors' code on d9, did not)."""
import hashlib
from pathlib import Path
import numpy as np
from fingerprints import digest, feed, guard, write_if_asked
from wevent_nb.core import HistogramStream, NoiseRecorder
from wevent_nb.primitives import ExactLaplace
from wevent_nb.spas import SPAS, AUTHORS_SPAS, PAPER_TEST

FILE = Path(__file__).parent / "data" / "spas_fingerprints.json"
SEEDS = (0, 5)
U = dict(allow_unproven=True)


def streams():
    g = np.random.default_rng(2024)
    return {"d1": HistogramStream(g.integers(0, 200, (260, 1)).astype(float)),                      # uniform noise, one bin
            "steps3": HistogramStream(np.repeat(g.integers(0, 400, (24, 3)), 10, axis=0).astype(float)),  # level shifts: tests fire
            "d9": HistogramStream(g.poisson(g.integers(1, 40, 9), (150, 9)).astype(float)),
            "d130": HistogramStream(g.poisson(g.integers(1, 20, 130), (50, 130)).astype(float))}  # > 128 bins: numpy's halving sums


# (label, mechanism factory, streams)
BOTH = ("d1", "steps3")
CASES = [
    ("default|w=10,m=3", lambda: SPAS(1.0, 10, m=3), ("d1", "steps3", "d9", "d130")),
    ("default|w=25", lambda: SPAS(1.0, 25), BOTH + ("d9",)),
    ("default|w=1", lambda: SPAS(1.0, 1), BOTH),
    ("default|w=4,m=20", lambda: SPAS(1.0, 4), BOTH),
    ("default|eps=0.1,w=8,m=2", lambda: SPAS(0.1, 8, m=2), BOTH),
    ("default|eps=5,w=12,m=4", lambda: SPAS(5.0, 12, m=4), BOTH),
    ("svt=strict", lambda: SPAS(1.0, 10, m=3, svt="strict"), ("d1", "steps3", "d9")),
    ("svt=paper", lambda: SPAS(1.0, 10, m=3, svt="paper", **U), ("d1", "steps3", "d9")),
    ("dis=raw", lambda: SPAS(1.0, 10, m=3, dis="raw"), ("d1", "steps3", "d9", "d130")),
    ("dis=raw,svt=strict", lambda: SPAS(1.0, 10, m=3, dis="raw", svt="strict"), BOTH),
    ("dis=raw,svt=paper", lambda: SPAS(1.0, 10, m=3, dis="raw", svt="paper", **U), BOTH),
    ("var_estimator=cumulative", lambda: SPAS(1.0, 10, m=3, var_estimator="cumulative"), ("d1", "steps3", "d9")),
    ("var_estimator=decay", lambda: SPAS(1.0, 10, m=3, var_estimator="decay"), ("d1", "steps3", "d9")),
    ("var_estimator=decay,w=4", lambda: SPAS(1.0, 4, m=2, var_estimator="decay"), BOTH),
    ("direct_budget=eps_p_over_C", lambda: SPAS(1.0, 10, m=3, direct_budget="eps_p_over_C"), BOTH),
    ("unbooked_s2_topup", lambda: SPAS(1.0, 10, m=3, unbooked_s2_topup=True, **U), BOTH),
    ("unbooked_s2_topup,svt=paper", lambda: SPAS(1.0, 10, m=3, unbooked_s2_topup=True, svt="paper", **U), BOTH),
    ("share_s2_leftover=False", lambda: SPAS(1.0, 10, m=3, share_s2_leftover=False), BOTH),
    ("warmup_budget=eps", lambda: SPAS(1.0, 10, m=5, warmup_budget="eps"), BOTH),
    ("c_max=None", lambda: SPAS(1.0, 10, m=3, c_max=None), BOTH),
    ("c_max=3", lambda: SPAS(1.0, 10, m=3, c_max=3), BOTH),
    ("direct_release=False", lambda: SPAS(1.0, 10, m=3, direct_release=False), ("d1", "steps3", "d9")),
    ("direct_release=False,svt=strict", lambda: SPAS(1.0, 10, m=3, direct_release=False, svt="strict"), BOTH),
    ("theta_design=0.3", lambda: SPAS(1.0, 10, m=3, theta_design=0.3), BOTH),
    ("n_E=1", lambda: SPAS(1.0, 10, m=3, n_E=1), BOTH),
    ("n_E=5", lambda: SPAS(1.0, 6, m=3, n_E=5), BOTH),
    ("ratio_s=0.4", lambda: SPAS(1.0, 10, m=3, ratio_s=0.4), BOTH),
    ("delta=2", lambda: SPAS(1.0, 10, m=3, delta=2.0), BOTH),
    ("delta=0.5", lambda: SPAS(1.0, 10, m=3, delta=0.5, **U), BOTH),
    ("default|eps=20", lambda: SPAS(20.0, 10, m=3), ("d1", "steps3", "d9")),        # tests the data decides, not the noise
    ("dis=raw|eps=20", lambda: SPAS(20.0, 10, m=3, dis="raw"), ("d1", "steps3", "d9")),
    ("svt=strict|eps=20", lambda: SPAS(20.0, 10, m=3, svt="strict"), BOTH),
    ("svt=paper|eps=20", lambda: SPAS(20.0, 10, m=3, svt="paper", **U), BOTH),
    ("var_estimator=decay|eps=20", lambda: SPAS(20.0, 10, m=3, var_estimator="decay"), BOTH),
    ("var_estimator=cumulative|eps=20", lambda: SPAS(20.0, 10, m=3, var_estimator="cumulative"), BOTH),
    ("authors' code", lambda: SPAS(1.0, 10, m=3, **PAPER_TEST, **AUTHORS_SPAS, **U), ("d1", "steps3", "d9")),
    ("authors' code,w=30", lambda: SPAS(1.0, 30, m=20, **PAPER_TEST, **AUTHORS_SPAS, **U), BOTH),
]
FORMS = ("run", "recorder", "exact", "stepwise", "online", "run_many")


def cases():
    for label, make, snames in CASES:
        for sname in snames:
            for form in FORMS:
                if form == "online" and "decay" in label: continue      # 'decay' reads every release: no online form
                for seed in SEEDS: yield label, make, sname, form, seed


def key(label, make, sname, form, seed): return f"{label}|{sname}|{form}|seed={seed}"


def _draws(h, rec):
    for dr in rec.draws: h.update(f"{dr.t},{dr.scale!r},{dr.size},{dr.site};".encode())


def fingerprint(label, make, sname, form, seed) -> str:
    s = streams()[sname]
    m = make()
    rec = NoiseRecorder(seed) if form in ("recorder", "exact") else None
    rng = rec if form == "recorder" else ExactLaplace(rec) if form == "exact" else np.random.default_rng(seed)
    h = hashlib.sha256()
    if form == "online":
        m.start(None, s.d, rng)
        for x in s.counts:
            e, p = m.step(x)
            feed(h, e); feed(h, np.bool_(p))
            feed(h, np.array([repr(v) for v in m.last_info.values()]))
        feed(h, m.books.window_spent())
    elif form == "run_many":
        r = m.run_many(s, 2, rng=rng, check=False)
        for a in (r.estimates, r.published, r.spent, r.standing, r.standing_from): feed(h, a)
    else:
        if form == "stepwise":
            m.start(s.T, s.d, rng)
            for t, x in enumerate(s.counts):
                e, p = m.step(x)
                feed(h, e); feed(h, np.bool_(p))
            rel = m.finish()
        else: rel = m.run(s, rng=rng, check=False)
        feed(h, np.asarray(rel.estimates, float)); feed(h, np.asarray(rel.published, bool))
        for k in ("kind", "spent_p", "spent_s2", "spent_q", "compared", "C_used"): feed(h, rel.info[k])
        feed(h, rel.ledger.spent_per_timestamp(0)); feed(h, np.float64(rel.ledger.standing_charge(0)))
        feed(h, np.int64(rel.ledger._standing_from[0]))
        if rec is not None: _draws(h, rec)
    return digest(h, rng)                                  # and where the run left the generator


test_every_case_has_a_fingerprint, test_bit_identical = guard(FILE, cases, key, fingerprint, [c[0] for c in CASES])

if __name__ == "__main__": write_if_asked(FILE, cases, key, fingerprint)
