"""The w-event benchmark's periodic streams (issue 25): `periodic_stream` reproduces the Java generator's shape
(datagenerator/Generator.java of chryenix/streamdp-benchmark) and `benchmark_periodic` its figures' settings."""
import numpy as np
import pytest

from wevent_nb.data import BENCHMARK_PERIODIC, benchmark_periodic, list_generated, periodic_stream

# The Java's own output with no randomness left (deviation 0, spread 0), basis 1.5: benchmarks/java/GenDump.java
JAVA_EVEN = [2.0, 3.0, 4.5, 6.75, 10.125, 6.75, 4.5, 3.0, 2.0, 1.3333333333333333, 2.0, 3.0, 4.5]          # GenDump 13 10 1.5 1 0 0
JAVA_ODD = [2.0, 3.0, 4.5, 6.75, 10.125, 6.75, 4.5, 3.0, 2.0, 1.3333333333333333, 0.8888888888888888, 2.0]  # GenDump 12 11 1.5 1 0 0
# Mean and sd over the Java's 100 streams (GenDump 1000 P 1.3 100): per-stream mean period, log of the maximum
JAVA_SHAPE = {40: ((39.5023, 6.5531), (0.3997, 0.1436)), 80: ((79.4435, 11.7180), (0.5010, 0.1482)),
              120: ((119.4743, 16.8938), (0.6963, 0.1776))}
R = 60   # streams per shape check: standard errors of 0.06-0.09 timestamps on the mean period


def _shape(x):
    pk = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])) + 1   # one strict peak per period
    return (pk[-1] - pk[0]) / (pk.size - 1), np.log(x.max())


def test_java_test_vectors():
    np.testing.assert_allclose(periodic_stream(13, 10, 1.5, period_sd=0, start_spread=0, rng=0).counts[:, 0], JAVA_EVEN, rtol=1e-12)
    np.testing.assert_allclose(periodic_stream(12, 11, 1.5, period_sd=0, start_spread=0, rng=0).counts[:, 0], JAVA_ODD, rtol=1e-12)


def test_same_seed_same_stream_and_different_seeds_differ():
    a, b = benchmark_periodic("bench-p80-a1000", rng=7), benchmark_periodic("bench-p80-a1000", rng=7)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert not np.array_equal(a.counts, benchmark_periodic("bench-p80-a1000", rng=8).counts)
    g = np.random.default_rng(5)
    np.testing.assert_array_equal(periodic_stream(rng=g).counts, periodic_stream(rng=np.random.default_rng(5)).counts)


@pytest.mark.parametrize("period", sorted(JAVA_SHAPE))
def test_shape_matches_the_java_streams(period):
    s = np.array([_shape(periodic_stream(period=period, rng=1000 + i).counts[:, 0]) for i in range(R)])
    m, se = s.mean(0), s.std(0, ddof=1) / np.sqrt(R)
    (jm, jsd) = JAVA_SHAPE[period]
    assert np.all(np.abs(m - jm) < 4 * np.sqrt(se**2 + np.square(jsd) / 100)), (m, jm)
    assert abs(m[0] - (period - 0.5)) < 4 * se[0] < 0.5   # the (int) cast truncates: a rounded length would average `period`


def test_scaling_reaches_the_asked_maximum_and_keeps_the_level():
    raw = periodic_stream(period=60, rng=2).counts[:, 0]
    for top in (12.0, 1002.0, 10_002.0):
        x = periodic_stream(period=60, max_value=top, rng=2).counts[:, 0]
        assert x.max() == pytest.approx(top, rel=1e-12)
        np.testing.assert_allclose(x - 2, (raw - 2) * (top - 2) / (raw.max() - 2), rtol=1e-12, atol=1e-12)
    b = periodic_stream(period=60, max_value=102.0, batch=100, rng=2).counts[:, 0]
    assert b.max() < 102.0 and np.all(np.diff(np.sign(np.diff(b))) == np.diff(np.sign(np.diff(raw))))   # same draw, smaller factor


def test_rounding_gives_counts():
    for name in ("bench-p80-a10", "bench-p40-a1000", "bench-p120-a10000"):
        c = benchmark_periodic(name, rng=3, to_int="round").counts
        assert c.min() >= 0 and np.all(c == np.round(c))
    c = periodic_stream(max_value=50, to_int="floor", rng=4).counts
    assert c.max() == 50 and np.all(c == np.floor(c))


def test_family_lists_the_figures_settings():
    g = list_generated()
    assert list(g["name"]) == list(BENCHMARK_PERIODIC) and len(g) == 19
    fig2 = g[g["figure"].str.contains("2a")]
    assert set(fig2["period"]) == {80} and sorted(fig2["amplitude"]) == [10, 100, 1000, 10_000]
    assert (g["max_value"] == g["amplitude"] + 2).all() and (g["batch"] == 100).all() and (g["T"] == 1000).all()


@pytest.mark.parametrize("kw, text", [
    (dict(T=0), "T=0"), (dict(period=3), "period=3"), (dict(period=80.5), "period=80.5"), (dict(basis=0.99), "basis=0.99"),
    (dict(basis=float("nan")), "basis=nan"), (dict(period_sd=-1), "period_sd=-1"), (dict(min_value=-0.5), "min_value=-0.5"),
    (dict(start_spread=-1), "start_spread=-1"), (dict(max_value=1.0), "max_value=1.0"), (dict(batch=0, max_value=10), "batch=0"),
    (dict(batch=2), "batch=2"), (dict(to_int="ceil"), "to_int='ceil'"), (dict(rng=-1), "rng=-1"),
    (dict(period=40, max_value=10_002, batch=100, rng=0), "< 0"),
    (dict(basis=1.0, start_spread=0, max_value=10), "flat")])
def test_bad_input_names_what_is_allowed(kw, text):
    with pytest.raises(ValueError, match="allowed|< 0|flat") as e:
        periodic_stream(**kw)
    assert text in str(e.value)


def test_bad_family_name_and_override():
    with pytest.raises(ValueError, match="bench-p80-a10"):
        benchmark_periodic("bench-p80-a7")
    with pytest.raises(ValueError, match="eps"):
        benchmark_periodic("bench-p80-a10", eps=1.0)
