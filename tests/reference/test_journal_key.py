"""The table journal's key (issue 33 item 2): a resume takes the rows signed with the user's key
without recomputing them, recomputes every other row (another key's, unsigned, forged) and
refuses one that differs; a key file others could read or replace is refused.

Every test runs under the suite's own ``GDPPROOF_KEY_FILE`` (tests/conftest.py) or one in its
``tmp_path``: the user's real key is never read or made."""

from __future__ import annotations

import json
import os
import stat
import warnings

import pytest

from gdpproof.cli import main
from gdpproof.reference import JournalNote, make_table
from gdpproof.reference import generate
from gdpproof.reference._journal_key import ENV, journal_key, key_path, line_signer
from gdpproof.reference.generate import _digest, _journal_line

GRID = ["--mu", "0.5,1,2", "--eps", "0,1", "--digits", "12"]
ARGS = dict(mu="0.5,1,2", eps="0,1", digits=12)  # 6 rows


class Crash(Exception):
    pass


def _crash(path, text):
    raise Crash


def _interrupted(out, monkeypatch, **kw):
    """``out``'s journal as a run leaves it when stopped after its last journal line, before the
    table is written (every row journalled, signed as that run signs)."""
    with monkeypatch.context() as m:
        m.setattr(generate, "write_atomic", _crash)
        with pytest.raises(Crash):
            make_table("delta", out=out, **ARGS, **kw)
    assert not out.exists()
    return out.with_name(out.name + ".partial")


def _spy(monkeypatch):
    """The indices of the rows computed from now on."""
    computed: list[int] = []
    real = generate.compute_chunk

    def spy(kind, digits, chunk):
        computed.extend(i for i, _ in chunk)
        return real(kind, digits, chunk)

    monkeypatch.setattr(generate, "compute_chunk", spy)
    return computed


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> bytes:
    """The table of ARGS from one uninterrupted run."""
    path = tmp_path_factory.mktemp("fresh") / "t.csv"
    make_table("delta", out=path, **ARGS)
    return path.read_bytes()


def _run(out, capsys, *extra):
    code = main(["table", "delta", *GRID, "--out", str(out), "--workers", "1", "--no-progress", *extra])
    return code, capsys.readouterr()


# -- resume: signed rows are taken, the others recomputed ---------------------------------------

def test_rows_signed_with_your_key_are_resumed_without_recomputing_them(tmp_path, monkeypatch, fresh):
    out = tmp_path / "t.csv"
    journal = _interrupted(out, monkeypatch)
    lines = journal.read_bytes().splitlines(keepends=True)
    kept = [json.loads(line)[0] for line in lines[2:6]]
    journal.write_bytes(b"".join(lines[:6]))  # four of the six rows journalled
    computed = _spy(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JournalNote)  # no note: nothing is recomputed
        make_table("delta", out=out, resume=True, **ARGS)
    assert sorted(computed) == sorted(set(range(6)) - set(kept)) and len(computed) == 2
    assert out.read_bytes() == fresh


def test_a_complete_signed_journal_resumes_with_the_evaluator_broken(tmp_path, monkeypatch, capsys, fresh):
    out = tmp_path / "t.csv"
    journal = _interrupted(out, monkeypatch)
    key = key_path().read_bytes()
    text = journal.read_bytes()
    assert len(key) == 32 and key not in text and key.hex().encode() not in text  # only MACs are written

    def broken(*args):
        raise AssertionError("a signed journal row was recomputed")

    monkeypatch.setattr(generate, "compute_chunk", broken)
    code, res = _run(out, capsys, "--resume", "--json")
    assert code == 0 and res.err == "", res.err
    summary = json.loads(res.out)
    assert (summary["resumed_rows"], summary["computed_rows"]) == ("6", "0")
    assert out.read_bytes() == fresh and not journal.exists()


def test_a_journal_signed_under_another_key_is_recomputed_and_accepted_when_right(tmp_path, monkeypatch, capsys,
                                                                                   fresh):
    out = tmp_path / "t.csv"
    monkeypatch.setenv(ENV, str(tmp_path / "other-machine" / "journal.key"))
    journal = _interrupted(out, monkeypatch)
    mine = tmp_path / "mine" / "journal.key"
    monkeypatch.setenv(ENV, str(mine))
    computed = _spy(monkeypatch)
    code, res = _run(out, capsys, "--resume")
    assert code == 0, res.err
    assert res.err == f"gdpproof: note: resume: 6 rows of {journal} are not signed with your journal key ({mine}): " \
        "recomputed, and each must match its line\n"
    assert sorted(computed) == list(range(6))
    assert out.read_bytes() == fresh


def test_rows_signed_for_a_cluster_are_recomputed_by_a_resume_here(tmp_path, monkeypatch, fresh):
    # a cluster's rows are trusted only by a run that names the same cluster (its table says so)
    cluster = "the dask cluster at tcp://10.0.0.1:8786"
    out = tmp_path / "t.csv"
    journal = _interrupted(out, monkeypatch, computed_on=cluster)
    saved = journal.read_bytes()
    computed = _spy(monkeypatch)
    with pytest.warns(JournalNote, match="6 rows of .* are not signed with your journal key"):
        make_table("delta", out=out, resume=True, **ARGS)
    assert sorted(computed) == list(range(6)) and out.read_bytes() == fresh
    # resumed with the same label, nothing is recomputed
    out.unlink()
    journal.write_bytes(saved)
    computed.clear()
    table = make_table("delta", out=out, resume=True, computed_on=cluster, **ARGS)
    assert computed == [] and dict(table.header)["computed on"].startswith(cluster)


# -- forged lines: a MAC proves nothing on another row or table ---------------------------------

def test_a_signed_line_moved_to_another_row_is_recomputed_and_refused(tmp_path, monkeypatch, capsys):
    out = tmp_path / "t.csv"
    journal = _interrupted(out, monkeypatch)
    magic, fp, first = journal.read_text().splitlines()[:3]
    index, values, methods, _, mac = json.loads(first)  # row 1: mu=0.5, eps=0
    target = 5  # row 6: mu=2, eps=1, another value; the digest made right, the MAC kept
    moved = [target, values, methods, _digest(fp, json.dumps([target, values, methods])), mac]
    journal.write_text(f"{magic}\n{fp}\n{json.dumps(moved)}\n")
    code, res = _run(out, capsys, "--resume")
    assert code == 2 and not out.exists()
    assert f"line 3 of {journal} says delta='{values[0]}' (by arb) for row 6 (mu=2, eps=1), but recomputing it " \
        "gives 0.509861660055 (by arb)" in res.err, res.err


def test_a_line_signed_for_another_table_is_recomputed_and_refused(tmp_path, monkeypatch, capsys):
    # the same key signed row 2 of a table with mu = 0.5,3,2: copied into this journal with its
    # digest made right for this table, its MAC (over the other table's fingerprint) fails
    other = generate.TableSpec.build("delta", 12, {"mu": "0.5,3,2", "eps": "0,1"})
    index, values, methods = generate.compute_chunk("delta", 12, [(2, other.rows()[2])])[0]
    sign = line_signer(journal_key(), other.fingerprint(), None)
    signed = json.loads(_journal_line(other.fingerprint(), index, values, methods, sign))
    fp = generate.TableSpec.build("delta", 12, {"mu": ARGS["mu"], "eps": ARGS["eps"]}).fingerprint()
    signed[3] = _digest(fp, json.dumps([index, values, methods]))
    journal = tmp_path / "t.csv.partial"
    journal.write_text(generate._JOURNAL_MAGIC + "\n" + fp + "\n" + json.dumps(signed) + "\n")
    code, res = _run(tmp_path / "t.csv", capsys, "--resume")
    assert code == 2 and f"line 3 of {journal} says delta='{values[0]}' (by arb) for row 3 (mu=1, eps=0), but " \
        "recomputing it gives 0.382924922549 (by arb)" in res.err, res.err


# -- the key file ---------------------------------------------------------------------------------

def test_the_suite_never_uses_the_users_key(tmp_path_factory):
    assert key_path().is_relative_to(tmp_path_factory.getbasetemp())


def test_the_key_is_made_private_on_first_use_under_the_config_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "gdpproof" / "journal.key"
    assert key_path() == path and not path.exists()
    key = journal_key()
    assert path.read_bytes() == key and len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert journal_key() == key  # made once, then read
    assert sorted(p.name for p in path.parent.iterdir()) == ["journal.key"]  # no temporary file left
    # no XDG_CONFIG_HOME (or a relative one, which the XDG rules ignore): ~/.config
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for xdg in (None, "relative/path"):
        if xdg is None:
            monkeypatch.delenv("XDG_CONFIG_HOME")
        else:
            monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
        assert key_path() == tmp_path / "home" / ".config" / "gdpproof" / "journal.key"


def _symlink(path):
    target = path.with_name("target")
    target.write_bytes(os.urandom(32))
    target.chmod(0o600)
    path.symlink_to(target)


def _mode(mode, size=32):
    def make(path):
        path.write_bytes(os.urandom(size))
        path.chmod(mode)
    return make


@pytest.mark.parametrize("make, says, fix", [
    (_symlink, "is a symbolic link", "replace the link with the file it points to"),
    (lambda path: path.mkdir(), "is not a regular file", "remove it to have a new key made on next use"),
    (lambda path: os.mkfifo(path), "is not a regular file", "remove it"),  # and no hang on the open
    (_mode(0o640), "can be read or written by group or others (mode 0640)", "run chmod 600 {path}"),
    (_mode(0o604), "can be read or written by group or others (mode 0604)", "run chmod 600 {path}"),
    (_mode(0o620), "can be read or written by group or others (mode 0620)", "run chmod 600 {path}"),
    (_mode(0o600, 31), "holds 31 bytes, not 32", "remove it"),
    (_mode(0o600, 4096), "holds 33+ bytes, not 32", "remove it"),
], ids=["symlink", "folder", "fifo", "group-readable", "others-readable", "group-writable", "short", "long"])
def test_a_key_file_others_could_read_or_replace_is_refused(tmp_path, monkeypatch, capsys, make, says, fix):
    path = tmp_path / "keys" / "journal.key"
    path.parent.mkdir()
    make(path)
    before = path.lstat()
    before = (before.st_ino, before.st_mode, before.st_size, before.st_mtime_ns)
    monkeypatch.setenv(ENV, str(path))
    code, res = _run(tmp_path / "t.csv", capsys)
    assert code == 2 and res.err.count("\n") == 1, res.err
    assert f"the table journal key {path} {says}, so it cannot be trusted to sign journals; " \
        f"{fix.format(path=path)}" in res.err and f"or set {ENV} to another file" in res.err, res.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keys"]  # neither table nor journal
    after = path.lstat()
    assert (after.st_ino, after.st_mode, after.st_size, after.st_mtime_ns) == before  # left as it was


def test_a_key_file_of_another_user_is_refused(tmp_path, monkeypatch, capsys):
    path = tmp_path / "journal.key"
    _mode(0o600)(path)
    monkeypatch.setenv(ENV, str(path))
    monkeypatch.setattr(os, "getuid", lambda: path.stat().st_uid + 1)
    code, res = _run(tmp_path / "t.csv", capsys)
    assert code == 2 and f"belongs to another user (uid {path.stat().st_uid})" in res.err, res.err


def test_without_a_key_the_journal_is_unsigned_and_a_resume_recomputes_it(tmp_path, monkeypatch, capsys, fresh):
    (tmp_path / "file").write_text("")
    path = tmp_path / "file" / "journal.key"  # cannot be made (as in a read-only home)
    monkeypatch.setenv(ENV, str(path))
    note = f"gdpproof: note: no table journal key: cannot make or read {path} (Not a directory); the journal's " \
        f"lines are not signed, and a resume recomputes its rows (set {ENV} to a private file you can write)\n"
    code, res = _run(tmp_path / "u.csv", capsys)
    assert code == 0 and res.err == note
    out = tmp_path / "t.csv"
    with pytest.warns(JournalNote, match="no table journal key"):
        journal = _interrupted(out, monkeypatch)
    assert all(json.loads(line)[4] is None for line in journal.read_text().splitlines()[2:])
    computed = _spy(monkeypatch)
    code, res = _run(out, capsys, "--resume")
    assert code == 0 and res.err == note
    assert sorted(computed) == list(range(6)) and out.read_bytes() == fresh
