"Tests of wevent_nb.benchmark (the cross-paper benchmark, nbs/21_benchmark.ipynb) and `wevent-nb bench`."
import numpy as np
import pandas as pd
import pytest

from wevent_nb import data
from wevent_nb import benchmark as B
from wevent_nb.baselines import BA, BD
from wevent_nb.cli import main
from wevent_nb.core import HistogramStream, ScalarStream, get_mechanism, list_mechanisms
from wevent_nb.experiments import Grid, ResultStore

KINDS = {"central": "histogram", "local-categorical": "categorical", "local-numeric": "numeric", "event": "scalar"}
LEFT_OUT = {"AdaPub-event"}   # compared in paper 004's notebook: its groups always close, so it is Naive at 0.8 eps


def _names(family):
    return {s if isinstance(s, str) else s.name for s, _ in B.family_methods(family).values()}


@pytest.mark.parametrize("family", B.FAMILIES)
def test_every_method_resolves_and_the_zero_budget_release_is_in(family):
    for label, (spec, fixed) in B.family_methods(family).items():
        m = get_mechanism(spec, eps=1.0, w=10, **fixed) if isinstance(spec, str) else spec(1.0, 10, **fixed)
        assert m.stream_kind == KINDS[family], label
    assert B.ZERO[family] in B.family_methods(family)


def test_central_and_event_families_compare_every_registered_method():
    for family in ("central", "event"):
        registered = {i.name for i in list_mechanisms(stream_kind=KINDS[family]) if i.cls.__module__.startswith("wevent_nb.")}   # not the tests' toys
        assert registered - LEFT_OUT <= _names(family), registered - _names(family)
    assert {"LBU", "LSP", "LBD", "LBA", "LPU", "LPD", "LPA"} == _names("local-categorical") - {B.ZERO["local-categorical"]}
    assert {"SW-direct", "IPP", "APP", "CAPP", "BA-SW"} == _names("local-numeric") - {B.ZERO["local-numeric"]}


def test_zero_budget_releases_spend_nothing():
    pop = data.ldp_ids_synthetic("Log", N=500, T=30, rng=1)
    rel = B.UniformFrequencies(0.5, 5).run(pop).check()
    assert rel.estimates.shape == pop.frequencies.shape and np.allclose(rel.estimates, 1 / pop.d)
    assert rel.ledger.spent_per_timestamp(0).max() == 0 and not rel.published.any()
    num = data.capp_sin_data(d=2, T=20)
    assert np.allclose(B.MidpointMean(0.5, 5).run(num).check().estimates, 0.5)
    with pytest.raises(TypeError, match="numeric"): B.MidpointMean(0.5, 5).run(pop)


@pytest.mark.parametrize("threshold", ["std", "kellaris"])
def test_shared_budget_pbd_pba_are_bd_ba(threshold):
    h = HistogramStream(data.pbd_synthetic("Sin", N=300, T=300, rng=2).counts.astype(float))
    for mine, theirs in ((B.SharedPBD, BD), (B.SharedPBA, BA)):
        a = mine(0.6, 40, threshold=threshold).run(h, rng=5).check()
        b = theirs(0.6, 40, threshold=threshold).run(h, rng=5)
        assert np.array_equal(a.published, b.published) and a.published.sum() > 10
        np.testing.assert_allclose(a.estimates, b.estimates, rtol=1e-9, atol=1e-9)
        assert a.params == {"eps": 0.6, "w": 40, "threshold": threshold}


def _fake(rows):
    return pd.DataFrame([dict(family="central", dataset="s", mechanism=m, eps=e, w=1, rep=r, metric="MRE_SPAS", value=v)
                         for m, e, r, v in rows])


def test_rankings_use_the_geometric_mean_and_intervals_over_seeds():
    f = _fake([("A", 0.1, 0, 100), ("A", 0.1, 1, 100), ("A", 1.0, 0, 1), ("A", 1.0, 1, 1),
               ("B", 0.1, 0, 20), ("B", 0.1, 1, 20), ("B", 1.0, 0, 10.5), ("B", 1.0, 1, 29.5),
               ("Constant", 0.1, 0, 10), ("Constant", 0.1, 1, 10), ("Constant", 1.0, 0, 10), ("Constant", 1.0, 1, 10)])
    r = B.rankings(f).set_index("mechanism")
    assert r.loc["A", "place"] == 1 and r.loc["A", "error"] == pytest.approx(10)
    assert r.loc["B", "ci_low"] < r.loc["B", "error"] < r.loc["B", "ci_high"]
    assert r.loc["A", "mean_rank"] == 2.0 and r.loc["Constant", "seeds"] == 2    # A: last at eps 0.1, first at eps 1
    b = B.beaten_by_nothing(f).set_index("mechanism")
    assert (b.loc["B", "worse"], b.loc["B", "surely_worse"], b.loc["A", "worse"], b.loc["A", "surely_worse"]) == (2, 1, 1, 1)
    one = B.beaten_by_nothing(f[f.rep == 0]).set_index("mechanism")
    assert one.loc["B", "surely_worse"] == 0                                       # one seed: no interval, nothing is "sure"


def _tiny_grids():
    "The event family's grids on two short streams (fast), one seed."
    s = data.capp_sin_data(d=1, T=120).values[0] * 100
    streams = {"a": ScalarStream(s, 0.0, 100.0, "a"), "b": ScalarStream(s[::-1].copy(), 0.0, 100.0, "b")}
    return [("event", g) for g in B.family_grids("event", streams, "quick", reps=1)]


def test_store_resumes_and_executors_agree(tmp_path):
    grids = _tiny_grids()
    df, failed = B.run_benchmark(grids, tmp_path / "s.sqlite", "serial", progress=False)
    assert failed.empty and df["ledger_ok"].all() and df.attrs["computed"] == df.attrs["cells"] == B.n_cells(grids)
    again, _ = B.run_benchmark(grids, tmp_path / "s.sqlite", 2, progress=False)
    assert again.attrs["computed"] == 0
    other, _ = B.run_benchmark(grids, None, 2, progress=False)
    cols = ["family", "dataset", "mechanism", "eps", "w", "rep", "seed", "metric", "value"]
    pd.testing.assert_frame_equal(other[cols], df[cols])
    with ResultStore(tmp_path / "s.sqlite") as st: assert len(st) == B.n_cells(grids)


def test_a_failing_cell_is_reported_and_the_rest_stored(tmp_path):
    fam, g = _tiny_grids()[0]
    bad = Grid(g.streams, {**g.mechanisms, "BucOrder": ("BucOrder", {"m": -1.0})}, g.params, 1, g.metrics)
    with pytest.warns(RuntimeWarning, match="raised ValueError: m=-1.0"):
        df, failed = B.run_benchmark([(fam, bad)], tmp_path / "s.sqlite", "serial", progress=False)
    assert len(failed) == len(bad.params["eps"]) * len(bad.params["w"]) and set(failed["family"]) == {"event"}
    assert "m=-1" in failed["error"].iloc[0] and set(df.mechanism) == set(g.mechanisms) - {"BucOrder"}


def test_grids_of_both_scales_and_the_crossing_cell_once(data_home):
    grids, missing = B.benchmark_grids("quick", home=data_home)
    assert not missing and {f for f, _ in grids} == set(B.FAMILIES)
    assert B.n_cells(grids) < sum(len(g) for _, g in grids)
    central = [g for f, g in grids if f == "central"][0]
    assert len(central.streams) == len(data.list_datasets(data_home).query("kind == 'histogram'"))
    assert all(s.T <= B.SCALES["quick"]["central"]["length"] for s in central.streams.values())
    with pytest.raises(ValueError, match="scale"): B.benchmark_grids("huge")
    with pytest.raises(ValueError, match="family"): B.family_methods("global")


def test_projection_multiplies_cells_by_their_seconds():
    grids = _tiny_grids()
    secs = B.cell_seconds(grids)
    assert set(secs.mechanism) == set(grids[0][1].mechanisms) and len(secs) == 2 * len(grids[0][1].mechanisms)
    p = B.project_wall(grids, secs, workers=(1, 2), efficiency=0.5).set_index("workers")
    serial = sum(secs.set_index(["dataset", "mechanism"])["seconds"][(c.dataset, c.mechanism)] for _, g in grids for c in g.cells())
    assert p.loc[1, "projected_s"] == pytest.approx(serial) and p.loc[2, "projected_s"] == pytest.approx(serial)   # 2 workers at 50%


def test_bench_command(data_home, tmp_path, capsys):
    args = ["bench", "--family", "event", "--reps", "2", "--store", str(tmp_path / "b.sqlite"), "--quiet", "--data-home", str(data_home)]
    assert main(args + ["--csv", str(tmp_path / "b.csv")]) == 0
    out = capsys.readouterr().out
    assert "480 cells computed" in out and "Constant-mid" in out and "share_worse" in out
    assert len(pd.read_csv(tmp_path / "b.csv")) == 2 * 480
    assert main(args) == 0 and "0 cells computed" in capsys.readouterr().out      # a second run reads the store
    assert main(["bench", "--family", "global"]) == 2
    assert "family" in capsys.readouterr().err


def test_unproven_rows_are_never_ranked():
    "A configuration no derivation covers (private False) is left out of rankings and of the beaten-by-nothing table, however accurate."
    rows = [dict(family="central", dataset="d", mechanism=m, eps=1.0, w=10, rep=rep, metric=B.PRIMARY["central"],
                 value=(1.0 + rep) * scale, private=priv)
            for m, scale, priv in (("private one", 1.0, True), ("unproven one", 0.01, False)) for rep in range(3)]
    df = pd.DataFrame(rows)
    assert list(B.rankings(df).mechanism) == ["private one"]
    assert list(B.rankings(df.drop(columns="private")).mechanism) == ["unproven one", "private one"]   # the filter is what leaves it out


def test_rank_heatmap_places_are_legible():
    "The heat map's places are printed at >= 10 pt (they were 6 pt: unreadable on a ~780 px docs page), one per ranked cell."
    import matplotlib; matplotlib.use("Agg")
    fam = B.FAMILIES[0]
    ranks = pd.DataFrame([(fam, f"M{i}", f"D{j}", (i + j) % 5 + 1) for i in range(5) for j in range(4)],
                         columns=["family", "mechanism", "dataset", "place"])
    fig = B.rank_heatmap(ranks, fam)
    texts = [t for t in fig.axes[0].texts]
    assert len(texts) == 20 and min(t.get_fontsize() for t in texts) >= 10
    import matplotlib.pyplot as plt; plt.close(fig)
