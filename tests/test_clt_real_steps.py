"""Issue 32, item 7 (third part): the DP-SGD CLT at a real T = E N / B, as papers write it,
labelled as the papers' approximation; certified as a closed form."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

import gdpproof
from gdpproof.cli import main
from gdpproof.errors import InvalidParameterError
from gdpproof.symbolic.clt import REAL_STEPS_NOTE

MNIST_RATE = Fraction(256, 60000)


def _real_t(epochs: int) -> Fraction:
    return Fraction(epochs * 60000, 256)


@pytest.mark.parametrize("sigma, epochs, mu, eps", [
    # Bu, Dong, Long & Su, "Deep learning with Gaussian differential privacy" (HDSR 2020), Figure 4:
    # p = 256/60000, sigma~ = 1.06, 20th epoch: mu_CLT = 0.35 and (1.34, 1e-5)-DP; sigma~ = 0.638,
    # epoch 70: mu_CLT = 1.78
    ("1.06", 20, "0.35", "1.34"),
    ("0.638", 70, "1.78", None),
    # TF Privacy's MNIST example of the same paper (N = 60000, B = 256, noise 1.3, 15 epochs): 0.227-GDP
    ("1.3", 15, "0.227", None),
])
def test_published_values(sigma, epochs, mu, eps):
    acc = gdpproof.dpsgd_mu(sigma, MNIST_RATE, _real_t(epochs), delta="1e-5", digits=10, real_steps=True)
    places = len(mu.split(".")[1])
    assert round(float(acc.mu_clt), places) == float(mu)  # the published value, to its printed digits
    if eps is not None:
        assert round(float(acc.eps_clt), 2) == float(eps)
    assert acc.real_steps and acc.approximation and REAL_STEPS_NOTE in acc.note
    assert acc.gamma is None and acc.exact is None and acc.eps_lower is None  # nothing proven at a real T


def test_the_formula_at_a_real_t_and_at_an_integer_t():
    # the closed form p sqrt(T (e^(1/sigma^2) - 1)) in mpmath at 50 digits, against 30 certified digits
    t = _real_t(60)  # 28125/2
    got = gdpproof.dpsgd_mu("1.1", MNIST_RATE, t, digits=30, real_steps=True).mu_clt
    with mpmath.workdps(50):
        want = mpmath.mpf(256) / 60000 * mpmath.sqrt(mpmath.mpf(t.numerator) / t.denominator
                                                       * (mpmath.exp(1 / mpmath.mpf("1.21")) - 1))
        assert mpmath.mpf(str(got)) >= want and mpmath.mpf(str(got)) - want < mpmath.mpf(10) ** -29
    # at an integer T the real-T route is the integer route, digit for digit
    whole = gdpproof.dpsgd_mu("1.1", MNIST_RATE, 14063, delta="1e-5", digits=25, gamma=False, exact=False)
    real = gdpproof.dpsgd_mu("1.1", MNIST_RATE, "14063", delta="1e-5", digits=25, real_steps=True)
    assert (str(real.mu_clt), str(real.eps_clt)) == (str(whole.mu_clt), str(whole.eps_clt))
    # the uniform formula takes a real T too, and grows with T
    lo = gdpproof.dpsgd_mu("1.1", MNIST_RATE, "14062.5", sampling="uniform", digits=12, real_steps=True).mu_clt
    hi = gdpproof.dpsgd_mu("1.1", MNIST_RATE, 14063, sampling="uniform", digits=12, gamma=False).mu_clt
    assert lo < hi


@pytest.mark.parametrize("steps", ["0", "-2.5", "nan", "x"])
def test_real_steps_refuses_what_is_not_a_positive_real(steps):
    with pytest.raises(InvalidParameterError, match="steps"):
        gdpproof.dpsgd_mu("1.1", MNIST_RATE, steps, real_steps=True)
    with pytest.raises(InvalidParameterError, match="steps"):  # without the option T stays whole
        gdpproof.dpsgd_mu("1.1", MNIST_RATE, Fraction(28125, 2))


def test_command_line_prints_the_real_t_labelled(capsys):
    code = main(["account", "--noise-multiplier", "1.3", "--batch-size", "256", "--dataset-size", "60000",
                 "--epochs", "15", "--clt-real-steps", "--digits", "8", "--json"])
    out, err = capsys.readouterr()
    obj = json.loads(out)
    real = obj["clt_real_steps"]
    assert code == 0 and real["steps"] == "28125/8" and real["mu_clt"] == "0.22727417"
    assert real["approximation"] is True and real["proven"] is False
    assert REAL_STEPS_NOTE in obj["warnings"] and err.count("\n") == 1
    assert obj["steps"] == 3516  # the run itself takes whole steps
    code = main(["account", "--noise-multiplier", "1.3", "--batch-size", "256", "--dataset-size", "60000",
                 "--epochs", "15", "--clt-real-steps"])
    out, _ = capsys.readouterr()
    assert code == 0 and "T real  = 28125/8 = E N / B" in out and "the papers' approximation, not proven" in out
    code = main(["account", "--noise-multiplier", "1.3", "--sample-rate", "0.01", "--steps", "100",
                 "--clt-real-steps"])
    _, err = capsys.readouterr()
    assert code == 2 and "--clt-real-steps applies to DP-SGD given in --epochs" in err
