"""The offline cache on disk: entries, atomic writes, validation and cleaning.

Layout of ``<offline_cache_file_path>/<target>/`` (``cpu/`` for the CPU backend's entries):

- ``<key>.tic``: the payload: a magic line, a JSON header (symbol name, prints,
  asserts, stage texts, report) and the object code;
- ``<key>.json``: metadata: version, kernel, size, created, last used, checksum (a use
  also sets the file's mtime, so a hit costs no rewrite);
- ``index/<pre-key>.json``: the dependency lists seen for a pre-key and their keys
  (``cache/keys.py``).

Every file is written to a temporary name and renamed into place, so readers see a
whole old file or a whole new one; several processes may share the directory. The
payload carries its own sha256: two processes writing the same entry at once may leave
one's metadata beside the other's payload, and that pair is still valid. A payload whose
checksum, magic or key does not match, or whose metadata is malformed or of another
version, is never loaded: the kernel is recompiled and the entry replaced. Each payload
also names what its key was made of (the pre-key and dependencies); an index pair whose
key is not the one its dependencies make (an index edited to point at another valid
entry), or that leads to a payload made for something else, is not trusted either.

What the checksum protects against is accidents (a full disk, a killed writer, a stray
edit). It does not protect against someone who can write the directory: they could
write a valid entry. That is why the store loads code only from directories and files
the current user owns and nobody else can write (``cache/files.py``).

    >>> store = CacheStore("/tmp/ti_notebook_doctest_cache")
    >>> store.clear(); store.info()["entries"]
    []
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from ti_notebook.cache.files import (
    atomic_write,
    is_key,
    read_regular,
    regular_size,
    untrusted_reason,
    warn_untrusted,
)

MAGIC = b"TINCACHE2\n"
_DIGEST = 32  # bytes of the payload's own sha256, right after the magic
_warned_malformed: set[str] = set()


def default_path() -> str:
    env = os.environ.get("TI_OFFLINE_CACHE_FILE_PATH")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ti_notebook")


def _read_json(path: Path):
    data = read_regular(path)
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


def _number(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


class CacheStore:
    """One cache directory's part for one target (``cpu/``: a backend's ``cache_subdir``)."""

    def __init__(self, path: str, version: str = "", target: str = "cpu") -> None:
        self.root = Path(path)
        self.dir = self.root / target
        self.version = version
        self._total: int | None = None  # bytes, scanned once, then kept up to date

    # -- trust -----------------------------------------------------------------------
    def trusted(self) -> bool:
        """Whether code may be loaded from (and written to) this directory now; warns
        once when not."""
        for folder in (self.root, self.dir, self.dir / "index"):
            reason = untrusted_reason(folder)
            if reason is not None:
                warn_untrusted(str(folder), reason)
                return False
        return True

    def _malformed(self, what: str) -> None:
        where = f"{self.root}: {what}"
        if where not in _warned_malformed:
            _warned_malformed.add(where)
            warnings.warn(
                f"offline cache {self.root}: {what} was malformed; it is ignored and "
                "rewritten (the kernel compiles this once)",
                RuntimeWarning,
                stacklevel=4,
            )

    # -- entries ---------------------------------------------------------------------
    def load(self, key: str) -> tuple[dict, bytes] | None:
        """(header, object code) of a valid, trusted entry, else None."""
        if not is_key(key) or not self.trusted():
            return None
        payload = read_regular(self.dir / f"{key}.tic", trusted_only=True)
        if payload is None:
            return None
        meta = _read_json(self.dir / f"{key}.json")
        if not isinstance(meta, dict):
            self._malformed(f"the metadata of entry {key[:12]}")
            return None
        if meta.get("version") != self.version or not payload.startswith(MAGIC):
            return None
        body = payload[len(MAGIC) + _DIGEST :]
        if payload[len(MAGIC) : len(MAGIC) + _DIGEST] != hashlib.sha256(body).digest():
            return None
        try:
            size = int.from_bytes(body[:8], "little")
            header = json.loads(body[8 : 8 + size])
            code = body[8 + size :]
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(header, dict) or header.get("key") != key:
            return None
        self.touch(key, meta)
        return header, code

    def save(self, key: str, kernel_name: str, header: dict, code: bytes) -> None:
        if not is_key(key) or not self.trusted():
            return
        head = json.dumps(dict(header, key=key)).encode()
        body = len(head).to_bytes(8, "little") + head + code
        payload = MAGIC + hashlib.sha256(body).digest() + body
        now = time.time()
        meta = {
            "version": self.version,
            "kernel": kernel_name,
            "size": len(payload),
            "created": now,
            "last_used": now,
            "checksum": hashlib.sha256(payload).hexdigest(),
        }
        atomic_write(self.dir / f"{key}.tic", payload)  # the payload first: see load()
        atomic_write(self.dir / f"{key}.json", json.dumps(meta).encode())
        if self._total is not None:
            self._total += len(payload)

    def touch(self, key: str, meta: dict) -> None:
        """Marks a use: the metadata file's mtime is the last use (no rewrite needed)."""
        with contextlib.suppress(OSError):
            os.utime(self.dir / f"{key}.json")

    # -- index -----------------------------------------------------------------------
    def candidates(self, pre_key: str, key_of: Callable[[list], str] | None = None) -> list:
        """The (dependencies, key) pairs seen for ``pre_key``; a malformed index is
        ignored with one warning, and the next ``remember`` rewrites it. ``key_of``
        (dependencies -> key) checks each pair: one whose key is not the key its
        dependencies make (an entry edited to name another kernel's) is malformed."""
        if not is_key(pre_key):
            return []
        path = self.dir / "index" / f"{pre_key}.json"
        found = _read_json(path)
        if found is None:
            if regular_size(path) is not None:
                self._malformed(f"the index {pre_key[:12]}")
            return []
        valid = (
            [
                c
                for c in found
                if isinstance(c, dict)
                and is_key(c.get("key"))
                and isinstance(c.get("dependencies"), list)
                and (key_of is None or key_of(c["dependencies"]) == c["key"])
            ]
            if isinstance(found, list)
            else []
        )
        if not isinstance(found, list) or len(valid) != len(found):
            self._malformed(f"the index {pre_key[:12]}")
        return valid

    def remember(self, pre_key: str, dependencies: list, key: str) -> None:
        if not is_key(pre_key) or not is_key(key) or not self.trusted():
            return
        known = [
            c
            for c in self.candidates(pre_key)
            if c.get("key") != key and c.get("dependencies") != dependencies
        ]
        known.insert(0, {"dependencies": dependencies, "key": key})
        atomic_write(self.dir / "index" / f"{pre_key}.json", json.dumps(known[:16]).encode())

    # -- listing and cleaning ----------------------------------------------------------
    def entries(self) -> list[dict]:
        if not self.dir.is_dir():
            return []
        found = []
        for meta_path in self.dir.glob("*.json"):
            key = meta_path.stem
            meta_size = regular_size(meta_path)
            if not is_key(key) or meta_size is None:
                continue  # not ours: a stray name, a FIFO, a link
            meta = _read_json(meta_path)
            if not isinstance(meta, dict):
                meta = {}
            mtime = 0.0
            with contextlib.suppress(OSError):
                mtime = meta_path.stat().st_mtime
            found.append(
                {
                    "key": key,
                    "kernel": str(meta.get("kernel", "?")),
                    "size": (regular_size(self.dir / f"{key}.tic") or 0) + meta_size,
                    "created": _number(meta.get("created")),
                    "last_used": max(_number(meta.get("last_used")), mtime),
                    "version": str(meta.get("version", "?")),
                }
            )
        return found

    def remove(self, key: str) -> None:
        if not is_key(key):
            return
        for suffix in (".tic", ".json"):
            with contextlib.suppress(OSError):
                (self.dir / f"{key}{suffix}").unlink()

    def clean(self, policy: str, max_size: int) -> None:
        """Applies ``never | version | lru | fifo`` (see the module docstring)."""
        if policy == "never" or not self.dir.is_dir():
            return
        self._total = None
        entries = self.entries()
        if policy == "version":
            for entry in entries:
                if entry["version"] != self.version:
                    self.remove(entry["key"])
            return
        if sum(e["size"] for e in entries) <= max_size:
            return
        order = "last_used" if policy == "lru" else "created"
        entries.sort(key=lambda e: e[order])
        for entry in entries[: max(1, len(entries) // 4)]:
            self.remove(entry["key"])

    def total_bytes(self) -> int:
        """The directory's size; scanned on first use, then counted as entries are added
        (other processes' writes are seen at the next clean)."""
        if self._total is None:
            self._total = sum(e["size"] for e in self.entries())
        return self._total

    def clear(self) -> None:
        self._total = None
        if not self.dir.is_dir():
            return
        for path in list(self.dir.glob("*.tic")) + list(self.dir.glob("*.json")):
            with contextlib.suppress(OSError):
                path.unlink()
        for path in (self.dir / "index").glob("*.json"):
            with contextlib.suppress(OSError):
                path.unlink()

    def info(self) -> dict:
        entries = sorted(self.entries(), key=lambda e: e["created"])
        return {
            "path": str(self.root),
            "entries": entries,
            "total_bytes": sum(e["size"] for e in entries),
        }
