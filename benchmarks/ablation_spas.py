"""Where SPAS's error gap to the authors' code comes from: SPAS on State Flu and TDrive (eps = 1, w = 120, 5 seeds) with
the paper's options, with each departure of the authors' code alone, with all four, and with all four but one; MRE (Eq. 4,
the authors' count-MRE on these non-negative integer counts) and the share of the gap each configuration closes.

Data from WEVENT_NB_DATA (or ../shared/data beside the repository). Run: .venv/bin/python benchmarks/ablation_spas.py
"""
import os, time, warnings
from pathlib import Path
import pandas as pd
from wevent_nb import data
from wevent_nb.core import HistogramStream
from wevent_nb.spas import SPAS_DATASETS, departure_ablation

AUTHORS_MRE = {"Flu": 5.27, "Tdv": 1.18}   # the authors' code (commit 0030ce5) on this machine kind, 5 seeds (issue 11)
home = os.environ.get("WEVENT_NB_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "data")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    streams = {nm: HistogramStream(data.load(SPAS_DATASETS[nm], data_home=home).counts) for nm in AUTHORS_MRE}
t0 = time.perf_counter()
table = departure_ablation(streams, seeds=range(5))
with pd.option_context("display.width", 200, "display.max_colwidth", None):
    print(table.round(3).to_string())
mre = table["MRE"].unstack("configuration")
paper, emulated = mre["paper's SPAS"], mre["authors' code (all four)"]
for nm, s in streams.items():
    print(f"{nm} (T={s.T}, d={s.d}): the paper's SPAS {paper[nm]:.3f}, all four departures {emulated[nm]:.3f}, "
          f"the authors' code measured {AUTHORS_MRE[nm]}")
print(f"{time.perf_counter() - t0:.0f} s")
