"""The offline cache on disk: entries, atomic writes, validation and cleaning.

Layout of ``<offline_cache_file_path>/cpu/``:

- ``<key>.tic``: the payload: a magic line, a JSON header (symbol name, prints,
  asserts, stage texts, report) and the object code;
- ``<key>.json``: metadata: version, kernel, size, created, last used, checksum (a use
  also sets the file's mtime, so a hit costs no rewrite);
- ``index/<pre-key>.json``: the dependency lists seen for a pre-key and their keys
  (``runtime/cache_keys.py``).

Every file is written to a temporary name and renamed into place, so readers see a
whole old file or a whole new one; several processes may share the directory. A payload
whose checksum or header does not match its metadata is never loaded: the kernel is
recompiled and the entry replaced.

    >>> store = CacheStore("/tmp/ti_notebook_doctest_cache")
    >>> store.clear(); store.info()["entries"]
    []
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

MAGIC = b"TINCACHE1\n"


def default_path() -> str:
    env = os.environ.get("TI_OFFLINE_CACHE_FILE_PATH")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ti_notebook")


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


class CacheStore:
    """One cache directory (its ``cpu/`` part)."""

    def __init__(self, path: str, version: str = "") -> None:
        self.root = Path(path)
        self.dir = self.root / "cpu"
        self.version = version
        self._total: int | None = None  # bytes, scanned once, then kept up to date

    # -- entries ---------------------------------------------------------------------
    def load(self, key: str) -> tuple[dict, bytes] | None:
        """(header, object code) of a valid entry, else None (missing or corrupt)."""
        meta = _read_json(self.dir / f"{key}.json")
        try:
            payload = (self.dir / f"{key}.tic").read_bytes()
        except OSError:
            return None
        if not isinstance(meta, dict) or meta.get("checksum") != _checksum(payload):
            return None
        if meta.get("version") != self.version or not payload.startswith(MAGIC):
            return None
        try:
            start = len(MAGIC)
            size = int.from_bytes(payload[start : start + 8], "little")
            header = json.loads(payload[start + 8 : start + 8 + size])
            code = payload[start + 8 + size :]
        except (ValueError, UnicodeDecodeError):
            return None
        if header.get("key") != key:
            return None
        self.touch(key, meta)
        return header, code

    def save(self, key: str, kernel_name: str, header: dict, code: bytes) -> None:
        head = json.dumps(dict(header, key=key)).encode()
        payload = MAGIC + len(head).to_bytes(8, "little") + head + code
        now = time.time()
        meta = {
            "version": self.version,
            "kernel": kernel_name,
            "size": len(payload),
            "created": now,
            "last_used": now,
            "checksum": _checksum(payload),
        }
        _atomic_write(self.dir / f"{key}.tic", payload)  # the payload first: see load()
        _atomic_write(self.dir / f"{key}.json", json.dumps(meta).encode())
        if self._total is not None:
            self._total += len(payload)

    def touch(self, key: str, meta: dict) -> None:
        """Marks a use: the metadata file's mtime is the last use (no rewrite needed)."""
        with contextlib.suppress(OSError):
            os.utime(self.dir / f"{key}.json")

    # -- index -----------------------------------------------------------------------
    def candidates(self, pre_key: str) -> list:
        found = _read_json(self.dir / "index" / f"{pre_key}.json")
        return found if isinstance(found, list) else []

    def remember(self, pre_key: str, dependencies: list, key: str) -> None:
        known = [c for c in self.candidates(pre_key) if c.get("key") != key]
        known.insert(0, {"dependencies": dependencies, "key": key})
        _atomic_write(self.dir / "index" / f"{pre_key}.json", json.dumps(known[:16]).encode())

    # -- listing and cleaning ----------------------------------------------------------
    def entries(self) -> list[dict]:
        if not self.dir.is_dir():
            return []
        found = []
        for meta_path in self.dir.glob("*.json"):
            meta = _read_json(meta_path)
            key = meta_path.stem
            if not isinstance(meta, dict):
                meta = {}
            payload = self.dir / f"{key}.tic"
            size = payload.stat().st_size if payload.exists() else 0
            found.append(
                {
                    "key": key,
                    "kernel": meta.get("kernel", "?"),
                    "size": size + meta_path.stat().st_size,
                    "created": meta.get("created", 0.0),
                    "last_used": max(meta.get("last_used", 0.0), meta_path.stat().st_mtime),
                    "version": meta.get("version", "?"),
                }
            )
        return found

    def remove(self, key: str) -> None:
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


def _checksum(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()
