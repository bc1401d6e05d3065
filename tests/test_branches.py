"""Checks that exercise what they claim (issue 36, part 5): the check streams of `contract.check_stream` reach every branch
each registered mechanism declares in `contract.BRANCHES` (at its defaults and at every accounting option), and the
auditor's event-level pairs live on a domain where truncation has a choice of tau and BucOrder several buckets."""
import inspect, math
import numpy as np
import pytest
from wevent_nb import contract
from wevent_nb.audit import default_pairs, random_pairs
from wevent_nb.baselines import Uniform
from wevent_nb.core import list_mechanisms
from wevent_nb.delay import BucOrder, tau_candidates

EPS, W = contract.CHECK_EPS, contract.CHECK_W


def _configurations():
    "Every registered mechanism at its defaults and at each accounting option's other values."
    for info in list_mechanisms():
        yield pytest.param(info.cls, {}, id=f"{info.name}-default")
        for opt, values in getattr(info.cls, "accounting_options", {}).items():
            for v in values: yield pytest.param(info.cls, {opt: v}, id=f"{info.name}-{opt}={v}")


def _build(cls, kw):
    "The mechanism at the checks' (eps, w), opted in where no derivation covers the configuration (as the trust table builds it)."
    m = cls(eps=EPS, w=W, **kw)
    if m.unproven() and "allow_unproven" in inspect.signature(cls).parameters: m = cls(eps=EPS, w=W, allow_unproven=True, **kw)
    return m


def test_every_registered_mechanism_has_its_branches():
    names = {i.name for i in list_mechanisms() if i.cls.__module__.startswith("wevent_nb.")}   # the package's (a test may register its own)
    assert len(names) == 48 and names <= set(contract.BRANCHES)
    assert {b for bs in contract.BRANCHES.values() for b in bs} <= set(contract.BRANCH_DETECTORS)


@pytest.mark.parametrize("cls,kw", list(_configurations()))
def test_check_streams_reach_every_declared_branch(cls, kw):
    "On the books' two streams and seeds (unchecked: an unproven option's overspend is the books' row, not this one)."
    m = _build(cls, kw)
    rels = [m.run(contract.check_stream(m.stream_kind, s, m.eps, m.w), rng=s, check=False) for s in (0, 1)]
    reached = contract.branches_reached(m, rels)
    assert all(reached.values()), f"{m!r}: not reached {[b for b, ok in reached.items() if not ok]}"


@pytest.mark.parametrize("name,branch", [("RescueDP", "groups formed"), ("BD-grouping", "several groups"),
                                         ("BucOrder", "several buckets"), ("BucOrder", "GRR step")])
def test_the_grouping_and_bucket_branches_are_declared(name, branch):
    "The branches the former check streams never reached are among those the test above requires."
    assert branch in contract.BRANCHES[name]


def test_truncation_declares_the_choice_of_tau():
    assert "tau below the domain" in contract.declared_branches(BucOrder(EPS, W, truncation=True))
    assert "tau below the domain" not in contract.declared_branches(BucOrder(EPS, W))


def test_branches_row_partial_is_not_a_failure():
    "A user mechanism with no row gets the generic branches; Uniform-like never approximates: partial, and the checks still pass."
    class AlwaysPublish(Uniform):
        "Uniform under another name (not in BRANCHES)."
        name = "AlwaysPublish"
    df = contract.check_mechanism(AlwaysPublish(EPS, W), runs=100).set_index("check")
    row = df.loc["branches"]
    assert row.verdict == "partial" and row.detail.startswith("not reached: approximates") and df.attrs["passed"]


@pytest.mark.parametrize("truncation", [False, True])
def test_audit_scalar_pairs_give_tau_a_choice_and_bucorder_buckets(truncation):
    "Both the fixed and the random scalar pairs include pairs where tau has several candidates and BucOrder (at m = 100) several buckets."
    m = BucOrder(EPS, W, truncation=truncation)
    for pairs in (default_pairs(m), random_pairs(m, 4, rng=0)):
        wide = [p for p in pairs if tau_candidates(p.x0.hi - p.x0.lo, m.tau_step).size > 1]
        assert wide and all(math.ceil((p.x0.hi - p.x0.lo) / m.m) > 1 for p in wide)
        for p in wide[:2]:
            assert int(np.asarray(m.run(p.x0, rng=0).info["n_b"])) > 1           # the release's own bucket count: GRR runs


def _trust_table():
    "tools/trust_table.py as a module."
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("trust_table", Path(__file__).resolve().parents[1] / "tools" / "trust_table.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


def test_trust_table_columns_tolerate_what_core_offers(monkeypatch):
    "The relation and secret-keys columns read what core offers (a relation with describe(), info_classification) and stay empty without it."
    tt = _trust_table()
    class Rel:
        def describe(self): return "one record added or removed"
    monkeypatch.setattr(Uniform, "relation", "record", raising=False)                  # a plain value: as it is
    assert tt.relation(Uniform(EPS, W)) == "record"
    monkeypatch.setattr(Uniform, "relation", Rel(), raising=False)
    assert tt.relation(Uniform(EPS, W)) == "one record added or removed"
    monkeypatch.delattr(tt.core, "info_classification", raising=False)
    assert tt.secret_keys(Uniform) == ""
    for c in ({"threshold": ("secret", "noisy"), "eps_pub": ("public", "booked")}, {"threshold": "secret", "eps_pub": "public"},
              {"secret": ["threshold"], "public": ["eps_pub"]}):
        monkeypatch.setattr(tt.core, "info_classification", lambda cls, c=c: c, raising=False)
        assert tt.secret_keys(Uniform) == "`threshold`"


def test_trust_table_only_writes_the_named_rows_with_the_new_columns(tmp_path):
    tt = _trust_table()
    out = tmp_path / "t.md"
    tt.main(["--only", "uniform", "--runs", "50", "--out", str(out)])
    rows = [l for l in out.read_text().splitlines() if l.startswith("| Uniform ")]
    head = [l for l in out.read_text().splitlines() if l.startswith("| mechanism ")][0]
    assert len(rows) == 1 and "branches exercised" in head and "secret keys" in head and "relation" in head
    assert rows[0].count("|") == head.count("|") and rows[0].rstrip(" |").endswith("publishes, window spent to eps")
    with pytest.raises(SystemExit): tt.main(["--only", "NoSuchName", "--out", str(out)])
