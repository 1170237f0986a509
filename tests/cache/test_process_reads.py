"""What Python helpers read from the process while a kernel compiles (DESIGN.md §7).

A helper run while compiling (``ti.static(helper())``), in a user module or an installed
library, may read an environment variable, a file, ``sys.argv`` or the clock. Three
fresh processes share one cache folder, as two sessions of a user would:

1. cold: everything compiles;
2. each value read changed (the variable, the file's content, the arguments): each
   kernel that read one recompiles with the new result; the control kernel hits;
3. nothing changed: everything cacheable loads.

The clock cannot be checked again, so a kernel whose helper reads it is never cached
(and says so in the cache's debug log). In-process checks of the watch itself
(``frontend/process_reads.py``) come last.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

import pytest
from cache_helpers import run_script, script_env, write_script

from ti_notebook.frontend import process_reads
from ti_notebook.frontend.recorder import Reads

pytestmark = pytest.mark.cpu

HELPERS = """
import json
import os
import pathlib
import sys
import time
from datetime import datetime
from time import perf_counter


def from_env():
    return int(os.environ.get("TIN_TEST_N", "1"))


def from_getenv():
    return int(os.getenv("TIN_TEST_UNSET_FIRST") or 7)


def from_json():
    with open("data.json") as file:
        return json.load(file)["n"]


def from_path():
    return int(pathlib.Path("data.txt").read_text())


def arguments():
    return len(sys.argv)


def clock():
    return int(time.time() * 1000) % 1000


def clock_imported():
    return int(perf_counter() * 1000) % 1000


def clock_datetime():
    return datetime.now().microsecond % 1000


def __getattr__(name):  # a module global computed when the kernel reads it
    if name == "LAZY":
        return int(os.environ.get("TIN_TEST_LAZY", "3"))
    raise AttributeError(name)
"""

BODY = """
import getpass
import logging

import helpers

logs = []


class Keep(logging.Handler):
    def emit(self, record):
        logs.append(record.getMessage())


logging.getLogger("ti_notebook.cache").addHandler(Keep())
logging.getLogger("ti_notebook.cache").setLevel(logging.DEBUG)


@ti.kernel
def k_env() -> ti.i32:
    return ti.static(helpers.from_env())


@ti.kernel
def k_getenv() -> ti.i32:
    return ti.static(helpers.from_getenv())


@ti.kernel
def k_library() -> ti.i32:  # the standard library's getpass reads $LOGNAME
    return ti.static(len(getpass.getuser()))


@ti.kernel
def k_json() -> ti.i32:
    return ti.static(helpers.from_json())


@ti.kernel
def k_path() -> ti.i32:
    total = 0
    for i in range(helpers.from_path()):
        total += i
    return total


@ti.kernel
def k_argv() -> ti.i32:
    return ti.static(helpers.arguments())


@ti.kernel
def k_lazy() -> ti.i32:
    return helpers.LAZY


@ti.kernel
def k_clock() -> ti.i32:
    return ti.static(helpers.clock())


@ti.kernel
def k_clock_imported() -> ti.i32:
    return ti.static(helpers.clock_imported())


@ti.kernel
def k_clock_datetime() -> ti.i32:
    return ti.static(helpers.clock_datetime())


@ti.kernel
def k_plain() -> ti.i32:
    return 5


init()
for name, kernel in list(globals().items()):
    if name.startswith("k_"):
        run(name, kernel)
finish(logs=logs)
"""

CHANGING = ["k_env", "k_getenv", "k_library", "k_json", "k_path", "k_argv", "k_lazy"]
CLOCKS = ["k_clock", "k_clock_imported", "k_clock_datetime"]


def _session(tmp_path, step: int) -> dict:
    folder = tmp_path / "work"
    folder.mkdir(exist_ok=True)
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "data.json").write_text(json.dumps({"n": 10 + step}))
    (folder / "data.txt").write_text(str(4 + step))
    script = write_script(folder, "reads", BODY, cache=tmp_path / "c")
    env = {
        "TIN_TEST_N": str(20 + step),
        "TIN_TEST_UNSET_FIRST": None if step == 0 else "8",
        "LOGNAME": "ab" if step == 0 else "abcd",
        "TIN_TEST_LAZY": str(30 + step),
    }
    args = ["x"] * (1 + step)
    return run_script(script, script_env(tmp_path, **env), args)


def test_process_reads_of_helpers_are_checked_on_a_warm_start(tmp_path):
    cold = _session(tmp_path, 0)
    changed = _session(tmp_path, 1)
    warm = _session(tmp_path, 1)
    values = {
        "k_env": (20, 21),
        "k_getenv": (7, 8),
        "k_library": (2, 4),
        "k_json": (10, 11),
        "k_path": (6, 10),
        "k_argv": (2, 3),
        "k_lazy": (30, 31),
    }
    for name, (before, after) in values.items():
        assert cold["kernels"][name] == {"value": before, "cache": "miss"}, name
        assert changed["kernels"][name] == {"value": after, "cache": "miss"}, name
        assert warm["kernels"][name] == {"value": after, "cache": "hit"}, name
    for name in CLOCKS:
        assert {s["kernels"][name]["cache"] for s in (cold, changed, warm)} == {"uncacheable"}
        told = [m for m in cold["logs"] if f"'{name}'" in m]
        assert told and "reads the clock" in told[0], cold["logs"]
    plain = [s["kernels"]["k_plain"]["cache"] for s in (cold, changed, warm)]
    assert plain == ["miss", "hit", "hit"]


# -- the watch itself, in this process ---------------------------------------------------


def _watched(run) -> Reads:
    reads = Reads({})
    with process_reads.watch(reads):
        run()
    return reads


def test_environment_reads_are_recorded(monkeypatch):
    monkeypatch.setenv("TIN_WATCH_A", "1")
    monkeypatch.delenv("TIN_WATCH_B", raising=False)
    reads = _watched(lambda: (os.environ["TIN_WATCH_A"], "TIN_WATCH_B" in os.environ))
    env = process_reads.ENV_SCOPE
    assert reads.captured == {(env, "TIN_WATCH_A"): "1", (env, "TIN_WATCH_B"): None}
    assert reads.refused is None
    assert _watched(lambda: os.environb.get(b"TIN_WATCH_A")).captured == {(env, "TIN_WATCH_A"): "1"}


def test_file_reads_are_recorded_by_content(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text("12")
    reads = _watched(path.read_text)
    printed = reads.captured[(process_reads.FILE_SCOPE, str(path))]
    assert printed == process_reads.value_now(process_reads.FILE_SCOPE, str(path))
    path.write_text("13")
    assert process_reads.value_now(process_reads.FILE_SCOPE, str(path)) != printed
    missing = _watched(lambda: os.path.isfile(tmp_path / "none") or _try_open(tmp_path / "none"))
    assert missing.captured == {(process_reads.FILE_SCOPE, str(tmp_path / "none")): "missing"}


def _try_open(path) -> None:
    with contextlib.suppress(FileNotFoundError):
        open(path).close()


@pytest.mark.parametrize(
    ("run", "why"),
    [
        (time.monotonic, "reads the clock"),
        (lambda: __import__("random").random(), "uses random numbers"),
        (lambda: os.urandom(2), "uses random numbers"),
        (lambda: os.listdir("."), "lists a directory"),
        (lambda: dict(os.environ), "lists the environment"),
    ],
)
def test_untracked_reads_refuse(run, why):
    assert why in (_watched(run).refused or "")


def test_writing_a_file_refuses(tmp_path):
    reads = _watched(lambda: (tmp_path / "out.txt").write_text("x"))
    assert "writes a file" in reads.refused


def test_the_watch_ends_with_the_block():
    reads = Reads({})
    with process_reads.watch(reads):
        pass
    time.time()
    os.environ.get("HOME")
    assert reads.refused is None and reads.captured == {}


def test_a_running_profiler_refuses_and_is_kept():
    import sys

    def other(frame, event, arg):
        return None

    sys.setprofile(other)
    try:
        reads = _watched(lambda: None)
        assert sys.getprofile() is other
    finally:
        sys.setprofile(None)
    assert "profiler" in reads.refused


def test_nested_watches_both_record(monkeypatch):
    monkeypatch.setenv("TIN_WATCH_C", "3")
    outer, inner = Reads({}), Reads({})
    with process_reads.watch(outer), process_reads.watch(inner):
        os.getenv("TIN_WATCH_C")
    key = (process_reads.ENV_SCOPE, "TIN_WATCH_C")
    assert outer.captured == inner.captured == {key: "3"}
