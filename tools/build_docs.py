"""Build the documentation site into `_docs/` (`make docs`).

    .venv/bin/python tools/build_docs.py [--no-exec] [--out DIR] [--workers N] [--project DIR] [--offline]
                                         [--keep-going] [--keep-tmp]

Where `quarto` is on PATH this runs `nbdev-docs` (from the venv) and stops: that is nbdev's own build
(it writes nbs/sidebar.yml and _docs/ in the work tree, as nbdev always does). --offline skips that.

Where it is not (Quarto cannot be installed here: its PyPI package downloads a binary), it builds the same site
offline, reading the same `nbs/_quarto.yml`, `nbs/nbdev.yml` and nbdev's generated `sidebar.yml`:

1. Everything happens in a TEMPORARY COPY of the project (pyproject.toml, nbs/, the package folder, claims/).
   Design choice: `nbdev-test --save` writes outputs into the notebooks, and nbdev's doc steps write
   `nbs/nbdev.yml`, `nbs/sidebar.yml`, `_proc/` and `<lib>/_modidx.py`. Doing all of that in a copy means
   `make docs` never changes the work tree: the committed notebooks stay exactly as committed (clean, with
   whatever outputs their authors saved), and `make sync-check` passes after `make docs`. The cost is a copy
   of a few MB per build.
2. Unless --no-exec: `nbdev-test --save --n-workers N` then `nbdev-clean` in the copy, so the pages show
   the outputs and plots of a fresh run, including the `#| slow` reproduction cells at each notebook's default
   (quick) scale, so the pages show the claims tables (`--flags ''` skips them, as `make test` does). With --no-exec the
   pages show, per notebook, the outputs of the last full build if its source is unchanged since (kept in
   ~/.cache/wevent_nb/docs-executed/), else the outputs saved in the committed notebook; the build says which. Either way nbdev's doc processing runs the
   `show_doc` cells, so the API entries are always there. A failing notebook fails the build, as it fails
   `nbdev-docs`; --keep-going builds around it instead (and says which notebooks it worked around).
3. `nbdev-proc-nbs --file-re '\\.(?:ipynb|qmd|html)$'` in the copy (that flag works around an nbdev 3.3.26 bug
   that lists nbdev.yml, sidebar.yml and styles.css as pages). It is run in-process with nbdev's
   "install Quarto for me" step disabled, which would otherwise try `sudo` and download Quarto.
4. Pages are renamed as Quarto names them: nbdev writes `output-file: core.html` into each page's front
   matter, which smalldocs ignores, so `00_core.ipynb` becomes `core.ipynb` in a copy of `_proc/`, and the
   sidebar and links that name `00_core.ipynb`/`00_core.html` are rewritten.
5. smalldocs (pure Python, no network) renders that copy: theme, navbar, sidebar, page TOC, search, plots,
   tables and show_doc output.
6. Maths: smalldocs writes `\\(..\\)` and `\\[..\\]` for KaTeX from a CDN. The pages are rewritten to load
   MathJax 3 (`mathjax/tex-chtml.js`, served with the site) instead, with those delimiters. MathJax comes
   from a package registry at build time: `npm pack mathjax@3.2.2`, else the MathJax bundle inside the
   `sphinx-mathjax-offline` wheel (`pip download --no-deps`). It is cached in ~/.cache/wevent_nb/mathjax
   (or $WEVENT_NB_CACHE/mathjax), so only the first build needs a registry. That fetch and cache are
   `wevent_nb.cli.mathjax_dir` (nbs/30_cli.ipynb), shared with the reports of `wevent-nb reproduce`. The build fails if any page
   still loads a script or stylesheet from another host.
7. The committed claims tables (claims/*.md) become pages, listed in the sidebar under "Claims" after the notebooks;
   nbdev's source links to line `#LNone` (a name it finds no line for) link to the file; every page gets a short
   inline script that closes the search list when a hit is on the same page and lands on the #anchor again once
   MathJax has typeset the page (typesetting moves the heading that search or a link scrolled to).
8. Links nbdev writes to the hosted docs (`https://<doc_host>/<baseurl>/core.html#ledger`) are made relative
   when the page is in this site, so the offline site links to itself. The paper notebooks' links are written for
   Jupyter and the reports: a jump link to a heading's Jupyter anchor (its text, spaces as hyphens) is pointed at the id
   the site gives that heading, and a link to a committed table (`../claims/002_capp.md`) at its page (`claims/002_capp.html`).

The result goes to --out (default `_docs` in the project), replacing a previous build there (the script
refuses to empty a folder that is not a built site). Serve it with `python -m http.server -d _docs`
(search and fonts need http://).
"""
from __future__ import annotations

import argparse
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# MathJax's fetch (npm, else PyPI), cache and copy, and the check for remote loads, are shared with the reports of
# `wevent-nb reproduce`: they live in the package (nbs/30_cli.ipynb)
from wevent_nb.cli import MATHJAX_SKIP, MATHJAX_VERSION, MATHJAX_WHEEL, REMOTE, MathJaxUnavailable, cache_home, copy_mathjax  # noqa: F401
from wevent_nb.cli import mathjax_dir as _mathjax_dir

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the venv's bin (sys.executable is not resolved: it is .venv/bin/python)
PAGE_RE = r"\.(?:ipynb|qmd|html)$"  # nbdev 3.3.26 lists non-pages without this
# What smalldocs puts in the head of a page with maths: KaTeX from jsDelivr
KATEX_TAG = re.compile(r'<link[^>]*href="https://cdn\.jsdelivr\.net/npm/katex@[^"]*"[^>]*>|'
                       r'<script[^>]*src="https://cdn\.jsdelivr\.net/npm/katex@[^"]*"[^>]*>\s*</script>')
# smalldocs warnings that only say a Quarto-only option is not used offline
QUIET_WARNINGS = re.compile(r"format commonmark is not built|keep-md is ignored|html-math-method is ignored|"
                            r"unknown key format-links|output-file is not read")


def say(msg: str) -> None:
    print(f"[docs] {msg}", flush=True)


def run(cmd: list[str], cwd: Path, env: dict | None = None, what: str = "", keep_going: bool = False) -> subprocess.CompletedProcess:
    "Run a command; on failure stop with its output (or, keep_going, return it)."
    t0 = time.perf_counter()
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode and not keep_going:
        sys.stdout.write(r.stdout)
        err = r.stderr
        at = err.rfind("Exception: Error in notebook")  # nbdev's doc processing: keep its message, not the traceback
        sys.stderr.write(err[at:] if at >= 0 else err)
        hint = ""
        if at >= 0:
            hint = ("\n[docs] nbdev's doc processing runs every exported cell, every show_doc cell and EVERY cell that "
                    "contains an import; a test cell that imports something and uses names from cells that are not run "
                    "fails here (nbdev-docs with Quarto fails the same way). Move such imports into their own cell or "
                    "into the notebook's imports cell.")
        sys.exit(f"[docs] {what or cmd[0]} failed (exit {r.returncode}); the work tree is unchanged{hint}"
                 + ("" if keep_going else "\n[docs] --keep-going builds the site anyway, around the failing notebooks"))
    say(f"{what or Path(str(cmd[0])).name}: {time.perf_counter() - t0:.1f} s")
    return r


# ---------------------------------------------------------------- MathJax

def mathjax_dir(fetch: bool = True) -> Path:
    "The cached MathJax es5 folder, fetched from npm or PyPI on first use (wevent_nb.cli.mathjax_dir, shared with the reports)."
    return _mathjax_dir(fetch, log=say)


def mathjax_head(prefix: str) -> str:
    "The head elements that load the site's MathJax, for a page `prefix` away from the site root."
    config = ("window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']]}, "
              "options: {ignoreHtmlClass: 'tex2jax_ignore'}};")
    return (f'<script>{config}</script>\n'
            f'<script id="MathJax-script" defer src="{prefix}mathjax/tex-chtml.js"></script>')


# ---------------------------------------------------------------- the project copy

def copy_project(project: Path, work: Path) -> dict:
    "Copy what nbdev needs (pyproject.toml, the notebooks, the package) into `work`; return nbdev's settings."
    import tomllib
    cfg = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["nbdev"]
    nbs, lib = cfg.get("nbs_path", "nbs"), cfg.get("lib_path", cfg.get("lib_name", "wevent_nb"))
    skip = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "_proc", "_docs", "_site", ".*")
    shutil.copy2(project / "pyproject.toml", work / "pyproject.toml")
    shutil.copytree(project / nbs, work / nbs, ignore=skip)
    if (project / lib).is_dir():
        shutil.copytree(project / lib, work / lib, ignore=skip)
    if (project / "claims").is_dir():  # the committed tables: each paper notebook opens with its own (committed_claims)
        shutil.copytree(project / "claims", work / "claims", ignore=skip)
    for stale in ("sidebar.yml",):  # generated by nbdev at each build, from the notebooks present
        (work / nbs / stale).unlink(missing_ok=True)
    return {"nbs": nbs, "lib": lib}


def execute(work: Path, nbs: str, workers: int, project: Path, keep_going: bool = False, flags: str = "slow") -> None:
    "Run every notebook in the copy and save its outputs (nbdev-test --save, also running cells marked `flags`), then clean."
    env = dict(os.environ)
    data = project.parent / "shared" / "data"  # the notebooks' real data, as tests/conftest.py finds it
    if "WEVENT_NB_DATA" not in env and data.is_dir():
        env["WEVENT_NB_DATA"] = str(data)
    env.setdefault("MPLBACKEND", "Agg")
    cmd = [BIN / "nbdev-test", "--save", "--n-workers", str(workers)] + (["--flags", flags] if flags else [])
    r = run(cmd, work, env, "nbdev-test --save", keep_going)
    if r.returncode:  # only with keep_going: nbdev saves each notebook that passed; the others keep their committed outputs
        failed = re.findall(r"^\t(\S+\.ipynb)\s*$", r.stdout + r.stderr, re.M)
        say(f"WARNING: these notebooks failed and are shown with their committed outputs: {', '.join(failed) or '(see nbdev-test)'}")
    run([BIN / "nbdev-clean"], work, env, "nbdev-clean")


def executed_cache(project: Path) -> Path:
    "Where the last full build of `project` keeps its executed notebooks for --no-exec (the user cache: the work tree is never written)."
    import hashlib
    return cache_home() / "docs-executed" / hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]


def source_hash(nb_path: Path) -> str:
    "A hash of a notebook's cells (types and sources), not its outputs: whether an executed copy still matches it."
    import hashlib
    cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
    return hashlib.sha256(json.dumps([(c["cell_type"], "".join(c["source"])) for c in cells]).encode()).hexdigest()


def save_executed(project: Path, work: Path, nbs: str) -> None:
    "Keep the executed notebooks of a full build, with the source hash of each, for later --no-exec builds."
    cache = executed_cache(project)
    shutil.rmtree(cache, ignore_errors=True); cache.mkdir(parents=True)
    manifest = {}
    for nb in sorted((work / nbs).glob("*.ipynb")):
        shutil.copy2(nb, cache / nb.name); manifest[nb.name] = source_hash(project / nbs / nb.name)
    (cache / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def reuse_executed(project: Path, work: Path, nbs: str) -> None:
    "--no-exec: use the last full build's outputs for every notebook whose source has not changed since."
    cache = executed_cache(project)
    manifest = json.loads((cache / "manifest.json").read_text()) if (cache / "manifest.json").is_file() else {}
    reused, committed = [], []
    for nb in sorted((work / nbs).glob("*.ipynb")):
        if manifest.get(nb.name) == source_hash(nb) and (cache / nb.name).is_file():
            shutil.copy2(cache / nb.name, nb); reused.append(nb.stem)
        else: committed.append(nb.stem)
    say("--no-exec: outputs of the last full build for " + (", ".join(reused) or "no notebook")
        + "; the committed notebooks' saved outputs (no reproduction results) for " + (", ".join(committed) or "no notebook"))


PROC = """
import sys, nbdev.quarto as q
q._ensure_quarto = lambda: None   # it would try sudo and download Quarto; smalldocs renders instead
if sys.argv[3] == "1":            # --keep-going: a cell that fails in doc processing stops that notebook's show_doc only
    import nbdev.processors as P
    run_cell = P.exec_show_docs.__call__
    def tolerant(self, cell):
        if getattr(self, "_failed", False): return
        try: run_cell(self, cell)
        except Exception as e:
            self._failed = True
            print("[docs] WARNING: " + str(e).splitlines()[0].rstrip(" :") + ": " + type(e.__cause__ or e).__name__
                  + "; the rest of that page has no show_doc output", file=sys.stderr)
    P.exec_show_docs.__call__ = tolerant
    import nbdev.serve
    nbdev.serve.in_notebook = lambda: True   # fork the workers (not spawn), so they inherit the patch
q.nbdev_proc_nbs.__wrapped__(file_re=sys.argv[1], n_workers=int(sys.argv[2]))
"""


def proc_nbs(work: Path, workers: int, keep_going: bool = False) -> Path:
    "nbdev-proc-nbs in the copy: writes nbdev.yml, sidebar.yml, the name index, and the processed pages in _proc/."
    r = run([sys.executable, "-c", PROC, PAGE_RE, workers, int(keep_going)], work, None, "nbdev-proc-nbs")
    for line in r.stderr.splitlines():
        if line.startswith("[docs] WARNING"):
            print(line, flush=True)
    return work / "_proc"


# ---------------------------------------------------------------- renaming pages as Quarto does

def front_matter(page: Path) -> dict:
    "The YAML front matter of a processed page (a notebook's first raw cell, or a .qmd/.md header)."
    import yaml
    if page.suffix == ".ipynb":
        cells = json.loads(page.read_text(encoding="utf-8")).get("cells") or []
        text = "".join(cells[0].get("source", "")) if cells and cells[0].get("cell_type") == "raw" else ""
    else:
        text = page.read_text(encoding="utf-8")
    m = re.match(r"\s*---\s*\n(.*?)\n---\s*(?:\n|$)", text, re.S)
    try:
        fm = yaml.safe_load(m.group(1)) if m else {}
    except yaml.YAMLError:
        fm = {}
    return fm if isinstance(fm, dict) else {}


def rename_pages(site: Path) -> dict[str, str]:
    "Rename each page to the name of its `output-file` (00_core.ipynb -> core.ipynb), fixing links; return the map."
    renames: dict[str, str] = {}
    for page in sorted(p for ext in (".ipynb", ".qmd", ".md") for p in site.rglob(f"*{ext}")):
        out = front_matter(page).get("output-file")
        if not out or not str(out).endswith(".html"):
            continue
        new = page.with_name(Path(str(out)).stem + page.suffix)
        if new == page:
            continue
        if new.exists():
            sys.exit(f"[docs] {page.name} and {new.name} would both be {out}: rename one notebook")
        page.rename(new)
        renames[page.relative_to(site).as_posix()] = new.relative_to(site).as_posix()
    if not renames:
        return renames
    # links to a renamed page, as a notebook (00_core.ipynb) or as its default html name (00_core.html)
    subs = {}
    for old, new in renames.items():
        for a, b in ((old, new), (str(Path(old).with_suffix(".html")), str(Path(new).with_suffix(".html")))):
            subs[Path(a).name] = Path(b).name
    pat = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) for k in sorted(subs, key=len, reverse=True)) + r")(?![\w-])")
    for f in [*site.rglob("*.ipynb"), *site.rglob("*.qmd"), *site.rglob("*.md"), *site.rglob("*.yml")]:
        text = f.read_text(encoding="utf-8")
        new_text = pat.sub(lambda m: subs[m.group(1)], text)
        if new_text != text:
            f.write_text(new_text, encoding="utf-8")
    return renames


# ---------------------------------------------------------------- render and fix the pages

def render(site: Path, out: Path) -> list[str]:
    "Render the renamed copy of _proc/ with smalldocs into `out`; return its warnings."
    from smalldocs.config import load
    from smalldocs.site import Site
    s = Site(load(site), quiet=True)
    s.out = out.resolve()
    s.build()
    return [w for w in s.warnings if not QUIET_WARNINGS.search(w)]


def site_url(site: Path) -> str:
    "The hosted docs URL that nbdev writes into links (website.site-url of nbdev.yml)."
    from smalldocs.config import load
    return str(load(site).website.get("site-url") or "").rstrip("/")


def fix_pages(out: Path, hosted: str) -> list[str]:
    "Load the local MathJax instead of KaTeX, make links to the hosted docs relative; return remote references left."
    remote = []
    for page in sorted(out.rglob("*.html")):
        if page.is_relative_to(out / "mathjax"):
            continue
        text = page.read_text(encoding="utf-8")
        prefix = posixpath.relpath(".", page.parent.relative_to(out).as_posix())
        prefix = "" if prefix == "." else prefix + "/"
        if KATEX_TAG.search(text):
            first = True
            def swap(m):
                nonlocal first
                if first:
                    first = False
                    return mathjax_head(prefix)
                return ""
            text = KATEX_TAG.sub(swap, text)
        text = re.sub(r'(href="[^"#]*)#LNone"', r'\1"', text)   # nbdev's source link for a name it finds no line of
        text = claims_links(jupyter_anchors(text), page, out)
        if PAGE_FIXES_ID not in text and "</body>" in text:
            text = text.replace("</body>", PAGE_FIXES + "\n</body>", 1)
        if hosted:
            def local(m):
                path, tail = m.group(2), m.group(3)
                if (out / path).is_file():
                    return m.group(1) + (posixpath.relpath(path, page.parent.relative_to(out).as_posix() or ".")) + tail
                return m.group(0)
            text = re.sub(r'(href=")' + re.escape(hosted) + r'/([^"#?]+\.html)([^"]*")', local, text)
        page.write_text(text, encoding="utf-8")
        remote += [f"{page.relative_to(out)}: {html.unescape(m.group(0))[:160]}" for m in REMOTE.finditer(text)]
    return remote


HEADING_RE = re.compile(r'<h[1-6]\b[^>]*\bdata-anchor-id="([^"]+)"[^>]*>(.*?)</h[1-6]>', re.S)
STRAIGHT_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def jupyter_anchors(text: str) -> str:
    """Point in-page links written with the anchor Jupyter and nbconvert give a heading (its text, spaces as hyphens: the
    paper notebooks' jump links, right in JupyterLab and in the reports) to the id smalldocs gives it (Pandoc's: lower
    case, punctuation dropped). A link to an id the page has is left alone."""
    from urllib.parse import unquote
    ids, heads = set(ID_RE.findall(text)), {}
    for hid, inner in HEADING_RE.findall(text):
        plain = html.unescape(re.sub(r"<[^>]+>", "", inner)).strip().translate(STRAIGHT_QUOTES)   # smalldocs curls quotes
        heads.setdefault(plain.replace(" ", "-"), hid)
    def fix(m):
        frag = html.unescape(m.group(1))
        hid = None if frag in ids else heads.get(frag) or heads.get(unquote(frag))
        return f'href="#{html.escape(hid)}"' if hid else m.group(0)
    return re.sub(r'href="#([^"]+)"', fix, text)


def claims_links(text: str, page: Path, out: Path) -> str:
    """Point links to a committed table's Markdown (committed_claims' link, relative to where the notebook ran: `../claims/002_capp.md`
    from nbs/, right in Jupyter and in the reports) to its page in the site (`claims/002_capp.html`), when that page exists."""
    def fix(m):
        target = out / "claims" / (m.group(2) + ".html")
        if not target.is_file(): return m.group(0)
        return m.group(1) + posixpath.relpath(f"claims/{target.name}", page.parent.relative_to(out).as_posix() or ".") + '"'
    return re.sub(r'(href=")(?:\.\./)*claims/([^"/#?]+)\.md"', fix, text)


PAGE_FIXES_ID = "wevent-page-fixes"
# Added to every page. (1) A search hit on the page itself (Enter or a click) changes only the hash: smalldocs leaves its
# result list open over the page, hanging from the navbar over the heading it just scrolled to; close it. (2) MathJax
# typesets after the browser has scrolled to the #anchor, and the typeset formulas above it change the page's height, so
# the heading ends up away from the top (under the sticky navbar or below it): scroll to it again once MathJax is done,
# unless the reader has scrolled since. The offset below the navbar is smalldocs' scroll-padding-top.
PAGE_FIXES = f"""<script id="{PAGE_FIXES_ID}">
(function () {{
  var closeSearch = function () {{
    document.querySelectorAll(".smalldocs-search-results.show").forEach(function (r) {{ r.classList.remove("show"); }});
    var i = document.activeElement; if (i && i.closest && i.closest(".smalldocs-search")) i.blur();
  }};
  document.addEventListener("click", function (ev) {{ if (ev.target.closest && ev.target.closest("a.search-result")) setTimeout(closeSearch, 0); }});
  window.addEventListener("hashchange", closeSearch);
  var target = function () {{ try {{ return location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1))); }} catch (e) {{ return null; }} }};
  var moved = false;
  ["wheel", "touchmove", "keydown", "mousedown"].forEach(function (k) {{ window.addEventListener(k, function () {{ moved = true; }}, {{passive: true}}); }});
  var land = function () {{ var t = target(); if (t && !moved) t.scrollIntoView({{block: "start"}}); }};
  window.addEventListener("load", function () {{
    land();
    var mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mj) mj.then(function () {{ requestAnimationFrame(land); }});
  }});
}})();
</script>"""

ID_RE = re.compile(r'\b(?:id|name)="([^"]+)"')
HREF_RE = re.compile(r'<a\b[^>]*\bhref="([^"]*)"', re.I)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)   # http:, https:, mailto:, javascript:, data:, //host


def broken_links(out: Path) -> list[str]:
    "Every internal link of the built pages whose file or #anchor does not exist, as 'page: href'."
    pages = [p for p in sorted(out.rglob("*.html")) if not p.is_relative_to(out / "mathjax") and not p.is_relative_to(out / "site_libs")]
    ids: dict[Path, set] = {}
    def anchors(page: Path) -> set:
        if page not in ids: ids[page] = set(ID_RE.findall(page.read_text(encoding="utf-8"))) if page.suffix == ".html" else set()
        return ids[page]
    bad = []
    for page in pages:
        for href in HREF_RE.findall(page.read_text(encoding="utf-8")):
            href = html.unescape(href)
            if not href or EXTERNAL.match(href): continue
            path, _, frag = href.partition("#")
            target = (page.parent / path.split("?")[0]).resolve() if path else page.resolve()
            if not target.exists() or (frag and target.suffix == ".html" and frag not in anchors(target)):
                bad.append(f"{page.relative_to(out)}: {href}")
    return bad


CLAIMS_SECTION = "Claims"


def claims_pages(project: Path) -> list[str]:
    "The committed claims pages (claims/*.md) as site paths: the papers' tables (claims/00N_*.md) first, then the others."
    if not (project / "claims").is_dir():
        return []
    mds = sorted((project / "claims").glob("*.md"), key=lambda p: (not re.match(r"\d{3}_", p.name), p.name))
    return [f"claims/{p.name}" for p in mds]


def add_claims(project: Path, site: Path) -> None:
    """Make the committed claims tables (claims/*.md) pages of the site, serve their CSVs beside them, and list the pages
    in the sidebar under a "Claims" section after the notebooks (nbdev's sidebar.yml lists notebooks only)."""
    if not (project / "claims").is_dir():
        return
    shutil.copytree(project / "claims", site / "claims", dirs_exist_ok=True)
    bar_file = site / "sidebar.yml"
    if not bar_file.is_file():
        return
    import yaml
    bar = yaml.safe_load(bar_file.read_text(encoding="utf-8")) or {}
    side = bar.setdefault("website", {}).setdefault("sidebar", {})
    contents = [c for c in (side.get("contents") or []) if not (isinstance(c, dict) and c.get("section") == CLAIMS_SECTION)]
    if pages := claims_pages(project):
        contents.append({"section": CLAIMS_SECTION, "contents": pages})
    side["contents"] = contents
    bar_file.write_text(yaml.safe_dump(bar, sort_keys=False, allow_unicode=True), encoding="utf-8")


def add_home(site: Path, out: Path) -> None:
    "Without an index notebook, make index.html send the reader to the first page of the sidebar."
    if (out / "index.html").exists():
        return
    import yaml
    bar = (yaml.safe_load((site / "sidebar.yml").read_text()) or {}) if (site / "sidebar.yml").is_file() else {}
    entries = ((bar.get("website") or {}).get("sidebar") or {}).get("contents") or []
    first = next((Path(e).with_suffix(".html").as_posix() for e in entries if isinstance(e, str) and (out / Path(e).with_suffix(".html")).is_file()), None)
    first = first or next((p.name for p in sorted(out.glob("*.html"))), None)
    if first:
        (out / "index.html").write_text(f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={first}">'
                                        f'<title>wevent_nb</title><a href="{first}">{first}</a>\n', encoding="utf-8")


def check_out(out: Path) -> None:
    "Refuse an output folder that holds anything but a previous build, before any work is done."
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "site_libs").is_dir())):
        sys.exit(f"[docs] {out} exists and is not a built site (no site_libs/): remove it or choose another --out")


def install(built: Path, out: Path) -> None:
    "Put the built site at `out`, replacing a previous build; refuse to empty any other folder."
    check_out(out)
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(built), str(out))


# ---------------------------------------------------------------- main

def build_offline(project: Path, out: Path, execute_nbs: bool, workers: int, keep_tmp: bool, keep_going: bool = False,
                  flags: str = "slow") -> None:
    t0 = time.perf_counter()
    check_out(out)
    try:
        mj = mathjax_dir()
    except MathJaxUnavailable as e:
        sys.exit(f"[docs] {e}")
    tmp = Path(tempfile.mkdtemp(prefix="wevent_nb_docs_"))
    try:
        work = tmp / "project"
        work.mkdir()
        names = copy_project(project, work)
        say(f"copied the project into {work}")
        if execute_nbs:
            execute(work, names["nbs"], workers, project, keep_going, flags)
            save_executed(project, work, names["nbs"])
        else:
            reuse_executed(project, work, names["nbs"])
        proc = proc_nbs(work, workers, keep_going)
        site = tmp / "site"
        shutil.copytree(proc, site)
        renames = rename_pages(site)
        if renames:
            say("pages named as Quarto names them: " + ", ".join(f"{a} -> {Path(b).stem}.html" for a, b in renames.items()))
        add_claims(project, site)
        built = tmp / "html"
        t1 = time.perf_counter()
        warnings = render(site, built)
        say(f"smalldocs: {len(list(built.rglob('*.html')))} page(s) in {time.perf_counter() - t1:.1f} s")
        for w in warnings:
            say(f"warning: {w}")
        add_home(site, built)
        copy_mathjax(mj, built / "mathjax")
        remote = fix_pages(built, site_url(site))
        if remote:
            sys.exit("[docs] these pages still load files from another host (the site must work offline):\n  "
                     + "\n  ".join(remote))
        bad = broken_links(built)
        if bad:
            sys.exit(f"[docs] {len(bad)} internal link(s) or anchor(s) do not resolve:\n  " + "\n  ".join(bad))
        install(built, out)
    finally:
        if keep_tmp:
            say(f"kept the temporary build in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    rel = os.path.relpath(out)
    say(f"site written to {out} in {time.perf_counter() - t0:.1f} s")
    say(f"serve it with: python -m http.server -d {rel if not rel.startswith('..') else out} 8000   "
        f"(then open http://127.0.0.1:8000/)")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Build the docs site: nbdev-docs with Quarto, else offline with smalldocs and a local MathJax.")
    p.add_argument("--no-exec", action="store_true", help="do not re-run the notebooks: show the outputs saved in them")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: _docs in the project)")
    p.add_argument("--workers", type=int, default=2, help="parallel notebook workers (default 2)")
    p.add_argument("--flags", default="slow", help="also run cells marked with these nbdev flags (default 'slow': the pages "
                   "show each paper's reproduction at its notebook's default, quick, scale; '' to skip them)")
    p.add_argument("--project", type=Path, default=ROOT, help="the project root, with pyproject.toml and nbs/ (default: this repo)")
    p.add_argument("--offline", action="store_true", help="build offline even where quarto is installed (the tests use this)")
    p.add_argument("--keep-going", action="store_true",
                   help="build the site even when notebooks fail: a failing notebook keeps its committed outputs, and a cell that "
                        "fails in nbdev's doc processing ends that page's show_doc output (warnings name them)")
    p.add_argument("--keep-tmp", action="store_true", help="keep the temporary copy, for debugging")
    a = p.parse_args(argv)
    project = a.project.resolve()
    out = (a.out if a.out is not None else project / "_docs").resolve()
    if out == project or out in project.parents:
        sys.exit(f"[docs] --out {out} would hold the project: choose a folder inside or beside it")
    if shutil.which("quarto") and not a.offline:
        say("quarto found: running nbdev-docs")
        r = subprocess.run([str(BIN / "nbdev-docs")], cwd=project)
        if r.returncode:
            sys.exit(r.returncode)
        if out != project / "_docs":
            install(project / "_docs", out)
        say(f"site written to {out}; serve it with: python -m http.server -d {os.path.relpath(out)}")
        return
    build_offline(project, out, not a.no_exec, a.workers, a.keep_tmp, a.keep_going, a.flags)


if __name__ == "__main__":
    main()
