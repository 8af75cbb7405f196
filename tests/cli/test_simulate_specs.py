"""``gdpproof simulate`` takes the ``--mechanism`` specs ``gdpproof account`` takes (one vocabulary)."""

from __future__ import annotations

import json

import pytest

from gdpproof.audit.theory import sampler_of
from gdpproof.cli import main
from gdpproof.errors import NotSupportedError
from gdpproof.mechanisms import mechanism_from_spec


@pytest.mark.parametrize("spec, name", [
    ("gaussian:sigma=2,times=4", "gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=4)"),
    ("gdp:mu=1/2", "gaussian_mechanism(sensitivity=1, sigma=2, dim=1, steps=1)"),
    ("dpsgd:sigma=1,sample-rate=0.1,steps=20", "subsampled_gaussian(sigma=1, p=0.1, steps=20)"),
    ("gaussian:sigma=3,sensitivity=1.5,sample-rate=0.1,times=20", "subsampled_gaussian(sigma=2, p=0.1, steps=20)"),
    ("laplace:scale=2", "laplace_mechanism(sensitivity=1, scale=2)"),
    ("rr:eps=1,times=3", "randomized_response(eps=1, n=3)"),
    ("discrete-gaussian:sigma=2,times=2", "discrete_gaussian_mechanism(sigma=2, sensitivity=1, steps=2)"),
])
def test_spec_values_map_to_the_samplers(spec, name):
    assert sampler_of(mechanism_from_spec(spec)).name == name


@pytest.mark.parametrize("spec", ["eps-delta:eps=1,delta=0.1", "gaussian:sigma=1,sample-rate=0.1,neighbours=replace-one",
                                  "gaussian:sigma=1,sample-size=10,dataset-size=100", "laplace:scale=1,times=2"])
def test_specs_without_a_sampler_are_refused(spec):
    with pytest.raises(NotSupportedError, match="no sampler"):
        sampler_of(mechanism_from_spec(spec))


def test_account_and_simulate_read_the_same_spec(capsys):
    spec = "gaussian:sigma=2,times=4"  # exactly 1-GDP
    assert main(["account", "--mechanism", spec, "--delta", "1e-5", "--json"]) == 0
    acc = json.loads(capsys.readouterr().out)
    assert acc["mu"] == "1.00000"  # exactly 1, shown at the digits asked
    # a correct mechanism stays inside its band (false-failure probability 1e-6: the band's confidence)
    assert main(["simulate", "--mechanism", spec, "--samples", "20000", "--seed", "3", "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert sim["inside"] is True and sim["theory"] == "G_mu, mu = 1 (exact)"


@pytest.mark.parametrize("kind, spec", [
    (["gaussian", "--sigma", "2", "--steps", "4"], "gaussian:sigma=2,times=4"),
    (["gaussian", "--sigma", "3", "--sensitivity", "1.5", "--sample-rate", "0.1", "--steps", "5"],
     "gaussian:sigma=3,sensitivity=1.5,sample-rate=0.1,times=5"),
    (["laplace", "--scale", "2"], "laplace:scale=2"),
    (["randomized-response", "--eps", "1", "--n", "3"], "rr:eps=1,times=3"),
    (["randomized-response", "--eps", "0.5", "--k", "3"], "rr:eps=0.5,k=3"),
])
def test_a_kind_with_its_options_is_the_spec_it_names(capsys, kind, spec):
    # simulate KIND --options is an alias of simulate --mechanism SPEC: the same run, word for word
    tail = ["--samples", "2000", "--seed", "3", "--json"]
    by_kind, by_spec = main(["simulate", *kind, *tail]), main(["simulate", "--mechanism", spec, *tail])
    out = capsys.readouterr().out.splitlines()
    assert by_kind == by_spec and len(out) == 2 and out[0] == out[1]


@pytest.mark.parametrize("argv, words", [
    (["simulate", "gaussian", "--mechanism", "gdp:mu=1"], "one way"),
    (["simulate"], "one way"),
    (["simulate", "--mechanism", "gdp:mu=1", "--sigma", "2"], "--sigma=2 does not apply with --mechanism"),
    (["simulate", "--mechanism", "eps-delta:eps=1,delta=0.1"], "no sampler"),
])
def test_bad_simulate_specs_exit_2(capsys, argv, words):
    assert main(argv + ["--samples", "10", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("sigma", ["1e-50", "1e-5", "0.2"])
def test_a_steep_curve_is_inside_the_band_and_near_it(capsys, sigma):
    # G_mu at mu = 1/sigma drops from 1 to 0 within alpha < 1e-300 (1e-5, 1e-50) or 1e-7 (0.2):
    # the estimates (0, 0) lie on it, yet the vertical |beta_hat - f(alpha_hat)| read 1, 0.997
    # and 0.67 beside "inside the band"; the deviation is now measured as the band is
    # (false-failure probability 1e-6: the band's confidence)
    assert main(["simulate", "gaussian", "--sigma", sigma, "--samples", "2000", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["inside"] is True and float(out["max_deviation"]) <= float(out["half_width"])
