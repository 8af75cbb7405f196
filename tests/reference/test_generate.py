"""Hardening of table generation (issue 19): a journal that cannot lie, a lock on OUT, pool
workers that die with their parent.  Each test is built from the issue's reproducer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from gdpproof.cli import main
from gdpproof.errors import InvalidParameterError
from gdpproof.reference import make_table
from gdpproof.reference._journal_key import journal_key, line_signer
from gdpproof.reference.generate import _JOURNAL_MAGIC, TableSpec, compute_chunk, _journal_line

SPEC = dict(mu="0.5,1,2", eps="0,1", digits=12)


def _journal(tmp_path, edit) -> tuple:
    """OUT.partial holding the first three rows signed with the suite's key, the third line
    changed by ``edit``."""
    spec = TableSpec.build("delta", 12, {"mu": SPEC["mu"], "eps": SPEC["eps"]})
    fp = spec.fingerprint()
    rows = compute_chunk("delta", 12, list(enumerate(spec.rows()))[:3])
    lines = [_journal_line(fp, i, v, m, line_signer(journal_key(), fp, None)).encode() for i, v, m in rows]
    lines[2] = edit(lines[2], fp)
    out = tmp_path / "t.csv"
    (tmp_path / "t.csv.partial").write_bytes((_JOURNAL_MAGIC + "\n" + fp + "\n").encode() + b"".join(lines))
    return out, lines


def _flip_digit(line: bytes, fp: str) -> bytes:
    i = line.index(b'["0.') + 6  # a digit of the value
    return line[:i] + (b"1" if line[i:i + 1] != b"1" else b"2") + line[i + 1:]


@pytest.mark.parametrize("edit", [
    _flip_digit,
    lambda line, fp: line.replace(b"[2,", b"[3,", 1),  # the row moved to another place on the grid
    lambda line, fp: line[:-2] + b', "x"]\n',  # an extra field
    lambda line, fp: _journal_line(fp, 2, ["=cmd|' /C calc'!A0"], ["arb"]).encode(),  # a formula, digest right
    lambda line, fp: _journal_line(fp, 99, ["0.5"], ["arb"]).encode(),  # off the grid, digest right
    lambda line, fp: _journal_line(fp, 2, ["0.5", "0.5"], ["arb", "arb"]).encode(),  # a column too many
    lambda line, fp: b"\xff\xfe" + line,  # not UTF-8
    lambda line, fp: b"[" * 100_000 + b"\n",  # nested beyond the recursion limit
], ids=["flipped-digit", "moved-row", "extra-field", "formula", "off-grid", "extra-column", "non-utf8", "nested"])
def test_a_tampered_journal_line_is_never_written_into_a_table(tmp_path, edit):
    out, _ = _journal(tmp_path, edit)
    with pytest.raises(InvalidParameterError, match="line 5 of .* fails its check"):
        make_table("delta", out=out, resume=True, **SPEC)
    assert not out.exists()
    # the same through the command line: one line, exit 2
    assert main(["table", "delta", "--mu", SPEC["mu"], "--eps", SPEC["eps"], "--digits", "12", "--out", str(out),
                 "--resume", "--no-progress"]) == 2


def test_a_line_from_another_run_fails_its_digest(tmp_path):
    other = TableSpec.build("delta", 12, {"mu": "0.5,1,3", "eps": SPEC["eps"]}).fingerprint()
    out, _ = _journal(tmp_path, lambda line, fp: _journal_line(other, 2, ["0.5"], ["arb"]).encode())
    with pytest.raises(InvalidParameterError, match="fails its check"):
        make_table("delta", out=out, resume=True, **SPEC)


@pytest.mark.parametrize("signer", ["unsigned", "forger's key"])
@pytest.mark.parametrize("value, method", [("1e-9", "exact"), ("0.5", "arb"), ("Infinity", "arb"), ("-0", "exact"),
                                           ("1e999999999", "arb"), ("0.1269367376", "exact")])
def test_a_forged_journal_line_with_a_right_digest_is_caught_by_recomputing_it(tmp_path, value, method, signer,
                                                                                capsys):
    # issue 33: the digest is unkeyed, so a forger writes a line the project's own helpers sign,
    # without a MAC or with one under a key of the forger's own (not the suite's);
    # delta(mu=1, eps=1) = 0.1269367376 rounded up (the last case: the right value, a forged method)
    spec = TableSpec.build("delta", 10, {"mu": "0.5,1", "eps": "1"})
    fp = spec.fingerprint()
    journal = tmp_path / "t.csv.partial"
    sign = None if signer == "unsigned" else line_signer(os.urandom(32), fp, None)
    journal.write_text(_JOURNAL_MAGIC + "\n" + fp + "\n" + _journal_line(fp, 1, [value], [method], sign))
    out = tmp_path / "t.csv"
    args = ["table", "delta", "--mu", "0.5,1", "--eps", "1", "--digits", "10", "--out", str(out), "--resume",
            "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    note, err = err.split("\n", 1)  # the note: the row is not signed with the suite's key, so it is recomputed
    assert note == f"gdpproof: note: resume: 1 row of {journal} is not signed with your journal key " \
        f"({os.environ['GDPPROOF_KEY_FILE']}): recomputed, and each must match its line", note
    assert err.count("\n") == 1 and "line 3 of" in err and f"delta={value!r} (by {method}) for row 2 (mu=1, eps=1)" \
        in err and "recomputing it gives 0.1269367376 (by arb)" in err, err
    assert not out.exists() and journal.exists()


def test_an_honest_journal_resumes_to_the_same_bytes(tmp_path):
    fresh = tmp_path / "fresh.csv"
    make_table("delta", out=fresh, **SPEC)
    out, _ = _journal(tmp_path, lambda line, fp: line)
    make_table("delta", out=out, resume=True, **SPEC)
    assert out.read_bytes() == fresh.read_bytes()


def _env() -> dict[str, str]:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and ps --ppid")
def test_workers_die_with_their_parent_and_a_second_run_is_told_of_the_lock(tmp_path):
    out = tmp_path / "long.csv"
    cmd = [sys.executable, "-m", "gdpproof.cli", "table", "epsilon", "--mu", "lin:0.1:5:30000", "--delta", "1e-5",
           "--digits", "200", "--workers", "2", "--no-progress", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:  # the pool is up
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2
        # a second run on the same --out, even with --resume, is told another run holds it
        second = subprocess.run(cmd + ["--resume"], env=_env(), capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "another gdpproof run is writing this table now" in second.stderr
        assert "Traceback" not in second.stderr
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a pool worker outlived its parent"
    finally:
        if proc.poll() is None:
            proc.kill()
