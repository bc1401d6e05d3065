"""Running the Java w-event benchmark (Schäler, Hütter, Schäler, PVLDB 16(8) 2023; github.com/chryenix/streamdp-benchmark,
MIT) beside wevent_nb: what the side-by-side scripts share. Point STREAMDP_BENCH at a clone of that repository (its src/
and lib/); `driver()` compiles their sources with benchmarks/java/Driver.java once into a cache folder, and `stream_csv`
writes a data set's counts as the CSV the driver reads. Without java or the clone, `java_missing()` says why and the
scripts skip their Java column (they are benchmarks, not tests)."""
import os, shutil, subprocess, warnings
from pathlib import Path
import numpy as np

HERE = Path(__file__).resolve().parent
DRIVER_SRC = HERE / "java" / "Driver.java"
BENCH = Path(os.environ.get("STREAMDP_BENCH", HERE.parent.parent / "streamdp-benchmark"))   # default: a clone beside the repository
CACHE = Path(os.environ.get("WEVENT_NB_CACHE", Path.home() / ".cache" / "wevent_nb")) / "java-driver"
SETS, EPSS, WS = ("spas-uem", "spas-otp", "spas-flu", "spas-tdv"), (0.1, 1.0), (40, 120)   # the side-by-side settings: the four SPAS sets


def window_sums(s, w):
    "Sum of s (T or T x d) over each window t-w+1 .. t, for t = w-1 .. T-1: how many samples (or how much budget) a window holds."
    c = np.cumsum(s, axis=0); c = np.concatenate([np.zeros_like(c[:1]), c])
    return c[w:] - c[:len(s) - w + 1]


def java_missing() -> str:
    "Why the Java side cannot run ('' if it can)."
    if shutil.which("java") is None or shutil.which("javac") is None: return "no `java`/`javac` on PATH"
    if not (BENCH / "src" / "mechanisms").is_dir() or not (BENCH / "lib").is_dir():
        return f"no clone of chryenix/streamdp-benchmark at {BENCH} (set STREAMDP_BENCH; benchmarks/java/README.md)"
    return ""


def classpath() -> str:
    "The class path of the compiled driver and their classes (compiled on first use, again when a source is newer)."
    classes = CACHE / "classes"
    sources = [DRIVER_SRC, *sorted((BENCH / "src").rglob("*.java"))]
    built = classes / "Driver.class"
    if not built.exists() or built.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        classes.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-nowarn", "-d", str(classes), "-cp", f"{BENCH / 'lib'}/*", *map(str, sources)],
                       check=True, capture_output=True)
    return f"{classes}:{BENCH / 'lib'}/*"


def stream_csv(key: str) -> Path:
    "The data set's counts (wevent_nb.data.load) as the driver's CSV: T lines of d values."
    from wevent_nb import data
    path = CACHE / "data" / f"{key}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.savetxt(path, data.load(key).counts, delimiter=",", fmt="%.10g")
    return path


def run_java(cls: str, key: str, eps: float, w: int, runs: int, fields=(), dump: str | None = None, first: str | None = None) -> np.ndarray:
    "Their MAE per run of mechanism class `cls` on data set `key` (static `fields` 'Class.FIELD=VALUE' set first; `dump`: write run i's releases to DUMP_i.csv; `first`: a class-path entry put before theirs, e.g. `patched_classes`)."
    cmd = ["java", "-cp", (f"{first}:" if first else "") + classpath(), "Driver", cls, str(stream_csv(key)), str(eps), str(w), str(runs)]
    for f in fields: cmd += ["--set", f]
    if dump: cmd += ["--dump", dump]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return np.array([float(l.split()[3]) for l in out.splitlines() if l.startswith("run ")])


def patched_classes(java_file: str, patches, name: str) -> str:
    """A class of theirs with `patches` (unified diffs, in order) applied, compiled into the cache: the class-path entry to put
    before `classpath()` (e.g. a one-line fix and an instrumented print; the patch files say what they change)."""
    import tempfile
    out = CACHE / "patched" / name
    src = BENCH / "src" / java_file
    patches = [Path(p) for p in patches]
    stamp = out / ".built"
    if stamp.exists() and stamp.stat().st_mtime >= max(p.stat().st_mtime for p in [src, *patches]): return str(out)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(java_file).name
        shutil.copy(src, copy)
        for p in patches: subprocess.run(["patch", "-s", str(copy), str(p)], check=True, capture_output=True)
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-nowarn", "-d", str(out), "-cp", classpath(), str(copy)], check=True, capture_output=True)
    stamp.touch()
    return str(out)


class JavaError(RuntimeError):
    "A request the Java driver answered with an error (their class raised, or no such class)."


class JavaServer:
    """The driver's timing server (`Driver --serve`, benchmarks/java/Driver.java): one JVM for a whole benchmark, so that its
    runs can alternate with ours one at a time. `fill_ms`: the first fill of their pool of Laplace numbers (before any run);
    `size`: the pool's length. Use as a context manager (the JVM ends with it)."""

    def __init__(self):
        self.proc = subprocess.Popen(["java", "-cp", classpath(), "Driver", "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        ready = self.proc.stdout.readline().split()
        if ready[:1] != ["ready"]: raise RuntimeError(f"the Java driver did not start (it said {ready})")
        self.fill_ms, self.size, self.loaded = int(ready[1]) / 1e6, int(ready[2]), set()

    def __enter__(self): return self

    def __exit__(self, *exc):
        self.proc.stdin.close(); self.proc.wait()

    def ask(self, request: str) -> list[str]:
        "Send one request line; the answer's fields after 'ok' (JavaError on 'err')."
        self.proc.stdin.write(request + "\n"); self.proc.stdin.flush()
        answer = self.proc.stdout.readline().split()
        if not answer: raise RuntimeError(f"the Java driver ended (exit code {self.proc.poll()}) on: {request}")
        if answer[0] == "err": raise JavaError(" ".join(answer[1:]))
        return answer[1:]

    def run(self, cls: str, key: str, eps: float, w: int, n: int = 1) -> tuple[np.ndarray, np.ndarray]:
        "n runs of their class `cls` on data set `key`: each run's clock (ms, around their `run` alone) and the Laplace numbers it took from the pool."
        if key not in self.loaded: self.ask(f"load {key} {stream_csv(key)}"); self.loaded.add(key)
        ns, draws = self.ask(f"run {cls} {key} {eps!r} {w} {n}")
        return np.array(ns.split(","), float) / 1e6, np.array(draws.split(","), np.int64)

    def pool_ns(self) -> float:
        "Nanoseconds per Laplace number of their pool: one refill of all `size` numbers (as their LaplaceStream draws them), timed, over `size`."
        ns, size = self.ask("pool")
        return int(ns) / int(size)
