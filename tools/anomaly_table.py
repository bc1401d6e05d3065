"""Anomaly detection on the release at the papers' scale, measured and written to claims/anomaly_paper.md: every grid of
`benchmark.benchmark_grids("paper", metric="anomaly_auc")` (the central and event families on their streams with injected
anomalies, 21_benchmark "Anomaly detection on the release") run into a result store (resumed if it holds cells already),
then the detectors on the true streams (the reference), the best three per stream by ANOMALY_LOSS (1 - the mean AUC-ROC of
PyOD's kNN and LOF on the release), each method's AUCs over every stream and grid point, how often releasing nothing
detects as well, and how the places by detection agree with the places by MAE (Spearman, per stream).
`wevent-nb bench --scale paper --metric anomaly_auc --store reports/anomaly_paper.sqlite` runs the same cells (same store keys).
Run: WEVENT_NB_DATA=... .venv/bin/python tools/anomaly_table.py [--store PATH] [--workers N] [--out PATH]."""
import argparse, datetime, time
from pathlib import Path
from functools import partial
from wevent_nb import benchmark as B
from benchmark_table import md as md_table      # tools/ is the script's folder, first on sys.path

md = partial(md_table, floats="{:.3f}")

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default="reports/anomaly_paper.sqlite", help="the result store (resumed; default: reports/anomaly_paper.sqlite)")
    ap.add_argument("--workers", type=int, default=2, help="local processes (default: 2)")
    ap.add_argument("--out", default="claims/anomaly_paper.md", help="the Markdown file written (default: claims/anomaly_paper.md)")
    a = ap.parse_args()
    Path(a.store).parent.mkdir(parents=True, exist_ok=True)
    grids, missing = B.benchmark_grids("paper", families=list(B.ANOMALY_FAMILIES), metric="anomaly_auc")
    print(f"{B.n_cells(grids):,} cells; not run: {missing or 'none'}", flush=True)
    t0 = time.perf_counter()
    df, failed = B.run_benchmark(grids, a.store, a.workers, progress=False)
    wall = time.perf_counter() - t0
    ref = B.anomaly_reference(grids).pivot(index=["family", "dataset"], columns="metric", values="value").reset_index()
    ref = ref[["family", "dataset", "AUC_ROC_kNN", "AUC_ROC_LOF", "AUC_PR_kNN", "AUC_PR_LOF"]]
    ranks = B.rankings(df, B.ANOMALY_PRIMARY)
    best = ranks[ranks["place"] <= 3].groupby(["family", "dataset"], sort=True)["mechanism"].agg(" > ".join).reset_index(name="best three (by ANOMALY_LOSS)")
    auc = (df[df["metric"].str.startswith("AUC_") & df["private"].astype(bool)].groupby(["family", "mechanism", "metric"])["value"].mean()
           .unstack("metric").reset_index()[["family", "mechanism", "AUC_ROC_kNN", "AUC_ROC_LOF", "AUC_PR_kNN", "AUC_PR_LOF"]]
           .sort_values(["family", "AUC_ROC_kNN"], ascending=[True, False]))
    beaten = B.beaten_by_nothing(df, B.ANOMALY_PRIMARY)
    agree = B.rank_agreement(df)
    med = agree.groupby("family")["spearman"].agg(["median", "min", "max", "size"]).reset_index()
    same = agree.assign(same=agree["best_a"] == agree["best_b"]).groupby("family")["same"].sum().to_dict()
    lines = [
        "# Anomaly detection on the release at the papers' scale: measured", "",
        f"- Command: `WEVENT_NB_DATA=... .venv/bin/python tools/anomaly_table.py --store {a.store} --workers {a.workers}` "
        f"(the same cells as `wevent-nb bench --scale paper --metric anomaly_auc --store {a.store}`)",
        f"- Date: {datetime.date.today().isoformat()}; machine: 2 cores, {a.workers} local processes",
        f"- Scale: the papers' grids of eps and w (`benchmark.SCALES[\"paper\"]`) on `benchmark.ANOMALY_SCALES[\"paper\"]`'s streams, each cut to "
        f"{B.ANOMALY_SCALES['paper']['length']:,} timestamps, with five anomalies (extremum, level shift, trend, variance, pattern; `anomaly.inject_stream`, "
        f"seed = seed_from_key(\"anomaly\", data set)); {df.attrs['cells']:,} cells, {B.SCALES['paper']['reps']} seeds per cell (cell seed = "
        f"seed_from_key(data set, mechanism, parameters, repetition)); {df.attrs['computed']:,} computed in this run, the rest read from the store",
        f"- Not run: {', '.join(missing) if missing else 'none'}",
        f"- Wall time of this run: {wall:.0f} s; ledger checks: {'every one passed' if df['ledger_ok'].all() else 'SOME FAILED'}; cells that raised: {len(failed)}",
        "- Detectors: PyOD's KNN (10 neighbours) and LOF (20) on sliding windows of 20 timestamps of the release's series (a histogram's total "
        "per timestamp), each timestamp the mean score of its windows; AUC-ROC and AUC-PR (average precision) against the labels. "
        "ANOMALY_LOSS = 1 - the mean AUC-ROC of the two; a constant release (the zero-budget one) scores 0.5.", "",
        "## The detectors on the true streams (the reference)", "", md(ref), "",
        "## Best three per stream, by ANOMALY_LOSS (geometric mean over the grid points)", "", md(best), "",
        "## Each method's AUCs, mean over streams, grid points and seeds", "", md(auc), "",
        "## How often releasing nothing detects as well", "",
        "\"worse\" = mean ANOMALY_LOSS over seeds above the zero-budget release's 0.5 (the detectors do worse than chance on the release); "
        "\"surely_worse\" = beyond its 95% interval.", "", md(beaten), "",
        "## Places by detection against places by MAE", "", md(agree), "",
        "Per family: " + "; ".join(f"{r.family}: median Spearman {r['median']:.2f} (from {r['min']:.2f} to {r['max']:.2f}) over {r['size']} streams, "
                                   f"the same best method on {same[r.family]} of them" for _, r in med.iterrows()) + ".", ""]
    Path(a.out).write_text("\n".join(lines))
    print(f"{a.out}: {df.attrs['cells']:,} cells, {wall:.0f} s")

if __name__ == "__main__":
    main()
