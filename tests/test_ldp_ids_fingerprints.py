"""Bit-identity guard for the paths of LDP-IDS (paper 000) that `test_release_fingerprints.py` does not reach (it runs the
seven methods only per user, at their defaults, on one population with d = 3): aggregate mode (on a `CategoricalAggregate`
and with mode='aggregate' on a population), the binary GRR row (d = 2), GRR rows of more than 8 values (numpy's array
call) and of more than 128 (numpy's halving sums), OUE and the adaptive oracle, other budgets and windows, LPD's u_min,
forced decisions, recycling over many windows (fragmented id blocks), and every form: `run`, the step-wise form, the
online form (rolling books) and per user. Each case hashes the releases, every `info` entry (the reporting users as ids),
the ledger's entries or the online books' windows, and where the run leaves its generator. Recorded on main before
LDP-IDS's compiled step (issue 23); regenerate only for a documented change: `python tests/test_ldp_ids_fingerprints.py --write`."""
import hashlib
from pathlib import Path
import numpy as np
from fingerprints import digest, feed, guard, write_if_asked
import wevent_nb.ldp_ids as L
from wevent_nb.core import CategoricalPopulation
from wevent_nb.data import markov_population

FILE = Path(__file__).parent / "data" / "ldp_ids_fingerprints.json"
SEEDS = (0, 7)
METHODS = ("LBU", "LSP", "LBD", "LBA", "LPU", "LPD", "LPA")


def streams():
    "Populations (per user) and their histograms: d = 2 (the binary row), 3, 9 (> 8 binomials: one array call), 130 (> 128 bins)."
    g = np.random.default_rng(2025)
    pops = {"N80d2": CategoricalPopulation(g.integers(0, 2, (80, 23)), 2),
            "N80d3": CategoricalPopulation(g.integers(0, 3, (80, 23)), 3),
            "N400d2": markov_population(400, 90, 2, stay=0.8, drift=0.3, rng=3),     # many windows: blocks fragment
            "N300d9": markov_population(300, 40, 9, stay=0.7, drift=0.4, rng=4),
            "N600d130": markov_population(600, 14, 130, stay=0.5, drift=0.5, rng=5)}
    return pops


# (label, mechanism factory (method, kwargs), streams, forms)
AGG = ("run", "agg_on_pop", "stepwise", "online")
ALL = AGG + ("per_user",)
def always(cls): return L.forced_decisions(cls, lambda t: True, "always")
def pattern(cls): return L.forced_decisions(cls, lambda t: (t * 7919) % 3 != 0, "pattern")

CASES = []
for m in METHODS:
    CASES += [(f"{m}|w=3", (m, {}, 1.0, 3), ("N80d2", "N80d3", "N400d2"), ALL),
              (f"{m}|w=10", (m, {}, 1.0, 10), ("N80d2", "N400d2", "N300d9"), AGG),
              (f"{m}|oue,w=4", (m, dict(fo="oue"), 1.5, 4), ("N80d2", "N80d3", "N300d9"), ALL),
              (f"{m}|adaptive,eps=0.4,w=5", (m, dict(fo="adaptive"), 0.4, 5), ("N80d3", "N300d9"), AGG),
              (f"{m}|adaptive,eps=3,w=5", (m, dict(fo="adaptive"), 3.0, 5), ("N300d9",), ("run",)),
              (f"{m}|eps=0.2,w=20", (m, {}, 0.2, 20), ("N400d2",), ("run", "per_user")),
              (f"{m}|d130,w=3", (m, {}, 2.0, 3), ("N600d130",), ("run", "online")),
              (f"{m}|d130,oue,w=3", (m, dict(fo="oue"), 2.0, 3), ("N600d130",), ("run",))]
for m in ("LBD", "LBA", "LPD", "LPA"):
    CASES += [(f"{m}|always,w=4", (m, dict(forced="always"), 1.0, 4), ("N80d2", "N400d2", "N300d9"), ALL),
              (f"{m}|pattern,w=3", (m, dict(forced="pattern"), 1.0, 3), ("N80d3", "N400d2"), AGG)]
CASES += [("LPD|u_min=5,w=4", ("LPD", dict(u_min=5), 1.0, 4), ("N80d2", "N400d2"), ALL)]


def make(spec):
    m, kw, eps, w = spec
    kw = dict(kw)
    forced = kw.pop("forced", None)
    cls = getattr(L, m)
    if forced: cls = (always if forced == "always" else pattern)(cls)
    return lambda mode: cls(eps, w, mode=mode, **kw)


def cases():
    for label, spec, snames, forms in CASES:
        for sname in snames:
            for form in forms:
                for seed in SEEDS: yield label, spec, sname, form, seed


def key(label, spec, sname, form, seed): return f"{label}|{sname}|{form}|seed={seed}"


def _users(U):
    "The reporting users of every timestamp as sorted ids (-1 separates timestamps, -2 marks None)."
    out = []
    for u in U: out += [-2] if u is None else list(np.sort(np.asarray(u, np.int64))) + [-1]
    return np.array(out, np.int64)


def fingerprint(label, spec, sname, form, seed) -> str:
    pop = streams()[sname]
    agg = pop.aggregate()
    new = make(spec)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    if form == "online":
        m = new("aggregate").start(None, agg.d, rng=rng, N=agg.N)
        for x in agg.counts:
            e, p = m.step(x)
            feed(h, e); feed(h, np.bool_(p))
            feed(h, np.array([f"{k}={v!r}" for k, v in m.last_info.items()]))
        feed(h, m.books.window_spent(None))
    else:
        if form == "stepwise":
            m = new("aggregate").start(agg.T, agg.d, rng=rng, N=agg.N)
            for x in agg.counts:
                e, p = m.step(x)
                feed(h, e); feed(h, np.bool_(p))
            rel = m.finish()
        elif form == "agg_on_pop": rel = new("aggregate").run(pop, rng=rng)
        elif form == "per_user": rel = new("per_user").run(pop, rng=rng)
        else: rel = new("aggregate").run(agg, rng=rng)
        feed(h, np.asarray(rel.estimates, float)); feed(h, np.asarray(rel.published, bool))
        for k in sorted(rel.info):
            v = rel.info[k]
            if k in ("U1", "U2"): feed(h, _users(v))
            elif isinstance(v, np.ndarray): feed(h, v)
            else: h.update(repr(v).encode())
        for a in rel.ledger.entries(): feed(h, a)
    return digest(h, rng)                                  # and where the run left the generator


test_every_case_has_a_fingerprint, test_bit_identical = guard(FILE, cases, key, fingerprint, [c[0] for c in CASES])

if __name__ == "__main__": write_if_asked(FILE, cases, key, fingerprint)
