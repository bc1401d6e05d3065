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
