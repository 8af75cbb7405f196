"""The user's key for table journals: a secret that never sits beside the journal.

A journal (``OUT.partial``) lies in the output folder, which others may be able to write.  Each
of its lines carries an HMAC-SHA256 under this key, so that a resume can take a line signed by
this user without recomputing it, while a line anyone else wrote (or signed with another key)
is recomputed.  The key is 32 bytes from ``os.urandom``, made on first use and kept in
``$GDPPROOF_KEY_FILE`` if that is set, else ``$XDG_CONFIG_HOME/gdpproof/journal.key`` (or
``~/.config/gdpproof/journal.key``), readable by its owner only.  Nothing derived from it but the
per-line MACs is ever written.

A key file that others could read or replace (a symbolic link, not a regular file, another
user's, open to group or others, not 32 bytes) is refused with how to fix it; a key that cannot
be made or read (a read-only home) gives a :class:`JournalNote` and journals without MACs, whose
rows a resume recomputes.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import stat
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from ..errors import InvalidParameterError

__all__ = ["ENV", "JournalNote", "key_path", "journal_key", "line_signer"]

ENV = "GDPPROOF_KEY_FILE"
_KEY_BYTES = 32


class JournalNote(UserWarning):
    """How a table journal is signed, when it is not the usual way (no key; rows to recompute)."""


def key_path() -> Path:
    """Where the key is: ``$GDPPROOF_KEY_FILE``, else under the user's configuration folder."""
    given = os.environ.get(ENV)
    if given:
        return Path(given)
    config = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"  # XDG: a relative path is ignored
    return base / "gdpproof" / "journal.key"


def _refuse(path: Path, what: str, fix: str) -> InvalidParameterError:
    return InvalidParameterError(f"the table journal key {path} {what}, so it cannot be trusted to sign journals; "
                                 f"{fix}, or set {ENV} to another file")


_REMAKE = ("remove it to have a new key made on next use (journals signed with the old key are then recomputed "
           "on resume)")


def _read(path: Path) -> bytes:
    """The key in ``path``, refused unless it is a regular file of 32 bytes that only its owner,
    this user, can read or write."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise _refuse(path, "is a symbolic link", "replace the link with the file it points to")
        # O_NOFOLLOW: a link put in its place since is refused too; O_NONBLOCK: a FIFO does not hang the open
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(path, "is a symbolic link", "replace the link with the file it points to") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, "is not a regular file", _REMAKE)
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise _refuse(path, f"belongs to another user (uid {st.st_uid})", _REMAKE)
        if st.st_mode & 0o077:
            raise _refuse(path, f"can be read or written by group or others (mode {stat.S_IMODE(st.st_mode):04o})",
                          f"run chmod 600 {path}, or {_REMAKE}")
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != _KEY_BYTES:
        raise _refuse(path, f"holds {len(data)}{'+' if len(data) > _KEY_BYTES else ''} bytes, not {_KEY_BYTES}",
                      _REMAKE)
    return data


def _create(path: Path) -> None:
    """Make a new key at ``path``, atomically: written whole to a private temporary file, then
    linked into place (of two runs making it together, one link wins and both read that key)."""
    os.makedirs(path.parent, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(_KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)


def journal_key() -> bytes | None:
    """This user's journal key, made on first use; None (with a :class:`JournalNote`) when it
    cannot be made or read.

    Raises:
        InvalidParameterError: The key file is there but cannot be trusted (see the module's
            docstring), with how to fix it.
    """
    try:
        path = key_path()
    except RuntimeError as exc:  # no home folder
        _note(f"no table journal key ({exc})")
        return None
    try:
        try:
            return _read(path)
        except FileNotFoundError:
            _create(path)
            return _read(path)
    except InvalidParameterError:
        raise
    except OSError as exc:
        _note(f"no table journal key: cannot make or read {path} ({exc.strerror or exc})")
        return None


def _note(why: str) -> None:
    warnings.warn(JournalNote(f"{why}; the journal's lines are not signed, and a resume recomputes its rows "
                              f"(set {ENV} to a private file you can write)"), stacklevel=4)


def line_signer(key: bytes, fingerprint: str, where: str | None) -> Callable[[str], str]:
    """The MAC of the journal lines of one table: the hex HMAC-SHA256 of a line's row (the JSON
    text of index, values, methods) bound to the table's fingerprint and to where the row was
    computed (None: in this process or its own pool)."""
    # the head is a whole JSON array, so head + newline + row is read back one way only
    base = hmac.new(key, json.dumps(["gdpproof table journal line", fingerprint, where]).encode() + b"\n",
                    hashlib.sha256)

    def mac(row: str) -> str:
        h = base.copy()
        h.update(row.encode())
        return h.hexdigest()

    return mac
