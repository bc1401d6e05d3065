import json, os, re, shutil, subprocess, tempfile
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
# the state-signing key of the tests (06_online): a temporary one, never the user's ~/.config/wevent_nb/state.key
os.environ["WEVENT_NB_KEY"] = os.path.join(tempfile.mkdtemp(prefix="wevent_nb_key_"), "state.key")

def _data_dir():
    env = os.environ.get("WEVENT_NB_DATA")
    if env: return Path(env).expanduser().resolve()
    return (ROOT.parent / "shared" / "data").resolve()

@pytest.fixture(scope="session")
def data_home():
    "The folder of real data sets (WEVENT_NB_DATA, else ../shared/data beside the repo); skips when absent."
    p = _data_dir()
    if not p.is_dir(): pytest.skip(f"real data not found at {p}: set WEVENT_NB_DATA to the shared data folder")
    return p

@pytest.fixture(scope="session")
def root():
    return ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OVERFLOW_PROBE = """<script>window.addEventListener("load", function () {
  var over = Array.from(document.querySelectorAll(%s), function (e) { return e.scrollWidth - e.clientWidth; });
  document.title = "overflow " + JSON.stringify(over);
});</script>"""

@pytest.fixture
def sideways_overflow(tmp_path):
    "`sideways_overflow(page, selector, width)`: per element of the HTML file `page` matching the CSS `selector`, how many px it scrolls sideways in a `width` px wide headless Chromium (skips without Chromium)."
    if not CHROMIUM: pytest.skip("chromium is not installed")
    def measure(page: Path, selector: str, width: int = 1200) -> list[int]:
        probe = page.with_name(f"probe-{page.name}")         # beside the page: its stylesheets and scripts load as the page's
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", OVERFLOW_PROBE % json.dumps(selector) + "</body>"), encoding="utf-8")
        try:
            r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={tmp_path}",
                                f"--window-size={width},800", "--virtual-time-budget=8000", "--dump-dom", probe.as_uri()],
                               capture_output=True, text=True, timeout=120)
        finally: probe.unlink()
        m = re.search(r"<title>overflow (\[[^<]*\])</title>", r.stdout)
        assert m, r.stderr[-2000:]
        return json.loads(m.group(1))
    return measure
