"""Issue 33 item 7: the README's contracts hold on the command line.  Each test is built from
the issue's reproducer: numbers in ASCII only, an option given twice refused, no stray newline
or other control character in a value."""

from __future__ import annotations

import pytest

from gdpproof.cli import main


def _refused(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("gdpproof: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("number", ["١", "２", "1_0", " 5", "5\u00a0"])
@pytest.mark.parametrize("argv", [
    ["convert", "--mu", "1", "--eps", "1", "--digits", "{}"],
    ["table", "delta", "--mu", "1", "--eps", "1", "--workers", "{}"],
    ["table", "--verify", "t.csv", "--sample", "{}"],
    ["simulate", "laplace", "--scale", "1", "--samples", "{}", "--seed", "1"],
    ["simulate", "laplace", "--scale", "{}", "--samples", "1000", "--seed", "1"],
    ["simulate", "gaussian", "--sigma", "1", "--samples", "1000", "--seed", "1", "--confidence", "0.{}"],
    ["audit", "accountant", "opendp", "--rtol", "{}"],
], ids=["digits", "workers", "sample", "samples", "scale", "confidence", "rtol"])
def test_numbers_are_ascii_only(argv, number, capsys):
    # int() and float() read Arabic-Indic and fullwidth digits, '1_0' and surrounding spaces
    err = _refused([w.replace("{}", number) for w in argv], capsys)
    assert repr(number) in err or repr(f"0.{number}") in err, err


@pytest.mark.parametrize("argv, twice", [
    (["convert", "--mu", "1", "--eps", "1", "--json", "--json"], "--json"),
    (["table", "delta", "--mu", "1", "--eps", "1", "--no-progress", "--no-progress"], "--no-progress"),
    (["convert", "--mu", "1", "--mu", "2", "--eps", "1"], "--mu"),
])
def test_an_option_given_twice_is_refused(argv, twice, capsys):
    assert f"{twice} is given twice" in _refused(argv, capsys)


@pytest.mark.parametrize("argv, shown", [
    (["convert", "--mu", "1\n", "--eps", "1"], "--mu='1\\n'"),
    (["convert", "--mu=1\n", "--eps", "1"], "--mu='1\\n'"),
    (["convert", "--mu", "1", "--eps", "1\t"], "--eps='1\\t'"),
    (["table", "delta", "--mu", "1", "--eps", "1", "--out", "a\nb.csv"], "--out='a\\nb.csv'"),
])
def test_a_value_with_a_newline_or_control_character_is_refused(argv, shown, capsys):
    # a trailing newline split the output line that echoes the value ("of 1\n-GDP at eps = 1")
    err = _refused(argv, capsys)
    assert err.startswith(f"gdpproof: error: {shown} holds a newline, tab or other control character"), err
