"""No code from data (issue 33): every parameter and formula the public API accepts passes a gate
that reads it without running anything.

``sympy.sympify`` (and ``S``, ``parse_expr``, and ``sympify(..., strict=True)`` on a tuple) reads a
string as Python; before this gate a density given as a list, a loss parameter given as a string
or a JSON-decoded list ran the code inside.  The payload below creates a file in the current
directory when Python evaluates it: every call runs in a fresh temporary directory, and the tests
assert that the file is absent and that the refusal names the argument.
"""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import gdpproof
from gdpproof.errors import InvalidParameterError
from gdpproof.symbolic import losses as sl

PACKAGE = Path(__file__).resolve().parent.parent / "gdpproof"

PAYLOAD = '__import__("pathlib").Path("pwned").touch()'


def _containers(text: str) -> dict[str, object]:
    return {"str": text, "list": [text], "tuple": (text,), "set": {text}, "dict": {text: text},
            "ndarray": np.array([text]), "nested": [[text]]}


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_payload_runs_when_evaluated(cwd):
    # the tests below can fail: the payload creates the file when Python evaluates it
    eval(PAYLOAD)  # noqa: S307 - the point of the check
    assert (cwd / "pwned").exists()


# ---- the attack's reproducers ---------------------------------------------------------------------


def _location_family_json() -> None:
    gdpproof.location_family(json.loads(json.dumps({"density": [PAYLOAD]}))["density"])


def _clt_verdict(value: object) -> None:
    from gdpproof.accounting.dpsgd import clt_verdict

    c = gdpproof.Certified("1", digits=3, rounding="up", method="exact")
    clt_verdict(value, "0.01", 10, "poisson", "1e-5", c, c)


REPRODUCERS = [
    *[(f"location_family({kind})", lambda v=v: gdpproof.location_family(v), "density")
      for kind, v in _containers(PAYLOAD).items() if kind != "str"],
    ("location_family(json)", _location_family_json, "density"),
    ("location_family(variable=list)", lambda: gdpproof.location_family("exp(-abs(x))/2", [PAYLOAD]), "variable"),
    ("tradeoff_from_delta(tuple)", lambda: gdpproof.tradeoff_from_delta((PAYLOAD,), "0.1"), "delta"),
    ("tradeoff_from_delta(list)", lambda: gdpproof.tradeoff_from_delta([PAYLOAD], "0.1"), "delta"),
    ("gaussian_loss", lambda: sl.gaussian_loss(PAYLOAD), "mu"),
    ("laplace_loss", lambda: sl.laplace_loss(PAYLOAD), "mu"),
    ("randomized_response_loss", lambda: sl.randomized_response_loss(PAYLOAD), "epsilon"),
    ("subsampled_gaussian_loss", lambda: sl.subsampled_gaussian_loss(1, PAYLOAD), "p"),
    ("symmetric_subsampled_gaussian_loss", lambda: sl.symmetric_subsampled_gaussian_loss(PAYLOAD, "0.1"), "sigma"),
    ("k_randomized_response_loss", lambda: sl.k_randomized_response_loss(1, (PAYLOAD,)), "k"),
    ("discrete_laplace_loss", lambda: sl.discrete_laplace_loss(PAYLOAD, 1), "epsilon"),
    ("discrete_gaussian_loss", lambda: sl.discrete_gaussian_loss(PAYLOAD, 1), "sigma"),
    ("discrete_laplace_masses", lambda: sl.discrete_laplace_masses(PAYLOAD, 1), "epsilon"),
    ("discrete_laplace_masses(sensitivity)", lambda: sl.discrete_laplace_masses(1, PAYLOAD), "sensitivity"),
    ("LossLaw", lambda: sl.LossLaw(sl.GAUSSIAN, ([PAYLOAD],)), "mu"),
    ("DiscreteLaplaceLoss", lambda: __import__("gdpproof.accounting.losses").accounting.losses.DiscreteLaplaceLoss(
        PAYLOAD, 1), "eps"),
    ("clt_verdict", lambda: _clt_verdict(PAYLOAD), "noise_multiplier"),
    ("TradeOff(template)", lambda: gdpproof.TradeOff([PAYLOAD]), "template"),
    ("TradeOff(template=str)", lambda: gdpproof.TradeOff(PAYLOAD), "template"),
    ("TradeOff(params)", lambda: gdpproof.TradeOff("1 - alpha", ((gdpproof.symbols.mu, PAYLOAD),)), "mu"),
    ("TradeOff(dual_template)", lambda: gdpproof.TradeOff("1 - alpha", dual_template=(PAYLOAD,)), "dual_template"),
]


@pytest.mark.parametrize(("call", "argument"), [r[1:] for r in REPRODUCERS], ids=[r[0] for r in REPRODUCERS])
def test_reproducers_are_refused_without_running_code(cwd, call, argument):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert not (cwd / "pwned").exists()
    assert info.value.argument == argument and "\n" not in str(info.value)
    assert str(info.value).startswith(f"{argument}=")


def test_internal_helpers_do_not_read_strings(cwd):
    from gdpproof.numeric.engine.certified import _exact_value
    from gdpproof.numeric.tradeoff.validity import _huge

    for value in _containers(PAYLOAD).values():
        assert _huge(value) is False and _exact_value(lambda v=value: v) is None
    assert _huge(gdpproof.symbols.mu) is False and _huge(10**7) is True
    assert not (cwd / "pwned").exists()


def test_the_formula_gate_still_reads_formulas_and_numbers():
    import sympy

    from gdpproof.symbolic.parse import formula
    from gdpproof.symbols import alpha, epsilon, x

    assert formula("density", "exp(-abs(x))/2") == sympy.exp(-sympy.Abs(x)) / 2
    assert formula("delta", 0) == 0 and formula("delta", 0.5) == sympy.Rational(1, 2)
    assert formula("delta", "1/10") == sympy.Rational(1, 10) and formula("delta", epsilon) is epsilon
    assert gdpproof.TradeOff("1 - alpha").template == 1 - alpha
    with pytest.raises(InvalidParameterError, match=r"density=True must be a formula"):
        formula("density", True)
    with pytest.raises(InvalidParameterError, match=r"must be a formula: a string or a sympy expression \(got Tuple\)"):
        formula("density", sympy.Tuple(1, 2))


# ---- every public callable, every value argument, every container -------------------------------

#: Arguments that take options or objects, not numbers or formulas.
_NOT_VALUES = {"digits", "progress", "executor", "workers", "gamma", "gamma_digits", "exact", "name", "symmetric",
               "out", "format", "resume", "chunk_rows", "rel_width", "max_refinements", "points", "rounding",
               "symmetrize", "long_double", "route", "sampling", "neighbours", "thresholds", "score", "meta"}
#: Valid values for the other arguments, so that the argument under test is reached.
_VALID = {"mu": 1, "epsilon": 1, "delta": "1e-5", "alpha": "0.5", "beta": "0.5", "sigma": 1, "sensitivity": 1,
          "noise_multiplier": 1, "sample_rate": "0.01", "steps": 10, "target_epsilon": 1, "log_delta": -10,
          "scale": 1, "k": 2, "times": 2, "n": 2, "n_": 2, "p_": "0.5", "delta_": "0.1", "P": "1/2;1/2",
          "Q": "1/4;3/4", "samples": 1000, "seed": 1, "f": gdpproof.gaussian(1), "fs": gdpproof.gaussian(1),
          "mechanism": gdpproof.GDP(1), "family": sl.GAUSSIAN, "template": "1 - alpha",
          "points": [("0.1", "0.5"), ("0.3", "0.2")],
          "sample_p": lambda rng, n: rng.standard_normal(n), "sample_q": lambda rng, n: rng.standard_normal(n)}
#: Arguments that take objects (a trade-off, a mechanism, a table's source or kind): given a string
#: or a container they must not run it, but their refusal may be a TypeError.
_OBJECTS = {"f", "fs", "mechanism", "mechanisms", "family", "masses", "at", "sample_p", "sample_q", "kind", "source",
            "fmt", "values"}
#: Records returned by the API (no validation of their own).
_RECORDS = {"Schedule"}
#: Functions whose first argument is a file or a table kind (given the payload, they stop there).
_FILE_INPUTS = {"make_table", "read_table", "verify_table"}


def _public_callables():
    for name in gdpproof.__all__:
        obj = getattr(gdpproof, name)
        if inspect.isfunction(obj) or obj is gdpproof.TradeOff or (
                isinstance(obj, type) and obj.__module__.startswith("gdpproof.mechanisms") and name not in _RECORDS):
            yield name, obj
    for name in sl.__all__:
        obj = getattr(sl, name)
        if inspect.isfunction(obj) or obj is sl.LossLaw:
            yield f"symbolic.losses.{name}", obj


def test_every_public_value_argument_refuses_code(cwd):
    calls, loose = 0, []
    for name, fn in _public_callables():
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind != p.VAR_KEYWORD and p.name not in _NOT_VALUES]
        for target in params:
            for kind, payload in _containers(PAYLOAD).items():
                if target.kind == target.VAR_POSITIONAL:
                    args, kwargs = (payload,), {}
                else:
                    args, kwargs = (), {p.name: payload if p is target else _VALID.get(p.name, payload) for p in params
                                        if p.kind != p.VAR_POSITIONAL and (p is target or p.default is p.empty)}
                    # required option arguments (the points a fit is made to) get valid values too
                    kwargs.update({p.name: _VALID[p.name] for p in inspect.signature(fn).parameters.values()
                                   if p.name in _NOT_VALUES and p.name in _VALID and p.default is p.empty
                                   and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)})
                try:
                    fn(*args, **kwargs)
                    outcome: Exception | None = None
                except Exception as exc:  # noqa: BLE001 - every refusal is recorded
                    outcome = exc
                calls += 1
                assert not (cwd / "pwned").exists(), f"{name}({target.name}={kind}) ran the payload"
                if target.name not in _OBJECTS and name not in _FILE_INPUTS and \
                        not isinstance(outcome, InvalidParameterError):
                    loose.append(f"{name}({target.name}={kind}): {outcome!r}")
    assert calls > 1000 and not loose, "\n".join(loose)


# ---- no sympify outside a gate -------------------------------------------------------------------

#: sympy's functions that read strings as Python, called bare or as attributes (``sympy.S(...)``).
FORBIDDEN = {"sympify", "_sympify", "S", "parse_expr"}
#: Python's own, called bare (``Function.eval`` methods are sympy's evaluation hooks, not these).
FORBIDDEN_BUILTINS = {"eval", "exec"}
#: Modules allowed a forbidden call, and why: none.  The kernels are generated ahead of time; what
#: is compiled at run time is text numeric/engine/compiler.py printed itself from sympy nodes, made
#: a function with ``compile`` (never exec or eval), and tests/test_import_graph.py keeps ``compile``
#: in that module.
ALLOWED: dict[str, set[str]] = {}


def forbidden_calls(source: str) -> list[tuple[int, str]]:
    """(line, name) of each call that could read a string as Python, and of imports of sympy's parser."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in FORBIDDEN | FORBIDDEN_BUILTINS:
                found.append((node.lineno, f.id))
            elif isinstance(f, ast.Attribute) and f.attr in FORBIDDEN:
                found.append((node.lineno, f.attr))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sympy.parsing"):
            found.append((node.lineno, node.module))
    return found


def test_the_walker_finds_each_forbidden_call():
    source = ("import sympy\nfrom sympy import S\nfrom sympy.parsing.sympy_parser import parse_expr\n"
              "a = sympy.sympify(x)\nb = S(x)\nc = sympy.S.Half\nd = parse_expr(x)\ne = sympy.core.sympify._sympify(x)\n"
              "f = eval(x)\ng = super().eval(x)\n")
    assert sorted(forbidden_calls(source)) == [(3, "sympy.parsing.sympy_parser"), (4, "sympify"), (5, "S"),
                                               (7, "parse_expr"), (8, "_sympify"), (9, "eval")]


def test_no_module_calls_sympify():
    """gdpproof parses strings with its own grammar (gdpproof/symbolic/parse.py, which builds sympy
    nodes itself) and numbers with the exact-number parser (gdpproof/_args.py):
    no module needs sympy's parsers, so none is allowed them."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        found += [f"{rel}:{line}: {name}" for line, name in forbidden_calls(path.read_text("utf-8"))
                  if name not in ALLOWED.get(rel, ())]
    assert not found, "calls that read strings as code:\n  " + "\n  ".join(found)
