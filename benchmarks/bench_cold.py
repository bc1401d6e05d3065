"""The cold cost of the compiled steps: seconds to import, and to make the first run of each compiled mechanism, in a
fresh process, with numba's on-disk cache warm and with it empty (NUMBA_CACHE_DIR pointed at a new directory, so every
kernel compiles). Each row is the best of REPS fresh processes.

Run: .venv/bin/python benchmarks/bench_cold.py [method ...]
"""
import json, os, subprocess, sys, tempfile

METHODS = sys.argv[1:] or ["BD", "BA", "DSAT", "FAST", "PeGaSus", "AdaPub"]
REPS = 3
PROBE = r'''
import json, sys, time
t0 = time.perf_counter(); import wevent_nb; t1 = time.perf_counter()
import numpy as np
t2 = time.perf_counter(); from wevent_nb.core import HistogramStream, get_mechanism; import wevent_nb.baselines; t3 = time.perf_counter()
s = HistogramStream(np.random.default_rng(0).poisson(20, (50, int(sys.argv[2]))).astype(float))
m = get_mechanism(sys.argv[1], eps=1.0, w=10)
t4 = time.perf_counter(); m.run(s, rng=0); t5 = time.perf_counter(); m.run(s, rng=1); t6 = time.perf_counter()
print(json.dumps(dict(pkg=t1 - t0, baselines=t3 - t2, first=t5 - t4, second=t6 - t5)))
'''

def probe(method, d, cache_dir=None):
    env = dict(os.environ)
    if cache_dir: env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", PROBE, method, str(d)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def best(rows): return {k: min(r[k] for r in rows) for k in rows[0]}

print(f"{'method':8s} {'d':>2s} {'import wevent_nb':>16s} {'import baselines':>16s} {'1st run, cache':>15s} {'1st run, no cache':>17s} {'2nd run':>8s}")
for m in METHODS:
    for d in (1, 4):
        probe(m, d)                                                    # fill the cache
        warm = best([probe(m, d) for _ in range(REPS)])
        cold = best([probe(m, d, tempfile.mkdtemp(prefix="numba-cold-")) for _ in range(REPS)])
        print(f"{m:8s} {d:2d} {warm['pkg']:16.3f} {warm['baselines']:16.3f} {warm['first']:15.3f} {cold['first']:17.3f} {warm['second']:8.4f}", flush=True)
print("seconds, best of", REPS, "fresh processes; 'import baselines' imports numpy, numba and the compiled steps' module")
