"""Issue 32, item 1 on the command line: --epochs/--steps ranges, --delta/--eps lists, --plot."""

from __future__ import annotations

import json

import pytest

from gdpproof.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_steps_range_prints_a_proven_eps_per_point(capsys):
    code, out, err = run(capsys, "account", "--noise-multiplier", "1", "--sample-rate", "0.02", "--steps", "50:150:50",
                         "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert code == 0 and err.count("\n") <= 1 and obj["over"] == "steps"
    assert [p["steps"] for p in obj["points"]] == [50, 100, 150]
    for p in obj["points"]:
        assert float(p["eps_lower"]) <= float(p["eps_upper"]) <= 1.01 * float(p["eps_lower"])
        assert p["rounding"]["eps_upper"] == "up" and float(p["eps_clt"]) > 0
    code, out, _ = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.02", "--steps", "50:100:50",
                       "--delta", "1e-5")
    assert code == 0 and out.count("eps in [") == 2 and "steps 100" in out


def test_epochs_range_counts_steps_by_the_schedule(capsys):
    code, out, _ = run(capsys, "account", "--sigma", "1", "--batch-size", "100", "--dataset-size", "2000",
                       "--epochs", "1:3", "--delta", "1e-5", "--json")
    obj = json.loads(out)
    assert code == 0 and [(p["epochs"], p["steps"]) for p in obj["points"]] == [(1, 20), (2, 40), (3, 60)]


def test_delta_and_eps_lists(capsys):
    code, out, _ = run(capsys, "account", "--mechanism", "gdp:mu=1", "--delta", "1e-5,1e-9", "--digits", "8", "--json")
    obj = json.loads(out)
    assert code == 0 and [p["delta"] for p in obj["points"]] == ["1e-5", "1e-9"]
    assert [p["eps_upper"] for p in obj["points"]] == ["4.3771781", "6.1739351"]
    code, out, _ = run(capsys, "account", "--mechanism", "gdp:mu=1", "--eps", "1,2", "--digits", "8")
    assert code == 0 and "delta = 0.12693674" in out and "delta = 0.020923636" in out


def test_plot_writes_an_image(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "eps.png"
    code, out, _ = run(capsys, "account", "--mechanism", "gdp:mu=1", "--delta", "1e-3,1e-5,1e-7", "--plot", str(path))
    assert code == 0 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(path) in out


@pytest.mark.parametrize("argv, text", [
    (["--steps", "5:1", "--delta", "1e-5"], "--steps='5:1' must be A:B"),
    (["--epochs", "1:x", "--delta", "1e-5"], "--epochs='1:x' must be A:B"),
    (["--steps", "1:5:0", "--delta", "1e-5"], "--steps='1:5:0' must be A:B"),
    (["--steps", "1:5", "--delta", "1e-5,1e-6"], "give one value with a range"),
    (["--steps", "1:5"], "needs --delta D"),
    (["--steps", "10", "--delta", "1e-5,"], "--delta='1e-5,' must be a comma-separated list"),
    (["--steps", "10", "--delta", "1e-5", "--plot", "x.png"], "--plot='x.png' needs a range"),
    (["--steps", "1:5", "--delta", "1e-5", "--plot", "x.txt"], "--plot='x.txt' must name a"),
    (["--steps", "10", "--delta", "1e-5,2"], "--delta"),
])
def test_bad_ranges_and_lists_get_one_line(capsys, argv, text):
    code, out, err = run(capsys, "account", "--sigma", "1", "--sample-rate", "0.01", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and text in err, err
