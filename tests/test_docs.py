"""The docs site (tools/build_docs.py, the offline build behind `make docs`).

One build of the committed notebooks without re-running them (--no-exec), checked for maths served by a local
MathJax, show_doc API entries, the sidebar and the absence of any CDN, and for notebooks nbdev cannot document; one build of a tiny fixture project that
IS executed, checked for a plot on its page and for leaving the fixture's notebooks untouched. Both force the
offline build (--offline), so the checks hold where Quarto is installed too. MathJax comes from the cache in
~/.cache/wevent_nb (the first build fetches it from npm or PyPI); the tests skip only when it is not cached
and no registry can provide it.
"""
import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "build_docs.py"
BUILD_TIMEOUT = 900   # a guard against a hung build, not a speed test: the whole site without execution took 268 s on a loaded 2-core machine
# Equation (1) of 00_core: the w-event condition, sum over every window of w timestamps of eps_tau <= eps
WINDOW_INEQ = re.compile(r'<span class="math display">\\\[[^<]*\\sum_\{\\tau=t-w\+1\}\^\{t\}\s*\\varepsilon_\\tau[^<]*\\le[^<]*\\\]</span>')
REMOTE_LOAD = re.compile(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"', re.I)


def _tool():
    spec = importlib.util.spec_from_file_location("build_docs", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def tool():
    mod = _tool()
    try:
        mod.mathjax_dir()  # cached after the first build; else fetched from npm or PyPI
    except mod.MathJaxUnavailable as e:
        pytest.skip(f"MathJax is not cached and no package registry is reachable to fetch it: {e}")
    return mod


def _build(project: Path, out: Path, *flags: str) -> str:
    r = subprocess.run([sys.executable, str(SCRIPT), "--offline", "--project", str(project), "--out", str(out), *flags],
                       capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert r.returncode == 0, f"build_docs.py failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def _notebooks(nbs: Path) -> list[Path]:
    return sorted(p for p in nbs.glob("*.ipynb") if not p.name.startswith(("_", ".")))


@pytest.fixture(scope="module")
def built(tool, tmp_path_factory):
    "The site of the committed notebooks, not re-executed (--keep-going: one broken notebook fails one test, below)."
    out = tmp_path_factory.mktemp("site") / "_docs"
    return out, _build(ROOT, out, "--no-exec", "--keep-going")


@pytest.fixture(scope="module")
def site(built):
    return built[0]


def test_every_notebook_can_be_documented(built):
    "nbdev's doc processing (show_doc, and every cell with an import) works on every notebook, as nbdev-docs needs."
    problems = [line for line in built[1].splitlines() if line.startswith("[docs] WARNING")]
    assert not problems, "\n".join(problems)


def _page_name(nb: Path) -> str:
    from nbdev.config import nbpath2html
    return nbpath2html(nb).name


def test_core_page_has_its_equations_and_local_mathjax(site):
    core = (site / "core.html").read_text(encoding="utf-8")
    assert WINDOW_INEQ.search(core), "equation (1), the w-event window inequality, is not in a display-math span"
    assert re.search(r'<span class="math inline">\\\(\\varepsilon\\\)</span>', core)
    scripts = re.findall(r'<script\b[^>]*\bsrc="([^"]*)"', core)
    assert "mathjax/tex-chtml.js" in scripts
    assert not [s for s in scripts if "cdn" in s.lower() or "//" in s], scripts
    assert "katex" not in core.lower()
    assert "inlineMath: [['\\\\(', '\\\\)']]" in core and "displayMath: [['\\\\[', '\\\\]']]" in core
    mj = site / "mathjax"
    assert (mj / "tex-chtml.js").stat().st_size > 500_000
    assert list((mj / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff")), "MathJax's CHTML fonts are missing"
    assert (mj / "input" / "tex" / "extensions" / "ams.js").is_file()


def test_foundation_pages_document_the_api(site):
    "Each name has its entry on the page of the foundation notebook that defines it (00_core's pieces, issue 39)."
    for page, names in (("core.html", ("Mechanism", "Runs")), ("ledger.html", ("Ledger",)), ("validation.html", ("check_eps", "UnprovenConfiguration")),
                        ("streams.html", ("Release.check",)), ("rolling.html", ("RollingLedger",)), ("noise.html", ("check_noise_ledger",))):
        text = (site / page).read_text(encoding="utf-8")
        for name in names:
            assert re.search(rf'<h[2-4] id="{re.escape(name.lower())}"[^>]*>{re.escape(name)}\b', text), f"no show_doc entry for {name} on {page}"
    assert "Validate a privacy budget" in (site / "validation.html").read_text(encoding="utf-8")  # check_eps's docstring
    core = (site / "core.html").read_text(encoding="utf-8")
    # nbdev links names to the hosted docs; the offline site links to its own pages (core's map names the pieces' classes)
    assert 'href="ledger.html#ledger"' in core
    assert not re.search(r'href="https://wevent-nb\.github\.io/wevent_nb/[^"]*\.html', core)


def test_sidebar_lists_every_page_in_order(site):
    pages = [_page_name(nb) for nb in _notebooks(ROOT / "nbs")]
    pages = sorted(pages, key=lambda p: (p != "index.html",))  # nbdev puts the index first, then file order
    assert "core.html" in pages
    core = (site / "core.html").read_text(encoding="utf-8")
    bar = re.search(r'<nav id="quarto-sidebar".*?</nav>', core, re.S).group(0)
    links = re.findall(r'<a href="([^"#]+)" class="sidebar-item-text sidebar-link', bar)
    # then, in a "Claims" section, every committed claims table (the papers' first), as pages of the site
    claims = sorted((ROOT / "claims").glob("*.md"), key=lambda p: (not re.match(r"\d{3}_", p.name), p.name))
    claim_pages = [f"claims/{p.stem}.html" for p in claims]
    assert len([p for p in claims if re.match(r"\d{3}_", p.name)]) == 5
    assert links == pages + claim_pages
    assert re.search(r">\s*(?:<span[^>]*>\s*)?Claims\s*<", bar), "no Claims section title in the sidebar"
    for p in pages + claim_pages:
        assert (site / p).is_file(), p
    assert re.search(r'<a href="\.\./core\.html" class="sidebar-item-text sidebar-link', (site / "claims" / "002_capp.html").read_text(encoding="utf-8"))
    assert (site / "index.html").is_file() and (site / "search.json").is_file()
    assert "Ledger" in (site / "search.json").read_text(encoding="utf-8")


def test_no_source_link_to_line_none_and_every_page_has_the_anchor_fixes(site):
    "nbdev links a name it finds no line for (bound by assignment, e.g. capp.CAPP) to `file.py#LNone`: the site links the file."
    for page in sorted(site.glob("*.html")) + sorted((site / "claims").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'href="[^"]*#LNone"', text), page.name
        assert text.count('<script id="wevent-page-fixes">') == 1, page.name   # closes the search list, re-lands on #anchors after MathJax
    assert re.search(r'href="https://github\.com/[^"]*/wevent_nb/capp\.py"', (site / "capp.html").read_text(encoding="utf-8"))


def test_no_page_uses_a_cdn(site):
    pages = sorted(site.glob("*.html"))
    assert len(pages) >= 2
    for page in pages:
        text = re.sub(r'"data:[^"]*"', '""', page.read_text(encoding="utf-8"))  # base64 plots may spell "cdn"
        assert "cdn" not in text.lower(), f"{page.name} mentions a CDN"
        assert not REMOTE_LOAD.findall(text), f"{page.name} loads {REMOTE_LOAD.findall(text)}"


def test_api_signatures_wrap_at_the_page_edge(site, sideways_overflow):
    "show_doc's signature lines (a code block in a markdown output, each parameter's doc a comment) wrap at the page's edge (nbs/styles.css) instead of running off it."
    assert re.search(r"\.cell-output-markdown pre > code\.sourceCode\s*\{[^}]*white-space:\s*pre-wrap", (site / "styles.css").read_text(encoding="utf-8"))
    capp = site / "capp.html"
    assert re.search(r'class="cell-output[^"]*cell-output-markdown">.*?<pre class="sourceCode python[^"]*"><code class="sourceCode python">'
                     r'<span class="kw">def</span> <span class="fu">CAPP</span>', capp.read_text(encoding="utf-8"), re.S)
    over = sideways_overflow(capp, ".cell-output-markdown pre")
    assert over and max(over) == 0, f"{sum(o > 0 for o in over)} of {len(over)} signature blocks run {max(over)} px off the page"


def test_nbdev_yml_is_what_nbdev_generates():
    "nbdev-docs rewrites nbs/nbdev.yml from pyproject.toml: the committed one must already be that, or docs dirty the tree."
    from nbdev.config import get_config
    from nbdev.quarto import _nbdev_yml
    cfg = get_config(ROOT / "nbs")
    vals = {k: cfg[k] for k in ["title", "description", "branch", "git_url", "doc_host", "doc_baseurl"]}
    vals["doc_path"] = cfg.doc_path.name
    assert (ROOT / "nbs" / "nbdev.yml").read_text() == _nbdev_yml.format(**vals)


def _fixture_project(root: Path) -> Path:
    "A one-notebook project with the real config: a page with maths and a matplotlib plot, saved WITHOUT outputs."
    (root / "nbs").mkdir(parents=True)
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    for f in ("_quarto.yml", "nbdev.yml", "styles.css"):
        shutil.copy2(ROOT / "nbs" / f, root / "nbs" / f)
    shutil.copytree(ROOT / "wevent_nb", root / "wevent_nb", ignore=shutil.ignore_patterns("__pycache__"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Plot fixture\n\n> A page with a plot."),
        nbformat.v4.new_markdown_cell("Pythagoras: $$a^2+b^2=c^2$$"),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt"),
        nbformat.v4.new_code_cell("fig, ax = plt.subplots(figsize=(3, 2))\nax.plot([0, 1, 2], [0, 1, 4])\nplt.show()"),
    ]
    for c in nb.cells:
        c.id = f"c{nb.cells.index(c)}"
    nbformat.write(nb, root / "nbs" / "01_plotfix.ipynb")
    return root


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}


def test_executed_build_shows_a_plot_and_leaves_the_notebooks_alone(tool, tmp_path):
    project = _fixture_project(tmp_path / "proj")
    before = _snapshot(project)
    out = tmp_path / "site"
    log = _build(project, out, "--workers", "1")
    assert "nbdev-test --save" in log
    page = (out / "plotfix.html").read_text(encoding="utf-8")
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]{200,}"', page), "the executed plot is not on the page"
    assert '<span class="math display">\\[a^2+b^2=c^2\\]</span>' in page
    assert 'src="mathjax/tex-chtml.js"' in page
    assert _snapshot(project) == before, "the build changed the project it documents"


def test_refuses_to_empty_a_folder_that_is_not_a_site(tool, tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    r = subprocess.run([sys.executable, str(SCRIPT), "--offline", "--no-exec", "--project", str(_fixture_project(tmp_path / "p")),
                        "--out", str(out)], capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert r.returncode != 0 and "is not a built site" in r.stderr
    assert (out / "notes.txt").read_text() == "keep me"


def test_broken_links_finds_missing_pages_and_anchors(tmp_path):
    mod = _tool()
    (tmp_path / "a.html").write_text('<h2 id="ledger.check">x</h2><a href="b.html#there">ok</a><a href="#ledger.check">ok</a>'
                                     '<a href="b.html#nowhere">bad</a><a href="c.html">bad</a><a href="https://x.org/y#z">ext</a>'
                                     '<a href="claims/t.csv">ok</a>')
    (tmp_path / "b.html").write_text('<p id="there">y</p><a href="a.html#ledger.check">ok</a><a href="a.html#svt.run">bad</a>')
    (tmp_path / "claims").mkdir(); (tmp_path / "claims" / "t.csv").write_text("x")
    assert mod.broken_links(tmp_path) == ["a.html: b.html#nowhere", "a.html: c.html", "b.html: a.html#svt.run"]


def test_notebook_links_point_into_the_site(tmp_path):
    "A jump link to a heading's Jupyter anchor lands on smalldocs' id for it; a link to a committed table on its page."
    mod = _tool()
    (tmp_path / "claims").mkdir(); (tmp_path / "claims" / "002_capp.html").write_text("<p>table</p>")
    page = tmp_path / "capp.html"
    text = ('<section id="fig.-8-the-users-means"><h3 class="anchored" data-anchor-id="fig.-8-the-users-means">Fig. 8: the '
            'users\u2019 <em>means</em></h3></section><h3 class="anchored" data-anchor-id="claims">Claims</h3>'
            '<a href="#Fig.-8:-the-users%27-means">a</a><a href="#Claims">b</a><a href="#claims">c</a><a href="#Nowhere">d</a>'
            '<a href="../claims/002_capp.md">e</a><a href="claims/002_capp.md">f</a><a href="../claims/009_none.md">g</a>')
    fixed = mod.claims_links(mod.jupyter_anchors(text), page, tmp_path)
    assert re.findall(r'href="([^"]*)"', fixed) == ["#fig.-8-the-users-means", "#claims", "#claims", "#Nowhere",
                                                   "claims/002_capp.html", "claims/002_capp.html", "../claims/009_none.md"]


def test_no_exec_reuses_the_last_full_builds_outputs_while_the_source_is_unchanged(tmp_path):
    mod = _tool()
    project, work = tmp_path / "p", tmp_path / "w"
    for d in (project / "nbs", work / "nbs"): d.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(); nb.cells = [nbformat.v4.new_code_cell("1 + 1")]
    nbformat.write(nb, project / "nbs" / "a.ipynb"); nbformat.write(nb, project / "nbs" / "b.ipynb")
    ran = nbformat.v4.new_notebook(); ran.cells = [nbformat.v4.new_code_cell("1 + 1", outputs=[nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)])]
    for n in ("a", "b"): nbformat.write(ran, work / "nbs" / f"{n}.ipynb")
    mod.cache_home = lambda: tmp_path / "cache"
    mod.save_executed(project, work, "nbs")
    nb.cells[0].source = "1 + 2"; nbformat.write(nb, project / "nbs" / "b.ipynb")      # b changed since the full build
    fresh = tmp_path / "w2"; shutil.copytree(project, fresh)
    mod.reuse_executed(project, fresh, "nbs")
    assert nbformat.read(fresh / "nbs" / "a.ipynb", 4).cells[0].outputs                 # reused
    assert not nbformat.read(fresh / "nbs" / "b.ipynb", 4).cells[0].outputs             # stale: the committed outputs
