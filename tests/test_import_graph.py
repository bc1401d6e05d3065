"""No import cycle between the package's modules, counting the imports hidden inside functions (issue 39)."""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "wevent_nb"


def imported_modules(source: str, package: str = "wevent_nb") -> set:
    "The package modules a module's source imports, at top level or inside functions: `from .x import`, `from wevent_nb.x import`, `import wevent_nb.x`."
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 1: name = mod
            elif node.level == 0 and mod.startswith(package + "."): name = mod[len(package) + 1:]
            elif node.level == 0 and mod == package: name = ""
            else: continue
            # `from . import x` / `from wevent_nb import x` names modules themselves
            out |= {a.name for a in node.names} if not name else {name.split(".")[0]}
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith(package + ".")}
    return out


def import_graph(pkg: Path = PKG) -> dict:
    "Module name -> the package modules it imports (only edges to modules of the package)."
    mods = {p.stem for p in pkg.glob("*.py") if p.stem != "__init__"}
    return {m: (imported_modules((pkg / f"{m}.py").read_text(encoding="utf-8")) & mods) - {m} for m in mods}


def find_cycle(graph: dict):
    "One cycle of `graph` as a list of modules (first = last), or None."
    state, stack = {}, []
    def visit(m):
        state[m] = "open"; stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "open": return stack[stack.index(n):] + [n]
            if n not in state and (c := visit(n)): return c
        state[m] = "done"; stack.pop()
    for m in sorted(graph):
        if m not in state and (c := visit(m)): return c
    return None


def test_imports_are_read_at_every_level():
    src = "from .core import a\nimport numpy\ndef f():\n    from wevent_nb.cli import b\n    import wevent_nb.audit\nfrom . import data\n"
    assert imported_modules(src) == {"core", "cli", "audit", "data"}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_cycle_between_package_modules():
    graph = import_graph()
    assert {"core", "primitives", "cli", "contract"} <= set(graph)
    assert "primitives" not in graph["core"], "core must not need primitives"
    assert "cli" not in graph["contract"], "contract must not import cli (cli imports contract)"
    assert (c := find_cycle(graph)) is None, "import cycle: " + " -> ".join(c)


def test_core_alone_and_the_exact_noise_form():
    "Importing core loads neither primitives nor cli; check_noise_ledger(noise='exact') then says what to import, and works once primitives is loaded."
    import subprocess, sys
    code = ("import sys, numpy as np\n"
            "from wevent_nb.core import HistogramStream, ToyUniform, check_noise_ledger, parse_value\n"
            "assert 'wevent_nb.primitives' not in sys.modules and 'wevent_nb.cli' not in sys.modules\n"
            "s = HistogramStream(np.ones((6, 2)))\n"
            "try: check_noise_ledger(ToyUniform(eps=1.0, w=3), s, noise='exact'); raise SystemExit('no error')\n"
            "except ValueError as e: assert 'import wevent_nb.primitives' in str(e), e\n"
            "import wevent_nb.primitives\n"
            "assert check_noise_ledger(ToyUniform(eps=1.0, w=3), s, noise='exact')['draws'] == 6\n"
            "from wevent_nb.cli import parse_value as p\n"
            "assert p is parse_value and p('[1, 2]') == [1, 2]\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
