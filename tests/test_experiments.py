"Tests of wevent_nb.experiments: grids, seeds, executors, the resumable store, figures, claims table, explorer."
import importlib.util, math, os, signal, sqlite3, subprocess, sys, textwrap, time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from wevent_nb.core import HistogramStream, PrivacyBudgetExceeded, ToyOverspend, ToyUniform
from wevent_nb.experiments import (CLAIM_COLS, REPS_REACH, VERDICTS, bonferroni_z, stream_signature, claim_cells, claim_counts, claim_number, claim_sign, read_claims, t_factor, write_claims, Cell, CellsFailed, Grid, LedgerCheckFailed, ResultStore, claims_table, default_truth,
                                   explorer, param_columns, plot_vs, records_to_frame, resolve_metric, run_cell, run_grid)

ROOT = Path(__file__).resolve().parents[1]
COLS = ["dataset", "mechanism", "eps", "w", "rep", "seed", "metric", "value", "ledger_ok", "ledger_error"]


def mae(est, true): return float(np.mean(np.abs(est - true)))
def maxerr(est, true): return float(np.max(np.abs(est - true)))


def _streams():
    r = np.random.default_rng(3)
    return {"walk": HistogramStream(np.maximum(0, 100 + np.cumsum(r.normal(0, 3, (60, 4)), 0)).round()),
            "flat": HistogramStream(np.full((60, 4), 50.0))}


def _grid(**kw):
    args = dict(streams=_streams(), mechanisms={"U": (ToyUniform, {}), "O": (ToyOverspend, {})},
                params={"eps": [0.5, 1.0, 2.0], "w": [5, 10]}, reps=2, metrics=[("MAE", mae), ("MAX", maxerr)])
    args.update(kw)
    return Grid(**args)


def _run(grid, **kw):
    return run_grid(grid, progress=False, on_ledger_fail="record", **kw)


# ---------------------------------------------------------------- grid and validation
def test_tidy_columns_and_shape():
    g = _grid()
    df = _run(g, executor="serial")
    assert list(df.columns) == ["dataset", "mechanism", "eps", "w", "rep", "seed", "metric", "value", "seconds", "ledger_ok", "ledger_error", "private"]
    assert len(df) == len(g) * 2 == 2 * 2 * 6 * 2 * 2
    assert param_columns(df) == ["eps", "w"]
    assert df.dtypes["value"] == np.float64 and df.dtypes["seed"] == np.int64 and df.dtypes["ledger_ok"] == bool
    assert (df.seconds > 0).all()
    # one seed per cell, the same on each metric row
    assert df.groupby(["dataset", "mechanism", "eps", "w", "rep"])["seed"].nunique().eq(1).all()
    assert df["seed"].nunique() == len(g)


@pytest.mark.parametrize("kw, msg", [
    (dict(streams={}), "streams="),
    (dict(mechanisms={}), "mechanisms="),
    (dict(params={"eps": []}), "params['eps']"),
    (dict(params={"eps": 1.0}), "params['eps']"),
    (dict(params={"seed": [1]}), "clashes"),
    (dict(reps=0), "reps=0"),
    (dict(reps=1.5), "reps=1.5"),
    (dict(metrics=[]), "metrics=[]"),
    (dict(metrics=[("a", 1)]), "metric=('a', 1)"),
    (dict(metrics=[("a", mae), ("a", mae)]), "unique"),
    (dict(mechanisms={"U": (ToyUniform, {"eps": 1.0})}), "fixes ['eps']"),
    (dict(mechanisms={"U": (ToyUniform, [1])}), "fixed params=[1]"),
    (dict(mechanisms={"U": 3}), "spec=3"),
    (dict(truth=3), "truth=3"),
    (dict(params={"eps": [object()]}), "grid parameters must be"),
])
def test_grid_bad_input(kw, msg):
    with pytest.raises(ValueError, match=None) as e: _grid(**kw)
    assert msg in str(e.value), str(e.value)


def test_run_grid_bad_input():
    g = _grid()
    for kw, msg in [(dict(executor="threads"), "executor='threads'"), (dict(on_ledger_fail="ignore"), "on_ledger_fail='ignore'")]:
        with pytest.raises(ValueError) as e: run_grid(g, progress=False, **kw)
        assert msg in str(e.value)
    with pytest.raises(ValueError, match="grid must be a Grid"): run_grid({"a": 1})


def test_unknown_metric_name_fails_before_any_work(tmp_path):
    g = _grid(metrics=["NO_SUCH_METRIC"])
    with ResultStore(tmp_path / "s.sqlite") as st:
        with pytest.raises((KeyError, ValueError)): run_grid(g, st, executor="serial", progress=False)
        assert len(st) == 0


def test_metric_by_registry_name():
    g = _grid(metrics=["MAE", ("mine", mae)], mechanisms={"U": (ToyUniform, {})})
    df = _run(g, executor="serial")
    a = df[df.metric == "MAE"].value.to_numpy(); b = df[df.metric == "mine"].value.to_numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_default_truth_and_custom_truth():
    s = _streams()["walk"]
    np.testing.assert_array_equal(default_truth(s), s.counts)
    g = _grid(mechanisms={"U": (ToyUniform, {})}, truth=lambda st: st.counts + 1000.0)
    df = _run(g, executor="serial")
    assert (df[df.metric == "MAE"].value > 900).all()   # the error is measured against the custom truth


# ---------------------------------------------------------------- seeds: alone, any order, any process
def test_cell_alone_equals_cell_in_grid():
    g = _grid()
    df = _run(g, executor="serial")
    for cell in (g.cells()[0], g.cells()[17], g.cells()[-1]):
        rec = run_cell(cell, g.streams[cell.dataset], g.mechanisms[cell.mechanism][0], [("MAE", mae), ("MAX", maxerr)],
                       g.streams[cell.dataset].counts)
        got = df[(df.seed == cell.seed)].set_index("metric")["value"]
        assert got["MAE"] == rec["values"][0][1] and got["MAX"] == rec["values"][1][1]


def test_same_results_in_any_order_and_subset():
    g = _grid()
    df = _run(g, executor="serial")
    rev = Grid(dict(reversed(list(_streams().items()))), {"O": (ToyOverspend, {}), "U": (ToyUniform, {})},
               {"w": [10, 5], "eps": [2.0, 1.0, 0.5]}, reps=2, metrics=[("MAX", maxerr), ("MAE", mae)])
    df2 = _run(rev, executor="serial")
    key = ["dataset", "mechanism", "eps", "w", "rep", "metric"]
    m = df.merge(df2, on=key, suffixes=("", "_2"))
    assert len(m) == len(df)
    assert (m.value == m.value_2).all() and (m.seed == m.seed_2).all()
    sub = _run(_grid(params={"eps": [1.0], "w": [10]}, streams={"walk": _streams()["walk"]}), executor="serial")
    m = sub.merge(df, on=key, suffixes=("", "_full"))
    assert len(m) == len(sub) and (m.value == m.value_full).all()


def test_serial_process_pool_and_threads_identical():
    g = _grid()
    a = _run(g, executor="serial")
    b = _run(g)                                   # default: a ProcessPoolExecutor
    with ProcessPoolExecutor(2) as ex: c = _run(g, executor=ex)
    with ThreadPoolExecutor(3) as ex: d = _run(g, executor=ex)
    for other in (b, c, d): pd.testing.assert_frame_equal(a[COLS], other[COLS])
    # different seeds really give different values (the comparison above can fail)
    assert a.groupby(["dataset", "mechanism", "eps", "w", "metric"])["value"].nunique().gt(1).all()


_PICKLES = []

class CountingStream(HistogramStream):
    "A stream that counts how often it is pickled (in the parent process)."
    def __getstate__(self):
        _PICKLES.append(1)
        return self.__dict__


def test_stream_pickled_once_for_a_process_pool():
    s = CountingStream(np.full((40, 3), 10.0))
    g = Grid({"c": s}, {"U": (ToyUniform, {"w": 5})}, {"eps": [0.5, 1.0, 2.0, 4.0]}, reps=3, metrics=[("MAE", mae)])
    _PICKLES.clear()
    with ProcessPoolExecutor(2) as ex: df = _run(g, executor=ex)
    assert len(df) == 12 and len(_PICKLES) == 1


def test_lambdas_reach_process_workers_and_unpicklable_grid_gives_clear_error():
    import threading
    g = _grid(metrics=[("MAE", lambda e, t: float(np.abs(e - t).mean()))])
    np.testing.assert_allclose(_run(g).value.values, _run(g, executor="serial").value.values)  # cloudpickle: by value
    lock = threading.Lock()
    bad = _grid(metrics=[("MAE", lambda e, t: float(lock.locked()))])
    with pytest.raises(ValueError, match="executor='serial'"): run_grid(bad, progress=False)
    assert len(_run(bad, executor="serial")) == len(bad)    # the serial path takes anything


# ---------------------------------------------------------------- ledger failures
def test_ledger_failure_recorded_and_raised(tmp_path):
    g = _grid()
    with ResultStore(tmp_path / "s.sqlite") as st:
        with pytest.raises(LedgerCheckFailed) as e: run_grid(g, st, executor="serial", progress=False)
        assert isinstance(e.value, PrivacyBudgetExceeded)
        assert len(st) == len(g)                           # everything was stored before raising
        f = e.value.frame
        assert (~f[f.mechanism == "O"].ledger_ok).all() and f[f.mechanism == "U"].ledger_ok.all()
        assert len(e.value.failures) == len(g) // 2
        assert f[f.mechanism == "O"].ledger_error.str.contains("window").all()
        # a re-run computes nothing and raises again
        with pytest.raises(LedgerCheckFailed) as e2: run_grid(g, st, executor="serial", progress=False)
        assert e2.value.frame.attrs["computed"] == 0
    ok = _run(_grid(mechanisms={"U": (ToyUniform, {})}), executor="serial")
    assert ok.ledger_ok.all()



class _ToyUnproven(ToyUniform):
    "ToyUniform whose accounting, by declaration, no derivation covers."
    def unproven(self): return "a declared gap"


def test_unproven_cells_are_recorded_never_ledger_ok_and_do_not_raise(tmp_path):
    "Issue 21, finding 3: a grid over a configuration no derivation covers stores ledger_ok False and private False, even with the opt-in."
    g = _grid(mechanisms={"U": (ToyUniform, {}), "X": (_ToyUnproven, {"allow_unproven": True}), "Y": (_ToyUnproven, {})})
    with ResultStore(tmp_path / "s.sqlite") as st:
        df = run_grid(g, st, executor="serial", progress=False)          # books pass everywhere: nothing raises
        for f in (df, st.frame()):
            x = f[f.mechanism.isin(["X", "Y"])]
            assert (~x.ledger_ok).all() and (~x.private).all() and x.ledger_error.str.contains("a declared gap").all()
            u = f[f.mechanism == "U"]
            assert u.ledger_ok.all() and u.private.all()


def test_a_store_written_before_the_private_column_still_resumes(tmp_path):
    import sqlite3
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""CREATE TABLE cells (key TEXT PRIMARY KEY, dataset TEXT, mechanism TEXT, params TEXT, fixed TEXT,
        rep INTEGER, seed INTEGER, seconds REAL, ledger_ok INTEGER, ledger_error TEXT, finished REAL);
        CREATE TABLE results (key TEXT, pos INTEGER, metric TEXT, value REAL, PRIMARY KEY (key, pos));""")
    con.close()
    g = _grid(mechanisms={"U": (ToyUniform, {})})
    with ResultStore(path) as st:
        df = run_grid(g, st, executor="serial", progress=False)
        assert df.private.all() and len(st) == len(g)
        assert st.claims().empty                       # the claims table was added to the older store


# ---------------------------------------------------------------- store
def test_store_resume_skips_and_matches(tmp_path):
    g = _grid()
    ref = _run(g, executor="serial")
    calls = []
    def lazy():
        calls.append(1); return _streams()["flat"]
    streams = {"walk": _streams()["walk"], "flat": lazy}
    with ResultStore(tmp_path / "s.sqlite") as st:
        half = _run(Grid(streams, g.mechanisms, {"eps": [0.5, 1.0], "w": [5, 10]}, 2, g.metrics), store=st, executor="serial")
        assert half.attrs == {"computed": 32, "skipped": 0} and len(calls) == 1
        full = _run(Grid(streams, g.mechanisms, g.params, 2, g.metrics), store=st)
        assert full.attrs == {"computed": 16, "skipped": 32}
        pd.testing.assert_frame_equal(full[COLS], ref[COLS])
        again = _run(Grid({"walk": streams["walk"], "flat": lazy}, g.mechanisms, g.params, 2, g.metrics), store=st)
        assert again.attrs["computed"] == 0 and len(calls) == 2     # nothing to run: the lazy stream is not loaded
        pd.testing.assert_frame_equal(again, full)                  # seconds too: read back from the store
        sf = st.frame()
        assert len(sf) == len(ref)
        key = ["dataset", "mechanism", "eps", "w", "rep", "metric"]
        m = sf.merge(ref, on=key, suffixes=("", "_r"))
        assert len(m) == len(ref) and (m.value == m.value_r).all()
    # the store path may be given as a string; the file persists
    df = _run(g, store=str(tmp_path / "s.sqlite"))
    assert df.attrs["computed"] == 24       # "walk" found; "flat" was stored from a loader (known by name), now an object (by its data)
    assert _run(g, store=str(tmp_path / "s.sqlite")).attrs["computed"] == 0
    with sqlite3.connect(tmp_path / "s.sqlite") as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_nan_values_round_trip(tmp_path):
    g = _grid(mechanisms={"U": (ToyUniform, {})}, metrics=[("nan", nan_metric)], params={"eps": [1.0], "w": [5]}, reps=1)
    with ResultStore(tmp_path / "s.sqlite") as st:
        a = _run(g, store=st, executor="serial"); b = _run(g, store=st, executor="serial")
    assert a.value.isna().all() and b.value.isna().all()


def nan_metric(est, true): return float("nan")


class Flaky(ToyUniform):
    "Raises at eps=Flaky.refuse (a class attribute, so the fix reaches every thread; processes get it by value)."
    refuse = 1.0
    def run(self, stream, rng=None):
        if self.eps == self.refuse: raise ArithmeticError(f"refusing eps={self.eps}")
        return super().run(stream, rng)


def check_failing_cells(executor, tmp_path):
    "A cell that raises is reported with its parameters, the run goes on and stores the rest, a re-run retries only it."
    g = _grid(mechanisms={"F": (Flaky, {})})
    bad = [c for c in g.cells() if c.params["eps"] == Flaky.refuse]
    with ResultStore(tmp_path / "s.sqlite") as st:
        with pytest.warns(RuntimeWarning, match="raised ArithmeticError") as said:
            with pytest.raises(CellsFailed, match=f"{len(bad)} cell.s. raised") as e: run_grid(g, st, executor=executor, progress=False)
        assert len([w for w in said if "the run goes on" in str(w.message)]) == len(bad)
        f = e.value.failures
        assert sorted(f.seed) == sorted(c.seed for c in bad) and set(f.eps) == {Flaky.refuse}
        assert set(f.columns) >= {"dataset", "mechanism", "eps", "w", "rep", "seed", "error"} and f.error.str.contains("refusing eps=1.0").all()
        assert len(st) == len(g) - len(bad) and len(e.value.frame) == len(st) * 2        # two metrics per stored cell
        try:
            Flaky.refuse = None
            again = run_grid(g, st, executor="serial", progress=False)
        finally: Flaky.refuse = 1.0
        assert again.attrs == {"computed": len(bad), "skipped": len(g) - len(bad)}
    ref = _run(_grid(mechanisms={"F": (ToyUniform, {})}), executor="serial")
    pd.testing.assert_frame_equal(again[COLS], ref[COLS])


@pytest.mark.parametrize("executor", ["serial", 2])
def test_failing_cell_reported_and_run_goes_on(executor, tmp_path):
    check_failing_cells(executor, tmp_path)


KILL_SCRIPT = '''
import sys, time
import numpy as np
from wevent_nb.core import HistogramStream, ToyUniform
from wevent_nb.experiments import Grid, run_grid

def mae(est, true): return float(np.mean(np.abs(est - true)))

def make_grid(log, delay):
    class Slow(ToyUniform):
        def run(self, stream, rng=None):
            with open(log, "a") as f: f.write(f"{rng}\\n")     # rng is the cell's seed
            time.sleep(delay)
            return super().run(stream, rng)
    s = HistogramStream(np.arange(120.0).reshape(40, 3))
    return Grid({"s": s}, {"slow": (Slow, {"w": 5})}, {"eps": [0.5, 1.0, 2.0]}, reps=4, metrics=[("MAE", mae)])

if __name__ == "__main__":
    store, log, delay, where = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    if where == "serial": run_grid(make_grid(log, delay), store, executor="serial", progress=False)
    else:                                   # a two-worker Dask cluster inside this process: the kill takes it down too
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
            run_grid(make_grid(log, delay), store, executor=client.get_executor(), progress=False)
'''


@pytest.mark.parametrize("where", ["serial", "dask"])
def test_sigkill_loses_nothing_and_resume_runs_only_missing(tmp_path, where):
    if where == "dask": pytest.importorskip("distributed")
    script = tmp_path / "grid_script.py"; script.write_text(KILL_SCRIPT)
    db, log1 = tmp_path / "killed.sqlite", tmp_path / "log1.txt"
    proc = subprocess.Popen([sys.executable, str(script), str(db), str(log1), "0.25", where])
    n, t0 = 0, time.time()
    try:
        while n < 3:
            assert proc.poll() is None, "the grid finished before it could be killed"
            assert time.time() - t0 < 60, "no cell finished within 60 s"
            time.sleep(0.05)
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as con: n = con.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
                except sqlite3.OperationalError: n = 0
    finally:
        os.kill(proc.pid, signal.SIGKILL); proc.wait()
    assert proc.returncode == -signal.SIGKILL
    spec = importlib.util.spec_from_file_location("grid_script", script); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    log2, log3 = tmp_path / "log2.txt", tmp_path / "log3.txt"
    grid = mod.make_grid(str(log2), 0.0)
    all_seeds = {c.seed for c in grid.cells()}
    with ResultStore(db) as st:
        stored = {r["seed"] for r in st.records().values()}
        assert 3 <= len(stored) < len(all_seeds)
        started = {int(x) for x in log1.read_text().split()}
        assert stored <= started                     # everything stored was computed by the killed run
        with pytest.warns(RuntimeWarning, match="no longer runs"):     # the killed run's claims: its process is gone
            resumed = run_grid(grid, st, executor="serial", progress=False)
        ran = {int(x) for x in log2.read_text().split()}
        assert ran == all_seeds - stored             # only the missing cells ran
        assert resumed.attrs == {"computed": len(all_seeds) - len(stored), "skipped": len(stored)}
        killed_frame = st.frame()
    with ResultStore(tmp_path / "ref.sqlite") as ref:
        uninterrupted = run_grid(mod.make_grid(str(log3), 0.0), ref, executor="serial", progress=False)
        ref_frame = ref.frame()
    cols = [c for c in ref_frame.columns if c != "seconds"]
    pd.testing.assert_frame_equal(killed_frame[cols], ref_frame[cols])
    pd.testing.assert_frame_equal(resumed[cols], uninterrupted[cols])


TWO_SCRIPT = '''
import os, pickle, sys, time
from pathlib import Path
import numpy as np
from wevent_nb.core import HistogramStream, ToyUniform
from wevent_nb.experiments import Grid, run_grid

def mae(est, true): return float(np.mean(np.abs(est - true)))

def make_grid(log):
    class Logged(ToyUniform):
        def run(self, stream, rng=None):
            with open(log, "a") as f: f.write(f"{os.getpid()} {rng}\\n")    # rng is the cell's seed
            time.sleep(0.05)                                               # long enough for the two runs to overlap
            return super().run(stream, rng)
    s = HistogramStream(np.arange(120.0).reshape(40, 3))
    return Grid({"s": s}, {"logged": (Logged, {"w": 5})}, {"eps": [0.5, 1.0, 2.0]}, reps=4, metrics=[("MAE", mae)])

if __name__ == "__main__":
    store, log, me, go, out = sys.argv[1:]
    grid = make_grid(log)
    Path(me).touch()                                  # imported and ready: wait for the other process
    while not Path(go).exists(): time.sleep(0.01)
    df = run_grid(grid, store, executor="serial", progress=False)
    with open(out, "wb") as f: pickle.dump(df, f)
'''


def test_two_processes_on_one_store_compute_each_cell_once(tmp_path):
    script = tmp_path / "two.py"; script.write_text(TWO_SCRIPT)
    db, log, go = tmp_path / "shared.sqlite", tmp_path / "log.txt", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, str(script), str(db), str(log), str(tmp_path / f"ready{i}"), str(go), str(tmp_path / f"out{i}.pkl")], env=env)
             for i in range(2)]
    try:
        t0 = time.time()
        while not all((tmp_path / f"ready{i}").exists() for i in range(2)):
            assert all(p.poll() is None for p in procs) and time.time() - t0 < 60, "a process died or did not start"
            time.sleep(0.02)
        go.touch()                                    # both start the grid at once
        assert [p.wait(timeout=60) for p in procs] == [0, 0]
    finally:
        for p in procs:
            if p.poll() is None: p.kill(); p.wait()
    spec = importlib.util.spec_from_file_location("two", script); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    grid = mod.make_grid(str(tmp_path / "unused.txt"))
    ran = [line.split() for line in log.read_text().splitlines()]
    assert sorted(int(s) for _, s in ran) == sorted(c.seed for c in grid.cells())     # every cell computed exactly once in total
    frames = [pd.read_pickle(tmp_path / f"out{i}.pkl") for i in range(2)]
    assert sorted(f.attrs["computed"] for f in frames) == [0, len(grid)]             # one computed, the other waited
    assert {int(pid) for pid, _ in ran} == {p.pid for p, f in zip(procs, frames) if f.attrs["computed"]}
    pd.testing.assert_frame_equal(frames[0], frames[1])                              # both have the whole grid
    assert len(frames[0]) == len(grid)
    with ResultStore(db) as st: assert len(st) == len(grid) and st.claims().empty


def _claim_all(db, grid, **row):
    "Claim every cell of `grid` in the store at `db` as another owner would (host, pid, claimed time in `row`)."
    with sqlite3.connect(db) as con:
        con.executemany("INSERT INTO claims VALUES (?,?,?,?,?)", [(c.key, row["owner"], row["host"], row["pid"], row["claimed"]) for c in grid.cells(grid.signatures())])


def test_a_dead_process_claims_are_taken_over(tmp_path):
    import socket
    g = _grid(mechanisms={"U": (ToyUniform, {})})
    gone = subprocess.Popen([sys.executable, "-c", "pass"]); gone.wait()            # a process that has ended
    with ResultStore(tmp_path / "s.sqlite") as st:
        _claim_all(st.path, g, owner="crashed", host=socket.gethostname(), pid=gone.pid, claimed=time.time())
        assert len(st.claims()) == len(g)
        with pytest.warns(RuntimeWarning, match=f"took over the cells claimed by crashed: its process {gone.pid} on this host no longer runs"):
            df = _run(g, store=st, executor="serial")
        assert df.attrs == {"computed": len(g), "skipped": 0} and st.claims().empty
    pd.testing.assert_frame_equal(df[COLS], _run(g, executor="serial")[COLS])


def test_a_claim_past_its_lease_is_taken_over_after_waiting(tmp_path, monkeypatch):
    from wevent_nb import experiments
    monkeypatch.setattr(experiments, "CLAIM_LEASE", 1.0); monkeypatch.setattr(experiments, "CLAIM_POLL", 0.05)
    g = _grid(mechanisms={"U": (ToyUniform, {})})
    with ResultStore(tmp_path / "s.sqlite") as st:
        _claim_all(st.path, g, owner="far", host="another-host", pid=os.getpid(), claimed=time.time())   # fresh, on a host we cannot see
        t0 = time.time()
        with pytest.warns(RuntimeWarning, match=r"claimed by far: its claim was not renewed for \d+ s \(CLAIM_LEASE is 1 s\)"):
            df = _run(g, store=st, executor="serial")
        assert time.time() - t0 >= 1.0                                              # it waited for the lease
        assert df.attrs["computed"] == len(g) and st.claims().empty


def test_claims_are_released_on_failure_and_interruption(tmp_path):
    class Interrupted(ToyUniform):
        def run(self, stream, rng=None):
            if self.eps == 2.0: raise KeyboardInterrupt
            return super().run(stream, rng)
    g = _grid(mechanisms={"I": (Interrupted, {})}, params={"eps": [0.5, 1.0, 2.0], "w": [5]}, reps=2)
    with ResultStore(tmp_path / "s.sqlite") as st:
        with pytest.raises(KeyboardInterrupt): _run(g, store=st, executor="serial")
        assert len(st) == 4 and st.claims().empty                                  # what was stored stays; no claim is left
        with pytest.warns(RuntimeWarning), pytest.raises(CellsFailed): run_grid(_grid(mechanisms={"F": (Flaky, {})}), st, executor="serial", progress=False)
        assert st.claims().empty


def test_a_store_in_memory_takes_no_claims():
    with ResultStore(":memory:") as st:
        assert not st.shared
        df = _run(_grid(mechanisms={"U": (ToyUniform, {})}), store=st, executor="serial")
        assert len(st) == len(df) // 2 and st.claims().empty


# ---------------------------------------------------------------- figures, claims, explorer
def _fake_frame(scale_b=1.0):
    rows = []
    for ds in ("A", "B"):
        for mech, k in (("m1", 1.0), ("m2", scale_b)):
            for eps in (0.5, 1.0, 2.0):
                for rep, noise in enumerate((-1.0, 0.0, 1.0, 2.0)):
                    rows.append(dict(dataset=ds, mechanism=mech, eps=eps, w=10, rep=rep, seed=rep, metric="MRE",
                                     value=k * (10 / eps + noise), seconds=0.0, ledger_ok=True, ledger_error=""))
    return pd.DataFrame(rows)


def test_plot_vs_means_errorbars_and_scale():
    import matplotlib.pyplot as plt
    df = _fake_frame()
    fig = plot_vs(df, x="eps", metric="MRE")
    assert len(fig.axes) == 2 and [a.get_title() for a in fig.axes] == ["A", "B"]
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear"
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_xdata(), [0.5, 1.0, 2.0])
    np.testing.assert_allclose(line.get_ydata(), [20.5, 10.5, 5.5])   # mean over reps of 10/eps + noise
    # error bar half-length = sd / sqrt(n) of (-1, 0, 1, 2)
    se = np.std([-1.0, 0.0, 1.0, 2.0], ddof=1) / 2
    seg = ax.collections[0].get_segments()[0]
    assert abs((seg[1][1] - seg[0][1]) / 2 - se) < 1e-12
    plt.close(fig)
    fig = plot_vs(_fake_frame(scale_b=1000.0), metric="MRE")
    assert fig.axes[0].get_yscale() == "log"; plt.close(fig)
    fig = plot_vs(df, metric="MRE", logy=True, panel=None, where={"dataset": "A"})
    with pytest.raises(ValueError, match="column .dataset. varies"): plot_vs(df, metric="MRE", panel=None)
    assert len(fig.axes) == 1 and fig.axes[0].get_yscale() == "log"; plt.close(fig)
    fig, axs = plt.subplots(1, 2)
    assert plot_vs(df, metric="MRE", ax=axs) is fig; plt.close(fig)


def test_plot_vs_bad_input():
    df = pd.concat([_fake_frame(), _fake_frame().assign(w=20)])
    with pytest.raises(ValueError, match="'w' varies"): plot_vs(df, metric="MRE")
    with pytest.raises(ValueError, match="metrics present"): plot_vs(df, metric="MAE")
    with pytest.raises(ValueError, match="x='delta'"): plot_vs(df, x="delta", metric="MRE")
    import matplotlib.pyplot as plt
    fig = plot_vs(df, metric="MRE", where={"w": 20}); plt.close(fig)
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="ax has 1 axes"): plot_vs(df, metric="MRE", where={"w": 20}, ax=ax)
    plt.close("all")


def test_claims_table():
    t = claims_table([("c", "p", "m", "±1", "reproduced", "y"),
                      {"claim": "c2", "paper says": "p2", "measured": "m2", "tolerance": "", "verdict": "refuted", "why": "y2"},
                      {"claim": "c3", "paper_says": "p3", "measured": "m3", "tolerance": "", "verdict": "inconclusive", "why": "y3"}])
    assert list(t.columns) == CLAIM_COLS == ["claim", "paper says", "measured", "tolerance", "verdict", "why"]
    assert t["paper says"].tolist() == ["p", "p2", "p3"]
    assert claim_counts(t) == {"reproduced": 1, "differs": 0, "refuted": 1, "inconclusive": 1}
    assert list(claim_counts(t)) == list(VERDICTS) == ["reproduced", "differs", "refuted", "inconclusive"]
    with pytest.raises(ValueError, match="verdict 'not reproduced'"): claims_table([("c", "p", "m", "t", "not reproduced", "y")])
    with pytest.raises(ValueError, match=r"rows\[0\]"): claims_table([("a", "b")])
    with pytest.raises(ValueError, match="verdict 'confirmed'"): claims_table([("c", "p", "m", "t", "confirmed", "y")])
    with pytest.raises(ValueError, match=r"rows\[1\] is missing \['why'\]"):
        claims_table([("a", "b", "c", "d", "refuted", "f"), {"claim": 1, "paper says": 2, "measured": 3, "tolerance": 0, "verdict": 4}])


def test_t_factor_matches_the_normal_tail():
    from scipy import stats
    for n in (2, 3, 5, 20, 200):
        q = t_factor(3.0, n)
        assert abs(stats.t.sf(q, n - 1) - stats.norm.sf(3.0)) < 1e-12
    assert t_factor(3.0, 1) == 0.0 and t_factor(3.0, 3) > 19


def test_claim_number_tolerance_has_power():
    rng = np.random.default_rng(1)
    x = rng.normal(5.0, 0.5, 10)
    tol = t_factor(3.0, 10) * x.std(ddof=1) * np.sqrt(1 + 1 / 10)
    assert claim_number("c", x.mean() + 0.99 * tol, x)["verdict"] == "reproduced"
    assert claim_number("c", x.mean() - 1.01 * tol, x)["verdict"] == "differs"
    # an exact (theory) value: only our own standard error counts
    tol_exact = t_factor(3.0, 10) * x.std(ddof=1) / np.sqrt(10)
    assert claim_number("c", x.mean() + 1.01 * tol_exact, x, paper_runs=None)["verdict"] == "differs"
    # the paper's printed digits set the floor of the tolerance
    assert claim_number("c", 21.72, [21.724], digits=2)["verdict"] == "reproduced"
    assert claim_number("c", 21.72, [21.726], digits=2)["verdict"] == "differs"
    for bad, msg in [(([np.nan],), "NaN"), (([],), "at least 1")]:
        with pytest.raises(ValueError, match=msg): claim_number("c", 1.0, *bad)
    with pytest.raises(ValueError, match="paper_runs"): claim_number("c", 1.0, [1.0, 2.0], paper_runs=0)


def test_claim_number_is_inconclusive_when_its_tolerance_cannot_exclude_a_meaningful_gap():
    "The issue's vacuous rows: a paper's 32 'within ±438' is inconclusive, not reproduced; the power note is honest both ways."
    x = np.random.default_rng(3).normal(31.4, 1.0, 3)
    wide = claim_number("c", 32.0, np.r_[x, 31.4 + 180.0])                  # one wild seed: tol in the hundreds
    assert wide["verdict"] == "inconclusive" and "power:" in wide["why"]
    narrow = claim_number("c", 32.0, np.random.default_rng(4).normal(31.4, 1.0, 20), paper_runs=10)
    assert narrow["verdict"] == "reproduced" and narrow["reps_needed"] is None
    few = claim_number("c", 32.0, x, paper_runs=10)                         # t = 19.2 with 3 seeds
    assert few["verdict"] == "inconclusive" and 3 < few["reps_needed"] < REPS_REACH
    more = np.random.default_rng(5).normal(31.4, x.std(ddof=1), int(few["reps_needed"]) + 2)
    assert claim_number("c", 32.0, more, paper_runs=10)["verdict"] == "reproduced"
    noisy = claim_number("c", 1.0, np.random.default_rng(6).normal(1.0, 0.2, 100))   # one paper run with 20% spread
    assert noisy["verdict"] == "inconclusive" and noisy["reps_needed"] == math.inf and "cannot decide" in noisy["why"]
    with pytest.raises(ValueError, match="margin="): claim_number("c", 0.0, [0.1, 0.2])
    with pytest.raises(ValueError, match="margin"): claim_number("c", 1.0, [0.1, 0.2], margin=-1)
    assert claim_number("c", 0.0, [0.01, -0.01, 0.0], margin=0.5, paper_runs=None)["verdict"] == "reproduced"


def test_claim_sign_and_cells():
    rng = np.random.default_rng(2)
    eff = rng.normal(0.3, 1.0, 300)
    assert claim_sign("a", "", eff)["verdict"] == "reproduced"
    assert claim_sign("a", "", -eff)["verdict"] == "refuted"
    five = claim_sign("a", "", eff[:5])
    assert five["verdict"] == "inconclusive" and 5 < five["reps_needed"] and "power:" in five["why"]
    with pytest.raises(ValueError, match="at least 2"): claim_sign("a", "", [1.0])
    cells = {"x": eff, "y": eff, "z": -eff}
    assert claim_cells("c", "", cells, "every")["verdict"] == "refuted"
    assert claim_cells("c", "", cells, "most")["verdict"] == "reproduced"
    assert claim_cells("c", "", {"x": -eff, "y": -eff}, "some")["verdict"] == "refuted"
    assert claim_cells("c", "", {"x": -eff, "y": eff[:5]}, "some")["verdict"] == "inconclusive"
    # one chance crossing among many cells does not refute an every-claim: it must pass the Bonferroni z
    z1, z20 = t_factor(3.0, 300), t_factor(bonferroni_z(3.0, 20), 300)
    lean = eff - eff.mean() - 0.5 * (z1 + z20) * eff.std(ddof=1) / np.sqrt(300)   # between -z and -z_20 standard errors
    flat = {i: eff + 10 for i in range(19)} | {"lean": lean}
    row = claim_cells("c", "", flat, "every")
    assert row["verdict"] == "inconclusive" and "lean" in row["why"], row
    assert claim_cells("c", "", {"lean": lean}, "every")["verdict"] == "refuted"      # alone, the same cell refutes
    assert 3.8 < bonferroni_z(3.0, 20) < 3.85               # one-sided tail 0.00135 / 20
    with pytest.raises(ValueError, match="quantifier"): claim_cells("c", "", cells, "all")
    with pytest.raises(ValueError, match="empty"): claim_cells("c", "", {}, "every")


def test_write_and_read_claims(tmp_path):
    t = claims_table([claim_number("n", 1.0, [1.0, 1.1, 0.9]), claim_sign("s|pipe", "x", [1.0, 1.1, 1.2, 0.9, 1.0])])
    md = write_claims(t, tmp_path / "sub" / "c", "Claims: test", "make x", "0..2", "quick", date="2026-01-02")
    text = md.read_text()
    assert "- date: 2026-01-02" in text and "s\\|pipe" in text and "verdicts: reproduced 1, differs 0, refuted 0, inconclusive 1" in text   # 3 seeds cannot pin 1.0 to ±25%
    back = read_claims(tmp_path / "sub" / "c")
    assert back["claim"].tolist() == ["n", "s|pipe"] and claim_counts(back) == claim_counts(t)


def test_explorer_headless():
    s = _streams()["walk"]
    ex = explorer([ToyUniform, ToyOverspend], s, eps=1.0, w=10)
    import ipywidgets
    assert isinstance(ex, ipywidgets.VBox)
    r0 = ex.last_release
    assert r0.params == {"eps": 1.0, "w": 10} and "passes" in ex.status.value
    ex.eps_slider.value = 2.0
    assert ex.last_release is not r0 and ex.last_release.params["eps"] == 2.0
    ex.w_slider.value = 4
    assert ex.last_release.params["w"] == 4
    np.testing.assert_allclose(ex.last_release.ledger.window_use(), np.r_[np.arange(1, 4) / 4, np.ones(57)])
    ex.method.value = "ToyOverspend"
    assert type(ex.last_release).__name__ == "Release" and ex.last_release.mechanism == "ToyOverspend"
    assert "fails" in ex.status.value and not ex.last_release.ledger.ok()
    ex.bin_slider.value = 3
    np.testing.assert_array_equal(ex.fig.axes[0].lines[0].get_ydata(), s.counts[:, 3])   # truth of the chosen bin
    # same seed, same release
    a = ex.last_release.estimates.copy(); ex.method.value = "ToyUniform"; ex.method.value = "ToyOverspend"
    np.testing.assert_array_equal(ex.last_release.estimates, a)
    with pytest.raises(ValueError, match="mechanisms=\\[\\]"): explorer([], s)


def test_progress_bar(capsys):
    g = _grid(mechanisms={"U": (ToyUniform, {})}, params={"eps": [1.0], "w": [5]}, reps=3)
    df = run_grid(g, executor="serial", progress=True)
    assert len(df) == 12 and "cells: " in capsys.readouterr().err
    run_grid(g, executor="serial", progress=False)
    assert "cells" not in capsys.readouterr().err


def test_integer_executor_owns_and_shuts_down_its_pool():
    "A number of workers makes a pool for this call only: no worker outlives run_grid (a forked exit would wait on it)."
    import multiprocessing as mp
    g = _grid(mechanisms={"U": (ToyUniform, {})})
    before = {p.pid for p in mp.active_children()}
    df = run_grid(g, executor=2, progress=False)
    assert len(df) and {p.pid for p in mp.active_children()} <= before
    np.testing.assert_allclose(df.value.values, _run(g, executor="serial").value.values)
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="number of workers"): run_grid(g, executor=bad, progress=False)


def test_show_claims_renders_whole_marked_left_aligned():
    from wevent_nb.experiments import show_claims
    long_why = "w" * 700
    t = claims_table([("c1", "p", "m", "t", "reproduced", long_why), ("c2 <b>", "p", "m", "t", "refuted", "y"),
                      ("c3", "p", "m", "t", "inconclusive", "z"), ("c4", "p", "m", "t", "differs", "q")])
    page = show_claims(t)._repr_html_()
    assert long_why in page and "c2 &lt;b&gt;" in page and "<b>" not in page.replace("<b>✓", "").split("</p>", 1)[1]
    assert page.count("text-align:left") >= 18 and "✓ reproduced" in page and "✗ refuted" in page and "? inconclusive" in page and "≠ differs" in page
    assert repr(show_claims(t)).splitlines()[0] == "✓ 1 reproduced, ≠ 1 differs, ✗ 1 refuted, ? 1 inconclusive"
    smoke = show_claims(t, smoke=True)
    assert "smoke run" in repr(smoke).lower() and not any(v in smoke._repr_html_() for v in VERDICTS) and long_why not in smoke._repr_html_()
    with pytest.raises(ValueError, match="verdict"): show_claims([("a", "b", "c", "d", "ok", "f")])


def test_explorer_has_a_static_rendering():
    s = _streams()["walk"]
    b = explorer([ToyUniform], s, eps=1.0, w=10)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in b
    assert "data:image/png;base64," in b["text/html"] and "Interactive in Jupyter" in b["text/html"]
    assert b["text/plain"] == "Explorer(ToyUniform): interactive in Jupyter"


# ---------------------------------------------------------------- issue 24: the explorer's and run_grid's rough edges
PAPERS_EPS = sorted({0.5, 1.0, 1.5, 2.0, 2.5, 3.0,                 # LDP-IDS, CAPP (paper scale)
                     0.1, 0.3, 0.5, 0.7, 0.9,                      # SPAS
                     0.2, 0.4, 0.6, 0.8, 1.0,                      # PBD/PBA
                     *(round(0.1 * k, 1) for k in range(1, 11))})  # delay


def _descendants(w):
    yield w
    for c in getattr(w, "children", ()): yield from _descendants(c)


def test_explorer_eps_takes_every_value_of_the_papers_grids_exactly():
    ex = explorer([ToyUniform], _streams()["walk"], eps=1.0, w=10)
    # a browser's slider can only land on its options: each paper value must be one, labelled as typed
    assert set(PAPERS_EPS) <= {v for _, v in ex.eps_slider.options}
    for v in (0.5, 2, 3, *PAPERS_EPS):
        ex.eps_slider.value = v
        assert ex.eps_slider.value == v and ex.last_release.params["eps"] == v   # exactly the typed value, no snapping
        assert ex.eps_slider.label == repr(float(v)).removesuffix(".0")         # and shown as typed
    ex.eps_slider.value = 3
    assert ex.eps_slider.label == "3" and ex.last_release.params["eps"] == 3.0
    # a grid's own values (e.g. those present in a results frame), with the starting eps among them
    g = explorer([ToyUniform], _streams()["walk"], eps=0.37, w=10, eps_values=[4, 0.5, 2.0, 1.0, 2.0])
    assert g.eps_slider.value == 0.37 and g.last_release.params["eps"] == 0.37
    ex_vals = [v for _, v in g.eps_slider.options]
    assert ex_vals == [0.37, 0.5, 1.0, 2.0, 4.0] and [l for l, _ in g.eps_slider.options] == ["0.37", "0.5", "1", "2", "4"]
    for bad in ([], [0.5, -1.0], [float("nan")], ["a"]):
        with pytest.raises(ValueError, match="eps_values"): explorer([ToyUniform], _streams()["walk"], eps_values=bad)


@pytest.mark.parametrize("kind", ["histogram d=1", "numeric (CAPP)"])
def test_explorer_on_a_one_bin_stream_has_no_bin_control(kind):
    from wevent_nb.core import NumericPopulation
    if kind == "histogram d=1": ex = explorer([ToyUniform], HistogramStream(np.full((40, 1), 30.0)), eps=1.0, w=5)
    else: ex = explorer(["CAPP"], NumericPopulation(np.random.default_rng(0).uniform(0, 1, (20, 40)), name="u"), eps=1.0, w=5)
    assert ex.bin_slider is None and "passes" in ex.status.value
    assert not [w for w in _descendants(ex) if "bin" in str(getattr(w, "description", "")).lower()]
    assert "bin" not in ex.fig.axes[0].get_ylabel()
    assert "bin" not in ex.static_html().split("</p>")[-2]           # the note names only the controls shown
    ex.eps_slider.value = 2.0; assert ex.last_release.params["eps"] == 2.0 and "bin" not in ex.fig.axes[0].get_ylabel()
    many = explorer([ToyUniform], _streams()["walk"], eps=1.0, w=10)   # d = 4: the bin control is there
    assert many.bin_slider in list(_descendants(many)) and many.fig.axes[0].get_ylabel() == "bin 0"


def test_the_experiments_notebook_displays_its_explorer():
    "The cell that makes the demonstration explorer ends with it (a displayed value); its checks are in the next cell."
    import ast, json
    cells = [c for c in json.loads((ROOT / "nbs" / "20_experiments.ipynb").read_text())["cells"] if c["cell_type"] == "code"]
    src = ["".join(c["source"]) for c in cells]
    i = next(i for i, s in enumerate(src) if "explorer(" in s and not s.startswith("#| export"))
    body = ast.parse(src[i]).body
    assert isinstance(body[-1], ast.Expr) and isinstance(body[-1].value, ast.Name), src[i]
    assert not any(isinstance(s, ast.Assert) for s in body) and "assert" in src[i + 1]


GRID_SCRIPT = '''
import numpy as np
from wevent_nb.core import HistogramStream, ToyUniform
from wevent_nb.experiments import Grid, run_grid

def main():
    g = Grid({"s": HistogramStream(np.ones((20, 2)))}, {"u": (ToyUniform, {"w": 3})}, {"eps": [0.5, 1.0, 2.0]}, reps=2, metrics=["MAE"])
    print("rows", len(run_grid(g, executor=2, progress=False)))

'''


@pytest.mark.parametrize("guarded", [False, True])
def test_run_grid_from_a_script_without_main_guard_fails_early_and_clearly(tmp_path, guarded):
    script = tmp_path / "grid_script.py"
    script.write_text(GRID_SCRIPT + ('if __name__ == "__main__":\n    main()\n' if guarded else "main()\n"))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert "BrokenProcessPool" not in p.stderr and "Traceback" not in p.stderr.split("UnguardedScript", 1)[-1]
    if guarded:
        assert p.returncode == 0 and p.stdout.strip() == "rows 6", p.stderr
        return
    assert p.returncode == 1 and "rows" not in p.stdout
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("wevent_nb.experiments.UnguardedScript: ") and p.stderr.count("UnguardedScript:") == 1
    assert f"{script} (line {len(GRID_SCRIPT.splitlines()) + 1})" in last    # where: the unguarded main() call
    assert 'if __name__ == "__main__":' in last and 'executor="serial"' in last    # the two fixes


def test_main_guard_forms():
    import ast
    from wevent_nb.experiments import _is_main_guard
    guard = lambda s: _is_main_guard(ast.parse(s).body[0].test)
    assert all(map(guard, ['if __name__ == "__main__": pass', "if '__main__' == __name__: pass", 'if __name__ == "__main__" and x: pass']))
    assert not any(map(guard, ['if __name__ != "__main__": pass', 'if __name__ == "__mp_main__": pass', "if x: pass", "if __name__: pass"]))


def test_two_grids_scoring_one_run_differently_share_a_store(tmp_path):
    "LDP-IDS's Figs. 5 and 7 share eps = 1, w = 50 runs scored by MRE and by AUC: with one store, each grid gets its own metric."
    store = tmp_path / "s.sqlite"
    a = _run(_grid(metrics=[("MAE", mae)]), store=store, executor="serial")
    b = _run(_grid(metrics=[("MAX", maxerr)]), store=store, executor="serial")
    assert set(a.metric) == {"MAE"} and set(b.metric) == {"MAX"} and len(a) == len(b) == len(_grid())
    assert b.attrs["computed"] == len(_grid())                              # not the other grid's records
    both = _run(_grid(), executor="serial")                                 # the same runs scored by both, without a store
    for df, m in ((a, "MAE"), (b, "MAX")):
        np.testing.assert_array_equal(df.value.to_numpy(), both[both.metric == m].value.to_numpy())
    assert _run(_grid(metrics=[("MAX", maxerr)]), store=store, executor="serial").attrs["computed"] == 0


def test_committed_claims_shows_counts_provenance_link_and_table(tmp_path, monkeypatch):
    import html
    from wevent_nb.experiments import VERDICTS, committed_claims
    rows = [(f"claim {i}", "1", "1.0", "±0.1", v, "because") for i, v in enumerate(VERDICTS)] + [("extra", "2", "2", "±0", VERDICTS[0], "y")]
    md = write_claims(claims_table(rows), tmp_path / "claims" / "005_demo", "Claims: demo", "make demo", "reps 0..2", "paper", date="2026-01-02")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "nbs").mkdir(); monkeypatch.chdir(tmp_path / "nbs")          # as Jupyter, papermill and nbdev run a notebook
    c = committed_claims("005")
    assert c.path == md and c.name == "claims/005_demo.md" and c.href == "../claims/005_demo.md"
    want = ", ".join(f"{2 if v == VERDICTS[0] else 1} {v}" for v in VERDICTS)     # every verdict, in the order of VERDICTS
    assert c.counts_line() == want and list(c.counts) == list(VERDICTS)
    page, text = c._repr_html_(), repr(c)
    assert page.index(want) < page.index("<li><b>command</b>: <code>make demo</code>") < page.index("<details>")
    assert '<a href="../claims/005_demo.md">claims/005_demo.md</a>' in page and all(html.escape(r[0]) in page for r in rows)
    assert text.splitlines()[:5] == [f"Paper-scale claims, committed (claims/005_demo.md): {want}", "  command: make demo",
                                     "  scale: paper", "  seeds: reps 0..2", "  date: 2026-01-02"]
    for same in (5, "5", "005_demo", "../claims/005_demo.md", md.with_suffix(".csv")): assert committed_claims(same).path == md
    missing = committed_claims("006")
    assert missing.path is None and repr(missing).startswith("No committed claims table for paper 006") and "006_*.md" in missing._repr_html_()
    md.with_suffix(".csv").write_text("claim,verdict\nx,maybe\n")                     # another format (e.g. older verdicts)
    bad = committed_claims("005")
    assert bad.table is None and "cannot be read" in repr(bad) and "cannot be read" in bad._repr_html_() and "make demo" in repr(bad)
    for wrong, err in ((2.5, TypeError), (True, TypeError), (-1, ValueError), (1000, ValueError)):
        with pytest.raises(err, match="is not allowed"): committed_claims(wrong)
    (tmp_path / "claims" / "005_old.md").write_text("# old\n")
    with pytest.raises(ValueError, match="matches 2 committed tables"): committed_claims("005")
    monkeypatch.chdir(tmp_path.parent)                                              # no claims/ here: the package's checkout
    assert committed_claims("002").name.startswith("claims/002_")


def test_two_streams_of_one_name_do_not_share_records(tmp_path):
    "LDP-IDS's Fig. 6 gives the name LNS to streams of different N: a store keyed by the name returned the first one's records."
    store, s = tmp_path / "s.sqlite", _streams()
    g1 = _grid(streams={"walk": s["walk"]}); g2 = _grid(streams={"walk": s["flat"]})
    a, b = _run(g1, store=store, executor="serial"), _run(g2, store=store, executor="serial")
    assert b.attrs["computed"] == len(g2)                                   # not g1's records under the same name
    np.testing.assert_array_equal(b.value.to_numpy(), _run(g2, executor="serial").value.to_numpy())
    assert not np.array_equal(a.value.to_numpy(), b.value.to_numpy())
    assert _run(g1, store=store, executor="serial").attrs["computed"] == 0  # each still finds its own
    assert stream_signature(s["walk"]) == stream_signature(_streams()["walk"]) != stream_signature(s["flat"])


def test_an_exact_paper_value_measured_on_few_seeds_is_inconclusive_with_a_finite_power_note():
    "paper_runs=None (a formula value) at a smoke run's 2 seeds: SPAS's quick report divided by zero writing the power note."
    r = claim_number("c", 1.0, [0.9, 0.5], paper_runs=None)
    assert r["verdict"] == "inconclusive" and 2 < r["reps_needed"] < REPS_REACH and "would decide it" in r["why"]
    wide = claim_number("c", 1.0, [0.0, 2.0], paper_runs=None, margin=1e-6)       # needs more than REPS_REACH
    assert wide["reps_needed"] == math.inf and f"more than {REPS_REACH} repetitions" in wide["why"]


def test_store_opens_while_another_connection_creates_it(tmp_path):
    "SQLite refuses the switch to WAL at once (no busy wait) while another connection writes the new file: the store retries."
    import sqlite3, threading
    path = tmp_path / "new.sqlite"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE"); other.execute("CREATE TABLE t(x)")          # a rollback-journal write in progress
    threading.Timer(0.3, lambda: other.execute("COMMIT")).start()
    store = ResultStore(path)                                                       # the former code: "database is locked" at once
    assert store.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close(); other.close()


def test_run_grid_from_a_script_on_standard_input_fails_early_and_clearly(tmp_path):
    "`python -` (a script piped in): the workers cannot re-read it, guard or not; the former code: one BrokenProcessPool warning per cell."
    p = subprocess.run([sys.executable, "-"], input=GRID_SCRIPT + 'if __name__ == "__main__":\n    main()\n', capture_output=True, text=True,
                       timeout=180, cwd=tmp_path, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert p.returncode == 1 and "rows" not in p.stdout and "BrokenProcessPool" not in p.stderr, p.stderr[-2000:]
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("wevent_nb.experiments.UnguardedScript: ") and "<stdin>" in last and 'executor="serial"' in last


def test_a_store_serves_a_grid_that_sweeps_what_another_fixed(tmp_path):
    "The delay paper's Fig. 6 sweeps BucOrder's m where Figs. 2-3 fix it: one key, one seed; the frame must carry this grid's m column."
    store = tmp_path / "s.sqlite"
    fixed = _grid(mechanisms={"U": (ToyUniform, {"w": 5})}, params={"eps": [0.5, 1.0]})
    swept = _grid(mechanisms={"U": (ToyUniform, {})}, params={"eps": [0.5, 1.0], "w": [5]})
    _run(fixed, store=store, executor="serial")
    served = _run(swept, store=store, executor="serial")
    assert served.attrs["computed"] == 0 and (served["w"] == 5).all()               # the former code: w missing (None) in every row
    pd.testing.assert_frame_equal(served.drop(columns="seconds"), _run(swept, executor="serial").drop(columns="seconds"), check_like=True)
