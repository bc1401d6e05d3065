"""Write the docs home page `nbs/index.ipynb` from README.md, so the two say the same (tests/test_project_docs.py checks it).

    .venv/bin/python tools/readme_to_index.py

The page is: a title cell (`# name` and the `> description`, which nbdev turns into the page's front matter, dropping
anything else in that cell), the README's text up to the tour, the tour's Python block as a code cell (the docs build
runs it, so the page shows its output), and the rest of the README."""
from __future__ import annotations
import re
import sys
from pathlib import Path
import nbformat

ROOT = Path(__file__).resolve().parents[1]
TOUR = re.compile(r"```python\n(.*?)```\n", re.S)


def index_cells(readme: str) -> list:
    "The notebook cells of the home page, from the README's text."
    m = re.match(r"(# [^\n]+\n\n> [^\n]+\n)\n(.*)", readme, re.S)
    if m is None: raise ValueError("README.md must start with '# title', a blank line and '> description'")
    title, body = m.groups()
    t = TOUR.search(body)
    if t is None: raise ValueError("README.md has no ```python block (the tour)")
    cells = [nbformat.v4.new_markdown_cell(title.strip()), nbformat.v4.new_markdown_cell(body[:t.start()].strip()),
             nbformat.v4.new_code_cell(t.group(1).strip())]
    rest = body[t.end():].strip()
    return cells + ([nbformat.v4.new_markdown_cell(rest)] if rest else [])


def main() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = index_cells((ROOT / "README.md").read_text(encoding="utf-8"))
    nb.metadata = {"kernelspec": {"display_name": "python3", "language": "python", "name": "python3"}}
    nbformat.write(nb, ROOT / "nbs" / "index.ipynb")


if __name__ == "__main__":
    sys.exit(main())
