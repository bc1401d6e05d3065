"Tests of wevent_nb.data: synthetic generators, real-data loaders (verified, located, downloaded), expand_to_users."
import dataclasses, urllib.request, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wevent_nb.data as wd
from wevent_nb.core import (CategoricalAggregate, CategoricalPopulation, HistogramStream, NumericPopulation,
                            PersonalizedPopulation, ScalarStream, spawn_rngs)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    "Tests never touch the network: only file:// URLs may be opened."
    real = urllib.request.urlopen
    def guarded(url, *a, **k):
        u = url if isinstance(url, str) else url.full_url
        if not u.startswith("file:"): raise AssertionError(f"test tried to open a network URL: {u}")
        return real(url, *a, **k)
    monkeypatch.setattr(urllib.request, "urlopen", guarded)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    "No WEVENT_NB_DATA, and the per-user cache redirected into tmp_path."
    monkeypatch.delenv("WEVENT_NB_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _load(name, home, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return wd.load(name, home, **kw)

# ---------------------------------------------------------------- registry and real files

def test_registry_entries_complete(data_home):
    assert len(wd.DATASETS) == 21
    for name, info in wd.DATASETS.items():
        assert info.name == name and info.papers and info.licence and info.description
        assert info.url.startswith("https://") and len(info.sha256) == 64
        assert info.kind in ("histogram", "scalar", "numeric")
        p = data_home / info.file
        assert p.is_file(), p
        assert wd.sha256_file(p) == info.sha256, name
    tests_only = {n for n, i in wd.DATASETS.items() if "tests only" in i.licence}
    assert tests_only == {"spas-tdv", "tdrive64", "spas-ret", "delay-foodmart"}


@pytest.mark.parametrize("name", list(wd.DATASETS))
def test_every_loader_returns_its_kind(data_home, name):
    s = _load(name, data_home)
    kind = wd.DATASETS[name].kind
    want = {"histogram": HistogramStream, "scalar": ScalarStream, "numeric": NumericPopulation}[kind]
    assert isinstance(s, want)


def test_spas_one_dimensional_sets(data_home):
    otp = wd.load("spas-otp", data_home)
    assert otp.counts.shape == (4848, 1) and otp.counts[:3, 0].tolist() == [570, 615, 681]
    assert otp.counts.max() == 175_650  # the paper's "17,5650" domain
    assert np.array_equal(otp.counts[:1212], otp.counts[1212:2424])
    assert wd.load("F1d", data_home).counts.shape == (4848, 1)          # alias
    assert wd.load("otp", data_home, length="original").T == 1212
    x4000 = wd.load("otp", data_home, length=4000)
    assert x4000.T == 4000 and np.array_equal(x4000.counts[1212:2424], otp.counts[:1212])
    assert wd.load("otp", data_home, column="TOTAL PATIENTS").counts.max() == 2_260_794
    dth = wd.load("Dth", data_home)
    assert dth.counts.shape == (4070, 1) and dth.counts[:3, 0].tolist() == [14, 18, 20] and dth.counts.max() == 1626
    assert wd.load("Dth", data_home, length="original").T == 1221
    uem = wd.load("Uem", data_home)
    assert uem.counts.shape == (4872, 1) and (uem.counts.min(), uem.counts.max()) == (72, 612)
    assert uem.counts[0, 0] == 247 and wd.load("Uem", data_home, length="original").T == 609
    un = wd.load("unemployment", data_home)
    assert un.counts.shape == (622, 1) and np.array_equal(un.counts[:609], uem.counts[:609])


def test_spas_multi_dimensional_sets(data_home):
    flu = wd.load("Fmd", data_home)
    assert flu.counts.shape == (3768, 55) and flu.counts[0, :3].tolist() == [249, 15, 172] and flu.counts.max() == 22_904
    assert flu.counts[:628].sum() == 13_825_615          # line 1 of the file (the grand total) is not a data row
    tdv = wd.load("Tdv", data_home)
    assert tdv.counts.shape == (3556, 64) and tdv.counts.max() == 2627 and tdv.counts[:1778].sum() == 14_878_859
    td = wd.load("tdrive64", data_home)
    assert np.array_equal(td.counts, tdv.counts[:1778])
    raw = wd.load("Ret", data_home, raw=True)
    assert raw.shape == (3627, 100) and raw.min() == -863 and raw[0, 0] == 24924
    ret = wd.load("Ret", data_home)                      # spec A21 keeps the negatives: shifted, not clipped
    assert isinstance(ret, wd.ShiftedHistogramStream) and ret.offset == 863 and ret.counts.min() == 0
    assert np.array_equal(ret.signed, raw) and np.array_equal(wd.signed_counts(ret), raw)
    with pytest.warns(UserWarning, match="clipped 434 negative values"):
        clipped = wd.load("Ret", data_home, negatives="clip")
    assert type(clipped) is wd.HistogramStream and clipped.counts.min() == 0 and np.array_equal(clipped.counts, np.maximum(raw, 0))
    with pytest.raises(ValueError, match="434 negative values"):
        wd.load("Ret", data_home, negatives="raise")
    with pytest.raises(ValueError, match="negatives='zero' is not allowed"):
        wd.load("Ret", data_home, negatives="zero")
    assert wd.load("Ret", data_home, length="original", raw=True).shape == (143, 100)
    wc = wd.load("worldcup", data_home)
    assert wc.counts.shape == (2556, 10) and wc.counts.max() == 4
    op = wd.load("outpatient", data_home)
    assert op.counts.shape == (1364, 6) and op.counts[0].tolist() == [179, 205, 29, 570, 192, 46842]
    assert wd.load("outpatient", data_home, columns=["ILITOTAL"]).counts.shape == (1364, 1)


def test_spas_shipped_synthetic_files(data_home):
    s1, s2, s3 = (wd.load(n, data_home) for n in ("Syn1", "Syn2", "Syn3"))
    assert s1.counts.shape == (10_000, 1) and (s1.counts.min(), s1.counts.max()) == (1, 200)
    assert s2.counts.max() == 1032                       # Table 2's "1032" is the observed maximum
    tail = s2.counts[5000:, 0]
    # the authors' Gaussian half is floor(N(1000, 10^2)): mean 999.5 (to_int="floor"), sd 10
    assert abs(tail.mean() - 999.5) < 5 * 10 / np.sqrt(5000) and abs(tail.std() - 10) < 5 * 10 / np.sqrt(10_000)
    assert s3.counts.shape == (10_000, 10) and abs(s3.counts[5000:].mean() - 999.5) < 5 * 10 / np.sqrt(50_000)
    assert abs(s3.counts[5000:].mean() - 1000) > 5 * 10 / np.sqrt(50_000)        # not rounding
    with pytest.raises(ValueError, match="negative"):
        wd.load("spas-arbitrary1", data_home, negatives="raise")


def test_delay_sets(data_home):
    cov = wd.load("delay-covid", data_home)
    assert (cov.T, cov.lo, cov.hi) == (216, 0.0, 25_974.0) and cov.values[:3].tolist() == [0, 1, 2]
    cova = wd.load("covid", data_home, artifact=True)
    assert cova.T == 214 and abs(cova.values.mean() - 5397.8) < 0.05     # the spec's artifact mean
    un = wd.load("delay-unemployment", data_home)
    assert (un.T, un.values.min(), un.hi) == (622, 72, 612)
    una = wd.load("delay-unemployment", data_home, artifact=True)
    assert una.T == 621 and abs(una.values.mean() - 275.2) < 0.05
    out = wd.load("delay-outpatient", data_home)
    assert (out.T, out.values.min(), out.hi) == (1212, 27_263, 2_260_794) and out.values[0] == 46842
    assert wd.load("delay-outpatient", data_home, artifact=True).T == 4848
    fm = wd.load("foodmart", data_home)
    assert (fm.T, fm.values.min(), fm.hi) == (18_319, 1, 1559) and abs(fm.values.mean() - 784.5) < 0.05
    assert wd.load("foodmart", data_home, hi=2000).hi == 2000
    assert wd.load("foodmart", data_home, raw=True).shape == (18_319,)
    with pytest.raises(ValueError, match="domain"):
        wd.load("foodmart", data_home, hi=100)


def test_capp_sets(data_home):
    c6 = wd.load("C6H6", data_home)
    assert c6.values.shape == (1, 8990) and (c6.values.min(), c6.values.max()) == (0.0, 1.0)
    assert abs(c6.values.mean() - 0.157) < 1e-3 and abs(np.median(c6.values) - 0.127) < 1e-3   # capp.md §6.1
    raw = wd.load("C6H6", data_home, raw=True)
    assert (raw.min(), raw.max()) == (0.1, 63.7) and not np.any(raw == -200)
    unnorm = wd.load("C6H6", data_home, normalise=False)
    assert (unnorm.lo, unnorm.hi) == (0.1, 63.7)
    vol = wd.load("Volume", data_home)
    assert vol.values.shape == (1, 48_204) and abs(vol.values.mean() - 0.448) < 1e-3
    assert wd.load("Volume", data_home, raw=True).max() == 7280


def test_paper_datasets_and_lookup(data_home):
    for paper, names in wd.PAPER_DATASETS.items():
        for n in names: assert paper.split()[0] in " ".join(wd.DATASETS[n].papers)
    assert wd.get_dataset_info("c6h6").name == "capp-c6h6"
    with pytest.raises(KeyError, match="no data set named 'nope'"):
        wd.load("nope", data_home)
    with pytest.raises(ValueError, match="length='twice'"):
        wd.load("otp", data_home, length="twice")
    with pytest.raises(ValueError, match="length=0"):
        wd.load("otp", data_home, length=0)
    with pytest.raises(ValueError, match="column='ILI'"):
        wd.load("otp", data_home, column="ILI")

# ---------------------------------------------------------------- verification, location, download

def test_corrupted_copy_fails_clearly(data_home, tmp_path):
    (tmp_path / "delay").mkdir()
    good = (data_home / "delay/COVID19_DEATH.csv").read_bytes()
    (tmp_path / "delay/COVID19_DEATH.csv").write_bytes(good.replace(b"25974", b"25975"))
    with pytest.raises(wd.ChecksumMismatch) as e:
        wd.load("delay-covid", tmp_path)
    msg = str(e.value)
    assert "delay-covid" in msg and wd.DATASETS["delay-covid"].sha256 in msg and "verify=False" in msg
    assert isinstance(e.value, ValueError)
    assert wd.load("delay-covid", tmp_path, verify=False).hi == 25975


def test_missing_file_message(clean_env):
    with pytest.raises(FileNotFoundError) as e:
        wd.load("spas-dth")
    msg = str(e.value)
    cache = clean_env / "xdg" / "wevent_nb"
    assert "'spas-dth'" in msg and str(cache / "spas/old_data_ori__death.csv") in msg
    assert "WEVENT_NB_DATA" in msg and "download=True" in msg and "https://gis.cdc.gov/grasp/fluview/mortality.html" in msg
    assert not cache.exists()                                   # nothing downloaded or created by default


def test_missing_file_lists_every_place(clean_env, monkeypatch):
    monkeypatch.setenv("WEVENT_NB_DATA", str(clean_env / "envdir"))
    with pytest.raises(FileNotFoundError) as e:
        wd.dataset_path("capp-volume")
    msg = str(e.value)
    assert str(clean_env / "envdir" / "capp/volume.mat") in msg and str(clean_env / "xdg/wevent_nb/capp/volume.mat") in msg


def test_data_home_resolution(clean_env, monkeypatch, data_home):
    assert wd.cache_dir() == clean_env / "xdg" / "wevent_nb"
    assert wd.data_home() == wd.cache_dir()
    monkeypatch.setenv("WEVENT_NB_DATA", str(data_home))
    assert wd.data_home() == data_home and wd.data_home("/x/y") == Path("/x/y")
    s = wd.load("delay-covid")                                    # found through WEVENT_NB_DATA
    assert s.T == 216
    assert wd.list_datasets()["available"].all()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(clean_env / "home"))
    assert wd.cache_dir() == clean_env / "home" / ".cache" / "wevent_nb"


def test_download_via_file_url(clean_env, data_home):
    uri = (data_home / "delay/COVID19_DEATH.csv").as_uri()
    s = wd.load("delay-covid", download=True, url=uri)          # no data home: fetched into the cache
    dest = clean_env / "xdg/wevent_nb/delay/COVID19_DEATH.csv"
    assert s.T == 216 and dest.is_file() and wd.sha256_file(dest) == wd.DATASETS["delay-covid"].sha256
    assert not list(dest.parent.glob("*.part"))
    assert wd.load("delay-covid").T == 216                       # now found in the cache without download


def test_download_uses_registry_url(clean_env, data_home, monkeypatch):
    info = wd.DATASETS["capp-c6h6"]
    monkeypatch.setitem(wd.DATASETS, "capp-c6h6", dataclasses.replace(info, download_url=(data_home / info.file).as_uri()))
    target = clean_env / "explicit"
    s = wd.load("C6H6", target, download=True)                   # explicit data home: fetched there
    assert s.values.shape == (1, 8990) and (target / "capp/air.mat").is_file()


def test_download_checksum_mismatch_not_kept(clean_env, data_home):
    wrong = (data_home / "delay/unemployment.csv").as_uri()
    with pytest.raises(wd.ChecksumMismatch, match="was not kept"):
        wd.load("delay-covid", download=True, url=wrong)
    assert not (clean_env / "xdg/wevent_nb/delay/COVID19_DEATH.csv").exists()
    assert not list((clean_env / "xdg/wevent_nb/delay").glob("*"))


def test_download_failure_message(clean_env):
    bad = (clean_env / "nothing_here.csv").as_uri()
    with pytest.raises(OSError, match="could not download data set 'delay-foodmart'"):
        wd.load("delay-foodmart", download=True, url=bad)


def test_list_datasets_table(data_home, clean_env):
    df = wd.list_datasets(data_home)
    assert isinstance(df, pd.DataFrame) and len(df) == len(wd.DATASETS)
    assert {"name", "papers", "file", "available", "path", "url", "licence"} <= set(df.columns)
    assert df["available"].all() and all(Path(p).is_file() for p in df["path"])
    empty = wd.list_datasets(clean_env / "none")
    assert not empty["available"].any() and (empty["path"] == "").all()


def test_import_downloads_nothing(clean_env):
    import os, subprocess, sys
    env = dict(os.environ, XDG_CACHE_HOME=str(clean_env / "xdg")); env.pop("WEVENT_NB_DATA", None)
    subprocess.run([sys.executable, "-c", "import wevent_nb.data as d; d.list_datasets()"], env=env, check=True)
    assert not (clean_env / "xdg").exists()

# ---------------------------------------------------------------- synthetic generators

def test_probability_sequences():
    t = np.arange(1, 801)
    np.testing.assert_allclose(wd.sin_probabilities(), 0.05 * np.sin(0.01 * t) + 0.075, rtol=0, atol=1e-15)
    np.testing.assert_allclose(wd.log_probabilities(), 0.25 / (1 + np.exp(-0.01 * t)), rtol=0, atol=1e-15)
    p = wd.lns_probabilities(T=4000, p0=0.5, rng=2)
    inc = np.diff(np.r_[0.5, p])
    assert abs(inc.mean()) < 5 * 0.0025 / np.sqrt(inc.size)
    assert abs(inc.std(ddof=1) - 0.0025) < 5 * 0.0025 / np.sqrt(2 * (inc.size - 1))
    assert np.array_equal(wd.lns_probabilities(rng=3), wd.lns_probabilities(rng=3))
    assert wd.lns_probabilities(rng=4, require_positive=True).min() > 0
    clipped = wd.lns_probabilities(T=3000, sd=0.05, rng=0)
    assert clipped.min() == 0 and clipped.max() == 1           # clipped at both ends, never outside
    r = wd.lns_probabilities(T=30, p0=0.5, rng=0, round_decimals=2)
    assert np.array_equal(r, np.round(r, 2))
    with pytest.raises(RuntimeError, match="min p_t > 0"):
        wd.lns_probabilities(T=2000, p0=0.0, sd=0.01, rng=0, require_positive=True, max_tries=3)


@pytest.mark.parametrize("call, match", [
    (lambda: wd.lns_probabilities(T=0), "T=0"), (lambda: wd.lns_probabilities(p0=1.5), "p0=1.5"),
    (lambda: wd.lns_probabilities(sd=float("nan")), "sd=nan"), (lambda: wd.log_probabilities(A=2.0), "outside"),
    (lambda: wd.binary_aggregate([0.2], N=-1), "N=-1"), (lambda: wd.binary_aggregate([0.2, np.nan], 5), "finite"),
    (lambda: wd.binary_population([0.2], 5, model="x"), "model='x'"), (lambda: wd.ldp_ids_synthetic("Exp"), "model='Exp'"),
    (lambda: wd.personalized_params(5, scheme="z"), "scheme='z'"), (lambda: wd.personalized_params(5, n_groups=6), "n_groups=6"),
    (lambda: wd.personalized_params(5, eps_levels=[0.0]), "eps_levels"), (lambda: wd.two_type_params(5, -0.1), "o=-0.1"),
    (lambda: wd.budget_levels(0), "eps=0"), (lambda: wd.window_levels(0), "w=0"),
    (lambda: wd.spas_syn3(d=0), "d=0"), (lambda: wd.capp_sin_data(d=2, phases=[0.0]), "phases"),
    (lambda: wd.markov_population(10, 5, 3, stay=1.5), "stay=1.5"), (lambda: wd.markov_population(10, 5, 3, drift=-1), "drift=-1"),
    (lambda: wd.markov_population(10, 5, 3, pi=[[0.5, 0.6]]), "pi must"), (lambda: wd.standin("x"), "name='x'"),
    (lambda: wd.personalized_population(np.zeros((2, 2)), [1, 1], [1, 1]), "CategoricalPopulation"),
])
def test_bad_inputs(call, match):
    with pytest.raises((ValueError, TypeError), match=match.replace("(", r"\(")):
        call()


def test_binary_exact_and_bernoulli():
    p = wd.sin_probabilities(T=300)
    pop = wd.binary_population(p, 2000, rng=0)
    assert pop.values.dtype == np.int8 and np.array_equal(pop.counts[:, 1], np.rint(p * 2000))
    assert np.array_equal(pop.counts, wd.binary_aggregate(p, 2000).counts)
    # which users hold 1 is uniform: user 0's frequency of 1 over t matches mean(k_t/N) within 5 SE
    q = np.rint(p * 2000) / 2000
    f = pop.values.mean(1)
    assert abs(f.mean() - q.mean()) < 1e-12
    assert abs(f[:200].mean() - q.mean()) < 5 * np.sqrt(np.mean(q * (1 - q)) / (200 * p.size))
    for agg in (wd.binary_aggregate(p, 100_000, rng=1, model="bernoulli"), wd.binary_population(p, 3000, rng=2, model="bernoulli")):
        z = (agg.counts[:, 1] - agg.N * p) / np.sqrt(agg.N * p * (1 - p))
        assert abs(z.mean()) < 5 / np.sqrt(p.size) and abs(z.var() - 1) < 5 * np.sqrt(2 / p.size)


def test_paper_synthetic_sets():
    a = wd.ldp_ids_synthetic(rng=0)
    assert isinstance(a, CategoricalAggregate) and (a.N, a.T, a.d) == (200_000, 800, 2) and a.counts[:, 1].min() > 0
    p0 = wd.lns_probabilities(800, rng=spawn_rngs(0, 2)[0], require_positive=True)
    assert np.array_equal(a.counts[:, 1], np.rint(p0 * 200_000))
    assert np.array_equal(wd.ldp_ids_synthetic(N=5000, rng=0).counts[:, 1], np.rint(p0 * 5000))   # same p for other N
    u = wd.ldp_ids_synthetic("Log", N=300, T=40, aggregate=False, rng=1)
    assert isinstance(u, CategoricalPopulation) and u.values.shape == (300, 40)
    b = wd.pbd_synthetic("TLNS", N=400, T=500, rng=3)
    assert isinstance(b, CategoricalPopulation) and b.values.shape == (400, 500)
    assert np.array_equal(b.values, wd.pbd_synthetic("TLNS", N=400, T=500, rng=3).values)
    assert not np.array_equal(b.values, wd.pbd_synthetic("TLNS", N=400, T=500, rng=4).values)
    big = wd.pbd_synthetic("Sin", rng=5, aggregate=True)
    assert (big.N, big.T) == (10_000, 10_000)
    p = wd.sin_probabilities(10_000)
    z = (big.counts[:, 1] - 10_000 * p) / np.sqrt(10_000 * p * (1 - p))
    assert abs(z.mean()) < 5 / 100 and abs(z.var() - 1) < 5 * np.sqrt(2 / 10_000)


def test_personalized_assignment():
    e, w = wd.personalized_params(1000, 0.6, 120, rng=0)
    assert e.shape == w.shape == (1000,) and set(e) <= {0.6, 0.8, 1.0} and set(w) <= {40, 80, 120}
    for g in range(10):                                    # constant inside each id-ordered group of 100 users
        assert len(set(e[g * 100:(g + 1) * 100])) == 1 and len(set(w[g * 100:(g + 1) * 100])) == 1
    assert np.array_equal(e, wd.personalized_params(1000, 0.6, 120, rng=0)[0])
    e2, w2 = wd.personalized_params(30_000, 0.2, 200, rng=1, scheme="iid")
    for levels, x in ((wd.budget_levels(0.2), e2), (wd.window_levels(200), w2)):
        freq = np.array([np.mean(x == v) for v in levels]); q = 1 / len(levels)
        assert np.all(np.abs(freq - q) < 5 * np.sqrt(q * (1 - q) / x.size))
    assert wd.budget_levels(1.0).tolist() == [1.0] and wd.window_levels(40).tolist() == [40]
    assert wd.window_levels(20).tolist() == [20]
    e3, w3 = wd.two_type_params(7, 0.5)
    assert e3.tolist() == [1.0] * 4 + [0.6] * 3 and set(w3) == {120}
    e4, w4 = wd.two_type_params(10, 0.1, vary="w")
    assert w4.tolist() == [40] + [120] * 9 and set(e4) == {0.6}
    pp = wd.pbd_personalized_synthetic("Log", N=100, T=30, rng=0)
    assert isinstance(pp, PersonalizedPopulation) and pp.eps.shape == (100,) and pp.w.dtype == np.int64


def test_spas_and_capp_generators():
    s1 = wd.spas_syn1(rng=0)
    assert s1.counts.shape == (10_000, 1) and s1.counts.min() >= 1 and s1.counts.max() <= 200
    assert abs(s1.counts.mean() - 100.5) < 5 * np.sqrt((200 ** 2 - 1) / 12 / 10_000)
    s2 = wd.spas_syn2(rng=1)
    assert s2.counts[:5000].max() <= 1000 and abs(s2.counts[5000:].mean() - 1000) < 5 * 10 / np.sqrt(5000)
    f = wd.spas_syn3(rng=4, to_int="floor").counts[5000:]
    assert abs(f.mean() - 999.5) < 5 * 10 / np.sqrt(f.size)
    r = wd.spas_syn3(rng=4).counts[5000:]
    assert abs(r.mean() - 1000) < 5 * 10 / np.sqrt(r.size)
    with pytest.raises(ValueError, match="to_int='ceil'"):
        wd.spas_syn2(to_int="ceil")
    s3 = wd.spas_syn3(T=2000, rng=2)
    assert s3.counts.shape == (2000, 10) and s3.counts[:1000].max() <= 10_000
    assert np.array_equal(wd.spas_syn3(T=50, rng=3).counts, wd.spas_syn3(T=50, rng=3).counts)
    assert np.all(wd.capp_constant().values == 0.1)
    assert (np.flatnonzero(wd.capp_pulse(12).values[0]) + 1).tolist() == [5, 10]
    sn = wd.capp_sinusoidal().values[0]
    assert sn.shape == (1000,) and abs(sn[4] - 1) < 1e-12 and abs(sn.mean() - 0.5) < 1e-9
    sd = wd.capp_sin_data(12, T=100)
    assert sd.values.shape == (12, 100) and abs(sd.values[0, 49] - (0.5 + 0.5 * np.sin(2 * np.pi * 0.5))) < 1e-12


def test_markov_standin():
    pi = np.tile([0.7, 0.2, 0.1], (12, 1))
    R, N = 150, 800
    for aggregate in (True, False):
        last = np.array([wd.markov_population(N, 12, 3, stay=0.8, rng=r, pi=pi, aggregate=aggregate).counts[-1]
                         for r in spawn_rngs(0, R)])
        assert np.all(np.abs(last.mean(0) - N * pi[0]) < 5 * last.std(0, ddof=1) / np.sqrt(R))   # stationary at pi
    m = wd.markov_population(2000, 30, 4, stay=0.9, rng=1)
    change = (m.values[:, 1:] != m.values[:, :-1]).mean()
    assert change < 0.1                                           # at most 1 - stay of users move
    assert np.array_equal(m.values, wd.markov_population(2000, 30, 4, stay=0.9, rng=1).values)
    s = wd.standin("pbd-taxi", rng=0, aggregate=True, T=50)
    assert (s.N, s.T, s.d) == (10_357, 50, 100) and "stand-in" in s.name


def test_load_user_matrix(tmp_path):
    a = np.array([[-1, -1, 3, -1], [0, 1, -1, 2]])
    np.save(tmp_path / "m.npy", a)
    np.savez(tmp_path / "m.npz", values=a)
    pd.DataFrame(np.where(a < 0, np.nan, a)).to_csv(tmp_path / "m.csv", header=False, index=False)
    for f in ("m.npy", "m.npz", "m.csv"):
        pop = wd.load_user_matrix(tmp_path / f, d=4)
        assert pop.values.tolist() == [[3, 3, 3, 3], [0, 1, 1, 2]]
    np.save(tmp_path / "bad.npy", np.array([[-1, -1], [0, 1]]))
    with pytest.raises(ValueError, match="user 0 .* no observed value"):
        wd.load_user_matrix(tmp_path / "bad.npy")

# ---------------------------------------------------------------- expand_to_users

def test_scale_counts_largest_remainder():
    H = np.array([[5, 3, 2], [1, 1, 1], [0, 7, 0], [2, 2, 2]])
    s = wd.scale_counts(H, N=10)
    assert s.tolist() == [[5, 3, 2], [4, 3, 3], [0, 10, 0], [4, 3, 3]]   # ties go to the lower bin
    q = H * 10 / H.sum(1, keepdims=True)
    assert np.all(np.abs(s - q) < 1) and np.all(s.sum(1) == 10)
    assert np.array_equal(wd.scale_counts(np.array([[3, 1], [2, 2]])), [[3, 1], [2, 2]])
    rng = np.random.default_rng(0)
    for _ in range(50):                                     # largest remainder: floor(q) <= n <= ceil(q), sums exact
        c = rng.integers(0, 100, size=(5, rng.integers(1, 30))); c[:, 0] += 1
        n = int(rng.integers(1, 10_000))
        s = wd.scale_counts(c, n); q = c * n / c.sum(1, keepdims=True)
        assert np.all(s.sum(1) == n) and np.all(s >= np.floor(q) - 1e-9) and np.all(s <= np.ceil(q) + 1e-9)
        assert np.array_equal(wd.scale_counts(c, int(c[0].sum()))[0], c[0])   # N = the row total: exact


def test_expand_to_users_exact_and_sticky():
    rng = np.random.default_rng(1)
    H = rng.integers(0, 30, size=(150, 12))
    u = wd.expand_to_users(H, N=3000, rng=2)
    assert isinstance(u, CategoricalPopulation) and u.values.shape == (3000, 150)
    assert np.array_equal(u.counts, wd.scale_counts(H, 3000))
    moved = (u.values[:, 1:] != u.values[:, :-1]).sum(0)
    assert np.array_equal(moved, np.maximum(u.counts[:-1] - u.counts[1:], 0).sum(1))     # the minimum possible
    eq = np.array([[4, 0, 1], [2, 2, 1], [0, 0, 5]])
    v = wd.expand_to_users(eq, rng=0)
    assert v.N == 5 and np.array_equal(v.counts, eq)
    assert np.array_equal(v.values, wd.expand_to_users(eq, rng=0).values)
    agg = wd.expand_to_aggregate(HistogramStream(H.astype(float), "h"), N=3000)
    assert isinstance(agg, CategoricalAggregate) and np.array_equal(agg.counts, u.counts) and agg.name == "h"
    # each user leaving a bin is chosen at random: user 0's chance to move equals moved/N on average (5 SE)
    p_move = moved / 3000
    m0 = (u.values[:, 1:] != u.values[:, :-1])[:500].mean()
    assert abs(m0 - p_move.mean()) < 5 * np.sqrt(p_move.mean() * (1 - p_move.mean()) / (500 * 149))


def test_expand_real_state_flu(data_home):
    flu = wd.load("Fmd", data_home, length="original")
    u = wd.expand_to_users(flu, N=5000, rng=0)
    assert u.values.shape == (5000, 628) and np.array_equal(u.counts, wd.scale_counts(flu, 5000))
    assert np.all(np.abs(u.counts - flu.counts * 5000 / flu.counts.sum(1, keepdims=True)) < 1)


def test_expand_bad_inputs():
    with pytest.raises(ValueError, match="different totals .* pass N="):
        wd.expand_to_users(np.array([[1, 2], [2, 2]]))
    with pytest.raises(ValueError, match="integers when N is None"):
        wd.scale_counts(np.array([[0.5, 1.5]]))
    with pytest.raises(ValueError, match="t=1 sums to 0"):
        wd.expand_to_aggregate(np.array([[1, 1], [0, 0]]), N=4)
    with pytest.raises(ValueError, match="counts >= 0"):
        wd.expand_to_users(np.array([[1, -1]]), N=4)
    with pytest.raises(ValueError, match="N=0"):
        wd.scale_counts(np.array([[1, 1]]), N=0)
    with pytest.raises(ValueError, match="dimension"):
        wd.scale_counts(np.array([1, 2, 3]), N=3)


def test_unknown_loader_option_is_refused(data_home):
    with pytest.raises(TypeError, match="bogus"):
        wd.load("spas-otp", data_home, bogus=1)
    with pytest.raises(TypeError, match="artifact"):
        wd.load("spas-otp", data_home, artifact=True)      # a Delay option on a SPAS set


def test_signed_streams_are_shifted_not_clipped():
    a = np.array([[3.0, -2.0], [0.0, 5.0]])
    s = wd.histogram_stream(a, "toy")
    assert isinstance(s, wd.ShiftedHistogramStream) and isinstance(s, HistogramStream)
    assert s.offset == wd.shift_offset(a) == 2.0 and s.counts.min() == 0 and np.array_equal(wd.signed_counts(s), a)
    plain = wd.histogram_stream(np.abs(a))
    assert type(plain) is HistogramStream and np.array_equal(wd.signed_counts(plain), np.abs(a))
    with pytest.raises(ValueError, match="finite"):
        wd.histogram_stream(np.array([1.0, np.nan]))
