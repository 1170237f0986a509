"""One example, one backend, in this process: run it, then write its result and arrays.

The parent (:mod:`.runner`) starts ``python -m tests.conformance.child`` once per
backend, in a scratch folder of its own (files the example writes land there). Here:

1. ``random`` and NumPy are seeded; drift shims go in (:mod:`.shims`);
2. the backend is imported as ``taichi`` (:mod:`.mapping`) and ``ti.init`` is forced to
   the CPU with a fixed seed. Taichi's run gets the headless stand-ins ``ti.GUI``
   (:mod:`.gui_stub`) and ``ti.ui.Window`` (:mod:`.ggui_stub`); ti_notebook's run keeps
   its own, with ``TI_GUI_MAX_FRAMES`` set to the same budget (:mod:`.observe`);
3. the source, with the setting's rewrites and the frame clock, is registered in
   ``linecache`` under the example's own path (kernels read their source from there,
   so line numbers are the file's) and runs as ``__main__``;
4. the arrays (:mod:`.dump`) go to an ``.npz``, the result to a JSON file, and
   ti_notebook's last frame of each window to a PNG in ``--pictures``.

>>> error_line(ValueError("first line\\n  detail"))
'ValueError: first line'
"""

from __future__ import annotations

import argparse
import builtins
import json
import linecache
import random
import statistics
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import numpy as np

from tests.conformance import (
    budget,
    dump,
    examples,
    ggui_stub,
    gui_stub,
    mapping,
    observe,
    settings,
    shims,
)

TRACEBACK_LINES = 40
FIELD_PREFIX = "field/"


class HarnessError(RuntimeError):
    """The harness itself is wrong for this example (e.g. a rewrite that no longer matches)."""


def error_line(error: BaseException) -> str:
    """``Type: first line of the message``, the way the table shows an error."""
    message = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {message[0]}" if message else type(error).__name__
    return text[:240]


def error_location(error: BaseException, root: Path) -> str:
    """``folder/example.py:line`` of the innermost frame inside the examples folder."""
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename)
        if path.is_relative_to(root):
            where = f"{path.relative_to(root).as_posix()}:{frame.lineno}"
    if not where and isinstance(error, SyntaxError) and error.filename:
        path = Path(error.filename)
        if path.is_relative_to(root):
            where = f"{path.relative_to(root).as_posix()}:{error.lineno}"
    return where


def version_text(version: Any) -> str:
    """``(1, 7, 4)`` or ``"1.7.4"`` -> ``"1.7.4"``."""
    return ".".join(map(str, version)) if isinstance(version, tuple) else str(version)


def prepare_source(source: str, setting: settings.Setting) -> str:
    """The setting's rewrites, then the frame clock; the line count never changes."""
    for old, new in setting.rewrites:
        if old not in source:
            raise HarnessError(f"settings rewrite {old!r} matches nothing in the source")
        source = source.replace(old, new)
    return shims.rewrite_clock(source)


def frame_times(start: float, show_times: list[float]) -> dict[str, Any]:
    """First frame (compiling included) and the median of the later ones, in seconds."""
    stamps = [t - start for t in show_times]
    later = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    return {
        "frames": len(stamps),
        "first_frame_s": stamps[0] if stamps else None,
        "median_frame_s": statistics.median(later) if later else None,
    }


def _run_source(path: Path, source: str, argv: list[str]) -> types.ModuleType:
    """Runs ``source`` as ``__main__`` from ``path``; returns the module (its globals)."""
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    module.__builtins__ = builtins
    setattr(module, shims.CLOCK_NAME, shims.FrameClock(lambda: budget.current().frames_shown))
    sys.modules["__main__"] = module
    sys.argv = [str(path), *argv]
    # as `python example.py` would: the script's folder first, for its sibling imports
    sys.path.insert(0, str(path.parent))
    # mtime None: linecache.checkcache keeps the rewritten text instead of the file's
    linecache.cache[str(path)] = (len(source), None, source.splitlines(True), str(path))
    # dont_inherit: this module's `from __future__ import annotations` must not leak in
    code = compile(source, str(path), "exec", dont_inherit=True)
    try:
        exec(code, module.__dict__)
    finally:
        sys.stdout.flush()
    return module


def _install_windows(backend: str, ti: Any, frames: int) -> observe.Observer | None:
    """Taichi: the stand-ins; ti_notebook: its own windows with the budget, observed."""
    if backend == "taichi":
        mapping.install_gui(ti, gui_stub.StubGUI)
        ggui_stub.install(ti)
        return None
    observe.set_budget(frames)
    observer = observe.Observer()
    for cls in observe.window_classes(ti):
        observer.wrap(cls)
    return observer


def run_example(
    backend: str, name: str, frames: int, root: Path | None = None, pictures: Path | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(result, arrays) of ``name`` (under ``root``, the wheel's examples by default) run
    with ``backend``; the result is JSON-ready. ti_notebook's pictures go to ``pictures``."""
    root = root or examples.examples_dir()
    path = examples.source_path(root, name)
    setting = settings.setting_for(name)
    result: dict[str, Any] = {"backend": backend, "example": name, "status": "ok"}
    arrays: dict[str, Any] = {}
    random.seed(mapping.RANDOM_SEED)
    np.random.seed(mapping.RANDOM_SEED)
    session = budget.reset(frames=frames, example_file=str(path))
    module = None
    try:
        source = path.read_text()
        result["shims"] = shims.apply_drift_shims(source)
        source = prepare_source(source, setting)
        ti = mapping.install(backend, root)
        result["version"] = version_text(getattr(ti, "__version__", "?"))
        mapping.force_cpu_init(ti)
        observer = _install_windows(backend, ti, frames)
        stops = observe.stop_types(ti)
        session.started = budget.perf_counter()
        try:
            module = _run_source(path, source, list(setting.argv))
            result["ended"] = "finished"
        except stops as stop:
            module = sys.modules["__main__"]
            result["ended"] = f"stopped: {type(stop).__name__} after {session.frames_shown} frames"
        except SystemExit as exit_:
            module = sys.modules["__main__"]
            if exit_.code not in (None, 0):
                raise
            result["ended"] = "exit()"
        result["wall_s"] = budget.perf_counter() - session.started
        result.update(frame_times(session.started, session.show_times))
        result["requested_archs"] = [str(arch) for arch in ti.requested_archs]
        if observer is not None:
            result["pictures"] = observer.save_pictures(pictures, name)
        roots = dump.global_roots(vars(module)) + dump.local_roots(session.local_frames)
        fields, result["dump_errors"] = dump.collect(roots)
        arrays.update({FIELD_PREFIX + key: value for key, value in fields.items()})
    except BaseException as error:  # every failure becomes a result, never a crash
        result.update(
            status="error",
            error=error_line(error),
            where=error_location(error, root),
            blame="harness" if isinstance(error, HarnessError | gui_stub.StubGap) else "backend",
            traceback="".join(traceback.format_exception(error)[-TRACEBACK_LINES:]),
            wall_s=budget.perf_counter() - session.started,
            **frame_times(session.started, session.show_times),
        )
        arrays = {}
    return result, arrays


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.conformance.child --backend B --example NAME --result R --arrays A``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=mapping.BACKENDS, required=True)
    parser.add_argument("--example", required=True, help="e.g. simulation/mpm88")
    parser.add_argument("--frames", type=int, default=settings.DEFAULT_FRAMES)
    parser.add_argument("--result", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--arrays", type=Path, required=True, help=".npz file to write")
    parser.add_argument("--root", type=Path, help="examples folder (default: the wheel's)")
    parser.add_argument("--pictures", type=Path, help="folder for ti_notebook's last frames")
    args = parser.parse_args(argv)
    result, arrays = run_example(args.backend, args.example, args.frames, args.root, args.pictures)
    try:
        np.savez(args.arrays, **arrays)
    except Exception as error:  # e.g. an array NumPy cannot pickle-free save
        result["dump_errors"] = {"(all)": f"savez failed: {error_line(error)}"}
    args.result.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
