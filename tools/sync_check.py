"""Fail when nbdev-export or nbdev-clean would change the committed package or notebooks.

Compares file contents before and after running both (so it works on a dirty tree too), and leaves the
tree in the synced state so the diff can be inspected with `git diff`.
"""
import hashlib, pathlib, subprocess, sys

bin_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".venv/bin")
root = pathlib.Path(__file__).resolve().parent.parent

def snapshot():
    files = [*root.glob("wevent_nb/**/*.py"), *root.glob("nbs/**/*.ipynb")]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files if ".ipynb_checkpoints" not in p.parts}

before = snapshot()
for cmd in ("nbdev-export", "nbdev-clean"):
    r = subprocess.run([str(bin_dir / cmd)], cwd=root, capture_output=True, text=True)
    if r.returncode: sys.exit(f"{cmd} failed:\n{r.stdout}{r.stderr}")
after = snapshot()
changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
if changed:
    print("nbdev-export / nbdev-clean changed these files; the committed package or notebooks were out of sync:")
    for k in changed: print("  ", k)
    print("Run `make export`, review `git diff`, and commit.")
    sys.exit(1)
print(f"sync check: {len(after)} files unchanged by nbdev-export and nbdev-clean")
