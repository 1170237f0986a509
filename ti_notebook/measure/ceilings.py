"""This machine's ceilings as a record: GB/s per memory level and peak FLOP/s, cached.

:class:`Ceilings` holds what ``ti.profiler.machine_ceilings()`` measured (the
micro-benchmark is :mod:`ti_notebook.measure.microbench`): the read bandwidth of each
memory level (``"L1"``, ``"L2"``, ``"L3"``, ``"DRAM"``) for one core and for all cores,
the peak f32 and f64 FLOP/s, the cache sizes the working sets were sized from, the CPU
model and when it was measured.

The record is cached per CPU model in ``machine_ceilings.json`` next to the offline cache
(``~/.cache/ti_notebook`` unless ``TI_OFFLINE_CACHE_FILE_PATH`` or ``XDG_CACHE_HOME``
say otherwise). As the offline cache does (``cache/files.py``), the folder is
made 0700 and the file is read only when this user owns it and nobody else may write it:
numbers from a file someone else could edit would make every "% of ceiling" a lie.

**Order.** On a sane machine the measured figures fall L1 > L2 > L3 > DRAM. Noise can
break that; the record keeps the measured figures as they came (and says so in
``notes``), while :meth:`Ceilings.roofs`, which everything that compares against a
ceiling uses, is monotone: each level's roof is the larger of its own figure and those of
the levels beyond it (data in a nearer level cannot be slower to reach than data farther
out, so the farther level's figure is a valid lower bound for it).

    >>> c = Ceilings.example()
    >>> c.roofs()["L2"], c.capacity("L2", threads=2), c.peak_gflops("f64", all_cores=False)
    (200.0, 4194304, 40.0)
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import stat
import subprocess
import warnings
from collections.abc import Mapping
from pathlib import Path

from ti_notebook.cache import files as cache_files
from ti_notebook.cache.store import default_path

__all__ = ["LEVELS", "CACHE_LEVELS", "Ceilings", "cache_geometry", "cpu_model", "cache_file"]

LEVELS = ("L1", "L2", "L3", "DRAM")
CACHE_LEVELS = LEVELS[:-1]
FILE_NAME = "machine_ceilings.json"
FORMAT = 1  # bumped when the record's fields change: an old file is measured again
# When the system says nothing: a common desktop core (32 KiB L1d, 1 MiB L2, 32 MiB L3)
FALLBACK_CACHES = {"L1": (32 << 10, 1), "L2": (1 << 20, 1), "L3": (32 << 20, 0)}


@dataclasses.dataclass(frozen=True)
class Ceilings:
    """What this machine reaches, measured by ti_notebook kernels (GB/s = 1e9 B/s).

    ``caches``: level -> (bytes of one instance, CPUs sharing it; 0: all of them).
    ``one_core_gbps`` / ``all_cores_gbps``: level -> measured bandwidth (the faster of
    reading and updating, ``measure/microbench.py``).
    ``one_core_gflops`` / ``all_cores_gflops``: ``"f32"`` / ``"f64"`` -> peak GFLOP/s.
    ``working_sets``: level -> bytes each core's benchmark read (all-cores run).

    Read like a dict, it gives the ceilings the profiler compares with (all cores,
    monotone): GB/s under ``"L1"``, ``"L2"``, ``"L3"``, ``"DRAM"`` and GFLOP/s under
    ``"f32"`` and ``"f64"``.

        >>> c = Ceilings.example()
        >>> list(c), c["L2"], c["f32"]
        (['L1', 'L2', 'L3', 'DRAM', 'f32', 'f64'], 200.0, 160.0)
    """

    cpu_model: str
    measured_at: str  # ISO 8601, UTC
    threads: int  # the threads of the "all cores" figures
    caches: Mapping[str, tuple[int, int]]
    cache_source: str  # "sysfs", "lscpu" or "fallback"
    one_core_gbps: Mapping[str, float]
    all_cores_gbps: Mapping[str, float]
    one_core_gflops: Mapping[str, float]
    all_cores_gflops: Mapping[str, float]
    working_sets: Mapping[str, int]
    notes: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> float:
        if key in ("f32", "f64"):
            return self.peak_gflops(key)
        return self.roofs()[key]

    def __iter__(self):
        return iter([*LEVELS, "f32", "f64"])

    def keys(self) -> list[str]:
        return list(self)

    def measured_gbps(self, level: str, all_cores: bool = True) -> float:
        """The figure measured for ``level``, as it came (see :meth:`roofs`)."""
        return (self.all_cores_gbps if all_cores else self.one_core_gbps)[level]

    def roofs(self, all_cores: bool = True) -> dict[str, float]:
        """GB/s per level, made monotone (module doc): L1 >= L2 >= L3 >= DRAM."""
        measured = self.all_cores_gbps if all_cores else self.one_core_gbps
        roofs: dict[str, float] = {}
        beyond = 0.0
        for level in reversed(LEVELS):
            beyond = max(beyond, float(measured[level]))
            roofs[level] = beyond
        return {level: roofs[level] for level in LEVELS}

    def peak_gflops(self, dtype: str = "f32", all_cores: bool = True) -> float:
        """Peak GFLOP/s of ``dtype`` (``"f32"`` or ``"f64"``; f16 counts as f32)."""
        peaks = self.all_cores_gflops if all_cores else self.one_core_gflops
        return float(peaks["f64" if dtype == "f64" else "f32"])

    def capacity(self, level: str, threads: int = 1) -> int | None:
        """Bytes of ``level`` that ``threads`` cores can fill together (None: DRAM).

        Private caches add up per core; a shared one counts once per group of cores
        that shares it.
        """
        if level == "DRAM":
            return None
        size, shared_by = self.caches[level]
        threads = max(1, min(threads, self.threads))
        if shared_by <= 0:
            return size
        groups = -(-threads // shared_by)
        return size * groups

    def describe(self) -> str:
        """A few lines for people: each level's GB/s and the peaks."""
        lines = [f"{self.cpu_model}, {self.threads} threads, measured {self.measured_at}"]
        for level in LEVELS:
            size = "" if level == "DRAM" else f" ({_size(self.caches[level][0])})"
            lines.append(
                f"  {level}{size}: {self.one_core_gbps[level]:.1f} GB/s one core, "
                f"{self.all_cores_gbps[level]:.1f} GB/s all cores"
            )
        for dtype in ("f32", "f64"):
            lines.append(
                f"  {dtype} peak: {self.one_core_gflops[dtype]:.1f} GFLOP/s one core, "
                f"{self.all_cores_gflops[dtype]:.1f} GFLOP/s all cores"
            )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"format": FORMAT, **dataclasses.asdict(self)}

    @classmethod
    def from_json(cls, d: Mapping) -> Ceilings:
        """The record a :meth:`to_json` dict describes (KeyError/TypeError/ValueError when
        it is not one)."""
        if d.get("format") != FORMAT:
            raise ValueError(f"format {d.get('format')!r}, not {FORMAT}")
        return cls(
            str(d["cpu_model"]),
            str(d["measured_at"]),
            int(d["threads"]),
            {k: (int(v[0]), int(v[1])) for k, v in d["caches"].items() if k in CACHE_LEVELS},
            str(d["cache_source"]),
            *({k: float(m[k]) for k in LEVELS} for m in (d["one_core_gbps"], d["all_cores_gbps"])),
            *(
                {k: float(m[k]) for k in ("f32", "f64")}
                for m in (d["one_core_gflops"], d["all_cores_gflops"])
            ),  # noqa: E501
            {k: int(v) for k, v in d["working_sets"].items()},
            tuple(str(n) for n in d.get("notes", ())),
        )

    @classmethod
    def example(cls) -> Ceilings:
        """A made-up record for examples and tests (2 cores, 48 KiB L1, 2 MiB L2)."""
        return cls(
            "Example CPU",
            "2026-01-01T00:00:00+00:00",
            2,
            {"L1": (48 << 10, 1), "L2": (2 << 20, 1), "L3": (32 << 20, 0)},
            "fallback",
            {"L1": 200.0, "L2": 100.0, "L3": 50.0, "DRAM": 20.0},
            {"L1": 400.0, "L2": 200.0, "L3": 100.0, "DRAM": 30.0},
            {"f32": 80.0, "f64": 40.0},
            {"f32": 160.0, "f64": 80.0},
            {"L1": 24 << 10, "L2": 1 << 20, "L3": 8 << 20, "DRAM": 256 << 20},
        )


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cache_geometry(root: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> tuple[dict, str]:
    """Level -> (bytes, CPUs sharing it; 0: all) for L1 data, L2 and L3, and where that
    came from: sysfs (``index*/level,type,size,shared_cpu_list``), else ``lscpu``, else
    :data:`FALLBACK_CACHES`.

        >>> caches, source = cache_geometry()
        >>> sorted(caches) == ["L1", "L2", "L3"] and source in ("sysfs", "lscpu", "fallback")
        True
    """
    found: dict[str, tuple[int, int]] = {}
    for index in sorted(root.glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _bytes((index / "size").read_text().strip())
            sharing = _cpu_count((index / "shared_cpu_list").read_text().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and 1 <= level <= 3:
            found[f"L{level}"] = (size, sharing)
    source = "sysfs"
    if len(found) < 3:
        found, source = {**_lscpu(), **found}, "lscpu"
    if len(found) < 3:
        found, source = {**FALLBACK_CACHES, **found}, "fallback"
    return {level: found[level] for level in CACHE_LEVELS}, source


def _bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.replace("iB", "").replace("B", "").strip()
    if text and text[-1].upper() in units:
        return int(float(text[:-1].strip()) * units[text[-1].upper()])
    return int(text)


def _cpu_count(cpu_list: str) -> int:
    count = 0
    for part in cpu_list.split(","):
        low, _, high = part.partition("-")
        count += int(high or low) - int(low) + 1
    return count


def _lscpu() -> dict[str, tuple[int, int]]:
    """Per-instance sizes from ``lscpu -B`` (``L1d cache: 98304`` over 2 instances)."""
    try:
        text = subprocess.run(
            ["lscpu", "-B"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    names = {"L1d cache": "L1", "L2 cache": "L2", "L3 cache": "L3"}
    found = {}
    cpus = os.cpu_count() or 1
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in names:
            total, _, rest = value.strip().partition(" ")
            instances = int(rest.strip("() ").split()[0]) if "instance" in rest else 1
            try:
                found[names[name.strip()]] = (_bytes(total) // instances, cpus // instances)
            except ValueError:
                continue
    return found


def cache_file() -> Path:
    """Where the record is cached: ``machine_ceilings.json`` in the offline cache's
    default folder (``~/.cache/ti_notebook``)."""
    return Path(default_path()) / FILE_NAME


def load(path: Path, model: str) -> Ceilings | None:
    """The record of ``model`` in ``path``, or None: missing, malformed, or not trusted
    (another user's file, or one others may write: warned about, then ignored)."""
    reason = cache_files.untrusted_reason(path.parent)
    try:
        info = os.stat(path)
    except OSError:
        return None
    if reason is None and not cache_files.trusted_stat(info):
        reason = (
            f"{path} belongs to another user or is writable by others "
            f"(mode {stat.filemode(info.st_mode)})"
        )
    if reason is not None:
        warnings.warn(
            f"machine ceilings: {reason}, so it is not read (measuring again instead); "
            f"'chmod 600 {path}' as its owner trusts it again",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    data = cache_files.read_regular(path, trusted_only=True)
    try:
        return Ceilings.from_json(json.loads(data or b"{}")[model])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def save(path: Path, record: Ceilings) -> None:
    """Adds ``record`` to ``path`` (other CPU models' records kept), in a 0700 folder;
    a folder that is not private is left alone (nothing written)."""
    if cache_files.untrusted_reason(path.parent) is not None:
        return
    cache_files.make_private_dir(path.parent)
    records = {}
    existing = cache_files.read_regular(path, trusted_only=True)
    if existing:
        try:
            records = dict(json.loads(existing))
        except (ValueError, TypeError):
            records = {}
    records[record.cpu_model] = record.to_json()
    cache_files.atomic_write(path, json.dumps(records, indent=1, sort_keys=True).encode())


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


_current: Ceilings | None = None  # this process's record, once measured or read


def current(read_file: bool = True) -> Ceilings | None:
    """The record measured or read in this process, else the cached file's (no
    measuring: the profiler's tables call this), else None."""
    global _current
    if _current is None and read_file:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # machine_ceilings() warns, when it is asked
            _current = load(cache_file(), cpu_model())
    return _current


def remember(record: Ceilings | None) -> None:
    """Makes ``record`` this process's ceilings (None: forget them)."""
    global _current
    _current = record
