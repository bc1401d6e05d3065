"Tests of the Dask path of wevent_nb.experiments.run_grid and `wevent-nb reproduce --scheduler`, on a loopback LocalCluster."
import os
from pathlib import Path
import nbformat
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
from distributed import Client, LocalCluster

from wevent_nb.cli import main
from wevent_nb.experiments import SCHEDULER_ENV, _client_of, chunk_size, run_grid
from test_experiments import COLS, _grid, _run, check_failing_cells


@pytest.fixture(scope="module")
def cluster():
    "Two single-thread workers in this process, reachable over TCP on loopback (so a report kernel can connect too)."
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as c:
        yield c


@pytest.fixture
def client(cluster):
    with Client(cluster.scheduler_address) as c: yield c


def test_same_cells_on_the_cluster_as_serially(client):
    g = _grid()
    ref = _run(g, executor="serial")
    on_dask = _run(g, executor=client.get_executor())
    pd.testing.assert_frame_equal(on_dask[COLS], ref[COLS])
    assert _client_of(client.get_executor()) is client          # distributed's private attribute is still there


def _cells_run_on(client):
    "A task stream on the scheduler: `.data` lists every task it ran meanwhile, from any client."
    return distributed.get_task_stream(client)


def _n_cells(ts): return sum(t["key"].startswith("_dask_task") for t in ts.data)


def test_scheduler_variable_replaces_run_grids_own_pool(client, cluster, monkeypatch):
    g = _grid()
    ref = _run(g, executor="serial")
    monkeypatch.setenv(SCHEDULER_ENV, cluster.scheduler_address)
    for ex in (None, 2):
        with _cells_run_on(client) as ts: pd.testing.assert_frame_equal(_run(g, executor=ex)[COLS], ref[COLS])
        assert _n_cells(ts) == -(-len(g) // chunk_size(len(g), 2))     # every cell, in chunks
    with _cells_run_on(client) as ts: _run(g, executor="serial")
    assert _n_cells(ts) == 0                                     # "serial" is obeyed as given


def test_failing_cell_on_a_worker(client, tmp_path):
    check_failing_cells(client.get_executor(), tmp_path)


def test_reproduce_sends_the_notebook_grids_to_the_scheduler(client, cluster, tmp_path, capsys):
    src = tmp_path / "nbs"; src.mkdir()
    cells = [nbformat.v4.new_code_cell("scale = 'quick'"),
             nbformat.v4.new_code_cell("import os, numpy as np\n"
                                       "from wevent_nb.core import HistogramStream, ToyUniform\n"
                                       "from wevent_nb.experiments import Grid, run_grid\n"
                                       "g = Grid({'s': HistogramStream(np.full((30, 2), 9.0))}, {'U': (ToyUniform, {})}, {'eps': [1.0, 2.0], 'w': [5]}, reps=2)\n"
                                       "df = run_grid(g, executor=2, progress=False)\n"
                                       "print('scheduler', os.environ['WEVENT_NB_SCHEDULER'], 'values', df.value.round(9).tolist())")]
    cells[0].metadata["tags"] = ["parameters"]
    nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "python3", "language": "python"}}),
                   src / "20_grid.ipynb")
    with _cells_run_on(client) as ts:
        assert main(["reproduce", "--notebooks-dir", str(src), "--out", str(tmp_path / "out"), "--scheduler", cluster.scheduler_address]) == 0
    assert f"Dask scheduler {cluster.scheduler_address}: 2 worker(s)" in capsys.readouterr().out
    assert SCHEDULER_ENV not in os.environ                       # restored after the run
    out = "".join(o.get("text", "") for c in nbformat.read(tmp_path / "out" / "20_grid.ipynb", 4).cells for o in c.get("outputs", []))
    assert f"scheduler {cluster.scheduler_address}" in out
    assert _n_cells(ts) == 4                                     # the notebook's 4 cells ran on the cluster


def test_reproduce_refuses_a_bad_scheduler_address_before_any_report(tmp_path, capsys):
    out = tmp_path / "out"; out.mkdir()
    assert main(["reproduce", "--notebooks-dir", str(Path(__file__).resolve().parents[1] / "nbs"), "--out", str(out),
                 "--scheduler", "no-port-here"]) == 2
    assert "no-port-here" in capsys.readouterr().err and list(out.iterdir()) == []


def test_bench_on_the_cluster_gives_the_serial_cells(cluster, data_home, tmp_path, capsys):
    "`wevent-nb bench --scheduler` runs the benchmark's cells on the workers: the same values, cell by cell, as one local process."
    base = ["bench", "--family", "event", "--reps", "2", "--quiet", "--data-home", str(data_home)]
    assert main(base + ["--workers", "1", "--store", str(tmp_path / "a.sqlite"), "--csv", str(tmp_path / "a.csv")]) == 0
    assert main(base + ["--scheduler", cluster.scheduler_address, "--store", str(tmp_path / "b.sqlite"), "--csv", str(tmp_path / "b.csv")]) == 0
    assert "Dask scheduler" in capsys.readouterr().out
    cols = ["family", "dataset", "mechanism", "eps", "w", "rep", "seed", "metric", "value"]
    a, b = (pd.read_csv(tmp_path / f"{x}.csv")[cols] for x in "ab")
    assert len(a) == 960
    pd.testing.assert_frame_equal(a, b)
