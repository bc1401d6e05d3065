"""The cross-paper benchmark at the papers' scale, measured and written to claims/benchmark_paper.md: every grid of
`benchmark.benchmark_grids("paper")` run into a result store (resumed if it holds cells already), then the best three per
data set (`rankings`), how often each method is beaten by releasing nothing (`beaten_by_nothing`, under each family's error
and, for the central family, under MAE too). The README quotes it.
Run: WEVENT_NB_DATA=... .venv/bin/python tools/benchmark_table.py [--store PATH] [--workers N] [--out PATH] (about 10 minutes on 2 cores)."""
import argparse, datetime, time
from pathlib import Path
from wevent_nb import benchmark as B

def md(df, floats: str | None = None) -> str:
    "A DataFrame as a Markdown table (shares as percentages, other floats by the format `floats` if given)."
    cols = list(df.columns)
    fmt = lambda c, v: f"{v:.0%}" if c == "share_worse" else (floats.format(v) if floats and isinstance(v, float) else str(v))
    return "\n".join(["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)] +
                     ["| " + " | ".join(fmt(c, r[c]) for c in cols) + " |" for _, r in df.iterrows()])

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default="reports/benchmark_paper.sqlite", help="the result store (resumed; default: reports/benchmark_paper.sqlite)")
    ap.add_argument("--workers", type=int, default=2, help="local processes (default: 2)")
    ap.add_argument("--out", default="claims/benchmark_paper.md", help="the Markdown file written (default: claims/benchmark_paper.md)")
    a = ap.parse_args()
    Path(a.store).parent.mkdir(parents=True, exist_ok=True)
    grids, missing = B.benchmark_grids("paper")
    t0 = time.perf_counter()
    df, failed = B.run_benchmark(grids, a.store, a.workers, progress=False)
    wall = time.perf_counter() - t0
    ranks = B.rankings(df)
    best = ranks[ranks["place"] <= 3].groupby(["family", "dataset"], sort=True)["mechanism"].agg(" > ".join).reset_index(name="best three (geometric-mean error)")
    beaten = B.beaten_by_nothing(df)
    beaten_mae = B.beaten_by_nothing(df, {"central": "MAE"}).query("family == 'central'")
    n_mech = df.groupby("family")["mechanism"].nunique().to_dict()
    lines = [
        "# Cross-paper benchmark at the papers' scale: measured", "",
        f"- Command: `WEVENT_NB_DATA=... .venv/bin/python tools/benchmark_table.py --store {a.store} --workers {a.workers}`",
        f"- Date: {datetime.date.today().isoformat()}; machine: 2 cores, {a.workers} local processes",
        f"- Scale: `benchmark.SCALES[\"paper\"]`: {df.attrs['cells']:,} cells, {B.SCALES['paper']['reps']} seeds per cell (cell seed = "
        f"seed_from_key(data set, mechanism, parameters, repetition)); {df.attrs['computed']:,} computed in this run, the rest read from the store",
        f"- Wall time of this run: {wall:.0f} s; ledger checks: {'every one passed' if df['ledger_ok'].all() else 'SOME FAILED'}; "
        f"cells that raised: {len(failed)}" + (f"; data sets not found: {', '.join(missing)}" if missing else ""),
        f"- Methods per family (with the zero-budget release): {', '.join(f'{k} {v}' for k, v in sorted(n_mech.items()))}; "
        "a configuration that no derivation covers (`allow_unproven`) is never ranked", "",
        "Errors: central the SPAS authors' count-MRE, local-categorical MSE of frequencies, local-numeric MSE of the mean, event MAE.",
        "\"worse\" = mean error over seeds above the family's zero-budget release; \"surely_worse\" = beyond its 95% interval (Student's t over the seeds).", "",
        "## Best three per data set", "", md(best), "",
        "## How often each method is beaten by releasing nothing", "", md(beaten), "",
        "## Central family scored by MAE instead (count-MRE scores a zero count by |r|, which favours releasing 0)", "", md(beaten_mae), ""]
    Path(a.out).write_text("\n".join(lines))
    print(f"{a.out}: {df.attrs['cells']:,} cells, {wall:.0f} s")

if __name__ == "__main__":
    main()
