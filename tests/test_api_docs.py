"""Every public constructor parameter is documented (issue 24): for each registered mechanism, `docments` (what
nbdev's show_doc renders on the API pages) gives every parameter of its constructor a non-empty doc, and `help()`
shows that doc (the numpy-style Parameters section of the `__init__` docstring that defines the constructor)."""
import ast
import importlib
import inspect
import pkgutil
import pydoc
import re
from pathlib import Path

import pytest
from fastcore.docments import docments

import wevent_nb
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


# ---------------------------------------------------------------- docstrings read as plain text (issue 24)

# help(), the API pages and the docs search show docstrings as they are: no TeX typesets them there
TEX = re.compile(r"\\[A-Za-z]+|[_^]\{|\$")         # a command (\frac, \varepsilon), a braced sub/superscript (x_{t-1}), a $ of maths
NOT_TEX = re.compile(r"`[^`]*`|\$[A-Z][A-Z0-9_]*\b")  # code spans and environment variables ($WEVENT_NB_DATA) may spell them


def _public_docs():
    "(name, docstring) of the package, each public module, and every public class, function, method and property they define."
    yield "wevent_nb", wevent_nb.__doc__
    for info in pkgutil.iter_modules(wevent_nb.__path__):
        if info.name.startswith("_"): continue
        mod = importlib.import_module(f"wevent_nb.{info.name}")
        yield mod.__name__, mod.__doc__
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__: continue
            if not (inspect.isclass(obj) or inspect.isfunction(obj)): continue
            yield f"{mod.__name__}.{name}", obj.__doc__
            for k, v in vars(obj).items() if inspect.isclass(obj) else ():
                f = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
                if (k == "__init__" or not k.startswith("_")) and inspect.isfunction(f): yield f"{mod.__name__}.{name}.{k}", f.__doc__


def _tex(doc: str) -> list[str]:
    return [m.group(0) for m in TEX.finditer(NOT_TEX.sub("", doc or ""))]


def test_the_tex_check_finds_tex_and_passes_plain_text():
    for tex in ("the raw |x_t - x_{t-1}|_1", r"noise \varepsilon/(2w)", r"error $\frac1n\sum|e|$", "p = e^{eps/2}"):
        assert _tex(tex), tex
    for plain in ("the raw ‖x_t - x[t-1]‖₁ > tau", "noise ε/(2w), sd²", "$WEVENT_NB_DATA, else ~/.cache", "typesets `$..$` and `\\(..\\)`"):
        assert not _tex(plain), plain


def test_docstrings_have_no_tex_markup():
    docs = list(_public_docs())
    assert len(docs) > 300, len(docs)                    # the walk reaches the methods, not only the modules
    bad = {name: _tex(doc) for name, doc in docs if _tex(doc)}
    assert not bad, f"TeX markup in docstrings (write it in plain Unicode: x[t-1], ε/(2w), ‖x‖₁): {bad}"


# ---------------------------------------------------------------- one text per parameter per module (core.param_docs)

def _written_param_docs(path: Path):
    "(class, parameter, text) of each entry written in the source of the module's `__init__` Parameters sections (before param_docs adds the shared ones)."
    from wevent_nb.core import _param_entries
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef): continue
        for f in node.body:
            if isinstance(f, ast.FunctionDef) and f.name == "__init__" and (doc := ast.get_docstring(f)):
                for name, entry in _param_entries(doc.partition("\n\nParameters\n----------\n")[2]).items():
                    yield node.name, name, _norm(entry.partition("\n")[2])


def test_no_module_writes_a_parameter_doc_twice():
    "A parameter text shared by a module's classes lives once, in the module's dict that param_docs composes from."
    twice = []
    for path in sorted(Path(wevent_nb.__file__).parent.glob("*.py")):
        seen = {}
        for cls, name, text in _written_param_docs(path):
            if (name, text) in seen: twice.append(f"{path.name}: {name} of {cls} repeats {seen[name, text]}'s")
            seen.setdefault((name, text), cls)
    assert not twice, "\n".join(twice)
