"""Online sessions at scale: resident memory after 10^4 ... 10^7 steps (flat after the first windows), steps per second
in memory, and steps per second with the durable state written (one signed file, replaced and synced) before every release.

Mechanisms: Uniform and BD (central, d=8), and one of each other family at its usual size (see CASES). Each case runs in a
fresh process, so the RSS figures are its own. Input: a fixed block of 10^4 rows cycled (no input grows with t).
Run: .venv/bin/python benchmarks/bench_online.py [--steps 10000,100000,1000000,10000000] [--durable-steps 5000] [--w W]
     [--before DIR] [CASE ...]
(--w W: every case at window W instead of its own. A durable step appends a record of its own size (input, bookkeeping, a
digest of the release) to the state's last checkpoint, which grows with w for the central ones; "reopen" is the time to
resume the state at the end, replaying the records since its checkpoint.
--before DIR: also run each case on the package in DIR (a folder holding another version's `wevent_nb`, e.g. main's:
`git archive main wevent_nb | tar -x -C DIR`), alternating with this one so both see the same load, and print the durable
columns side by side, before -> after.)
"""
import argparse, json, os, subprocess, sys, tempfile, time
import numpy as np

CASES = {  # name -> (mechanism, parameters, start arguments, input generator: (rng, n) -> n rows)
    "Uniform": ("Uniform", dict(eps=1.0, w=20), dict(d=8), lambda g, n: g.integers(0, 100, (n, 8)).astype(float)),
    "BD": ("BD", dict(eps=1.0, w=20), dict(d=8), lambda g, n: g.integers(0, 100, (n, 8)).astype(float)),
    "SPAS": ("SPAS", dict(eps=1.0, w=20), dict(d=8), lambda g, n: g.integers(0, 100, (n, 8)).astype(float)),
    "LBD": ("LBD", dict(eps=1.0, w=20), dict(d=8, N=10_000), lambda g, n: g.multinomial(10_000, np.full(8, 1 / 8), n).astype(float)),
    "CAPP": ("CAPP", dict(eps=1.0, w=20), dict(N=1_000, lo=0.0, hi=1.0), lambda g, n: g.random((n, 1_000))),
    "PBD": ("PBD", dict(), dict(d=8, eps_i=np.repeat([0.5, 1.0], 500), w_i=np.repeat([10, 20], 500)),
            lambda g, n: g.integers(0, 8, (n, 1_000))),
    "Discontin_pp": ("Discontin_pp", dict(eps=1.0, w=20), dict(d=1, lo=0.0, hi=100.0), lambda g, n: g.random(n) * 100),
}
BLOCK = 10_000

def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
    return float("nan")

def one(case: str, steps: list[int], durable_steps: int, w: int | None = None) -> dict:
    from wevent_nb.core import get_mechanism
    from wevent_nb.online import Session
    mech, params, start, gen = CASES[case]
    if w is not None: params = dict(params, w=w)
    X = gen(np.random.default_rng(0), BLOCK)
    s = Session(get_mechanism(mech, **params), rng=1, **start)
    out, t, t0 = dict(case=case, rss_mib={}, steps_per_s=None), 0, time.perf_counter()
    for target in steps:
        while t < target:
            n = min(BLOCK, target - t)
            for x in X[:n]: s.step(x)
            t += n
        out["rss_mib"][t] = round(rss_mib(), 1)
        out["steps_per_s"] = round(t / (time.perf_counter() - t0))
    with tempfile.TemporaryDirectory() as tmp:
        d = Session(get_mechanism(mech, **params), rng=1, state=os.path.join(tmp, "s.state"), **start)
        t0 = time.perf_counter()
        for x in X[:durable_steps]: d.step(x)
        out["durable_steps_per_s"] = round(durable_steps / (time.perf_counter() - t0)); d.close()
        out["state_bytes"] = os.path.getsize(os.path.join(tmp, "s.state"))
        t0 = time.perf_counter(); Session.resume(os.path.join(tmp, "s.state")).close()
        out["reopen_s"] = time.perf_counter() - t0
    import wevent_nb
    out["package"] = os.path.dirname(wevent_nb.__file__)
    return out

def child(case: str, a, package: str | None = None) -> dict | str:
    "One case in a fresh process (on the package in folder `package` when given): its figures, or why it failed."
    env = os.environ | ({"PYTHONPATH": os.pathsep.join([package] + [p for p in [os.environ.get("PYTHONPATH")] if p])} if package else {})
    r = subprocess.run([sys.executable, __file__, "--one", case, "--steps", a.steps, "--durable-steps", str(a.durable_steps)]
                       + ([] if a.w is None else ["--w", str(a.w)]), capture_output=True, text=True, env=env)
    if r.returncode: return r.stderr.strip().splitlines()[-1] if r.stderr.strip() else str(r.returncode)
    return json.loads(r.stdout)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--steps", default="10000,100000,1000000,10000000", help="comma-separated step counts at which RSS is read")
    ap.add_argument("--durable-steps", type=int, default=5_000, help="steps of the durable-state run")
    ap.add_argument("--w", type=int, default=None, help="window length for every case (default: each case's own)")
    ap.add_argument("--before", help="a folder holding another version's wevent_nb package: its durable figures printed beside these")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    steps = [int(s) for s in a.steps.split(",")]
    if a.one: print(json.dumps(one(a.one, steps, a.durable_steps, a.w))); return
    durable = lambda o: f"{o['durable_steps_per_s']:>9,d} {o['state_bytes'] / 1024:>7.0f}Ki {o['reopen_s']:>7.2f}s"
    if a.before:
        before = os.path.abspath(a.before)
        if not os.path.isfile(os.path.join(before, "wevent_nb", "online.py")): sys.exit(f"--before {a.before!r}: no wevent_nb package in that folder")
        print(f"load average {os.getloadavg()[0]:.1f}; durable steps: {a.durable_steps}; before: {before}")
        print(f"{'case':12s} {'':6s} {'steps/s':>9s} {'durable/s':>9s} {'state':>9s} {'reopen':>8s}")
        for c in a.cases:
            if c not in CASES: sys.exit(f"unknown case {c!r}: cases are {', '.join(CASES)}")
            for label, pkg in (("before", before), ("after", None)):
                o = child(c, a, pkg)
                if isinstance(o, str): print(f"{c:12s} {label:6s} failed: {o}"); continue
                if (o["package"].startswith(before + os.sep)) != (pkg is not None): sys.exit(f"{label} ran the package in {o['package']}")
                print(f"{c:12s} {label:6s} {o['steps_per_s']:>9,d} " + durable(o), flush=True)
        print(f"load average {os.getloadavg()[0]:.1f}")
        return
    print(f"{'case':12s} " + " ".join(f"{'RSS@' + f'{s:.0e}':>10s}" for s in steps) + f" {'steps/s':>9s} {'durable/s':>9s} {'state':>9s} {'reopen':>8s}")
    for c in a.cases:
        if c not in CASES: sys.exit(f"unknown case {c!r}: cases are {', '.join(CASES)}")
        o = child(c, a)
        if isinstance(o, str): print(f"{c:12s} failed: {o}"); continue
        print(f"{c:12s} " + " ".join(f"{o['rss_mib'][str(s)]:>8.1f}Mi" for s in steps) + f" {o['steps_per_s']:>9,d} " + durable(o), flush=True)

if __name__ == "__main__": main()
