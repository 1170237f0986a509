"""Reading and writing the offline cache's files without trusting the directory.

The cache holds native code that this process will run, so whoever can write the
directory could run code here. Everything the store reads goes through this module:

- directories are created mode 0700;
- a directory or file is *trusted* only when the current user owns it and neither the
  group nor others may write it; code is loaded only from trusted files in trusted
  directories (otherwise the kernel compiles, and one warning says how to fix it);
- only regular files are read (opened with ``O_NOFOLLOW | O_NONBLOCK``, then checked
  with ``fstat``): a FIFO or a device named like an entry cannot hang the process, and
  a symbolic link cannot redirect a read;
- names that become path parts are checked first (``is_key``: lowercase hex only).

    >>> is_key("ab" * 32), is_key("../../etc/passwd")
    (True, False)
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import warnings
from pathlib import Path

_KEY = re.compile(r"[0-9a-f]{64}")
_warned: set[str] = set()


def is_key(text) -> bool:
    """A sha256 hex digest: the only form a key may take before it names a file."""
    return isinstance(text, str) and _KEY.fullmatch(text) is not None


def make_private_dir(path: Path) -> None:
    """Creates ``path`` and its missing parents, each with mode 0700 (``mkdir -p``
    would give the parents the umask's mode); existing ones are kept as they are."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process was quicker
            folder.mkdir(mode=0o700)


def trusted_stat(info: os.stat_result) -> bool:
    """Owned by this user, and not writable by the group or others."""
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def untrusted_reason(path: Path) -> str | None:
    """Why ``path`` (a directory of the cache) must not be trusted, or None."""
    try:
        info = os.stat(path)
    except OSError:
        return None  # not there yet: it will be made private
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory"
    if info.st_uid != os.geteuid():
        return f"{path} belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by other users (mode {stat.filemode(info.st_mode)})"
    return None


def warn_untrusted(where: str, reason: str) -> None:
    """One warning per directory: the cache is not used there, and how to fix that."""
    if where in _warned:
        return
    _warned.add(where)
    warnings.warn(
        f"offline cache {where}: {reason}, so its compiled code is not loaded (kernels "
        f"compile instead). Fix it with 'chmod 700 {where}' as its owner, or point "
        "ti.init(offline_cache_file_path=...) at a directory of your own",
        RuntimeWarning,
        stacklevel=4,
    )


def read_regular(path: Path, trusted_only: bool = False) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (and trusted, if asked), else None."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (trusted_only and not trusted_stat(info)):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def regular_size(path: Path) -> int | None:
    """The size of a regular file (None for anything else or nothing)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def atomic_write(path: Path, data: bytes) -> None:
    """Writes ``data`` to a private temporary file and renames it over ``path``: readers
    see the whole old file or the whole new one."""
    make_private_dir(path.parent)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:  # mkstemp makes it 0600
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
