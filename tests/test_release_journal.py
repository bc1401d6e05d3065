"""Issue 38, finding 3 (restored backups) and the seed rule at the state: fresh noise at every resume of an unseeded stream,
the optional append-only journal (`--journal`) that refuses a restored older state, and seeded/unseeded runs that do not mix
through any path (the command, `Session(..., resume=True)`, `Session.resume`)."""
import contextlib, io, pickle, shutil, subprocess
from types import SimpleNamespace
import numpy as np
import pytest
from wevent_nb.cli import main
from wevent_nb.core import list_mechanisms
from wevent_nb.online import (Journal, JournalInvalid, Session, StateLocked, StateMismatch, _scan_journal, _state_key, fresh_noise,
                              release_status)
from test_online import build, case
from test_release_command import CMD

D = 4
EPS_LOW = 0.1    # noise of scale w/eps = 100 per count: two independent draws agree in all 4 bins with probability about (1/400)^4

def data(T, seed=0, shift=0):
    X = np.random.default_rng(seed).integers(0, 50, (T, D)) + shift
    return X.astype(float), [",".join(map(str, r)) + "\n" for r in X.astype(int)]

def argv(tmp, mech="Uniform", *extra, eps=EPS_LOW, state="s.state", output="out.csv", input="in.csv"):
    return ["release", mech, "--eps", str(eps), "--w", "10", "--state", str(tmp / state), "--input", str(tmp / input),
            "--output", str(tmp / output), *extra]

def run(tmp, *a, **kw):
    "The command in this process: exit code and standard error."
    err = io.StringIO()
    with contextlib.redirect_stderr(err): code = main(argv(tmp, *a, **kw))
    return SimpleNamespace(returncode=code, stderr=err.getvalue())

def clear(r, code, *words):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert r.returncode == code and all(w in r.stderr for w in words) and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    return lines

def releases(path, ts):
    rows = {int(r.split(",")[0]): np.array([float(v) for v in r.split(",")[2:]]) for r in path.read_text().splitlines()[1:]}
    return np.array([rows[t] for t in ts])

def restored_backup(tmp, mech, *extra):
    "Finding 3's measurement: release t=0..99 (x), back up state and output, go on to t=199 with x; restore the backup and feed y at t=100..199."
    X, xl = data(200)
    Y, yl = data(200, seed=1, shift=1)
    (tmp / "in.csv").write_text("".join(xl[:100]))
    assert run(tmp, mech, *extra).returncode == 0
    for f in ("s.state", "out.csv"): shutil.copyfile(tmp / f, tmp / f"backup.{f}")
    (tmp / "in.csv").write_text("".join(xl))
    assert run(tmp, mech, *extra).returncode == 0
    r1 = releases(tmp / "out.csv", range(100, 200))
    for f in ("s.state", "out.csv"): shutil.copyfile(tmp / f"backup.{f}", tmp / f)          # the restore
    (tmp / "in.csv").write_text("".join(xl[:100] + yl[100:]))
    return r1, X[100:] - Y[100:], run(tmp, mech, *extra)

# ------------------------------------------------------------------------------- finding 3: fresh noise on resume
@pytest.mark.parametrize("mech", ["Uniform", "BD"])
def test_a_restored_backup_replays_with_fresh_noise_not_the_data_difference(tmp_path, mech):
    "Unseeded, exact noise: r1 - r2 != x - y at all 100 replayed timestamps (fd6f15c..da11186: equal at 100 of 100 for Uniform)."
    r1, data_diff, r = restored_backup(tmp_path, mech)
    assert r.returncode == 0, r.stderr
    r2 = releases(tmp_path / "out.csv", range(100, 200))
    same = np.all(r1 - r2 == data_diff, axis=1)
    assert not same.any(), f"the data's difference, exactly, at t = {np.flatnonzero(same) + 100}"

def test_a_seeded_stream_keeps_its_noise_on_resume(tmp_path):
    "The other side of the rule: a seeded stream (tests) replays its noise, so the kill harness's outputs equal the uninterrupted run."
    r1, data_diff, r = restored_backup(tmp_path, "Uniform", "--seed", "4")
    assert r.returncode == 0
    assert np.array_equal(r1 - releases(tmp_path / "out.csv", range(100, 200)), data_diff)

ONLINE = [i for i in list_mechanisms() if i.cls.online]

@pytest.mark.parametrize("info", ONLINE, ids=lambda i: i.name)
def test_every_mechanism_draws_fresh_noise_after_a_resume(tmp_path, info):
    "Two resumes of one backup (unseeded): no generator keeps its old state, the two draw fresh, different entropy (their generators' states share nothing), and their releases differ (a delayed scalar stream's, clipped to its domain, may coincide by chance: its generators' states decide)."
    _, start, rows = case(info.stream_kind, np.random.default_rng(0))
    s = Session(build(info), state=tmp_path / "a.state", **start)
    for x in rows[:10]: s.step(x)
    s.close()
    shutil.copyfile(tmp_path / "a.state", tmp_path / "b.state")
    olds = [repr(g.state) for g in _bit_generators(s.mech)]
    outs, states = [], []
    for name in ("a.state", "b.state"):
        with Session.resume(tmp_path / name) as r:
            states.append({repr(g.state) for g in _bit_generators(r.mech)})
            assert not set(olds) & states[-1]                                               # every generator moved on
            outs.append([r.step(x).release for x in rows[10:]])
    assert not states[0] & states[1]                       # the two resumes' generators drew fresh, different entropy
    seeded = []                                   # does the rest depend on the generator? the backup with two seeds set by hand
    for seed in (1, 2):
        m = pickle.loads(pickle.dumps(s.mech))
        for g in _bit_generators(m): g.state = type(g)(seed).state
        seeded.append([m.step(x) for x in rows[10:]])
    if _differ(*seeded) and not _differ(*outs):   # it does, and the resumes coincide: only releases clipped to the domain may
        assert info.stream_kind == "scalar", "the two resumes drew the same noise"          # (a delayed scalar stream's), by chance

def _bit_generators(obj):
    from wevent_nb.online import _BitGenerators
    f = _BitGenerators(); f.dump(obj); return list(f.found.values())

def _differ(a, b) -> bool:
    return pickle.dumps(a) != pickle.dumps(b)

def test_fresh_noise_reaches_every_generator_and_its_seed_sequence():
    g = np.random.default_rng(3)
    holder = dict(a=g, b=[g, np.random.Generator(np.random.Philox(1))])
    twin = pickle.loads(pickle.dumps(holder))
    assert fresh_noise(holder) == 2                                # the shared one counted once
    assert holder["a"].random() != twin["a"].random() and holder["b"][1].random() != twin["b"][1].random()
    assert holder["a"].spawn(1)[0].random() != twin["a"].spawn(1)[0].random()

# ------------------------------------------------------------------------------------------- the journal
def test_with_a_journal_a_restored_backup_is_refused_in_one_line(tmp_path):
    "The same restore with --journal: exit 1 (the files disagree), one line naming both t's and why, nothing released, the output untouched."
    j = str(tmp_path / "journal")
    r1, _, r = restored_backup(tmp_path, "Uniform", "--journal", j)
    lines = clear(r, 1, "records t=199 as released", "only t=99", "would release t=100..199 again")
    assert len(lines) == 1, lines
    assert (tmp_path / "out.csv").read_bytes() == (tmp_path / "backup.out.csv").read_bytes()
    assert release_status(tmp_path / "s.state")["next_t"] == 100

def test_a_stream_started_with_a_journal_is_resumed_only_with_it(tmp_path):
    X, xl = data(30)
    (tmp_path / "in.csv").write_text("".join(xl[:20]))
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")).returncode == 0
    (tmp_path / "in.csv").write_text("".join(xl))
    clear(run(tmp_path), 1, "was started with a journal", "--journal")
    clear(run(tmp_path, "Uniform", "--journal", str(tmp_path / "other")), 1, "records up to t=-1")   # an empty file is not its journal
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")).returncode == 0
    assert release_status(tmp_path / "s.state")["journal"]["last_t"] == 29

def test_a_stream_started_without_a_journal_refuses_one(tmp_path):
    X, xl = data(30)
    (tmp_path / "in.csv").write_text("".join(xl[:20]))
    assert run(tmp_path).returncode == 0
    clear(run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")), 1, "was started without a journal")

def test_another_streams_journal_is_refused_before_a_line_is_read(tmp_path):
    X, xl = data(30)
    (tmp_path / "in.csv").write_text("".join(xl[:10]))
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")).returncode == 0
    clear(run(tmp_path, "Uniform", "--journal", str(tmp_path / "j"), state="t.state", output="t.csv"), 1, "a journal belongs to one stream")
    assert not (tmp_path / "t.state").exists() and not (tmp_path / "t.csv").exists()
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "k"), state="t.state", output="t.csv").returncode == 0
    clear(run(tmp_path, "Uniform", "--journal", str(tmp_path / "k")), 1, "holds stream", "not this stream's journal")

@pytest.mark.parametrize("spoil, words", [
    (lambda b: b"".join(l + (b"garbage\n" if k == 3 else b"") for k, l in enumerate(b.splitlines(keepends=True))), "damaged bytes before record 5"),
    (lambda b: b[:300] + bytes([b[300] ^ 1]) + b[301:], "not signed by this installation's key"),     # one bit of a record
    (lambda b: b"".join(l for k, l in enumerate(b.splitlines(keepends=True)) if k != 4), "not signed"),   # a record removed
])
def test_a_spoiled_journal_is_one_clear_error(tmp_path, spoil, words):
    X, xl = data(30)
    (tmp_path / "in.csv").write_text("".join(xl[:20]))
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")).returncode == 0
    (tmp_path / "j").write_bytes(spoil((tmp_path / "j").read_bytes()))
    (tmp_path / "in.csv").write_text("".join(xl))
    lines = clear(run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")), 1, words)
    assert len(lines) == 1 and release_status(tmp_path / "s.state")["next_t"] == 20

def test_a_journal_one_step_behind_is_caught_up_and_a_torn_record_set_aside(tmp_path):
    "The journal one step behind (a kill between the state and the journal), then torn (a kill mid-append): each resume repairs it by appending only."
    X, xl = data(40)
    (tmp_path / "in.csv").write_text("".join(xl[:20]))
    j = tmp_path / "j"
    assert run(tmp_path, "Uniform", "--journal", str(j), "--seed", "2").returncode == 0
    b = j.read_bytes()
    j.write_bytes(b[:b.rstrip(b"\n").rfind(b"\n") + 1])                                     # the record of t=19 never written
    (tmp_path / "in.csv").write_text("".join(xl[:30]))
    r = run(tmp_path, "Uniform", "--journal", str(j), "--seed", "2"); assert r.returncode == 0, r.stderr
    assert "journal" in r.stderr and "at t=19" in r.stderr                                      # caught up at the resume
    j.write_bytes(j.read_bytes()[:-50])                                                          # the record of t=29 torn
    before = j.read_bytes()
    (tmp_path / "in.csv").write_text("".join(xl))
    assert run(tmp_path, "Uniform", "--journal", str(j), "--seed", "2").returncode == 0
    assert j.read_bytes().startswith(before)                                                     # appended, never rewritten
    v = _scan_journal(j.read_bytes(), _state_key()[0], "'j'")
    assert v["t"] == 39 and v["tail"] == b"" and b" drop " in j.read_bytes()

def test_status_shows_the_journals_last_t(tmp_path):
    X, xl = data(25)
    (tmp_path / "in.csv").write_text("".join(xl))
    assert run(tmp_path, "Uniform", "--journal", str(tmp_path / "j")).returncode == 0
    r = subprocess.run(CMD + ["release", "--status", "--state", str(tmp_path / "s.state")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and f"journal: {tmp_path / 'j'}: last t 24 (the state's last: 24)" in r.stdout, r.stdout + r.stderr
    shutil.move(tmp_path / "j", tmp_path / "moved")                                               # a volume mounted elsewhere
    r = subprocess.run(CMD + ["release", "--status", "--state", str(tmp_path / "s.state"), "--journal", str(tmp_path / "moved")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "last t 24" in r.stdout, r.stdout + r.stderr
    s = release_status(tmp_path / "s.state")                                                      # where it was: cannot be read, said so
    assert "error" in s["journal"] and "No such file" in s["journal"]["error"]

def test_the_journal_is_locked_for_one_writer(tmp_path):
    a = Journal(tmp_path / "j")
    try:
        with pytest.raises(StateLocked, match="in use by another process"): Journal(tmp_path / "j")
    finally: a.close()
    Journal(tmp_path / "j").close()

def test_a_journal_needs_a_state_and_one_stream(tmp_path):
    X, _ = data(5)
    with pytest.raises(ValueError, match="journal= needs state="): Session(build(next(i for i in ONLINE if i.name == "Uniform")), journal=tmp_path / "j", d=D)
    s = Session(build(next(i for i in ONLINE if i.name == "Uniform")), state=tmp_path / "s.state", journal=tmp_path / "j", noise="exact", d=D)
    for x in X: s.step(x)
    s.close()
    with pytest.raises(StateMismatch, match="a journal belongs to one stream"):
        Session(build(next(i for i in ONLINE if i.name == "Uniform")), state=tmp_path / "t.state", journal=tmp_path / "j", noise="exact", d=D)
    assert not (tmp_path / "t.state").exists()

# -------------------------------------------------------------------------------------- the seed rule at the state
def _two_streams(tmp):
    uni = next(i for i in ONLINE if i.name == "Uniform")
    X, _ = data(5)
    for name, rng in (("seeded.state", 3), ("plain.state", None)):
        s = Session(build(uni), rng=rng, state=tmp / name, d=D)
        for x in X: s.step(x)
        s.close()
    return uni

def test_session_resume_refuses_a_seeded_stream_without_its_seed(tmp_path):
    "fd6f15c..da11186: Session.resume took no seed, and a seeded stream went on seeded, silently."
    uni = _two_streams(tmp_path)
    with pytest.raises(StateMismatch, match="holds a seeded stream"): Session.resume(tmp_path / "seeded.state")
    with pytest.raises(StateMismatch, match="holds a seeded stream"): Session(build(uni), state=tmp_path / "seeded.state", resume=True, d=D)
    Session.resume(tmp_path / "seeded.state", rng=3).close()

def test_session_refuses_a_seed_on_an_unseeded_stream(tmp_path):
    uni = _two_streams(tmp_path)
    with pytest.raises(StateMismatch, match="holds an unseeded stream"): Session.resume(tmp_path / "plain.state", rng=3)
    with pytest.raises(StateMismatch, match="holds an unseeded stream"): Session(build(uni), rng=3, state=tmp_path / "plain.state", resume=True, d=D)
    Session.resume(tmp_path / "plain.state").close()

def test_the_command_crosses_the_same_rule(tmp_path):
    X, xl = data(20)
    (tmp_path / "in.csv").write_text("".join(xl[:10]))
    assert run(tmp_path, "Uniform", "--seed", "3").returncode == 0
    (tmp_path / "in.csv").write_text("".join(xl))
    clear(run(tmp_path), 1, "holds a seeded stream", "--seed")
    assert run(tmp_path, "Uniform", "--seed", "3").returncode == 0

def test_a_full_disk_when_the_resume_stores_its_fresh_generator_is_one_clear_error(tmp_path):
    "The resume writes the state with its fresh generator before any step: if it cannot (a full disk, by RLIMIT_FSIZE in the child), one line, exit 1."
    from test_release_state import _file_size_limit
    X, xl = data(30)
    (tmp_path / "in.csv").write_text("".join(xl[:20]))
    assert run(tmp_path).returncode == 0
    before = (tmp_path / "s.state").read_bytes(), (tmp_path / "out.csv").read_bytes()
    (tmp_path / "in.csv").write_text("".join(xl))
    from wevent_nb.online import _HEAD, _MAC, _MAGIC
    checkpoint = len(_MAGIC) + _HEAD.size + _MAC + _HEAD.unpack_from(before[0], len(_MAGIC))[1]   # the file: a checkpoint, then step records
    limit = checkpoint - 200                                                                       # the resume's checkpoint no longer fits
    assert limit > len(before[1]), (limit, len(before[1]))
    r = subprocess.run(CMD + argv(tmp_path), capture_output=True, text=True, timeout=120, preexec_fn=_file_size_limit(limit))
    lines = clear(r, 1, "fresh generator was not stored", "nothing was released", "t=20")
    assert len(lines) == 1, lines
    assert ((tmp_path / "s.state").read_bytes(), (tmp_path / "out.csv").read_bytes()) == before
    assert run(tmp_path).returncode == 0 and release_status(tmp_path / "s.state")["next_t"] == 30
