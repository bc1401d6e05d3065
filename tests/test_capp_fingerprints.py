"""Bit-identity guard for the paths of CAPP's methods (paper 002) that `test_release_fingerprints.py` does not reach (it runs
every registered method at its defaults on one [0, 1] population of 40 users x 30 slots): the options (Lq, acc_window, n_s,
CAPP's variant, sign and shrink, the paper's accounting, smooth), a stream in [5, 15] whose last run is cut short, segments of
8 slots and more (numpy's pairwise sums) and of more than 128, more than 128 users, other budgets, the broken variants, a
recording generator, the step-wise form and the online form. Each case hashes the release (estimates, flags, every user's raw
reports, D, every account's books) or the steps' outputs, and where the run leaves its generator. Recorded on main before
CAPP's compiled step (issue 23); re-recorded for issue 40 (budgets allotted to whole quanta: the last bits of every share
that was not already a multiple of 2**-43 moved); regenerate only for a documented change: `python tests/test_capp_fingerprints.py --write`."""
import hashlib
from pathlib import Path
import numpy as np
from fingerprints import digest, feed, guard, write_if_asked
from wevent_nb.core import NoiseRecorder, NumericPopulation, get_mechanism
import wevent_nb.capp as C

FILE = Path(__file__).parent / "data" / "capp_fingerprints.json"
SEEDS = (0, 3)
PAPER = {"strict": False, "allow_unproven": True}


def pops():
    g = np.random.default_rng(2026)
    return {"N30T47": NumericPopulation(5 + 10 * g.random((30, 47)), 5.0, 15.0),        # T not a multiple of Lq: a cut last run
            "N200T12": NumericPopulation(g.random((200, 12))),                           # more than 128 users
            "N4T620": NumericPopulation(g.random((4, 620)))}                             # segments of more than 128 slots


# (label, mechanism factory, population)
CASES = [(f"{n}|default", (lambda n=n: get_mechanism(n, eps=1.0, w=6)), "N30T47") for n in
         ["SW-direct", "IPP", "APP", "CAPP", "Sampling", "APP-S", "CAPP-S", "ToPL", "PM-APP", "Laplace-direct", "Laplace-APP",
          "SR-direct", "SR-APP", "BA-SW"]] + [
    ("APP|acc_window=3", lambda: C.APP(1.0, 6, acc_window=3), "N30T47"),
    ("APP|Lq=25", lambda: C.APP(1.0, 6, Lq=25), "N30T47"),
    ("APP|Lq=1", lambda: C.APP(1.0, 6, Lq=1), "N30T47"),
    ("CAPP|Lq=7", lambda: C.CAPP(1.0, 6, Lq=7), "N30T47"),
    ("IPP|Lq=15", lambda: C.IPP(1.0, 6, Lq=15), "N30T47"),
    ("CAPP|authors_code", lambda: C.CAPP(1.0, 6, variant="authors_code"), "N30T47"),
    ("CAPP|authors_code,shrink=0.5", lambda: C.CAPP(1.0, 6, variant="authors_code", shrink=0.5), "N30T47"),
    ("CAPP|printed", lambda: C.CAPP(0.5, 6, sign="printed"), "N30T47"),
    ("CAPP|shrink=-0.4", lambda: C.CAPP(1.0, 6, shrink=-0.4), "N30T47"),
    ("CAPP|shrink=0.3,acc_window=2", lambda: C.CAPP(1.0, 6, shrink=0.3, acc_window=2), "N30T47"),
    ("APP|paper", lambda: C.APP(1.0, 6, **PAPER), "N30T47"),
    ("CAPP|paper,Lq=9", lambda: C.CAPP(1.0, 6, Lq=9, **PAPER), "N30T47"),
    ("APP-S|paper,Lq=20,n_s=3", lambda: C.APPS(1.0, 6, Lq=20, n_s=3, **PAPER), "N30T47"),
    ("APP|smooth=None", lambda: C.APP(1.0, 6, smooth=None), "N30T47"),
    ("APP|smooth=trailing", lambda: C.APP(1.0, 6, smooth="trailing"), "N30T47"),
    ("Sampling|n_s=4,Lq=20", lambda: C.Sampling(1.0, 6, Lq=20, n_s=4), "N30T47"),
    ("Sampling|eps=3", lambda: C.Sampling(3.0, 10), "N30T47"),
    ("APP-S|n_s=2,Lq=40", lambda: C.APPS(1.0, 20, Lq=40, n_s=2), "N30T47"),
    ("CAPP-S|n_s=3,acc_window=2", lambda: C.CAPPS(1.0, 6, n_s=3, acc_window=2), "N30T47"),
    ("CAPP-S|eps=2.5,w=10", lambda: C.CAPPS(2.5, 10), "N30T47"),
    ("Sampling|n_s=2,Lq=300", lambda: C.Sampling(1.0, 20, Lq=300, n_s=2), "N4T620"),
    ("APP-S|n_s=1,Lq=260", lambda: C.APPS(1.0, 20, Lq=260, n_s=1), "N4T620"),
    ("PM-APP|acc_window=2", lambda: C.PMAPP(1.0, 6, acc_window=2), "N30T47"),
    ("Laplace-APP|Lq=7", lambda: C.LaplaceAPP(1.0, 6, Lq=7), "N30T47"),
    ("SR-APP|Lq=7", lambda: C.SRAPP(1.0, 6, Lq=7), "N30T47"),
    ("ToPL|eps=5", lambda: C.ToPL(5.0, 6), "N30T47"),
    ("SR-direct|eps=0.3", lambda: C.SRDirect(0.3, 6), "N30T47"),
    ("Laplace-direct|eps=0.3", lambda: C.LaplaceDirect(0.3, 6), "N30T47"),
    ("APP|eps=0.05", lambda: C.APP(0.05, 6), "N30T47"),
    ("CAPP|eps=8", lambda: C.CAPP(8.0, 6), "N30T47"),
    ("BA-SW|w=3", lambda: C.BASW(1.0, 3), "N30T47"),
    ("BA-SW|eps=4", lambda: C.BASW(4.0, 6), "N30T47"),
    ("BA-SW|eps=0.5,w=10", lambda: C.BASW(0.5, 10), "N30T47"),
    ("APP|N200", lambda: C.APP(1.0, 4), "N200T12"),
    ("CAPP-S|N200", lambda: C.CAPPS(1.0, 4, Lq=12, n_s=3), "N200T12"),
    ("BA-SW|N200", lambda: C.BASW(1.0, 4), "N200T12"),
    ("APPDoubleBudget", lambda: C.APPDoubleBudget(1.0, 6), "N30T47"),
    ("APPNoClip", lambda: C.APPNoClip(1.0, 6), "N30T47"),
]
FORMS = ("run", "recorder", "stepwise", "online")
ONLINE = {"APP|default", "CAPP|default", "CAPP-S|default", "BA-SW|default", "SR-APP|Lq=7", "ToPL|eps=5", "APP|acc_window=3",
          "Sampling|n_s=4,Lq=20", "CAPP|authors_code", "BA-SW|N200", "APP|N200", "APP|paper"}


def cases():
    for label, make, pname in CASES:
        for form in FORMS:
            if form == "online" and label not in ONLINE: continue
            if form in ("recorder", "stepwise") and pname == "N4T620": continue
            for seed in SEEDS: yield label, make, pname, form, seed


def key(label, make, pname, form, seed): return f"{label}|{pname}|{form}|seed={seed}"


def fingerprint(label, make, pname, form, seed) -> str:
    s = pops()[pname]
    m = make()
    rng = NoiseRecorder(seed) if form == "recorder" else np.random.default_rng(seed)
    h = hashlib.sha256()
    if form == "online":
        m.start(None, s.N, rng, s.lo, s.hi)
        for t in range(s.T):
            e, p = m.step(s.values[:, t])
            feed(h, np.float64(e)); feed(h, np.bool_(p))
        feed(h, m.books.window_spent())
    else:
        if form == "stepwise":
            m.start(s.T, s.N, rng, s.lo, s.hi)
            for t in range(s.T):
                e, p = m.step(s.values[:, t])
                feed(h, np.float64(e)); feed(h, np.bool_(p))
            rel = m.finish()
        else: rel = m.run(s, rng=rng, check=False)
        feed(h, np.asarray(rel.estimates, float)); feed(h, np.asarray(rel.published, bool))
        feed(h, rel.info["raw"]); feed(h, rel.info["smoothed"])
        if "D" in (sd := rel.secret_diagnostics()): feed(h, sd["D"])   # a secret diagnostic: hashed all the same
        if "n_published" in rel.info: feed(h, rel.info["n_published"])
        for a in rel.ledger.entries(): feed(h, a)
    return digest(h, rng)                                  # and where the run left the generator


test_every_case_has_a_fingerprint, test_bit_identical = guard(FILE, cases, key, fingerprint, [c[0] for c in CASES])

if __name__ == "__main__": write_if_asked(FILE, cases, key, fingerprint)
