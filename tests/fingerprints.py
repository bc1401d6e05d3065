"""What the bit-identity guards (tests/test_*_fingerprints.py) share: hashing arrays, the two tests of a guard and the
`--write` command that records a guard's fingerprints. A guard keeps its own cases, its key and its fingerprint function:
`cases()` yields the cases (tuples), `key(*case)` names a case in the JSON file and `fingerprint(*case)` hashes its run.
Imported as `fingerprints` (pytest puts tests/ on sys.path, as does `python tests/test_x_fingerprints.py`)."""
import json, sys
import numpy as np
import pytest


def feed(h, a):
    "Add the bytes of array `a` (C order) to the hash `h`."
    h.update(np.ascontiguousarray(np.asarray(a)).tobytes())


def digest(h, rng) -> str:
    "The fingerprint: `h` after where the run left its generator (its next two uniforms), as 20 hex digits."
    feed(h, rng.random(2))
    return h.hexdigest()[:20]


def guard(file, cases, key, fingerprint, labels, label_of=lambda c: c[0]):
    """The two tests of a guard, to be bound to test names in its module: every case has a fingerprint in `file` and the file
    holds no other; the cases of each of `labels` (`label_of(case)`) hash as recorded, one test per label."""
    def every_case_has_a_fingerprint():
        want = json.loads(file.read_text())
        assert {key(*c) for c in cases()} == set(want)

    @pytest.mark.parametrize("label", labels)
    def bit_identical(label):
        want = json.loads(file.read_text())
        bad = [k for c in cases() if label_of(c) == label and fingerprint(*c) != want[(k := key(*c))]]
        assert not bad, f"releases changed for {bad}"
    return every_case_has_a_fingerprint, bit_identical


def write_if_asked(file, cases, key, fingerprint):
    "`python tests/test_x_fingerprints.py --write`: record every case's fingerprint in `file` (only for a documented change)."
    if sys.argv[1:] != ["--write"]: return
    file.write_text(json.dumps({key(*c): fingerprint(*c) for c in cases()}, indent=0, sort_keys=True) + "\n")
    print(f"wrote {file}")
