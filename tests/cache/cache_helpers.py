"""Runs small ti_notebook scripts in fresh processes and reads the offline cache on disk.

A script is a fixed prelude (``init``, ``run``, ``record``, ``finish``) plus a body. It
prints one ``RESULT {json}`` line: each recorded kernel's value and ``report["cache"]``,
``ti.cache.info()`` and whatever the body passed to ``finish``.

    >>> script = write_script(tmp_path, "one", BODY, cache=tmp_path / "c")
    >>> out = run_script(script, script_env(tmp_path))
    >>> out["kernels"]["k"]["cache"]
    'miss'
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGE_NAMES = ("ir", "ir_optimized", "llvm", "llvm_optimized", "asm")
METADATA_FIELDS = {"version", "kernel", "size", "created", "last_used", "checksum"}
TIMEOUT_S = 120

PRELUDE = """\
import json
import os
import sys
import time

import numpy as np

import ti_notebook as ti

CACHE = @CACHE@
STAGE_NAMES = ("ir", "ir_optimized", "llvm", "llvm_optimized", "asm")
_RESULTS = {}


def init(**options):
    if CACHE is not None:
        options.setdefault("offline_cache_file_path", CACHE)
    ti.init(arch=ti.cpu, **options)


def cache_status(kernel):
    try:
        return kernel.stages()["report"].get("cache")
    except Exception as exc:  # reported, so the test shows what went wrong
        return f"error: {type(exc).__name__}: {exc}"


def record(name, kernel, value):
    _RESULTS[name] = {"value": value, "cache": cache_status(kernel)}


def run(name, kernel, *args):
    value = kernel(*args)
    record(name, kernel, value)
    return value


def stages_of(kernel):
    stages = kernel.stages()
    return {name: stages[name] for name in STAGE_NAMES if name in stages}


def cache_info():
    cache = getattr(ti, "cache", None)
    if cache is None:
        return None
    return cache.info()


def _plain(value):
    return value.item() if hasattr(value, "item") else str(value)


def finish(**extra):
    out = {"kernels": _RESULTS, "info": cache_info(), **extra}
    print("RESULT " + json.dumps(out, default=_plain), flush=True)


# ---- body ---------------------------------------------------------------------------
"""


def write_script(folder: Path, name: str, body: str, *, cache: Path | None) -> Path:
    """``folder/name.py``: the prelude (``CACHE`` = ``cache``) followed by ``body``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    cache_literal = repr(str(cache)) if cache is not None else "None"
    path.write_text(PRELUDE.replace("@CACHE@", cache_literal) + body)
    return path


def script_env(guard: Path, **overrides: str | None) -> dict:
    """The environment for a script: this checkout on PYTHONPATH, no cache settings
    inherited, and ``XDG_CACHE_HOME`` inside ``guard`` so a build that ignores the
    configured path still stays out of the real ``~/.cache``. ``None`` unsets a name."""
    inherited = {"TI_OFFLINE_CACHE", "TI_OFFLINE_CACHE_FILE_PATH", "TI_ARCH", "XDG_CACHE_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in inherited}
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["XDG_CACHE_HOME"] = str(guard / "xdg-guard")
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def start_script(script: Path, env: dict, args: list[str] = ()) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        env=env,
        cwd=script.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def collect(proc: subprocess.Popen, script: Path) -> dict:
    """Waits for ``proc`` and returns its RESULT object; fails with its output otherwise."""
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise AssertionError(f"{script.name} timed out\n{stderr[-4000:]}") from None
    return _parse(proc.returncode, stdout, stderr, script)


def run_script(script: Path, env: dict, args: list[str] = ()) -> dict:
    return collect(start_script(script, env, args), script)


def run_all(jobs: list[tuple[Path, dict, list[str]]]) -> list[dict]:
    """Runs independent ``(script, env, args)`` jobs side by side (each on its own cache
    folder) to save time."""
    procs = [(start_script(script, env, args), script) for script, env, args in jobs]
    return [collect(proc, script) for proc, script in procs]


def _parse(returncode: int, stdout: str, stderr: str, script: Path) -> dict:
    if returncode != 0:
        raise AssertionError(
            f"{script.name} exited with {returncode}\n--- stdout\n{stdout[-3000:]}"
            f"\n--- stderr\n{stderr[-6000:]}"
        )
    for line in reversed(stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise AssertionError(f"{script.name} printed no RESULT line\n{stdout[-3000:]}")


def wait_for_files(folder: Path, count: int, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while len(list(folder.iterdir())) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"only {len(list(folder.iterdir()))} of {count} ready")
        time.sleep(0.01)


# ---- the cache folder -------------------------------------------------------------


def cpu_dir(cache: Path) -> Path:
    return Path(cache) / "cpu"


def files_with(cache: Path, suffix: str) -> list[Path]:
    folder = cpu_dir(cache)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(suffix))


def keys(cache: Path, suffix: str) -> set[str]:
    return {p.name[: -len(suffix)] for p in files_with(cache, suffix)}


def metadata(cache: Path) -> dict[str, dict]:
    """key → parsed ``<key>.json`` (``{}`` when it does not parse)."""
    found = {}
    for path in files_with(cache, ".json"):
        try:
            found[path.name[: -len(".json")]] = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            found[path.name[: -len(".json")]] = {}
    return found


def names_kernel(recorded, name: str) -> bool:
    """Whether a metadata/info ``kernel`` value names the kernel ``name`` (it may be
    qualified, like ``__main__.k``, or carry a specialisation suffix)."""
    return bool(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", str(recorded)))


def keys_of(cache: Path, name: str) -> list[str]:
    """Keys of the entries whose metadata names kernel ``name``."""
    found = metadata(cache).items()
    return sorted(key for key, meta in found if names_kernel(meta.get("kernel"), name))


def entry_kernels(info: dict) -> list[str]:
    return [str(entry.get("kernel")) for entry in info["entries"]]


def has_entry(info: dict, name: str) -> bool:
    return any(names_kernel(kernel, name) for kernel in entry_kernels(info))
