"""Issue 36, part 5: the `w` parameter's doc (BASELINE_PARAMS in 04_baselines, imported by 08_rescuedp's RESCUE_PARAMS)
said a run raises when w > T; every mechanism accepts a stream shorter than a window (tests/test_private_by_default.py)."""
import json
from pathlib import Path

import numpy as np

from wevent_nb.baselines import BASELINE_PARAMS, BD
from wevent_nb.core import HistogramStream
from wevent_nb.rescuedp import RESCUE_PARAMS, RescueDP

NBS = Path(__file__).resolve().parent.parent / "nbs"


def test_the_w_doc_says_what_a_run_does():
    text = BASELINE_PARAMS["w"][1]
    assert "raises" not in text and "w > T" in text and "accepted" in text
    assert RESCUE_PARAMS["w"] is BASELINE_PARAMS["w"]                   # one copy of the text
    s = HistogramStream(np.full((3, 2), 5.0))
    for m in (BD(1.0, 10), RescueDP(1.0, 10)):
        assert m.run(s, rng=0).T == 3                                    # w = 10 > T = 3: accepted, as the doc says
        assert "A stream shorter than one window" in m.__init__.__doc__


def test_no_notebook_says_a_run_raises_when_w_exceeds_t():
    for name in ("04_baselines.ipynb", "08_rescuedp.ipynb"):
        assert "raises ValueError when w > T" not in (NBS / name).read_text(), name
        assert "raises a `ValueError` when $w>T$" not in (NBS / name).read_text(), name
