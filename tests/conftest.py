import os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]

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
