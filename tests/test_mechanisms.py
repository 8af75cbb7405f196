"""Mechanism values: exact parameters, frozen, one vocabulary, clear errors, specs from text."""

from __future__ import annotations

import dataclasses
import json

import pytest
import sympy

import gdpproof
from gdpproof.errors import MISSING, InvalidParameterError, NotSupportedError
from gdpproof.mechanisms import (
    GDP,
    Composed,
    EpsDelta,
    GaussianMechanism,
    LaplaceMechanism,
    PoissonSampled,
    PureDP,
    RandomizedResponse,
    Repeated,
    SpecError,
    dpsgd,
    mechanism_from_dict,
    mechanism_from_file,
    mechanism_from_spec,
)


def test_values_are_exact_frozen_and_hashable() -> None:
    g = GaussianMechanism(sigma="10/3")
    assert g.sigma == sympy.Rational(10, 3) and g.gdp_mu() == sympy.Rational(3, 10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.sigma = 1  # type: ignore[misc]
    assert {g: 1}[GaussianMechanism(sigma=sympy.Rational(10, 3), sensitivity=1)] == 1


def test_leaves_merge_and_multiply() -> None:
    m = Composed(Repeated(Composed(GDP(1), RandomizedResponse(1)), 3), GDP(1))
    assert m.leaves() == [(GDP(1), 4), (RandomizedResponse(1), 3)]
    assert m.gdp_mu() is None
    assert Composed(GaussianMechanism(2), Repeated(GDP(1), 3)).gdp_mu() == sympy.sqrt(sympy.Rational(13, 4))


def test_tradeoffs_in_closed_form() -> None:
    assert Repeated(GaussianMechanism(2), 4).tradeoff() == gdpproof.gaussian(1)
    assert Repeated(RandomizedResponse("0.1"), 10).tradeoff() == gdpproof.rr_composition("0.1", 10)
    assert LaplaceMechanism(scale=2).tradeoff() == gdpproof.laplace(sympy.Rational(1, 2))
    assert PureDP(1).tradeoff() == gdpproof.eps_delta(1, 0)
    with pytest.raises(NotSupportedError, match="account"):
        Composed(GDP(1), LaplaceMechanism(1)).tradeoff()


def test_loss_laws_name_their_family_and_parameters() -> None:
    assert GaussianMechanism(sigma=4, sensitivity=2).loss_law().parameters() == {"mu": sympy.Rational(1, 2)}
    assert LaplaceMechanism(scale=10).loss_law().parameters() == {"mu": sympy.Rational(1, 10)}
    law = PoissonSampled(GaussianMechanism(2), "0.01").loss_law()
    assert law.name == "subsampled_gaussian" and law.parameters() == {"sigma": 2, "p": sympy.Rational(1, 100)}
    with pytest.raises(NotSupportedError, match="infinite"):
        EpsDelta(1, "1e-5").loss_law()
    with pytest.raises(NotSupportedError, match="not supported yet"):
        PoissonSampled(LaplaceMechanism(1), "0.1").loss_law()
    with pytest.raises(NotSupportedError, match="base mechanism"):
        Repeated(GDP(1), 2).loss_law()


def test_dpsgd_is_repeated_poisson_gaussian() -> None:
    assert dpsgd(1.0, "0.01", 1000) == Repeated(PoissonSampled(GaussianMechanism(1), "0.01"), 1000)


@pytest.mark.parametrize(("call", "name", "shown"), [
    (lambda: GaussianMechanism(sigma=0), "sigma", "0"),
    (lambda: GaussianMechanism(sigma=1, sensitivity=-1), "sensitivity", "-1"),
    (lambda: GaussianMechanism(sigma=float("inf")), "sigma", "inf"),
    (lambda: GDP("nan"), "mu", "nan"),
    (lambda: LaplaceMechanism(scale="-2"), "scale", "-2"),
    (lambda: RandomizedResponse(-1), "epsilon", "-1"),
    (lambda: EpsDelta(1, "1.5"), "delta", "1.5"),
    (lambda: PoissonSampled(GDP(1), 0), "sample_rate", "0"),
    (lambda: PoissonSampled(GDP(1), "2"), "sample_rate", "2"),
    (lambda: PoissonSampled("gaussian", "0.1"), "mechanism", "gaussian"),
    (lambda: Repeated(GDP(1), 0), "times", "0"),
    (lambda: Repeated(GDP(1), "2.5"), "times", "2.5"),
    (lambda: Composed(), "mechanisms", "()"),
    (lambda: Composed(GDP(1), 3), "mechanisms", "3"),
    (lambda: dpsgd(1, "0.01", -5), "steps", "-5"),
])
def test_bad_parameters_name_the_argument(call, name: str, shown: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call()
    msg = str(info.value)
    assert f"{name}=" in msg and shown in msg, msg


def test_specs_from_the_command_line() -> None:
    assert mechanism_from_spec("gaussian:sigma=10/3,times=10") == Repeated(GaussianMechanism("10/3"), 10)
    assert mechanism_from_spec("laplace:scale=10,sensitivity=2") == LaplaceMechanism(10, 2)
    assert mechanism_from_spec("rr:eps=0.5") == RandomizedResponse("0.5")
    assert mechanism_from_spec("dpsgd:sigma=1,sample-rate=0.01,steps=100") == dpsgd(1, "0.01", 100)
    assert mechanism_from_spec("gdp:mu=1,sample_rate=0.1,times=3") == Repeated(PoissonSampled(GDP(1), "0.1"), 3)


@pytest.mark.parametrize(("spec", "text"), [
    ("gausian:sigma=1", "kind='gausian' must be one of"),
    ("gaussian:sigma", "'sigma' must be key=value"),
    ("gaussian:sigma=1,noise=2", "noise='2' is not a parameter of gaussian"),
    ("gaussian:sigma=-1", "sigma=-1"),
    ("gaussian:", "sigma is needed by gaussian"),
    ("laplace:scale=1,times=0", "times=0"),
    # a value the mechanism refuses is named by the spec's key, not the Python parameter's
    ("dpsgd:sigma=1,sample-rate=2,steps=10", "sample-rate='2' must be in (0, 1]"),
    ("dpsgd:sigma=1,sample-rate=0.01,epochs=2,batch-size=0,dataset-size=100", "batch-size='0' must be"),
    ("gaussian:sigma=1,sample-size=0,dataset-size=10", "sample-size='0' must be"),
    ("gdp:mu=1,sample_rate=1.5", "sample-rate='1.5' must be in (0, 1]"),
])
def test_bad_specs_name_the_part_at_fault(spec: str, text: str) -> None:
    with pytest.raises(SpecError) as info:
        mechanism_from_spec(spec)
    assert text in str(info.value) and spec in str(info.value)


def test_spec_files_toml_and_json(tmp_path) -> None:
    toml = tmp_path / "m.toml"
    toml.write_text('[[mechanisms]]\nkind = "gaussian"\nsigma = "10/3"\ntimes = 10\n\n'
                    '[[mechanisms]]\nkind = "laplace"\nscale = 10\ntimes = 5\n', encoding="utf-8")
    want = Composed(Repeated(GaussianMechanism("10/3"), 10), Repeated(LaplaceMechanism(10), 5))
    assert mechanism_from_file(str(toml)) == want
    js = tmp_path / "m.json"
    js.write_text(json.dumps({"mechanisms": [{"kind": "gdp", "mu": 0.3, "times": 10}]}), encoding="utf-8")
    assert mechanism_from_file(str(js)) == Repeated(GDP("0.3"), 10)  # JSON numbers read as decimals
    bad = tmp_path / "bad.toml"
    bad.write_text("[[mechanisms]]\nkind = 'gdp'\nmu = -1\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"mechanisms\[0\].*mu=-1"):
        mechanism_from_file(str(bad))
    with pytest.raises(SpecError, match="not valid TOML"):
        (tmp_path / "x.toml").write_text("[[", encoding="utf-8")
        mechanism_from_file(str(tmp_path / "x.toml"))
    with pytest.raises(SpecError, match="No such file"):
        mechanism_from_file(str(tmp_path / "missing.toml"))
    with pytest.raises(SpecError, match="non-empty list"):
        (tmp_path / "e.json").write_text("{}", encoding="utf-8")
        mechanism_from_file(str(tmp_path / "e.json"))


def _spec_files(tmp_path) -> dict[str, tuple[str, str]]:
    """name -> (path, the message's needle) of spec files that must be refused (issue 33)."""
    from gdpproof.mechanisms import MAX_SPEC_BYTES, MAX_SPEC_DEPTH

    files = {
        "duplicate key": ("dup.json", '{"mechanisms": [{"kind": "gaussian", "sigma": "1", "sigma": "100"}]}',
                          "the key 'sigma' is given twice in one object"),
        "duplicate key at the top": ("top.json", '{"mechanisms": [], "mechanisms": [{"kind": "gdp", "mu": 1}]}',
                                     "the key 'mechanisms' is given twice"),
        "too large": ("big.toml", "#" * (MAX_SPEC_BYTES + 1), f"larger than {MAX_SPEC_BYTES:,} bytes"),
        "nested beyond the parser (JSON)": ("deep.json", '{"mechanisms": ' + "[" * 100_000 + "]" * 100_000 + "}",
                                            f"nested deeper than {MAX_SPEC_DEPTH} levels"),
        "nested beyond the parser (TOML)": ("deep.toml", "mechanisms = " + "[" * 100_000 + "]" * 100_000 + "\n",
                                            f"nested deeper than {MAX_SPEC_DEPTH} levels"),
        "nested in a value": ("value.json", '{"mechanisms": [{"kind": "gdp", "mu": ' + "[" * 900 + "]" * 900 + "}]}",
                              f"nested deeper than {MAX_SPEC_DEPTH} levels"),
        "nested tables (TOML)": ("tables.toml", "a = " + "{b=" * 5000 + "1" + "}" * 5000 + "\n",
                                 f"nested deeper than {MAX_SPEC_DEPTH} levels"),
    }
    out = {}
    for name, (file, text, needle) in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
        out[name] = (str(tmp_path / file), needle)
    return out


def test_spec_files_bounded_unique_keys_shallow(tmp_path) -> None:
    for name, (path, needle) in _spec_files(tmp_path).items():
        with pytest.raises(SpecError) as info:
            mechanism_from_file(path)
        assert needle in str(info.value) and repr(path) in str(info.value), name
    ok = tmp_path / "ok.json"  # the same keys in different objects are fine
    ok.write_text('{"mechanisms": [{"kind": "gdp", "mu": "1"}, {"kind": "gdp", "mu": "2"}]}', encoding="utf-8")
    assert mechanism_from_file(str(ok)) == Composed(GDP(1), GDP(2))


def test_spec_file_reads_stop_at_the_bound(tmp_path) -> None:
    # an endless file (--spec /dev/zero grew until memory ran out) is refused after the bound
    import os

    from gdpproof.mechanisms import MAX_SPEC_BYTES

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    with pytest.raises(SpecError, match=f"larger than {MAX_SPEC_BYTES:,} bytes"):
        mechanism_from_file("/dev/zero")


def test_bad_spec_files_exit_2_on_the_command_line(tmp_path, capsys) -> None:
    from gdpproof.cli import main

    for name, (path, needle) in _spec_files(tmp_path).items():
        code = main(["account", "--spec", path, "--delta", "1e-5"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and needle in err and err.count("\n") == 1 and "Traceback" not in err, name


def test_repr_shows_parameters_as_written() -> None:
    assert repr(dpsgd(1.0, 0.01, 1000)) == \
        "Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=0.01), 1000)"
    assert repr(GDP("1/3")) == "GDP(mu=1/3)"


@pytest.mark.parametrize(("call", "text"), [
    (lambda: mechanism_from_spec("gaussian:sigma=1,sigma=2"), "'sigma' is given twice"),
    (lambda: mechanism_from_spec("dpsgd:sigma=1,sample_rate=0.1,sample-rate=0.2,steps=3"), "given twice"),
    (lambda: mechanism_from_spec(None), "text=None must be a string KIND:key=value"),
    (lambda: mechanism_from_dict({"kind": ["gaussian"], "sigma": 1}), "kind=['gaussian'] must be one of"),
    (lambda: mechanism_from_spec("eps-delta:epsilon=1"), "delta is needed by eps-delta"),
])
def test_ambiguous_specs_are_refused(call, text: str) -> None:
    with pytest.raises(SpecError, match=None) as info:
        call()
    assert text in str(info.value)


def test_dpsgd_parameters() -> None:
    assert dpsgd(2, "0.01", 10).dpsgd_parameters() == (2, sympy.Rational(1, 100), 10)
    assert Repeated(PoissonSampled(GDP("0.5"), "0.1"), 3).dpsgd_parameters() == (2, sympy.Rational(1, 10), 3)
    assert Composed(dpsgd(1, "0.1", 2), GDP(1)).dpsgd_parameters() is None


def test_reprs_are_exact_and_short() -> None:
    assert repr(GDP("1e-100")) == "GDP(mu=1E-100)"  # (1e-400 is outside the range of mechanism parameters)
    assert repr(GDP(0.01)) == "GDP(mu=0.01)" and repr(GDP("0.01")) == "GDP(mu=1/100)"  # the double, the decimal
    assert repr(GDP(sympy.Rational(1, 3) ** 100)).startswith("GDP(mu=≈")


def test_the_parameter_range_is_the_symbolic_one():
    # mechanisms/numbers.py checks Fractions without sympy against the families' range
    from gdpproof.mechanisms.numbers import MAX_PARAMETER_EXPONENT
    from gdpproof.symbolic.tradeoff import MAX_PARAMETER_EXPONENT as SYMBOLIC

    assert MAX_PARAMETER_EXPONENT == SYMBOLIC



def test_a_rate_below_the_range_is_refused_with_the_range_of_a_probability():
    """A sampling rate is a probability: its refusal names [1e-100, 1], not the families' 1e100."""
    import gdpproof
    from gdpproof.errors import InvalidParameterError
    from gdpproof.mechanisms import GaussianMechanism, PoissonSampled

    # a mechanism's rate must be > 0; the subsampling operator's p may be 0 (the identity)
    for make, name, zero in ((lambda: PoissonSampled(GaussianMechanism(1), "1e-400"), "sample_rate", ""),
                             (lambda: gdpproof.subsample(gdpproof.gaussian(1), "1e-400"), "p", "0 or ")):
        with pytest.raises(InvalidParameterError, match=rf"{name}=.* must be {zero}within \[1e-100, 1\]$"):
            make()


def test_a_spec_error_keeps_the_parameter_at_fault():
    # the message names the spec; the fields name the parameter, for a front end to rename it
    # (gdpproof simulate KIND --sigma 0 reads "--sigma='0' must be > 0")
    from gdpproof.mechanisms import SpecError, mechanism_from_dict

    with pytest.raises(SpecError) as info:
        mechanism_from_dict({"kind": "gaussian", "sigma": "0"})
    assert str(info.value) == "mechanism: sigma='0' must be > 0"
    assert (info.value.argument, info.value.value, info.value.rule) == ("sigma", "0", "must be > 0")
    assert info.value.named("--sigma") == "--sigma='0' must be > 0"


@pytest.mark.parametrize(("spec", "fields", "text"), [
    ("gdp:mu=1,neighbours=replace-one", ("neighbours", "replace-one"), "neighbours='replace-one' applies to a subsample"),
    ("gdp:mu=1,sample-size=3", ("dataset-size", MISSING), "dataset-size is needed with sample-size"),
    ("gaussian:sigma=1,noise=2", ("noise", "2"), "noise='2' is not a parameter of gaussian"),
    ("gaussian:", ("sigma", MISSING), "sigma is needed by gaussian"),
    ("gausian:sigma=1", ("kind", "gausian"), "kind='gausian' must be one of"),
    ("rr:epsilon=log(-1)", ("epsilon", "log(-1)"), "epsilon='log(-1)'"),  # from the formula parser, fields kept
])
def test_a_spec_error_about_one_argument_is_built_from_its_fields(spec, fields, text):
    # errors.within(where, errors.bad(name, value, rule)): the message is where plus bad's text,
    # and the argument, value and rule stay fields for a front end to rename

    with pytest.raises(SpecError) as info:
        mechanism_from_spec(spec)
    e = info.value
    assert (e.argument, e.value) == fields and e.rule
    assert str(e) == f"mechanism {spec!r}: {e.named(e.argument)}" and text in str(e)

