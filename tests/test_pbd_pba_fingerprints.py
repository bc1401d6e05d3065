"""Bit-identity guard for the paths of the personalized methods (paper 003) that `test_release_fingerprints.py` does not reach
(it runs PBD, PBA and PLBU at their defaults on one population of 60 users x 23 slots, d = 3, two user types): many user
types (OBS over 8 and more levels: numpy's pairwise row sums), budgets that tie exactly or to 12 digits (OBS's grouping),
a long PBD run (its OBS memo cleared when full), d = 2 (GRR's offsets need no draw) and d = 12 and 200 (pairwise means,
int16 values), one user type, windows longer than the stream, the threshold and users options, BD and BA at the
conservative pair, the broken variants, forced decisions and a step-wise subclass hook, a recording generator (every draw
and sample), the step-wise form, the online form (a refusal included) and run_many. Each case hashes the release
(estimates, flags, every account's books, the diagnostics) or the steps' outputs, and where the run leaves its generator.
Recorded on main before the family's compiled steps (issue 23); regenerate only for a documented change:
`python tests/test_pbd_pba_fingerprints.py --write`. One so far (13_pbd_pba, "An exhausted window"): PBD's kellaris runs
on "levels" (run_many) raised ZeroDivisionError once every type's window was exhausted; they now stop publishing there.
Issue 40 (books in exact units) re-recorded every PBD, PBA and PLBU case and their variants': their amounts are allotted
(eps_i/(2 w_i), eps_i/w_i, PBD's half remainder: the largest multiple of the books' quantum at or below), so the books
and the noise scales moved in their last bits; BD and BA at the conservative pair did not change."""
import hashlib
from pathlib import Path
import numpy as np
from fingerprints import digest, feed, guard, write_if_asked
from wevent_nb.core import PersonalizedPopulation, PrivacyBudgetExceeded
from wevent_nb.data import pbd_synthetic, personalized_params
import wevent_nb.pbd_pba as P

FILE = Path(__file__).parent / "data" / "pbd_pba_fingerprints.json"
SEEDS = (0, 5)


def _jumpy(N, T, d, seed, eps, w, period):
    "Values that jump every `period` slots (the methods publish); (eps_i, w_i) drawn per block of 10 users."
    r = np.random.default_rng(seed)
    k = -(-T // period)
    base = np.repeat(r.integers(0, d, (N, k)), period, axis=1)[:, :T]
    g = -(-N // 10)
    return PersonalizedPopulation(base, d, np.repeat(r.choice(eps, g), 10)[:N], np.repeat(r.choice(w, g), 10)[:N])


def pops():
    g = np.random.default_rng(2025)
    V = g.integers(0, 3, (60, 23))
    sin = pbd_synthetic("Sin", N=400, T=250, rng=1).values
    e_lv, w_lv = personalized_params(400, 0.2, 200, rng=3, scheme="iid")       # up to 25 types: OBS over >= 8 levels
    ties_e = np.repeat([0.3, 0.7, 0.5, 0.5, 0.45], 12)                         # e1: 0.3/6 vs 0.7/14 (equal to 12 digits), (0.5, 3) vs (0.5, 5)
    ties_w = np.repeat([3, 7, 3, 5, 9], 12)
    d200 = g.integers(0, 200, (90, 25)); d200[:, 12:] = g.integers(0, 200, (90, 1))
    long_v = np.repeat(g.integers(0, 2, (12, 17_000 // 3 + 1)), 3, axis=1)[:, :17_000]
    base = pbd_synthetic("TLNS", N=200, T=130, rng=4)
    return {
        "N60": PersonalizedPopulation(V, 3, np.repeat([0.5, 1.0], 30), np.repeat([3, 6], 30)),
        "jumpy": _jumpy(40, 60, 3, 4, (0.2, 0.5, 1.0), (2, 3, 5), 10),
        "levels": PersonalizedPopulation(sin, 2, e_lv, w_lv),
        "many12": _jumpy(240, 50, 12, 7, (0.1, 0.25, 0.4, 0.8, 1.5), (2, 3, 4, 6, 9), 5),
        "ties": PersonalizedPopulation(np.repeat(g.integers(0, 2, (60, 20)), 4, axis=1), 2, ties_e, ties_w),
        "d200": PersonalizedPopulation(d200, 200, np.repeat([0.4, 0.9, 2.0], 30), np.repeat([2, 4, 3], 30)),
        "one": _jumpy(30, 40, 4, 2, (0.8,), (5,), 6),
        "short": _jumpy(20, 4, 2, 3, (0.3, 0.9), (6, 9), 2),
        "long": PersonalizedPopulation(long_v, 2, np.repeat([0.3, 0.6, 1.0], 4), np.repeat([4, 9, 6], 4)),
        "as_levels": P.assigned_population(base, "levels", eps=0.4, w=6, n_groups=7),
        "as_two_eps": P.assigned_population(base, "two_eps", o=0.3),
        "as_two_w": P.assigned_population(base, "two_w", o=0.7),
    }


def forced(cls, decisions):
    "`cls` with Algorithm 2's line-5 test replaced by the given decisions (True = publish)."
    return type(f"Forced{cls.__name__}", (cls,), {"_decide": lambda self, t, dis, thr: bool(decisions[t % len(decisions)])})


class PBDGreedyDC(P.PBD):
    "Its DC is booked at 3 eps_i/(2 w_i) (its draws at the budgets' own theta1): a subclass changing the state _init leaves."
    name = "PBDGreedyDC"
    def _init(self): super()._init(); self._e1 = 3 * self._e1


DECISIONS = np.random.default_rng(11).random(64) < 0.4
UNPROVEN = {"allow_unproven": True}
# (label, factory, populations)
ALL = ("N60", "jumpy", "levels", "many12", "ties", "d200", "one", "short")
CASES = [
    ("PBD", lambda: P.PBD(), ALL), ("PBA", lambda: P.PBA(), ALL), ("PLBU", lambda: P.PLBU(), ALL),
    ("PBD|kellaris", lambda: P.PBD(threshold="kellaris"), ("jumpy", "levels", "ties", "one")),
    ("PBA|kellaris", lambda: P.PBA(threshold="kellaris"), ("jumpy", "levels", "ties", "one")),
    ("BD", lambda: P.ConservativeBD(), ALL), ("BA", lambda: P.ConservativeBA(), ALL),
    ("BD|std", lambda: P.ConservativeBD(threshold="std"), ("jumpy", "levels")),
    ("BA|std", lambda: P.ConservativeBA(threshold="std"), ("jumpy",)),
    ("PBD|levels", lambda: P.PBD(users="levels", eps=0.4, w=6, n_groups=7), ("as_levels",)),
    ("PBA|levels", lambda: P.PBA(users="levels", eps=0.4, w=6, n_groups=7), ("as_levels",)),
    ("PLBU|levels", lambda: P.PLBU(users="levels", eps=0.4, w=6, n_groups=7), ("as_levels",)),
    ("BA|levels", lambda: P.ConservativeBA(users="levels", eps=0.4, w=6, n_groups=7), ("as_levels",)),
    ("PBD|two_eps", lambda: P.PBD(users="two_eps", o=0.3), ("as_two_eps",)),
    ("PBA|two_w", lambda: P.PBA(users="two_w", o=0.7), ("as_two_w",)),
    ("PBD|uniform", lambda: P.PBD(users="uniform", eps=0.2, w=5), ("jumpy",)),
    ("PBA|uniform", lambda: P.PBA(users="uniform", eps=1.0, w=2), ("jumpy",)),
    ("PBAStaleLast", lambda: P.PBAStaleLast(), ("jumpy", "ties")),
    ("PBDHalfNoise", lambda: P.PBDHalfNoise(**UNPROVEN), ("jumpy", "levels")),
    ("PBDNoSampling", lambda: P.PBDNoSampling(**UNPROVEN), ("jumpy", "levels")),
    ("ForcedPBD", lambda: forced(P.PBD, DECISIONS)(), ("jumpy", "many12")),
    ("ForcedPBA", lambda: forced(P.PBA, DECISIONS)(), ("jumpy", "many12")),
    ("PBDGreedyDC", lambda: PBDGreedyDC(), ("jumpy",)),
    ("PBD|long", lambda: P.PBD(), ("long",)),
]
FORMS = ("run", "stepwise", "recorder", "online", "many")
ONLINE_POPS = {"N60", "jumpy", "levels", "ties", "d200", "one", "short", "as_levels"}


def cases():
    for label, make, pnames in CASES:
        for pname in pnames:
            for form in FORMS:
                if pname == "long" and form != "run": continue
                if form == "online" and pname not in ONLINE_POPS: continue
                if form in ("recorder", "many") and pname in ("d200", "levels") and not label.startswith(("PBD", "PBA")): continue
                for seed in SEEDS: yield label, make, pname, form, seed


def key(label, make, pname, form, seed): return f"{label}|{pname}|{form}|seed={seed}"


INFO = ("dis", "theta2", "thr", "nullified", "sampled", "eps2", "shares", "eps1", "eps_dis", "eps_pub", "eps_cand", "eps_t")


def _release(h, rel):
    feed(h, np.asarray(rel.estimates, float)); feed(h, np.asarray(rel.published, bool))
    for a in rel.ledger.entries(): feed(h, a)
    for k in INFO:
        if rel.info.get(k) is not None: feed(h, np.asarray(rel.info[k]))
    if "theta1" in rel.info: feed(h, np.float64(rel.info["theta1"]))


def _steps(h, m, s, rng=None):
    "Step through s (rng: a recorder whose clock is set per slot); a refusal is hashed (its slot and message) and ends the run."
    for t in range(s.T):
        if rng is not None: rng.t = t
        try: e, p = m.step(s.values[:, t])
        except PrivacyBudgetExceeded as err:
            h.update(f"refused at {t}: {err}".encode()); return False
        feed(h, np.asarray(e, float)); feed(h, np.bool_(p))
        li = m.last_info
        for k in ("dis", "theta2", "thr", "nullified", "sampled", "t"):
            if k in li: feed(h, np.asarray(li[k]))
    return True


def fingerprint(label, make, pname, form, seed) -> str:
    s = pops()[pname]
    m = make()
    rng = P.SamplingRecorder(seed) if form == "recorder" else np.random.default_rng(seed)
    h = hashlib.sha256()
    _drive(h, m, s, form, rng)
    return digest(h, rng)                                  # and where the run left the generator


def _drive(h, m, s, form, rng):
    if form == "run": _release(h, m.run(s, rng=rng, check=False))
    elif form == "many":
        r = m.run_many(s, 3, rng=rng, check=False)
        feed(h, r.estimates); feed(h, r.published); feed(h, r.spent)
    elif form == "online":
        m.start(None, s.d, rng, s.eps, s.w)
        _steps(h, m, s)
        feed(h, m.books.window_spent())
    else:
        m.start(s.T, s.d, rng, s.eps, s.w)
        if _steps(h, m, s, rng if form == "recorder" else None): _release(h, m.finish())
        if form == "recorder":
            for d in rng.draws: h.update(repr(tuple(d)).encode())
            for t, n, p, pos in rng.samples: h.update(repr((t, pos)).encode()); feed(h, n); feed(h, p)


test_every_case_has_a_fingerprint, test_bit_identical = guard(FILE, cases, key, fingerprint, [c[0] for c in CASES])

if __name__ == "__main__": write_if_asked(FILE, cases, key, fingerprint)
