"""The GDP conversions run without sympy or scipy (the command line's `convert` and `calibrate`).

The subprocess imports the numeric modules under a stand-in for the package ``gdpproof``
(whose ``__init__`` re-exports everything and is made lazy separately), so what is measured is
what :mod:`gdpproof.numeric.tradeoff.solve` itself loads.  (An invalid argument still loads sympy to
format its error through ``gdpproof.errors.bad``, the one place that builds argument errors.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gdpproof

PACKAGE = str(Path(gdpproof.__file__).parent)

SCRIPT = r"""
import json, sys, types
from fractions import Fraction
from decimal import Decimal
pkg = types.ModuleType("gdpproof"); pkg.__path__ = [sys.argv[1]]; sys.modules["gdpproof"] = pkg
from gdpproof.numeric.tradeoff.solve import (delta_from_epsilon, epsilon_from_delta, log_delta_from_epsilon,
    mu_from_epsilon_delta, mu_from_sigma, sigma_from_epsilon_delta)
out = [
    delta_from_epsilon(1, 1), delta_from_epsilon("0.5", 20, digits=10), delta_from_epsilon(0.3, Fraction(7, 2)),
    epsilon_from_delta(1, "1e-5"), epsilon_from_delta(Decimal("2"), 1e-10, digits=12),
    mu_from_epsilon_delta("1", "1e-5"), sigma_from_epsilon_delta(1, "1e-5", "10/3"),
    log_delta_from_epsilon(1, 3, digits=12), log_delta_from_epsilon(2, 1), mu_from_sigma(3, digits=10),
]
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"sympy", "scipy"})
print(json.dumps({"values": [repr(v) for v in out], "heavy": heavy}))
"""


def test_conversions_load_neither_sympy_nor_scipy():
    done = subprocess.run([sys.executable, "-c", SCRIPT, PACKAGE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["heavy"] == [], f"loaded {report['heavy']}"
    # the same digits as the sympy-compiled route in this process
    from fractions import Fraction
    from decimal import Decimal

    from gdpproof.numeric.tradeoff import solve

    expected = [
        solve.delta_from_epsilon(1, 1), solve.delta_from_epsilon("0.5", 20, digits=10),
        solve.delta_from_epsilon(0.3, Fraction(7, 2)), solve.epsilon_from_delta(1, "1e-5"),
        solve.epsilon_from_delta(Decimal("2"), 1e-10, digits=12), solve.mu_from_epsilon_delta("1", "1e-5"),
        solve.sigma_from_epsilon_delta(1, "1e-5", "10/3"), solve.log_delta_from_epsilon(1, 3, digits=12), solve.log_delta_from_epsilon(2, 1),
        solve.mu_from_sigma(3, digits=10),
    ]
    assert report["values"] == [repr(v) for v in expected]


ACCOUNT_SCRIPT = r"""
import json, sys
from gdpproof import account
after_import = sorted(m for m in ("scipy",) if m in sys.modules)
from gdpproof.mechanisms import GaussianMechanism
a = account(GaussianMechanism(2), delta="1e-5")
after_account = sorted(m for m in ("scipy",) if m in sys.modules)
print(json.dumps({"import": after_import, "account": after_account, "eps": str(a.eps_upper)}))
"""


def test_account_and_a_gaussian_account_load_no_scipy():
    # scipy.special is imported where the honest mu needs it, not by ``from gdpproof import
    # account`` (a third of its import time), and a closed-form Gaussian account never needs it
    done = subprocess.run([sys.executable, "-c", ACCOUNT_SCRIPT], capture_output=True, text=True, timeout=300,
                          cwd=str(Path(PACKAGE).parent))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["import"] == [] and report["account"] == [], report


NO_SYMPY_SCRIPT = r"""
import json, sys
import gdpproof.mechanisms
seen = {"mechanisms": "sympy" in sys.modules}
from gdpproof import account
seen["import account"] = "sympy" in sys.modules
from gdpproof.mechanisms import GaussianMechanism, dpsgd
a = account(GaussianMechanism(2), delta=1e-5)
a2 = account(GaussianMechanism(2), epsilon=1)
seen["gaussian account"] = "sympy" in sys.modules
b = account(dpsgd(1.1, "0.01", 100), delta=1e-5)
seen["dpsgd account"] = "sympy" in sys.modules
from gdpproof.cli import main
import contextlib, io
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    codes = [main(["account", "--mechanism", "gaussian:sigma=2", "--delta", "1e-5"]),
             main(["account", "--sigma", "1.1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"])]
seen["command line (with the CLT's gamma)"] = "sympy" in sys.modules
print(json.dumps({"seen": seen, "codes": codes, "gamma": "gamma " in out.getvalue(),
                  "answers": [str(a.eps_upper), repr(a2.delta), repr(b.epsilon)]}))
"""


def test_the_numeric_path_loads_no_sympy():
    # mechanism values parse without sympy, and the kernels the engines run are generated ahead of
    # time from symbolic/ (gdpproof/numeric/engine/_kernels.py, _loss_kernels.py); one subprocess
    done = subprocess.run([sys.executable, "-c", NO_SYMPY_SCRIPT], capture_output=True, text=True, timeout=300,
                          cwd=str(Path(PACKAGE).parent))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert not any(report["seen"].values()), report["seen"]
    assert report["codes"] == [0, 0] and report["gamma"], report
    from gdpproof import account
    from gdpproof.mechanisms import GaussianMechanism, dpsgd

    assert report["answers"] == [str(account(GaussianMechanism(2), delta=1e-5).eps_upper),
                                 repr(account(GaussianMechanism(2), epsilon=1).delta),
                                 repr(account(dpsgd(1.1, "0.01", 100), delta=1e-5).epsilon)]
