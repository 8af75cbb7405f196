"""``gdpproof audit scores``: files in every format, the done-when bounds, exit codes, one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gdpproof.cli import main


@pytest.fixture(scope="module")
def done_when(tmp_path_factory):
    """5,000 held-in scores N(2, 1) and 5,000 held-out N(0, 1), seed 28, as CSV files."""
    folder = tmp_path_factory.mktemp("scores")
    rng = np.random.default_rng(28)
    paths = []
    for name, scores in (("in.csv", rng.normal(2, 1, 5000)), ("out.csv", rng.normal(0, 1, 5000))):
        path = folder / name
        path.write_text("score\n" + "\n".join(repr(float(s)) for s in scores) + "\n")
        paths.append(str(path))
    return paths


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_done_when_bounds(done_when, capsys):
    # the command line gives the library's audit of the same scores (whose statements about
    # chance, with their false-failure probabilities, are tested in tests/audit/test_thresholds.py)
    from gdpproof.audit import threshold_audit

    rng = np.random.default_rng(28)
    inside, outside = rng.normal(2, 1, 5000), rng.normal(0, 1, 5000)
    base = ["audit", "scores", "--in", done_when[0], "--out", done_when[1], "--json"]
    code, out, err = _run(base, capsys)
    d = json.loads(out)
    assert code == 0 and d["confidence"] == "0.95"
    assert d["threshold"]["strategy"] == "bonferroni" and len(d["threshold"]["tests"]) <= 100
    assert d["threshold"]["mu_low"] == str(threshold_audit(inside, outside, thresholds=100).mu_low)
    code, out, err = _run(base + ["--threshold", "split", "--seed", "0"], capsys)
    d = json.loads(out)
    split = threshold_audit(inside, outside, threshold="split", seed=0)
    assert code == 0 and d["threshold"]["mu_low"] == str(split.mu_low)


def test_a_false_claim_is_refuted_with_exit_1(done_when, capsys):
    code, out, _ = _run(["audit", "scores", "--in", done_when[0], "--out", done_when[1], "--claim", "gdp:mu=1.5",
                         "--thresholds", "20"], capsys)
    assert code == 1 and "verdict" in out and "refuted" in out and "exit code 1" in out


def test_labelled_files_in_every_format_give_the_same_audit(tmp_path, capsys):
    rng = np.random.default_rng(1)
    inside, outside = rng.normal(1, 1, 300), rng.normal(0, 1, 300)
    csv = tmp_path / "s.csv"
    csv.write_text("label,score\n" + "".join(f"in,{float(s)!r}\n" for s in inside) + "".join(f"0,{float(s)!r}\n" for s in outside))
    npy = tmp_path / "s.npy"
    np.save(npy, np.stack([np.concatenate([inside, outside]), np.r_[np.ones(300), np.zeros(300)]], axis=1))
    js = tmp_path / "s.json"
    js.write_text(json.dumps({"held_in": inside.tolist(), "held_out": outside.tolist()}))
    results = []
    for path in (csv, npy, js):
        code, out, err = _run(["audit", "scores", "--scores", str(path), "--json", "--thresholds", "10"], capsys)
        assert code == 0, err
        results.append(json.loads(out)["threshold"]["mu_low"])
    assert len(set(results)) == 1


def test_a_guess_file_gives_the_one_run_bounds(tmp_path, capsys):
    path = tmp_path / "g.csv"
    rows = ["guess,label"] + ["1,1"] * 90 + ["in,0"] * 10 + ["0,1"] * 400 + ["abstain,0"] * 500
    path.write_text("\n".join(rows) + "\n")
    code, out, err = _run(["audit", "scores", "--guesses", str(path), "--delta", "1e-5", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["one_run"]["epsilon_low"] == "1.62614" and d["method"] == "fdp"


@pytest.mark.parametrize(("content", "name", "message"), [
    ("score\n1.0\nabc\n", "x.csv", "x.csv: row 3: score 'abc' must be a finite number"),
    ("1.0\nnan\n", "x.csv", "x.csv: row 2: score 'nan' must be a finite number"),
    ("1.0\n2,3\n", "x.csv", "x.csv: row 2: has 2 fields"),
    ('[1.0, "2"]', "x.json", "x.json: row 2: score '2' must be a finite number"),
    ('{"values": [1]}', "x.json", "must be a list of numbers or an object with a list 'scores'"),
    ("[1.0,", "x.json", "x.json: row 1: is not JSON"),
    ("# only a comment\n", "x.csv", "x.csv: holds no scores"),
])
def test_a_bad_file_is_one_line_naming_the_row(tmp_path, capsys, content, name, message):
    bad = tmp_path / name
    bad.write_text(content)
    good = tmp_path / "good.csv"
    good.write_text("1.0\n2.0\n")
    code, out, err = _run(["audit", "scores", "--in", str(bad), "--out", str(good)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_bad_label_or_guess_names_its_row(tmp_path, capsys):
    path = tmp_path / "l.csv"
    path.write_text("score,label\n1.0,in\n2.0,maybe\n")
    code, _, err = _run(["audit", "scores", "--scores", str(path)], capsys)
    assert code == 2 and "row 3: label 'maybe' must be" in err
    path.write_text("guess,label\n2,1\n")
    code, _, err = _run(["audit", "scores", "--guesses", str(path)], capsys)
    assert code == 2 and "row 2: guess '2' must be 1/in, -1/out or 0/abstain" in err


def test_the_simulator_catches_a_bug_and_passes_the_correct_run(tmp_path, capsys):
    base = ["audit", "scores", "--simulate", "--sigma", "1", "--sample-rate", "0.1", "--steps", "50", "--seed", "1",
            "--delta", "1e-5"]
    code, out, err = _run(base + ["--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["verdict"]["refuted"] is False
    saved = tmp_path / "sim.csv"
    code, out, err = _run(base + ["--bug", "noise-scale", "--save-scores", str(saved), "--plot",
                                  str(tmp_path / "roc.png")], capsys)
    assert code == 1 and "refuted" in out
    assert saved.read_text().startswith("score,label\n") and (tmp_path / "roc.png").stat().st_size > 10_000


@pytest.mark.parametrize(("extra", "message"), [
    (["--scores", "a.csv"], "give the scores by exactly one of"),
    ([], "__only_in__"),
    (["--sigma", "1"], "--sigma is an option of --simulate"),
    (["--guess", "5:x"], "--guess='5:x' must be K or K+:K-"),
    (["--threshold", "half"], "--threshold='half' must be a number"),
    (["--thresholds", "0"], "--thresholds='0' must be an integer >= 1"),
    (["--claim", "gauss:sigma=1"], "--claim='gauss:sigma=1'"),
    (["--plot", "roc.gif"], "--plot='roc.gif' must name a .png, .pdf, .svg file"),
    (["--confidence", "٠.٩"], "--confidence='٠.٩' must be a number in ASCII"),
])
def test_usage_errors_are_one_line(done_when, capsys, extra, message):
    argv = ["audit", "scores", "--in", done_when[0]] + ([] if message == "__only_in__" else ["--out", done_when[1]])
    code, out, err = _run(argv + extra, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert ("--in and --out go together" if message == "__only_in__" else message) in err


def test_a_bad_value_reaching_the_library_names_the_option(done_when, capsys):
    code, _, err = _run(["audit", "scores", "--in", done_when[0], "--out", done_when[1], "--confidence", "1"], capsys)
    assert code == 2 and "--confidence='1' must be in (0, 1)" in err


def test_a_huge_simulated_noise_multiplier_is_refused_in_one_line(capsys):
    # 2 sigma^2 must be a double (sigma = 1e300 was an internal OverflowError)
    code, out, err = _run(["audit", "scores", "--simulate", "--sigma", "1e300", "--sample-rate", "0.1",
                           "--steps", "5"], capsys)
    assert code == 2 and err.strip() == "gdpproof: error: --sigma=1e+300 must be a finite number > 0 at most 1e+100"
