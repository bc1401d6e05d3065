"""Issue 40, books in exact units: every registered mechanism allots what it spends (00c_ledger, *Books in exact units*),
so every amount its books hold is an integer number of quanta and the integer books hold it exactly: none is rounded up
(`Ledger.n_rounded`). Run at private
defaults on a short stream of each kind, at budgets whose shares are not dyadic (eps 0.3 over w 7), and online."""
import numpy as np
import pytest
from test_private_by_default import short_stream

from wevent_nb.core import list_mechanisms

MECHS = list_mechanisms()


@pytest.mark.parametrize("info", MECHS, ids=[i.name for i in MECHS])
@pytest.mark.parametrize("eps,w", [(0.3, 7), (1.0, 5)])
def test_every_spend_is_allotted(info, eps, w):
    rel = info.cls(eps=eps, w=w).run(short_stream(info.stream_kind, 30, w, eps=eps), rng=2)
    assert rel.ledger.n_rounded == 0, f"{info.name} booked {rel.ledger.n_rounded} amount(s) that are not whole quanta (rounded up)"


# ---------------------------------------------------------------- the questions a curator asks, for every family online
from fractions import Fraction
from test_online import ONLINE, case, build
from wevent_nb.online import Session


@pytest.mark.parametrize("info", ONLINE, ids=lambda i: i.name)
def test_a_session_answers_what_the_books_can_still_pay(info):
    "At every step, `Session.budget()` gives the binding account's room at the next t, equal to the least budget less window of any account (exact), and a room over the next k steps at least as large."
    _, start, rows = case(info.stream_kind, np.random.default_rng(3))
    s = Session(build(info), rng=4, **start)
    for x in rows:
        b = s.budget()
        books = s.mech.books
        assert 0.0 <= b["spendable"] <= b["remaining"] and b["t"] == max(s.t, books.t)
        if books.n_accounts is not None:
            acc = np.arange(books.n_accounts)
            left = [Fraction(float(e)) - Fraction(float(h)) for e, h in zip(books.eps, books.window_spent(acc, b["t"]))]
            assert Fraction(b["spendable"]) == max(min(left), 0)           # the least room of any account, exactly
        s.step(x)


# ---------------------------------------------------------------- a finished run's books against exact rationals
from hypothesis import given, settings, strategies as st, HealthCheck
from wevent_nb.core import Ledger, PrivacyBudgetExceeded
from wevent_nb.ledger import QUANTUM, allot


def fraction_verdict(T, eps, w, spends, standing):
    "The reference: every spend booked as whole quanta rounded up, in Fractions; each account's every window (w None: its total), standing charge included: (account, window end) of the earliest window over budget (None: none), and the accounts over budget."
    q = Fraction(QUANTUM)
    booked = {}
    for a, t, e in spends:
        booked[a, t] = booked.get((a, t), 0) + -(-Fraction(e) // q) * q
    worst, over = None, set()
    for a in range(len(eps)):
        for end in range(T):
            lo = 0 if w is None else end - int(w[a]) + 1
            s = sum((v for (b, t), v in booked.items() if b == a and lo <= t <= end), Fraction(0))
            if a in standing and end >= standing[a][1]: s += -(-Fraction(standing[a][0]) // q) * q
            if s > Fraction(float(eps[a])):
                over.add(a)
                if worst is None or (end, a) < (worst[1], worst[0]): worst = (a, end)
    return worst, over


@st.composite
def books_case(draw):
    kind = draw(st.sampled_from(["central", "users", "personalized", "events"]))
    T = draw(st.integers(1, 12)); N = 1 if kind == "central" else draw(st.integers(2, 4))
    eps = [draw(st.sampled_from([0.3, 0.5, 1.0]))] * N if kind != "personalized" else [draw(st.sampled_from([0.3, 0.5, 1.0])) for _ in range(N)]
    w = None if kind == "events" else ([draw(st.integers(1, 5))] * N if kind != "personalized" else [draw(st.integers(1, 5)) for _ in range(N)])
    amount = st.one_of(st.sampled_from([0.1, 0.25, 1 / 3, 0.5]), st.floats(0.0, 0.6, allow_nan=False))
    spends = draw(st.lists(st.tuples(st.integers(0, N - 1), st.integers(0, T - 1), amount), max_size=14))
    allotted = draw(st.booleans())                                     # as mechanisms book, or plain doubles (booked rounded up)
    if allotted: spends = [(a, t, float(allot(e))) for a, t, e in spends]
    standing = {0: (draw(st.sampled_from([0.0, 0.125, 0.2])), draw(st.integers(0, T - 1)))} if draw(st.booleans()) else {}
    return T, eps, w, spends, standing, draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books_case())
def test_the_books_agree_with_fractions(case):
    "Accepted and refused alike, for every account kind, with spends as lists or as ranges and a standing charge: the integer books' verdict and the window they name are the Fraction reference's."
    T, eps, w, spends, standing, as_ranges = case
    L = Ledger(T, np.array(eps), None if w is None else np.array(w), len(eps))
    for a, t, e in spends:
        if as_ranges: L.spend_ranges(t, e, a, a + 1)
        else: L.spend(t, e, [a])
    for a, (amt, start) in standing.items(): L.standing(amt, start=start, account=a)
    want, over = fraction_verdict(T, eps, w, spends, standing)
    try: L.check(); got = None
    except PrivacyBudgetExceeded as err: got = (int(err.account.split()[-1]) if err.account != "stream" else 0, err.window[1])
    if want is None: assert got is None
    elif w is None: assert got is not None and got[0] in over       # event-level books: no window to order by; an account over budget
    else: assert got == want                                         # the earliest window, and its account
