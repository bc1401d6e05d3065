"""Anomaly detection on the release (issue 41, item 3): the injector's labels, PyOD's detectors on sliding windows, AUC-PR
against scikit-learn's, the grid metrics, and `wevent-nb bench --metric anomaly_auc` end to end by subprocess."""
import subprocess, sys
from pathlib import Path

import numpy as np
import pytest

from wevent_nb import anomaly as A
from wevent_nb.benchmark import ANOMALY_PRIMARY, SelectionError, benchmark_grids, rank_own, run_benchmark, with_anomalies
from wevent_nb.core import HistogramStream, ScalarStream
from wevent_nb.metrics import average_precision, roc_auc

EXE = Path(sys.executable).parent / "wevent-nb"
T = 600


def wave(T=T, seed=0):
    "A noisy periodic series: the kind of stream the detectors are made for."
    g = np.random.default_rng(seed)
    return 50 + 20 * np.sin(2 * np.pi * np.arange(T) / 60) + g.normal(0, 2, T)


def test_average_precision_is_scikit_learns():
    sk = pytest.importorskip("sklearn.metrics")
    g = np.random.default_rng(1)
    for _ in range(50):
        n = int(g.integers(5, 300))
        y = g.random(n) < g.uniform(0.05, 0.5)
        y[0], y[1] = True, False
        s = g.integers(0, 8, n).astype(float) if g.random() < 0.5 else g.normal(size=n)    # with many ties, or none
        assert average_precision(s, y) == pytest.approx(sk.average_precision_score(y, s), abs=1e-12)
        assert roc_auc(s, y) == pytest.approx(sk.roc_auc_score(y, s), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_the_injector_changes_exactly_what_it_labels(seed):
    x = wave(seed=seed)
    y, labels, an = A.inject(x, rng=seed)
    assert sorted(a.kind for a in an) == sorted(A.KINDS) and labels.sum() == 1 + 4 * A.ANOMALY_LENGTH
    assert np.array_equal(y[~labels], x[~labels])
    assert all((y[a.start:a.start + a.length] != x[a.start:a.start + a.length]).any() for a in an)
    starts = sorted((a.start, a.length) for a in an)
    assert all(s + l + A.ANOMALY_LENGTH <= s2 for (s, l), (s2, _) in zip(starts, starts[1:]))   # a window holds one at most


def test_a_scalar_stream_keeps_its_domain_and_a_histogram_its_shape():
    s = A.inject_stream(ScalarStream(np.clip(wave() / 100, 0, 1), 0.0, 1.0, "sc"), rng=3).stream
    assert 0 <= s.values.min() and s.values.max() <= 1 and s.name == "sc" + A.ANOMALY_SUFFIX
    c = np.rint(np.column_stack([wave(), 3 * wave(seed=1)]))
    ls = A.inject_stream(HistogramStream(c, name="h"), rng=4)
    n0, n1 = c.sum(1), ls.stream.counts.sum(1)
    assert np.array_equal(n0[~ls.labels], n1[~ls.labels]) and (ls.stream.counts >= 0).all()
    assert np.array_equal(ls.stream.counts, np.rint(ls.stream.counts))


@pytest.mark.parametrize("detector", A.DETECTORS)
def test_each_detector_finds_each_kind_on_a_clean_wave(detector):
    x = 50 + 20 * np.sin(2 * np.pi * np.arange(1200) / 60)
    for kind in ("extremum", "level shift", "trend", "variance"):
        y, labels, _ = A.inject(x, kinds=[kind], rng=5)
        assert A.detection_auc(y, None, labels, detector) > 0.8, kind


def test_a_constant_release_scores_chance_and_noise_less_than_the_truth():
    y, labels, _ = A.inject(wave(), rng=2)
    mets = dict(A.anomaly_metrics(labels))
    const = np.full(T, 50.0)
    assert mets["ANOMALY_LOSS"](const, y) == 0.5 and mets["AUC_PR_LOF"](const, y) == pytest.approx(labels.mean())
    g = np.random.default_rng(0)
    noisy = np.mean([mets["ANOMALY_LOSS"](y + g.laplace(0, 200, T), y) for _ in range(8)])
    assert mets["ANOMALY_LOSS"](y, y) < 0.2 < noisy       # found on the truth; lost in noise 10 sd wide (chance: 0.5)


def test_without_pyod_the_message_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyod.models.knn", None)
    with pytest.raises(ImportError, match=r"pip install 'wevent_nb\[anomaly\]'"):
        A.window_scores(wave(), "kNN")


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="too short"): A.inject(wave(T=100))
    with pytest.raises(ValueError, match="give one or more of"): A.inject(wave(), kinds=["spike"])
    with pytest.raises(ValueError, match="labels=None"): A.detection_auc(wave())
    with pytest.raises(ValueError, match="'ROC' or 'PR'"): A.detection_auc(wave(), labels=np.r_[True, np.zeros(T - 1, bool)], curve="F1")
    with pytest.raises(SelectionError, match="at least 500"): with_anomalies({"short": ScalarStream(np.zeros(300), 0.0, 1.0)})
    with pytest.raises(SelectionError, match="has none"): benchmark_grids(families=["local-categorical"], metric="anomaly_auc")
    with pytest.raises(ValueError, match="metric"): benchmark_grids(metric="f1")


def test_a_stream_of_your_own_is_ranked_by_detection_from_python():
    s = ScalarStream(np.clip(wave() / 100, 0, 1), 0.0, 1.0, "mine")
    grids, _ = benchmark_grids(streams={"mine": s}, eps=[1.0], w=[10], reps=2, metric="anomaly_auc")
    df, failed = run_benchmark(grids, executor="serial", progress=False)
    assert failed.empty and df["ledger_ok"].all() and set(df["dataset"]) == {"mine" + A.ANOMALY_SUFFIX}
    assert {"ANOMALY_LOSS", "AUC_ROC_kNN", "AUC_PR_LOF", "MAE"} <= set(df["metric"])
    text = str(rank_own(df, ANOMALY_PRIMARY))
    assert "place by geometric-mean ANOMALY_LOSS" in text and "Constant-mid" in text


def bench(tmp_path, *args):
    if not EXE.exists(): pytest.skip("console script not installed")
    r = subprocess.run([str(EXE), "bench", "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--quiet", *map(str, args)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def test_bench_ranks_your_stream_by_detection_with_its_report(tmp_path):
    (tmp_path / "mine.csv").write_text("\n".join(f"{v:.4f}" for v in np.clip(wave() / 100, 0, 1)) + "\n")
    code, out, err = bench(tmp_path, "--input", tmp_path / "mine.csv", "--lo", 0, "--hi", 1, "--eps", 1, "--w", 10, "--reps", 2,
                           "--metric", "anomaly_auc", "--report", tmp_path / "rep")
    assert code == 0, err
    assert "place by geometric-mean ANOMALY_LOSS" in out and "the detectors on the true streams" in out and "Spearman" in out
    assert "no guarantee here covers" in out
    assert "ANOMALY_LOSS" in (tmp_path / "rep" / "index.html").read_text()


@pytest.mark.parametrize("args, says", [
    (("--metric", "anomaly_auc", "--family", "local-numeric"), "has none"),
    (("--metric", "f1"), "invalid choice"),
])
def test_bench_refuses_what_the_task_cannot_take(tmp_path, args, says):
    code, _, err = bench(tmp_path, *args)
    assert code == 2 and says in err and "Traceback" not in err


def test_bench_refuses_a_stream_too_short_for_the_task(tmp_path):
    (tmp_path / "short.csv").write_text("0.5\n0.7\n" * 100)
    code, _, err = bench(tmp_path, "--input", tmp_path / "short.csv", "--lo", 0, "--hi", 1, "--metric", "anomaly_auc")
    assert code == 2 and "at least 500" in err and "Traceback" not in err
