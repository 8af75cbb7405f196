"""Reading canary scores and one-run guesses from files: CSV, NPY and JSON.

Three kinds of file: **scores** (``--in`` and ``--out``, one number per canary), **labelled
scores** (``--scores``, a score and an in/out label per canary) and **guesses** (``--guesses``,
a guess 1/-1/0 and a label per canary).  Numbers are read exactly as floats from ASCII decimals;
NaN and infinities are refused.  A bad file raises :class:`ScoreFileError` naming the file, the
row (counted from 1, the header included) and the rule; files larger than :data:`MAX_BYTES` are
refused.

The layouts each format accepts: ``docs/guides/auditing.md``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["ScoreFileError", "read_scores", "read_labelled", "read_guesses", "write_labelled", "MAX_BYTES"]

#: The largest file read (bytes): about 30 million scores as CSV.
MAX_BYTES = 1 << 29

_IN = {"1", "true", "in", "yes", "member", "1.0"}
_OUT = {"0", "false", "out", "no", "nonmember", "non-member", "0.0"}
_GUESS = {"1": 1, "in": 1, "+1": 1, "1.0": 1, "-1": -1, "out": -1, "-1.0": -1, "0": 0, "abstain": 0, "0.0": 0}


class ScoreFileError(InvalidParameterError):
    """A score or guess file that cannot be read: the message names the file, the row and the rule."""


def _fail(path: str, row: int | None, message: str) -> ScoreFileError:
    where = f"{path}" if row is None else f"{path}: row {row}"
    return ScoreFileError(f"{where}: {message}", argument="file", value=path, rule=message)


def _kind(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    return {".npy": "npy", ".json": "json"}.get(ext, "csv")


def _read_text(path: str) -> str:
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        raise _fail(path, None, f"is {size:,} bytes, more than the {MAX_BYTES:,} read")
    with open(path, "rb") as fh:
        data = fh.read(MAX_BYTES + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(path, None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _number(path: str, row: int, text: str, what: str = "score") -> float:
    t = text.strip()
    ok = t.isascii() and t and "_" not in t and not any(c.isspace() for c in t)
    try:
        v = float(t) if ok else math.nan
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise _fail(path, row, f"{what} {text.strip()!r} must be a finite number (ASCII decimal)")
    return v


def _label(path: str, row: int, value: Any) -> bool:
    t = str(value).strip().lower()
    if isinstance(value, bool):
        return value
    if t in _IN:
        return True
    if t in _OUT:
        return False
    raise _fail(path, row, f"label {str(value).strip()!r} must be 1/true/in (held in) or 0/false/out (held out)")


def _guess(path: str, row: int, value: Any) -> int:
    t = str(value).strip().lower()
    if t in _GUESS and not isinstance(value, bool):
        return _GUESS[t]
    raise _fail(path, row, f"guess {str(value).strip()!r} must be 1/in, -1/out or 0/abstain")


def _csv_rows(path: str) -> tuple[list[str] | None, list[tuple[int, list[str]]]]:
    """(header or None, [(row number, fields)]) of a CSV/text file; comments and blank lines skipped."""
    rows = []
    header = None
    for i, line in enumerate(_read_text(path).splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        fields = [f.strip() for f in s.split(",")]
        if header is None and not rows and not _looks_numeric(fields[0]):
            header = [f.lower() for f in fields]
            continue
        rows.append((i, fields))
    return header, rows


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text.lower() in _IN | _OUT | set(_GUESS)
    return True


def _column(path: str, header: list[str] | None, name: str, default: int | None) -> int:
    if header is None:
        if default is None:
            raise _fail(path, 1, f"needs a header row naming a {name!r} column")
        return default
    if name not in header:
        raise _fail(path, 1, f"the header {','.join(header)!r} has no {name!r} column")
    return header.index(name)


def _load_npy(path: str) -> np.ndarray:
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        raise _fail(path, None, f"is {size:,} bytes, more than the {MAX_BYTES:,} read")
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise _fail(path, None, f"is not a readable NPY array without pickles ({exc})") from None


def _load_json(path: str) -> Any:
    try:
        return json.loads(_read_text(path), parse_constant=lambda c: math.nan)
    except json.JSONDecodeError as exc:
        raise _fail(path, exc.lineno, f"is not JSON ({exc.msg}, column {exc.colno})") from None


def _finite_array(path: str, values: Any, what: str = "score") -> np.ndarray:
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise _fail(path, None, f"{what}s must be numbers") from None
    if arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        bad = next((i for i, v in enumerate(np.ravel(arr)) if isinstance(v, bool) or not isinstance(v, (int, float))), 0)
        raise _fail(path, bad + 1, f"{what} {np.ravel(arr)[bad]!r} must be a number")
    arr = arr.astype(float)
    if arr.ndim != 1:
        raise _fail(path, None, f"must hold a 1-D list of {what}s, not shape {arr.shape}")
    bad_rows = np.flatnonzero(~np.isfinite(arr))
    if bad_rows.size:
        raise _fail(path, int(bad_rows[0]) + 1, f"{what} {arr[bad_rows[0]]!r} must be finite")
    return arr


def read_scores(path: str) -> np.ndarray:
    """One score per canary (the formats: ``docs/guides/auditing.md``), as float64."""
    kind = _kind(path)
    if kind == "npy":
        arr = _load_npy(path)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        return _nonempty(path, _finite_array(path, arr))
    if kind == "json":
        data = _load_json(path)
        if isinstance(data, dict):
            if "scores" not in data:
                raise _fail(path, None, "must be a list of numbers or an object with a list 'scores'")
            data = data["scores"]
        if not isinstance(data, list):
            raise _fail(path, None, "must be a list of numbers or an object with a list 'scores'")
        for i, v in enumerate(data, start=1):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise _fail(path, i, f"score {v!r} must be a finite number")
        return _nonempty(path, np.asarray(data, dtype=float))
    header, rows = _csv_rows(path)
    col = _column(path, header, "score", 0)
    out = []
    for i, fields in rows:
        if header is None and len(fields) != 1:
            raise _fail(path, i, f"has {len(fields)} fields; a file of scores has one per line (or a header naming "
                                 "a 'score' column)")
        if col >= len(fields):
            raise _fail(path, i, f"has {len(fields)} fields, no {header[col]!r} column")
        out.append(_number(path, i, fields[col]))
    return _nonempty(path, np.asarray(out, dtype=float))


def _nonempty(path: str, arr: np.ndarray) -> np.ndarray:
    if arr.size == 0:
        raise _fail(path, None, "holds no scores")
    return arr


def read_labelled(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(held-in scores, held-out scores) from a file with a score and a label per canary."""
    kind = _kind(path)
    if kind == "npy":
        arr = _load_npy(path)
        if arr.dtype.names and {"score", "label"} <= set(arr.dtype.names):
            scores, labels = arr["score"], arr["label"]
        elif arr.ndim == 2 and arr.shape[1] == 2 and arr.dtype.kind in "iuf":
            scores, labels = arr[:, 0], arr[:, 1]
        else:
            raise _fail(path, None, "must be an (n, 2) array of (score, label) or a structured array with fields "
                                    "'score' and 'label'")
        s = _finite_array(path, scores)
        lab = np.array([_label(path, i, v) for i, v in enumerate(np.asarray(labels).tolist(), start=1)], dtype=bool)
        return _split(path, s, lab)
    if kind == "json":
        data = _load_json(path)
        if isinstance(data, dict) and {"held_in", "held_out"} <= set(data):
            return (_nonempty(path, _finite_array(path, data["held_in"])),
                    _nonempty(path, _finite_array(path, data["held_out"])))
        if not isinstance(data, list):
            raise _fail(path, None, "must be a list of {\"score\": ..., \"label\": ...} objects or an object with "
                                    "lists 'held_in' and 'held_out'")
        s, lab = [], []
        for i, item in enumerate(data, start=1):
            if not isinstance(item, dict) or "score" not in item or "label" not in item:
                raise _fail(path, i, "must be an object with 'score' and 'label'")
            v = item["score"]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise _fail(path, i, f"score {v!r} must be a finite number")
            s.append(float(v))
            lab.append(_label(path, i, item["label"]))
        return _split(path, np.asarray(s, dtype=float), np.asarray(lab, dtype=bool))
    header, rows = _csv_rows(path)
    cs, cl = _column(path, header, "score", None), _column(path, header, "label", None)
    s, lab = [], []
    for i, fields in rows:
        if max(cs, cl) >= len(fields):
            raise _fail(path, i, f"has {len(fields)} fields, fewer than the header's {len(header or [])}")
        s.append(_number(path, i, fields[cs]))
        lab.append(_label(path, i, fields[cl]))
    return _split(path, np.asarray(s, dtype=float), np.asarray(lab, dtype=bool))


def _split(path: str, scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    inside, outside = scores[labels], scores[~labels]
    if inside.size == 0 or outside.size == 0:
        raise _fail(path, None, f"has {inside.size} held-in and {outside.size} held-out canaries; both must be present")
    return inside, outside


def read_guesses(path: str) -> tuple[int, int, int, int, int]:
    """(canaries m, "in" guesses k+, "out" guesses k-, correct v, held-in canaries) from a file of
    one-run guesses and labels."""
    kind = _kind(path)
    pairs: list[tuple[int, bool]] = []
    if kind == "npy":
        arr = _load_npy(path)
        if not (arr.ndim == 2 and arr.shape[1] == 2 and arr.dtype.kind in "iuf"):
            raise _fail(path, None, "must be an (n, 2) array of (guess, label)")
        for i, (g, lab) in enumerate(arr.tolist(), start=1):
            pairs.append((_guess(path, i, g if g != int(g) else int(g)), _label(path, i, int(lab) if lab == int(lab) else lab)))
    elif kind == "json":
        data = _load_json(path)
        if not isinstance(data, list):
            raise _fail(path, None, "must be a list of {\"guess\": ..., \"label\": ...} objects")
        for i, item in enumerate(data, start=1):
            if not isinstance(item, dict) or "guess" not in item or "label" not in item:
                raise _fail(path, i, "must be an object with 'guess' and 'label'")
            pairs.append((_guess(path, i, item["guess"]), _label(path, i, item["label"])))
    else:
        header, rows = _csv_rows(path)
        cg, cl = _column(path, header, "guess", None), _column(path, header, "label", None)
        for i, fields in rows:
            if max(cg, cl) >= len(fields):
                raise _fail(path, i, f"has {len(fields)} fields, fewer than the header's {len(header or [])}")
            pairs.append((_guess(path, i, fields[cg]), _label(path, i, fields[cl])))
    if not pairs:
        raise _fail(path, None, "holds no canaries")
    k_plus = sum(1 for g, _ in pairs if g == 1)
    k_minus = sum(1 for g, _ in pairs if g == -1)
    v = sum(1 for g, lab in pairs if (g == 1 and lab) or (g == -1 and not lab))
    return len(pairs), k_plus, k_minus, v, sum(1 for _, lab in pairs if lab)


def write_labelled(path: str, held_in: np.ndarray, held_out: np.ndarray) -> None:
    """Write labelled scores as CSV (``score,label``; each double as its repr, so that they read
    back exactly), atomically (a temporary file beside ``path``, renamed)."""
    from pathlib import Path

    from ..reference.generate import write_atomic

    lines = ["score,label"] + [f"{float(s)!r},1" for s in held_in] + [f"{float(s)!r},0" for s in held_out]
    write_atomic(Path(path), "\n".join(lines) + "\n")
