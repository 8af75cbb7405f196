"""Reference tables: values, formats, determinism across workers, atomic writes, kill-and-resume,
--verify, and the shipped tables (regenerated and compared with the committed files)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import mpmath
import pytest

import gdpproof
from gdpproof.cli import main
from gdpproof.errors import InvalidParameterError
from gdpproof.reference import (
    FORMATS,
    SHIPPED,
    check_shipped,
    make_table,
    parse_grid,
    read_table,
    verify_table,
)
from gdpproof.reference.kinds import KINDS
from gdpproof.reference.table import parse

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


# -- grids ------------------------------------------------------------------------------------

def test_grids():
    assert parse_grid("--mu", "lin:0:1:5") == ("0", "0.25", "0.5", "0.75", "1")
    assert parse_grid("--delta", "log:1e-300:1:4") == ("1e-300", "1e-200", "1e-100", "1")
    assert parse_grid("--eps", "log:1:2:3")[1] == "1.4142135623731"  # sqrt(2) = 1.41421356237309505 to 15 digits
    assert parse_grid("--n", "lin:1:3:5", integer=True) == ("1", "2", "3")  # 1, 1.5, 2, 2.5, 3 rounded, repeats dropped
    assert parse_grid("--mu", "1.50") == ("1.5",)


@pytest.mark.parametrize(("spec", "message"), [
    ("lin:0:1:0", "N='0' must be an integer in"),
    ("lin:0:1:2.5", "N='2.5' must be an integer"),
    ("lin:0:1:1", "N=1 needs START == STOP"),
    ("log:-1:1:3", "START > 0"),
    ("lin:a:1:3", "'a' is not a finite decimal"),
    ("1,nan", "'nan' is not a finite decimal"),
    ("", "must be a comma-separated list"),
])
def test_bad_grids(spec, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_grid("--mu", spec)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(kind="nope", mu="1"), "kind='nope' must be one of"),
    (dict(kind="delta", mu="1"), "--eps is required for table delta"),
    (dict(kind="delta", mu="1", eps="1", alpha="0.5"), "--alpha='0.5' does not apply to table delta"),
    (dict(kind="delta", mu="-1", eps="1"), "--mu='-1' must be >= 0"),
    (dict(kind="tradeoff", mu="1", alpha="1.5"), "--alpha='1.5' must be in"),
    (dict(kind="delta", mu="1", eps="1", digits=0), "digits=0 must be an integer in"),
    (dict(kind="delta", mu="1", eps="1", workers=0), "workers=0 must be a positive integer"),
    (dict(kind="delta", mu="lin:0:1:10000", eps="lin:0:1:10000"), "at most 10,000,000"),
])
def test_bad_specs(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        make_table(**kwargs)


# -- values -----------------------------------------------------------------------------------

def test_values_are_the_certified_functions():
    t = make_table("epsilon", mu="0.5,2", delta="1e-300,1e-5", digits=25)
    for mu, delta, eps in t.rows:
        assert eps == str(gdpproof.epsilon_from_delta(mu, delta, digits=25))
    s = make_table("subsampled", mu="1", sample_rate="0.1", alpha="0.5", digits=15)
    assert s.rows[0][-1] == "0.461707507745197"  # the subsample() docstring's value (rounded down)


def test_every_kind_verifies_in_every_format(tmp_path):
    specs = {"delta": dict(mu="1", eps="0,2"), "epsilon": dict(mu="1", delta="1e-8"),
             "mu": dict(eps="1", delta="1e-5"), "sigma": dict(eps="1", delta="1e-5", sensitivity="2"),
             "tradeoff": dict(mu="2", alpha="0,0.3"), "subsampled": dict(mu="2", sample_rate="0.3", alpha="0.3"),
             "rr-composition": dict(eps="0.5", n="7", alpha="0.3"),
             "dpsgd": dict(sigma="2", sample_rate="0.05", steps="20", delta="1e-5"),
             "rr-delta": dict(eps0="1", k="3", eps="-0.5"), "dp-delta": dict(eps0="1", delta0="1e-3", eps="-0.5"),
             "discrete-gaussian-delta": dict(sigma="2", sensitivity="1", eps="0.5")}
    assert set(specs) == set(KINDS)
    for kind, grid in specs.items():
        table = make_table(kind, digits=12, **grid)
        for fmt in FORMATS:
            path = tmp_path / f"{kind}.{fmt}"
            path.write_text(table.render(fmt))
            back = read_table(path, fmt)
            assert (back.kind, back.columns, back.rows, back.rounding) == (table.kind, table.columns, table.rows,
                                                                           table.rounding)
            assert verify_table(path, sample=None).ok, (kind, fmt)


def test_header_has_no_timestamp_and_names_versions():
    text = make_table("delta", mu="1", eps="1", digits=10).render("csv")
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert any(line.startswith("# versions: gdpproof") and "python-flint" in line and "sympy" in line for line in head)
    assert any(line.startswith("# certified: 1 value by arb") for line in head)
    assert not any(str(time.gmtime().tm_year) in line for line in head)
    # the header reads the version from gdpproof._version (the reference layer does not import
    # the package): it must be the version the package states
    assert f"gdpproof {gdpproof.__version__}" in next(line for line in head if line.startswith("# versions:"))


# -- workers, executors -----------------------------------------------------------------------

def test_same_bytes_whatever_the_workers(tmp_path):
    spec = dict(mu="log:0.1:10:7", eps="lin:0:5:6", digits=30)
    outs = []
    for i, kw in enumerate([dict(workers=1), dict(workers=2, chunk_rows=5),
                            dict(executor=ThreadPoolExecutor(3), chunk_rows=4)]):
        path = tmp_path / f"t{i}.json"
        make_table("delta", out=path, **spec, **kw)
        outs.append(path.read_bytes())
        assert not (tmp_path / f"t{i}.json.partial").exists()
    assert outs[0] == outs[1] == outs[2]


def test_dask_executor_gives_the_same_table():
    distributed = pytest.importorskip("distributed", reason="the scale extra (dask[distributed]) is not installed")
    spec = dict(mu="0.5,1,2", eps="0,1", digits=20)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        got = make_table("delta", executor=client.get_executor(), chunk_rows=2, **spec)
    assert got == make_table("delta", **spec)


def test_a_table_computed_on_a_cluster_names_it_in_its_header(tmp_path, capsys):
    # issue 33: a cluster's rows come back as pickles and are trusted, not recomputed: the table says whose
    distributed = pytest.importorskip("distributed", reason="the scale extra (dask[distributed]) is not installed")
    out = tmp_path / "t.csv"
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        assert main(["table", "delta", "--mu", "0.5,1", "--eps", "1", "--digits", "10", "--out", str(out),
                     "--scheduler", c.scheduler_address, "--no-progress", "--json"]) == 0
    label = f"the dask cluster at {c.scheduler_address}; its results are trusted as they came back, not re-checked"
    assert json.loads(capsys.readouterr().out)["computed_on"] == label
    assert f"# computed on: {label}\n" in out.read_text()
    assert dict(read_table(out).header)["computed on"] == label
    # computed here, the table carries no such line
    assert "computed on" not in make_table("delta", mu="0.5,1", eps="1", digits=10).render("csv")


def test_a_row_that_cannot_be_certified_is_named():
    # delta(1e9) of G_1 is about 10^(-2.2e17): beyond what a decimal can hold
    with pytest.raises(gdpproof.PrecisionError, match=r"row 2 \(mu=1, eps=1000000000\): the value is about"):
        make_table("delta", mu="1", eps="1,1e9", digits=10)


# -- atomic writes, journal, kill and resume --------------------------------------------------

def test_written_atomically_with_ordinary_permissions(tmp_path):
    path = tmp_path / "t.csv"
    make_table("delta", mu="1", eps="1", out=path, digits=10)
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_a_leftover_journal_is_not_silently_discarded(tmp_path):
    path = tmp_path / "t.csv"
    (tmp_path / "t.csv.partial").write_text("gdpproof-table-journal 1\n{}\n")
    with pytest.raises(InvalidParameterError, match="holds an interrupted run; resume it"):
        make_table("delta", mu="1", eps="1", out=path)
    with pytest.raises(InvalidParameterError, match="was written for a different table"):
        make_table("delta", mu="1", eps="1", out=path, resume=True)


KILL_ARGS = ["table", "epsilon", "--mu", "lin:0.1:5:25", "--delta", "log:1e-40:1e-2:32", "--digits", "40",
             "--workers", "1", "--no-progress"]


@pytest.fixture(scope="module")
def uninterrupted_table(tmp_path_factory) -> bytes:
    """The KILL_ARGS table computed in one uninterrupted run: both kill tests compare against it
    (it was computed once per test, the same table twice)."""
    fresh = tmp_path_factory.mktemp("fresh") / "fresh.csv"
    assert main([*KILL_ARGS, "--out", str(fresh)]) == 0
    return fresh.read_bytes()


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_kill_and_resume_gives_the_same_bytes(tmp_path, how, uninterrupted_table):
    out = tmp_path / "eps.csv"
    journal = tmp_path / "eps.csv.partial"
    cmd = [sys.executable, "-m", "gdpproof.cli", *KILL_ARGS, "--out", str(out)]
    # The whole run (800 rows) takes about a second: on a loaded machine it can finish between the
    # poll that sees the first journalled chunk and the signal.  That says nothing about the resume, so the
    # interruption is set up again (at most five times) until the signal lands mid-run.
    for _ in range(5):
        # SIGINT back to its default in the child: a test run started in the background (``make
        # test &``) ignores SIGINT, children inherit that, and Python then installs no
        # KeyboardInterrupt handler, so the signal would be ignored rather than tested
        proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait for at least two journalled chunks
            if journal.exists() and journal.read_text().count("\n") >= 2 + 50:
                break
            time.sleep(0.02)
        proc.send_signal(how)
        _, err = proc.communicate(timeout=60)
        if proc.returncode != 0:
            break
        out.unlink()  # finished first: nothing was interrupted, try again
    assert proc.returncode != 0, "the run finished before it could be interrupted, five times"
    if how == signal.SIGINT:
        assert proc.returncode == 130 and "rerun the same command with --resume" in err
    assert not out.exists() and journal.exists()
    saved = journal.read_text().count("\n") - 2
    assert 0 < saved < 800
    res = subprocess.run(cmd + ["--resume", "--json"], env=_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert int(summary["resumed_rows"]) >= saved and int(summary["computed_rows"]) == 800 - int(summary["resumed_rows"])
    assert not journal.exists()
    assert out.read_bytes() == uninterrupted_table


# -- verify -----------------------------------------------------------------------------------

def _change_digit(text: str, row: int, column: int) -> str:
    lines = text.splitlines(keepends=True)
    data = [i for i, line in enumerate(lines) if line and line[0].isdigit()]
    fields = lines[data[row]].rstrip("\n").split(",")
    v = fields[column]
    k = len(v) // 2
    fields[column] = v[:k] + str((int(v[k]) + 1) % 10) + v[k + 1:]
    lines[data[row]] = ",".join(fields) + "\n"
    return "".join(lines)


def test_verify_catches_one_changed_digit(tmp_path, capsys):
    good = tmp_path / "good.csv"
    assert main(["table", "mu", "--eps", "0.5,1,4", "--delta", "1e-12,1e-6", "--digits", "30", "--out", str(good),
                 "--no-progress"]) == 0
    assert main(["table", "--verify", str(good), "--sample", "all"]) == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(_change_digit(good.read_text(), 4, 2))
    capsys.readouterr()
    assert main(["table", "--verify", str(bad), "--sample", "all", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [m["row"] for m in report["mismatches"]] == ["5"] and report["mismatches"][0]["column"] == "mu"


def test_verify_checks_every_row_of_a_33_row_table_and_catches_a_middle_digit(tmp_path, capsys):
    # issue 18: a sample of 20 rows missed this; every row of a table up to FULL_ROWS rows is checked now
    good = tmp_path / "good.csv"
    assert main(["table", "delta", "--mu", "0.5,1,2", "--eps", "lin:0:5:11", "--digits", "12", "--out", str(good),
                 "--no-progress"]) == 0
    assert len(read_table(good).rows) == 33
    bad = tmp_path / "bad.csv"
    bad.write_text(_change_digit(good.read_text(), 16, 2))  # row 17 of 33, the middle digit of delta
    capsys.readouterr()
    assert main(["table", "--verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "33 of 33 rows checked, every row" in out and "1 wrong" in out and "row 17 " in out
    assert main(["table", "delta", "--verify", str(good), "--json"]) == 0  # KIND matching the file is accepted
    obj = json.loads(capsys.readouterr().out)
    assert obj["coverage"] == "every row" and obj["sampled"] is False and obj["rows_checked"] == "33"
    assert main(["table", "epsilon", "--verify", str(good)]) == 2
    assert "KIND='epsilon' does not match --verify=" in capsys.readouterr().err
    assert "a table of kind 'delta'" in str(pytest.raises(InvalidParameterError, verify_table, good, kind="mu").value)


def test_verify_samples_above_full_rows_and_says_so(monkeypatch):
    from gdpproof.reference import verify as verify_module

    t = make_table("tradeoff", mu="1", alpha="lin:0:1:9", digits=10)
    monkeypatch.setattr(verify_module, "FULL_ROWS", 4)
    r = verify_table(t)
    assert r.sampled and len(r.checked) == 4 and r.ok
    assert "4 of 9 rows checked, a random sample (seed 0; tables above 4 rows are sampled; --sample all" in str(r)
    every = verify_table(t, sample="all")
    assert not every.sampled and len(every.checked) == 9 and every.coverage() == "every row"
    assert verify_table(t, sample=2).coverage() == "a random sample (seed 0; --sample all checks every row)"


def test_verify_tolerances_for_a_table_of_floats(tmp_path, capsys):
    # a third party's doubles a few float64 spacings off (differences near 1e-16): --ulps or --rtol accepts them
    import math

    with mpmath.workdps(50):
        exact = [(mu, eps, _delta_mp(mu, eps)) for mu in ("0.5", "1", "3") for eps in ("0.7", "1.5")]
    rows = []
    for mu, eps, x in exact:
        f = float(x)
        rows.append((mu, eps, repr(f + 3 * math.ulp(f))))
    path = tmp_path / "doubles.csv"
    path.write_text("mu,eps,delta\n" + "".join(",".join(r) + "\n" for r in rows))
    assert len(verify_table(path).mismatches) >= 4  # (a short repr may be within a unit of its own last digit)
    assert verify_table(path, ulps=4).ok and not verify_table(path, ulps=2).ok
    assert verify_table(path, rtol=1e-14).ok and not verify_table(path, rtol=1e-17).ok
    assert main(["table", "--verify", str(path), "--ulps", "4"]) == 0
    assert "tolerance 4 float64 spacing(s)" in capsys.readouterr().out
    assert main(["table", "--verify", str(path), "--rtol", "1e-14", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rtol"] == "1E-14"
    assert main(["table", "--verify", str(path), "--rtol", "2"]) == 2
    assert "--rtol='2' must be a number in [0, 1)" in capsys.readouterr().err
    # a column with a rounding claim is held to it, tolerance or not
    claimed = tmp_path / "claimed.csv"
    claimed.write_text("# rounding: delta=up\n" + path.read_text())
    assert verify_table(claimed, rtol=1e-14, ulps=8).mismatches
    for bad in ({"ulps": 0}, {"ulps": True}, {"rtol": -1e-3}, {"rtol": math.nan}, {"sample": "most"}):
        with pytest.raises(InvalidParameterError):
            verify_table(path, **bad)


def test_verify_reads_a_third_party_table_without_header(tmp_path):
    # a plain CSV as another project might write it: values rounded to nearest, 17 digits
    with mpmath.workdps(40):
        rows = [(mu, eps, mpmath.nstr(_delta_mp(mu, eps), 17, min_fixed=-30, max_fixed=30))
                for mu in ("0.5", "1", "3") for eps in ("0", "1.5")]
    path = tmp_path / "theirs.csv"
    path.write_text("mu,epsilon,delta\n" + "".join(",".join(r) + "\n" for r in rows))
    assert verify_table(path, sample=None).ok
    rows[3] = rows[3][:2] + (str(Decimal(rows[3][2]) * (1 + Decimal("1e-15"))),)
    path.write_text("mu,epsilon,delta\n" + "".join(",".join(r) + "\n" for r in rows))
    r = verify_table(path, sample=None)
    assert [m.row for m in r.mismatches] == [4] and "not within one unit" in r.mismatches[0].rule


def test_verify_samples_reproducibly():
    t = make_table("tradeoff", mu="1", alpha="lin:0:1:41", digits=15)
    a, b = verify_table(t, sample=5, seed=3), verify_table(t, sample=5, seed=3)
    assert a.checked == b.checked and len(a.checked) == 5 and a.ok
    assert verify_table(t, sample=5, seed=4).checked != a.checked


def test_verify_bracket_columns_are_checked_for_consistency():
    t = make_table("dpsgd", sigma="1", sample_rate="0.02", steps="50", delta="1e-5", digits=10)
    row = list(t.rows[0])
    row[-2] = str(Decimal(row[-1]) + 1)  # eps_lower above eps_upper: impossible
    r = verify_table(replace(t, rows=(tuple(row),)), sample=None)
    assert [m.column for m in r.mismatches] == ["eps_lower"]


# -- shipped tables ---------------------------------------------------------------------------

def test_shipped_tables_regenerate_identically():
    """Every shipped table, recomputed in full, equals its committed file (the versions line aside)."""
    assert check_shipped() == {name: [] for name in SHIPPED}


def test_a_slice_check_sees_a_changed_file(tmp_path, monkeypatch):
    from gdpproof.reference import shipped

    path = shipped.shipped_path("gdp_mu")
    changed = tmp_path / "gdp_mu.csv"
    changed.write_text(_change_digit(path.read_text(), 1, 2))
    monkeypatch.setattr(shipped, "shipped_path", lambda name: changed if name == "gdp_mu" else path)
    diff = check_shipped(["gdp_mu"], rows=3)["gdp_mu"]
    assert len(diff) == 1 and diff[0].startswith("row 2:")


def _delta_mp(mu: str, eps: str) -> mpmath.mpf:
    """delta(eps) of G_mu by the textbook formula in mpmath (Dong, Roth & Su 2022, Cor. 2.13)."""
    m, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def test_shipped_delta_and_tradeoff_against_an_independent_route():
    """A different route from the shipped evaluator: mpmath's ncdf on the textbook formulas at
    400 digits (alpha = 1e-300 needs them in 1 - 2 alpha); every shipped digit must match its
    rounding direction."""
    with mpmath.workdps(400):
        for mu, eps, delta in read_table("gdp_delta").rows:
            x = _delta_mp(mu, eps)
            v = mpmath.mpf(delta)
            ulp = mpmath.mpf(10) ** Decimal(delta).as_tuple().exponent
            assert v - ulp < x <= v, (mu, eps)  # rounded up
        for mu, alpha, beta in read_table("gaussian_tradeoff").rows:
            x = mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(alpha)) - mpmath.mpf(mu))
            v = mpmath.mpf(beta)
            ulp = mpmath.mpf(10) ** Decimal(beta).as_tuple().exponent
            assert v <= x < v + ulp, (mu, alpha)  # rounded down


def test_shipped_files_parse_and_say_how_to_regenerate():
    readme = (ROOT / "gdpproof" / "reference" / "data" / "README.md").read_text()
    assert "gdpproof tables --regenerate" in readme
    for name in SHIPPED:
        t = read_table(name)
        assert t.rows and parse(t.render("csv")).rows == t.rows


def test_cli_tables_check_slice(capsys):
    assert main(["tables", "--check", "--rows", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is True


# -- found by review ---------------------------------------------------------------------------

def test_a_journal_line_cut_by_a_kill_is_dropped_before_appending(tmp_path):
    out = tmp_path / "t.csv"
    spec = dict(mu="0.5,1,2,3", eps="0,1,2", digits=25)
    make_table("delta", out=tmp_path / "fresh.csv", **spec)
    journal = tmp_path / "t.csv.partial"
    # an interrupted run: header, two finished rows and a third cut in the middle of its line
    from gdpproof.reference._journal_key import journal_key, line_signer
    from gdpproof.reference.generate import _JOURNAL_MAGIC, TableSpec, compute_chunk, _journal_line

    spec_obj = TableSpec.build("delta", 25, {"mu": spec["mu"], "eps": spec["eps"]})
    rows = compute_chunk("delta", 25, list(enumerate(spec_obj.rows()))[:3])
    sign = line_signer(journal_key(), spec_obj.fingerprint(), None)
    lines = [_journal_line(spec_obj.fingerprint(), i, v, m, sign).rstrip("\n") for i, v, m in rows]
    journal.write_text(_JOURNAL_MAGIC + "\n" + spec_obj.fingerprint() + "\n" + lines[0] + "\n" + lines[1] + "\n"
                       + lines[2][:17])
    make_table("delta", out=out, resume=True, chunk_rows=100, **spec)
    assert out.read_bytes() == (tmp_path / "fresh.csv").read_bytes()
    # a damaged line (not the last) is refused with a message, not a traceback
    journal.write_text(_JOURNAL_MAGIC + "\n" + spec_obj.fingerprint() + "\n" + lines[0][:10] + "\n" + lines[1] + "\n")
    with pytest.raises(InvalidParameterError, match="line 3 of .* fails its check"):
        make_table("delta", out=out, resume=True, **spec)


def test_verify_reads_json_numbers_exactly(tmp_path):
    # a JSON table with numbers, not strings: json.loads would turn them into floats
    v = gdpproof.delta_from_epsilon(1, 1, digits=40)
    path = tmp_path / "num.json"
    path.write_text('{"columns": ["mu", "eps", "delta"], "rounding": {"delta": "up"}, "rows": [[1, 1, %s]]}' % v)
    assert verify_table(path, sample=None).ok


def test_verify_accepts_a_table_of_doubles_and_catches_a_wrong_one(tmp_path):
    with mpmath.workdps(50):
        exact = [(mu, eps, _delta_mp(mu, eps)) for mu in ("0.5", "1", "3") for eps in ("0", "0.7", "1.5", "4")]
    rows = [(mu, eps, repr(float(x))) for mu, eps, x in exact]  # the correctly rounded doubles, as repr prints
    path = tmp_path / "doubles.csv"
    path.write_text("mu,eps,delta\n" + "".join(",".join(r) + "\n" for r in rows))
    assert verify_table(path, sample=None).ok
    import math

    wrong = list(rows)
    f = float(wrong[5][2])
    wrong[5] = wrong[5][:2] + (repr(f + 3 * math.ulp(f)),)  # three doubles away
    path.write_text("mu,eps,delta\n" + "".join(",".join(r) + "\n" for r in wrong))
    assert [m.row for m in verify_table(path, sample=None).mismatches] == [6]


def test_verify_catches_a_last_digit_off_by_one_either_way(tmp_path):
    t = make_table("sigma", eps="0.5,2", delta="1e-8", digits=20)
    for delta_units in (-1, 1):
        row = list(t.rows[1])
        v = Decimal(row[-1])
        row[-1] = str(v + delta_units * Decimal(10) ** v.as_tuple().exponent)
        r = verify_table(replace(t, rows=(t.rows[0], tuple(row))), sample=None)
        assert [m.row for m in r.mismatches] == [2], delta_units


def test_verify_fixed_point_zero_and_unchecked_rows(tmp_path):
    path = tmp_path / "fixed.csv"
    # delta(20) of G_1 is 2.7e-86: "0.000000" is faithful to 6 decimals; mu=-1 cannot be recomputed
    path.write_text("mu,eps,delta\n1,20,0.000000\n1,1,0.126937\n-1,1,0.5\n")
    r = verify_table(path, sample=None)
    assert r.ok and [row for row, _ in r.unchecked] == [3]
    assert main(["table", "--verify", str(path), "--sample", "all"]) == 3


def test_markdown_without_separator_keeps_its_first_row(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("| mu | alpha | beta |\n| 1 | 0.5 | 0.158655253931457 |\n| 2 | 0.5 | 0.0227501319481792 |\n")
    assert len(read_table(path).rows) == 2


@pytest.mark.parametrize(("text", "message"), [
    ('{"columns": ["mu", "eps", "delta"], "rows": [1]}', "the JSON table is malformed"),
    ("# rounding: delta=sideways\nmu,eps,delta\n1,1,0.1\n", "delta='sideways' is not a rounding claim"),
    ("mu,eps,beta\n1,1,0.1\n", "match no table kind"),
    ("", "no column line"),
])
def test_malformed_tables_are_refused_clearly(tmp_path, text, message):
    path = tmp_path / ("t.json" if text.startswith("{") else "t.csv")
    path.write_text(text)
    with pytest.raises(InvalidParameterError, match=message):
        verify_table(path)


def test_non_utf8_and_folder_outputs_are_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"mu,eps,delta\n1,1,\xff\n")
    with pytest.raises(InvalidParameterError, match="is not UTF-8 text"):
        verify_table(path)
    with pytest.raises(InvalidParameterError, match="is a folder"):
        make_table("delta", mu="1", eps="1", out=tmp_path)
    assert list(tmp_path.iterdir()) == [path]


def test_integer_grid_values_are_plain_digits():
    assert parse_grid("--n", "1e21", integer=True) == ("1000000000000000000000",)
    assert parse_grid("--steps", "log:1e20:1e21:2", integer=True) == ("100000000000000000000", "1000000000000000000000")
    with pytest.raises(InvalidParameterError, match="at most 10"):
        make_table("rr-composition", eps="1", n="1e21", alpha="0.5")


def test_verify_lists_rows_beyond_recomputation_as_unchecked_exit_3(tmp_path, capsys):
    """Issue 32: the README's table (delta over mu log:0.01:30:100, eps lin:0:50:100 at 50 digits)
    has 371 rows with delta below 1e-1000000; --verify listed none and refused the file (exit 2).
    Here a slice with such a row (mu = 0.01, eps = 50: delta about 1e-5400000): it is listed as
    unchecked, the rest checked, exit 3."""
    from gdpproof.cli import main

    out = tmp_path / "delta.csv"
    assert main(["table", "delta", "--mu", "0.01,1", "--eps", "1,50", "--digits", "50", "--out", str(out),
                 "--workers", "1", "--no-progress"]) == 0
    capsys.readouterr()
    code = main(["table", "--verify", str(out), "--no-progress", "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert code == 3 and obj["ok"] is True and [u["row"] for u in obj["unchecked"]] == ["2"]
    assert "decimal exponent beyond +-1,000,000" in obj["unchecked"][0]["reason"]
    code = main(["table", "--verify", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 3 and "3 of 4 rows checked" in text and "row 2 could not be checked" in text
