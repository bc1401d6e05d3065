"""Every public constructor parameter is documented (issue 24): for each registered mechanism, `docments` (what
nbdev's show_doc renders on the API pages) gives every parameter of its constructor a non-empty doc, and `help()`
shows that doc (the numpy-style Parameters section of the `__init__` docstring that defines the constructor)."""
import inspect
import pydoc
import re

import pytest
from fastcore.docments import docments

from wevent_nb.core import list_mechanisms

MECHS = list_mechanisms()


def _params(cls):
    return [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "args", "kwargs", "kw")]


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@pytest.mark.parametrize("info", MECHS, ids=[i.name for i in MECHS])
def test_every_constructor_parameter_has_a_doc(info):
    docs = docments(info.cls.__init__, full=False)
    missing = [p for p in _params(info.cls) if not (docs.get(p) or "").strip()]
    assert not missing, f"{info.name} ({info.cls.__init__.__qualname__}): undocumented {missing}"


@pytest.mark.parametrize("info", MECHS, ids=[i.name for i in MECHS])
def test_help_shows_every_parameter_doc(info):
    text = _norm(pydoc.render_doc(info.cls, renderer=pydoc.plaintext).replace("|", " "))
    docs = docments(info.cls.__init__, full=False)
    absent = [p for p in _params(info.cls) if not docs.get(p) or _norm(docs[p])[:60] not in text]
    assert not absent, f"help({info.cls.__name__}) does not show the docs of {absent}"


def test_registry_summaries_stay_one_line():
    "The registry's summaries come from the one-line class docstrings, which the parameter docs leave alone."
    for i in MECHS:
        assert i.summary and "\n" not in i.summary and "Parameters" not in i.summary, i.name
