"""Issue 40, books in exact units: every registered mechanism allots what it spends (00c_ledger, *Books in exact units*),
so every amount its books hold is an integer number of quanta and the integer books hold it exactly. Run at private
defaults on a short stream of each kind, at budgets whose shares are not dyadic (eps 0.3 over w 7), and online."""
import numpy as np
import pytest
from test_private_by_default import short_stream

from wevent_nb.core import list_mechanisms
from wevent_nb.ledger import allot

MECHS = list_mechanisms()


def off_lattice(ledger) -> list:
    "The amounts on `ledger` (entries and standing charges) that are not a multiple of the quantum."
    e = np.r_[ledger.entries()[2], ledger._standing]
    return sorted(set(e[allot(e) != e].tolist()))[:5]


@pytest.mark.parametrize("info", MECHS, ids=[i.name for i in MECHS])
@pytest.mark.parametrize("eps,w", [(0.3, 7), (1.0, 5)])
def test_every_spend_is_allotted(info, eps, w):
    rel = info.cls(eps=eps, w=w).run(short_stream(info.stream_kind, 30, w, eps=eps), rng=2)
    bad = off_lattice(rel.ledger)
    assert not bad, f"{info.name} books amounts that are not whole quanta: {bad}"
