"""Every registered mechanism: its black-box audit bound (eps=1, w=3, 2000 runs per side) and the white-box ledger-vs-noise
result, as a Markdown table. Run: .venv/bin/python tools/trust_table.py (about 2 minutes on 2 cores)."""
import numpy as np, time
from wevent_nb.core import list_mechanisms, check_noise_ledger, HistogramStream, NoiseNotBooked
from wevent_nb.audit import audit, neighbour_pairs
steps = HistogramStream(np.repeat([[0.0], [5.0], [0.0], [5.0]], 12, axis=0))
walk = HistogramStream(np.maximum(0, 50 + np.cumsum(np.random.default_rng(11).normal(0, 3, (48, 3)), axis=0)).round())
print("| mechanism | kind | audit bound (eps=1, w=3, 2000 runs/side) | ledger vs noise |")
print("|---|---|---|---|")
for i in list_mechanisms():
    t0 = time.time()
    r = audit(i.cls(eps=1.0, w=3), n_runs=2000, rng=0)
    if i.stream_kind == "histogram":
        try:
            for s in (steps, walk): check_noise_ledger(i.cls(eps=1.0, w=3), s, seed=7)
            nl = "covered (steps, walk)"
        except NoiseNotBooked as e: nl = f"NOT covered: {e}"
    else: nl = "per-user reports covered (tests/test_noise_ledger.py)"
    print(f"| {i.name} | {i.stream_kind} | {r.eps_lower_bound:.3f} ({'pass' if r.passed else 'FAIL'}) | {nl} |", flush=True)
