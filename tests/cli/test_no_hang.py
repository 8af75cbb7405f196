"""Issue 33's reproducers of hangs (over 60 s of CPU) and internal errors (exit 5): each now
answers or refuses in one line, within the fuzz test's CPU limit per call."""

from __future__ import annotations

import os

import pytest

from tests.cli.test_fuzz import LIMIT, _run, warm  # noqa: F401 - warm is a fixture


#: (command line, expected exit code, a text the output or the error must hold)
REPRODUCERS = [
    # the NaN bracket of mu at a huge epsilon: mu is about sqrt(2 eps)
    ("convert --eps 1e60 --delta 1e-5", 0, "mu = 1.41421356237309504880168872420E+30"),
    ("convert --eps 1e30 --delta 1e-5 --digits 10", 0, "mu = 1.414213562E+15"),
    ("calibrate --eps 1e400 --delta 1e-5", 0, "sigma = 7.07106781186547524400844362105E-201"),
    ("convert --eps 1e999999 --delta 1e-5", 2, "must be at most 1e10000 to solve for mu"),
    # at eps = 0, mu = 2 sqrt(2) erfinv(delta) in closed form (the search needed 332,000 bits: exit 3)
    ("convert --eps 0 --delta 1e-100000", 0, "mu = 2.50662827463100050241576528481E-100000   (certified, rounded down"),
    # easy answers: sqrt(T)/sigma-GDP
    ("account --mechanism gaussian:sigma=1,times=1000000000 --delta 1e-5", 0, "eps       = 5.00135E+8"),
    ("account --sigma 1 --sample-rate 1 --steps 1000000000 --delta 1e-5", 0, "eps       = 5.00135E+8"),
    ("account --mechanism gaussian:sigma=1e-5 --delta 1e-5", 0, "eps       = 5.00043E+9"),
    # exponents beyond the families' range
    ("tightest-mu laplace --mu 1e-999999", 2, "--mu='1e-999999' must be 0 or within [1e-100, 1e100]"),
    ("compose functionals gaussian --mu 1e-999999", 2, "must be 0 or within [1e-100, 1e100]"),
    ("tightest-mu laplace --mu 1e-400", 2, "must be 0 or within [1e-100, 1e100]"),
    ("delta rr-composition --eps 1e-400 --n 5 --at 1", 2, "must be 0 or within [1e-100, 1e100]"),
    ("delta subsampled-gaussian --mu 1 --sample-rate 0.1 --at 1e400", 2, "--at='1e400' must be within"),
    ("compose clt gaussian --mu 1 --n " + "9" * 5000, 2, "must be at most 10^18"),
    # DP-SGD schedules and calibration
    ("calibrate dpsgd --target-eps 3 --delta 0.3 --sample-rate 0.01 --epochs 10", 0, "sigma     = 0.4366"),
    ("calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs 0x10", 2, "--epochs='0x10'"),
    ("calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs nan", 2, "--epochs='nan'"),
    ("calibrate dpsgd --target-eps 3 --delta 1e-5 --sample-rate 0.01 --epochs ", 2, "--epochs='' is not a number"),
    # beyond mu = 104 the pointwise mu of the Laplace curve peaks outside the searched range: a reason
    ("tightest-mu laplace --mu 1e60", 3, "beyond the range searched (alpha >= Phi(-10)) for mu > 104"),
    ("calibrate dpsgd --target-eps 3 --delta 1e-5 --batch-size 256 --dataset-size 1e999999 --epochs 1", 2,
     "--dataset-size='1e999999' must be at most 10^18"),
    ("account --sigma 1 --batch-size 256 --dataset-size 1e400 --epochs 1 --delta 1e-5", 2,
     "--dataset-size='1e400' must be at most 10^18"),
    # the worse ordering at an eps beyond the doubles: bracketed at 1e300 ("eps=inf" before)
    ("account --sigma 1 --sample-rate 0.01 --steps 10 --eps 1e999", 4, "delta     in [0, "),
]


@pytest.mark.parametrize(("line", "expected", "text"), REPRODUCERS, ids=[r[0][:60] for r in REPRODUCERS])
def test_reproducer(line, expected, text, tmp_path, warm):
    code, cpu, out, err = _run(line.split(" "), str(tmp_path))
    assert code is not None, f"{line}: killed after {cpu:.1f} s of CPU (the limit is {LIMIT} s)"
    assert code == expected, (line, code, err[-500:])
    assert text in out + err, (line, out[-500:], err[-500:])
    if code in (2, 3):
        assert err.startswith("gdpproof: error: ") and err.count("\n") == 1


@pytest.mark.parametrize(("rows", "extra", "expected", "text"), [
    ("eps,delta,mu\n1e300,0.00001,1\n", [], 1, "reference 1.4142135623e150"),
    ("eps,n,alpha,beta\n1,1000000000000,0.5,0.1\n", [], 0, "1 of 1 rows checked"),
    ("mu,eps,delta\n1,1,0.2\n", ["--rtol", "1/0"], 2, "--rtol='1/0' must be a number in [0, 1)"),
    ("mu,eps,delta\n1,1,0.2\n", ["--rtol", "1e-999999"], 2, "--rtol='1e-999999' must be 0 or in [1e-100, 1)"),
])
def test_verify_of_one_row(rows, extra, expected, text, tmp_path, warm):
    path = os.path.join(str(tmp_path), "t.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write(rows)
    code, cpu, out, err = _run(["table", "--verify", path, "--no-progress", *extra], str(tmp_path))
    assert code == expected and text in out + err, (code, out[-500:], err[-500:])
