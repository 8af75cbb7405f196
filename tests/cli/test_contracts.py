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


RAISERS = '''
from gdpproof.errors import InvalidParameterError, PrecisionError
from gdpproof.simulation import Sampler

def sampler_precision():
    def sample(rng, n):
        raise PrecisionError("the sampler's own PrecisionError")
    return sample, sample

class _Raises(Sampler):
    def scores(self, rng, n, law):
        raise PrecisionError("the mechanism's own PrecisionError")

def mechanism_precision():
    return _Raises()

def factory_invalid():
    raise InvalidParameterError(argument="mu", value="-1", rule="must be >= 0")
'''


@pytest.fixture(scope="module")
def raisers(tmp_path_factory):
    path = tmp_path_factory.mktemp("raisers") / "h3_raisers.py"
    path.write_text(RAISERS)
    (path.parent / "h3_raises_on_import.py").write_text(
        "from gdpproof.errors import PrecisionError\nraise PrecisionError('at import')\n")
    return path


@pytest.mark.parametrize("argv, error", [
    (["audit", "mechanism", "--module", "{mods}:sampler_precision", "--claimed-mu", "1", "--seed", "1",
      "--samples", "1000"], "PrecisionError: the sampler's own PrecisionError"),
    (["audit", "mechanism", "--module", "{mods}:factory_invalid", "--claimed-mu", "1", "--seed", "1"],
     "InvalidParameterError: mu='-1' must be >= 0"),
    (["simulate", "module", "--module", "{mods}:mechanism_precision", "--mu", "1", "--seed", "1", "--samples",
      "1000"], "PrecisionError: the mechanism's own PrecisionError"),
    (["simulate", "module", "--module", "{mods}:factory_invalid", "--mu", "1", "--seed", "1", "--samples", "1000"],
     "InvalidParameterError: mu='-1' must be >= 0"),
    (["simulate", "module", "--module", "{dir}/h3_raises_on_import.py:f", "--mu", "1", "--seed", "1", "--samples",
      "1000"], "cannot import"),
], ids=["audit-sampler", "audit-factory", "simulate-mechanism", "simulate-factory", "import"])
def test_gdpproof_errors_raised_by_a_user_module_are_exit_2_naming_it(argv, error, raisers, capsys):
    # they were exit 3 (PrecisionError) or exit 2 without the module's name
    words = [a.replace("{mods}", str(raisers)).replace("{dir}", str(raisers.parent)) for a in argv]
    err = _refused(words, capsys)
    module = next(w for w in words if ".py:" in w)
    assert f"--module={module!r}" in err and error in err, err


def test_a_module_file_leaves_its_folder_last_on_sys_path(tmp_path, monkeypatch):
    # it stayed first: a json.py beside the module would have shadowed every later import of json
    import sys

    from gdpproof.cli._usercode import import_function

    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "h3_pathmod.py").write_text("def f():\n    return 1\n")
    func, name = import_function(f"{tmp_path}/h3_pathmod.py:f")
    assert func() == 1 and name == "f"
    assert sys.path[-1] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1


@pytest.mark.parametrize("argv, refused", [
    (["calibrate", "--eps", "1", "--delta", "1e-5", "--sampling", "poisson"], "--sampling=poisson"),
    (["calibrate", "--eps", "1", "--delta", "1e-5", "--rel-width", "0.01"], "--rel-width=0.01"),
    (["account", "--mechanism", "gdp:mu=1", "--delta", "1e-5", "--sampling", "poisson"], "--sampling=poisson"),
    (["account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "10", "--rel-width", "0.01"],
     "--rel-width=0.01"),
])
def test_an_option_that_does_not_apply_is_refused_even_at_its_default(argv, refused, capsys):
    # calibrate (gaussian) ignored --sampling poisson and --rel-width 0.01: they equalled the defaults
    assert refused in _refused(argv, capsys)


@pytest.mark.parametrize("text, code, verdict", [
    ("mu,eps,delta\n-1,1,0.5\n", 3, "no value could be checked"),
    ("mu,eps,delta\n", 0, "the table has no rows; nothing was checked"),
])
def test_verify_with_no_checkable_value_does_not_say_every_value_is_right(tmp_path, capsys, text, code, verdict):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert main(["table", "--verify", str(path)]) == code
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(f"(0 values, at 10 extra digits): {verdict}") and "right" not in out, out


def test_the_exact_route_certifies_800_gaussians_of_different_sigma():
    # issue 33: exit 3 ("could not certify 20 digits of the gaussian(mu=sqrt(<2,781 characters>)) at
    # alpha=0"): the floor 1 - G_mu(0) was evaluated in balls, which are not finite at alpha = 0,
    # and mu's rational was too long for an exact attempt; G_mu(0) = 1 for every finite mu
    from fractions import Fraction

    import gdpproof
    from gdpproof.mechanisms import Composed, GaussianMechanism

    m = Composed(*[GaussianMechanism(sigma=str(Fraction(2000 + i, 100))) for i in range(800)])
    a = gdpproof.account(m, delta="1e-5", digits=6)
    assert a.route == "exact" and str(a.eps_upper) == "5.38960" and str(a.mu) == "1.19549"
    assert str(gdpproof.epsilon_from_delta("1.19548475769433638361094298679", "1e-5", digits=6)) == "5.38960"


def test_a_warning_no_command_reports_itself_is_one_line_on_stderr(monkeypatch, capsys):
    # table --verify of a DP-SGD row of 10^9 steps: the reference bracket's WidthNotReachedWarning
    # came out as Python's two lines, naming gdpproof's source file and its code
    import warnings

    from gdpproof.cli import convert
    from gdpproof.errors import WidthNotReachedWarning

    def run(args):
        warnings.warn("reached a relative width of 0.0102,\nasked 0.01", WidthNotReachedWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(convert, "run", run)
    assert main(["convert", "--mu", "1", "--eps", "1"]) == 0
    assert capsys.readouterr().err == "gdpproof: warning: reached a relative width of 0.0102, asked 0.01\n"
