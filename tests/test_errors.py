"""InvalidParameterError carries the argument at fault as fields, so front ends can name it."""

from __future__ import annotations

import pickle

import pytest

import gdpproof
from gdpproof.errors import bad as _bad
from gdpproof.errors import InvalidParameterError


def test_bad_keeps_its_message_and_sets_the_fields():
    exc = _bad("noise_multiplier", "0", "must be > 0")
    assert str(exc) == "noise_multiplier='0' must be > 0"
    assert (exc.argument, exc.value, exc.rule) == ("noise_multiplier", "0", "must be > 0")
    assert exc.named("--sigma") == "--sigma='0' must be > 0"
    assert exc.renamed({"noise_multiplier": "--sigma"}, {"noise_multiplier": "0.0"}) == "--sigma='0.0' must be > 0"
    assert exc.renamed({"other": "--other"}) == str(exc)


def test_library_errors_name_their_argument():
    with pytest.raises(InvalidParameterError) as info:
        gdpproof.gaussian(-1)
    assert (info.value.argument, info.value.value, info.value.rule) == ("mu", -1, "must be >= 0")
    with pytest.raises(InvalidParameterError) as info:
        gdpproof.dpsgd_mu(1, "0.1", 3, delta="0")
    assert info.value.argument == "delta" and info.value.named("--delta") == "--delta='0' must be in (0, 1)"


def test_an_error_without_fields_renames_to_itself():
    exc = InvalidParameterError("kl(f) is infinite")
    assert exc.argument is None and exc.named("--x") == "kl(f) is infinite" == exc.renamed({"x": "--x"})


def test_fields_survive_pickling():
    # errors cross process pools (simulate, tables)
    exc = pickle.loads(pickle.dumps(_bad("mu", -1, "must be >= 0")))
    assert str(exc) == "mu=-1 must be >= 0" and exc.argument == "mu" and exc.rule == "must be >= 0"


def test_still_a_value_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert str(InvalidParameterError(argument="n", value=2.5, rule="must be an integer")) == "n=2.5 must be an integer"
