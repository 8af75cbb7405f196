"""Mechanisms from text: command-line specs (``KIND:key=value,...``), mappings and TOML/JSON spec
files, read by bounded, duplicate-refusing parsers; every parameter goes through the exact-number
parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import MISSING, InvalidParameterError, bad, within
from .training import dpsgd, dpsgd_sensitivity
from .base import Mechanism
from .values import (
    GDP,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    EpsDelta,
    FiniteMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    PureDP,
    RandomizedResponse,
)
from .wrappers import Composed, PoissonSampled, Repeated, SampledWithoutReplacement

#: kind -> (constructor, {key in specs: parameter name}).
_KINDS: dict[str, tuple[Any, dict[str, str]]] = {
    "gaussian": (GaussianMechanism, {"sigma": "sigma", "sensitivity": "sensitivity"}),
    "gdp": (GDP, {"mu": "mu"}),
    "laplace": (LaplaceMechanism, {"scale": "scale", "sensitivity": "sensitivity"}),
    "rr": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon", "k": "k"}),
    "randomized-response": (RandomizedResponse, {"epsilon": "epsilon", "eps": "epsilon", "k": "k"}),
    "finite": (FiniteMechanism, {"p": "P", "q": "Q"}),
    "discrete-gaussian": (DiscreteGaussianMechanism, {"sigma": "sigma", "sensitivity": "sensitivity"}),
    "discrete-laplace": (DiscreteLaplaceMechanism, {"scale": "scale", "sensitivity": "sensitivity"}),
    "pure-dp": (PureDP, {"epsilon": "epsilon", "eps": "epsilon"}),
    "eps-delta": (EpsDelta, {"epsilon": "epsilon", "eps": "epsilon", "delta": "delta"}),
    "dpsgd": (dpsgd, {"sigma": "noise_multiplier", "noise-multiplier": "noise_multiplier",
                      "sample-rate": "sample_rate", "steps": "steps", "epochs": "epochs",
                      "batch-size": "batch_size", "dataset-size": "dataset_size", "sampling": "sampling",
                      "neighbours": "neighbours"}),
}


#: keys every kind accepts: a Poisson subsample (sample-rate) or a fixed-size batch (sample-size and
#: dataset-size) around it, with its neighbouring relation, and repetitions.
_WRAPPERS = ("sample-rate", "sample-size", "dataset-size", "neighbours", "times")


class SpecError(InvalidParameterError):
    """A mechanism spec that cannot be read; the message names the part at fault.

    Args:
        message: The message, naming the part of the spec at fault.
        argument: The argument at fault, when one is (as :class:`~gdpproof.InvalidParameterError`).
        value: Its value.
        rule: The rule it breaks.
        mentions: The other arguments the rule names (renamed with it by a front end).

    Examples:
        >>> try:
        ...     mechanism_from_spec("gaussian:sigma")
        ... except SpecError as exc:
        ...     print(exc)
        mechanism 'gaussian:sigma': 'sigma' must be key=value
    """


#: Largest spec file read (bytes): a spec lists a few mechanisms; ``--spec /dev/zero`` must not
#: take all memory.
MAX_SPEC_BYTES = 4 * 2**20


#: Deepest nesting of lists and tables in a spec file (its mechanisms need 3: file, list, table).
MAX_SPEC_DEPTH = 16


def mechanism_from_dict(spec: Mapping[str, Any], *, where: str = "mechanism") -> Mechanism:
    """A mechanism from a mapping ``{"kind": KIND, param: value, ..., "times": N, "sample-rate": q}``.

    KIND is one of gaussian (sigma, sensitivity), gdp (mu), laplace (scale, sensitivity),
    rr / randomized-response (epsilon, k), finite (p, q: probabilities separated by ``;``, as in
    ``finite:p=1/2;1/4;1/4,q=1/4;1/4;1/2``), discrete-gaussian (sigma, sensitivity), discrete-laplace
    (scale, sensitivity), pure-dp (epsilon), eps-delta (epsilon, delta) and dpsgd
    (sigma, sample-rate or batch-size and dataset-size, steps or epochs, sampling, neighbours).
    ``sample-rate`` wraps the mechanism in :class:`PoissonSampled`, or ``sample-size`` and
    ``dataset-size`` in :class:`SampledWithoutReplacement` (``neighbours`` naming the relation of
    either), then ``times`` in :class:`Repeated`.  Keys may use ``_`` for ``-``.  Inside a
    subsample, a mechanism whose ``sensitivity`` is not given takes the batch sum's sensitivity in
    units of the clipping norm (:func:`dpsgd_sensitivity`): 1 for Poisson sampling under add/remove,
    2 under replace-one and for fixed-size batches under either relation; ``sigma`` is then the
    noise over the clipping norm, as ``dpsgd``'s noise multiplier.

    Args:
        spec: The mapping: ``kind`` and the kind's parameters (exact numbers, or strings read as
            decimals, fractions or safe closed forms such as ``log(3)``).
        where: How the spec is named in an error message.

    Returns:
        The mechanism value.

    Raises:
        SpecError: The kind or a key is unknown, or a value is invalid (the message names the part
            at fault).

    Examples:
        >>> mechanism_from_dict({"kind": "gaussian", "sigma": 1, "sample-size": 1, "dataset-size": 100,
        ...                      "neighbours": "add-remove"})
        SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=2), sample_size=1, dataset_size=100, neighbours='add-remove')

        >>> mechanism_from_dict({"kind": "gaussian", "sigma": "10/3", "times": 10})
        Repeated(GaussianMechanism(sigma=10/3, sensitivity=1), 10)
    """
    if not isinstance(spec, Mapping):
        raise within(where, bad("spec", spec, "must be a table of kind and parameters"), SpecError)
    items: dict[str, Any] = {}
    for k, v in spec.items():
        key = str(k).replace("_", "-")
        if key in items:
            raise SpecError(f"{where}: {key!r} is given twice")
        items[key] = v
    kind = items.pop("kind", None)
    if not isinstance(kind, str) or kind not in _KINDS:
        raise within(where, bad("kind", kind, f"must be one of {', '.join(sorted(_KINDS))}"), SpecError)
    make, keys = _KINDS[kind]
    wrap = {k: items.pop(k) for k in _WRAPPERS if k in items and not (kind == "dpsgd" and k in keys)}
    unknown = [k for k in items if k not in keys]
    if unknown:
        allowed = sorted(set(keys) | set(_WRAPPERS))
        raise within(where, bad(unknown[0], items[unknown[0]],
                                f"is not a parameter of {kind} (it takes {', '.join(allowed)})"), SpecError)
    kwargs = {keys[k]: v if k in _WORDS else _closed_form(where, k, v) for k, v in items.items()}
    import inspect

    required = [name for name, par in inspect.signature(make).parameters.items()
                if par.default is inspect.Parameter.empty and name not in kwargs]
    if required:
        spelled = [next(k for k, v in keys.items() if v == name) for name in required]
        also = f" (and {', '.join(spelled[1:])})" if spelled[1:] else ""
        raise within(where, bad(spelled[0], MISSING, f"is needed by {kind}{also}"), SpecError)
    if kind == "dpsgd" and "sample-size" in wrap:
        raise within(where, bad("sample-size", wrap["sample-size"], "is not a parameter of dpsgd: it takes batch-size "
                                "(with dataset-size and sampling=fixed-batch for fixed-size batches)"), SpecError)
    fixed = [k for k in ("sample-size", "dataset-size") if k in wrap]
    if fixed and "sample-rate" in wrap:
        raise SpecError(f"{where}: give sample-rate (Poisson) or sample-size and dataset-size (fixed-size batches), "
                        "not both")
    if len(fixed) == 1:
        other = "dataset-size" if fixed[0] == "sample-size" else "sample-size"
        raise within(where, bad(other, MISSING, f"is needed with {fixed[0]} (fixed-size batches need both "
                                                "sample-size and dataset-size)"), SpecError)
    if "neighbours" in wrap and not (fixed or "sample-rate" in wrap):
        raise within(where, bad("neighbours", wrap["neighbours"],
                                "applies to a subsample only (give sample-rate, or sample-size and dataset-size)"),
                     SpecError)
    try:
        if "sensitivity" in keys and "sensitivity" not in items and (fixed or "sample-rate" in wrap):
            kwargs["sensitivity"] = dpsgd_sensitivity("fixed-batch" if fixed else "poisson",
                                                      wrap.get("neighbours", "replace-one" if fixed else "add-remove"))
        m = make(**kwargs)
        relation = {"neighbours": wrap["neighbours"]} if "neighbours" in wrap else {}
        if "sample-rate" in wrap:
            m = PoissonSampled(m, wrap["sample-rate"], **relation)
        if fixed:
            m = SampledWithoutReplacement(m, wrap["sample-size"], wrap["dataset-size"], **relation)
        if "times" in wrap:
            m = Repeated(m, wrap["times"])
    except InvalidParameterError as exc:  # the parameter at fault named as the spec wrote it
        given = {param: key for key, param in keys.items() if key in items}
        keys_by_param = {param: key for key, param in keys.items() if key != "sigma"}
        given.update((key.replace("-", "_"), key) for key in wrap)
        if exc.argument in given and exc.rule is not None:
            exc = bad(given[exc.argument], exc.value, exc.rule_renamed({**keys_by_param, **given}) or exc.rule)
        raise within(where, exc, SpecError) from None
    return m


#: spec keys whose values are words, not numbers
_WORDS = ("sampling", "neighbours")


def _closed_form(where: str, key: str, value: Any) -> Any:
    """A parameter as given, or, for a string that is not a plain number, the exact constant it
    writes (``sqrt(2)``, ``3*sqrt(2)``, ``log(3)``), read by the safe formula parser
    (:func:`gdpproof.symbolic.parse.formula`): certified on the exact routes, rounded to the
    neighbouring double on the less private side (with a note) on the bracket route."""
    if not isinstance(value, str) or not any(c.isalpha() and c not in "eE" for c in value):
        return value
    from ..symbolic.parse import constant

    try:
        return constant(key, value)
    except InvalidParameterError as exc:
        raise within(where, exc, SpecError) from None


def mechanism_from_spec(text: str) -> Mechanism:
    """A mechanism from a command-line spec ``KIND:key=value,key=value``.

    Args:
        text: The spec, ``KIND:key=value,key=value`` (keys of :func:`mechanism_from_dict`).

    Returns:
        The mechanism value.

    Raises:
        SpecError: The spec cannot be read (the message names the part at fault).

    Examples:
        >>> mechanism_from_spec("laplace:scale=10,times=5")
        Repeated(LaplaceMechanism(scale=10, sensitivity=1), 5)
        >>> mechanism_from_spec("gaussian:sigma=1,sample-rate=0.01,times=1000")
        Repeated(PoissonSampled(GaussianMechanism(sigma=1, sensitivity=1), sample_rate=1/100), 1000)
        >>> mechanism_from_spec("gaussian:sigma=1,sample-size=600,dataset-size=60000,neighbours=replace-one,times=1000")
        Repeated(SampledWithoutReplacement(GaussianMechanism(sigma=1, sensitivity=2), sample_size=600, dataset_size=60000, neighbours='replace-one'), 1000)
        >>> mechanism_from_spec("rr:epsilon=log(3)")   # exact closed forms, read by the safe formula parser
        RandomizedResponse(epsilon=log(3))
    """
    if not isinstance(text, str):
        raise within("mechanism", bad("text", text, "must be a string KIND:key=value,..."), SpecError)
    kind, _, rest = text.strip().partition(":")
    spec: dict[str, Any] = {"kind": kind.strip()}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise SpecError(f"mechanism {text!r}: {part!r} must be key=value")
        name = key.strip().replace("_", "-")
        if name in spec or name == "kind":
            raise SpecError(f"mechanism {text!r}: {name!r} is given twice")
        spec[name] = value.strip()
    return mechanism_from_dict(spec, where=f"mechanism {text!r}")


def mechanism_from_file(path: str) -> Mechanism:
    """A mechanism from a TOML or JSON file: a list ``mechanisms`` of tables as in
    :func:`mechanism_from_dict` (composed).  Files larger than :data:`MAX_SPEC_BYTES`, nested deeper
    than :data:`MAX_SPEC_DEPTH` or giving a key twice in one object are refused.  E.g. in TOML::

        [[mechanisms]]
        kind = "gaussian"
        sigma = "10/3"
        times = 10

    Args:
        path: A ``.json`` file, or TOML otherwise.

    Returns:
        The composition of the file's mechanisms.

    Raises:
        SpecError: The file cannot be read, is too large or too deep, repeats a key, or holds an
            invalid mechanism.

    Examples:
        >>> import os, tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as fh:
        ...     _ = fh.write('[[mechanisms]]\\nkind = "gaussian"\\nsigma = "10/3"\\ntimes = 10\\n')
        >>> mechanism_from_file(fh.name)
        Repeated(GaussianMechanism(sigma=10/3, sensitivity=1), 10)
        >>> os.remove(fh.name)
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(f"spec file {path!r}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(f"spec file {path!r}: larger than {MAX_SPEC_BYTES:,} bytes, the most a spec file may hold")
    fmt = "JSON" if path.endswith(".json") else "TOML"
    try:
        if fmt == "JSON":
            import json

            data = json.loads(raw.decode("utf-8"), parse_float=str, parse_int=str,
                              object_pairs_hook=lambda pairs: _json_object(path, pairs))
        else:
            import tomllib  # TOML refuses duplicate keys itself

            data = tomllib.loads(raw.decode("utf-8"), parse_float=str)
    except SpecError:
        raise
    except RecursionError:
        raise SpecError(f"spec file {path!r}: nested deeper than {MAX_SPEC_DEPTH} levels of lists and tables") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise SpecError(f"spec file {path!r}: not valid {fmt} ({exc})") from None
    _check_depth(path, data)
    if not isinstance(data, Mapping) or not isinstance(data.get("mechanisms"), list) or not data["mechanisms"]:
        raise SpecError(f"spec file {path!r}: needs a non-empty list 'mechanisms' of tables")
    parts = [mechanism_from_dict(d, where=f"spec file {path!r}, mechanisms[{i}]")
             for i, d in enumerate(data["mechanisms"])]
    return parts[0] if len(parts) == 1 else Composed(*parts)


def _json_object(path: str, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key comes twice (json keeps the last silently, so
    ``{"sigma": "1", "sigma": "100"}`` would account sigma = 100)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise SpecError(f"spec file {path!r}: the key {key!r} is given twice in one object")
        out[key] = value
    return out


def _check_depth(path: str, data: Any) -> None:
    """Refuse lists and tables nested deeper than :data:`MAX_SPEC_DEPTH` (iteratively: no recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > MAX_SPEC_DEPTH:
                raise SpecError(f"spec file {path!r}: nested deeper than {MAX_SPEC_DEPTH} levels of lists and tables")
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
