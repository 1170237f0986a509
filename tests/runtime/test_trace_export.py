"""ti.profiler.export_trace: Chrome trace-event JSON that Perfetto and chrome://tracing open.

The file is checked against a JSON Schema of the trace-event format's parts it uses
(complete and metadata events), then against the recorded events themselves: times in
microseconds matching the nanosecond events, tasks inside their launches, the tracks'
names. Nothing here asserts on how long anything took.
"""

import json
from pathlib import Path

import jsonschema
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

# The JSON Object Format's events this exporter writes: "X" (complete) and "M" (metadata).
_NUMBER = {"type": "number", "minimum": 0}
TRACE_SCHEMA = {
    "type": "object",
    "required": ["traceEvents", "displayTimeUnit"],
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "otherData": {"type": "object"},
        "traceEvents": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "ph", "pid", "tid"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "ph": {"enum": ["X", "M"]},
                    "pid": {"type": "integer"},
                    "tid": {"type": "integer"},
                    "args": {"type": "object"},
                },
                "allOf": [
                    {
                        "if": {"properties": {"ph": {"const": "X"}}},
                        "then": {
                            "required": ["cat", "ts", "dur", "args"],
                            "properties": {
                                "cat": {"type": "string", "minLength": 1},
                                "ts": _NUMBER,
                                "dur": _NUMBER,
                                "args": {"required": ["kernel", "specialisation"]},
                            },
                        },
                    },
                    {
                        "if": {"properties": {"ph": {"const": "M"}}},
                        "then": {
                            "required": ["args"],
                            "properties": {
                                "name": {
                                    "enum": ["process_name", "thread_name", "thread_sort_index"]
                                },
                                "args": {
                                    "type": "object",
                                    "minProperties": 1,
                                    "properties": {"name": {"type": "string", "minLength": 1}},
                                },
                            },
                        },
                    },
                ],
            },
        },
    },
}
EPSILON_US = 1e-3  # one nanosecond: what float µs may be off by


def _profiled_launches(repeats: int = 3):
    """A template kernel over two fields, launched ``repeats`` times on each."""
    ti.init(arch=ti.cpu, kernel_profiler=True, offline_cache=False)
    rows = ti.field(ti.f32, shape=1 << 16)
    cols = ti.field(ti.f32, shape=1 << 8)

    @ti.kernel
    def add_one(a: ti.template()):
        for i in a:
            a[i] += 1

    for _ in range(repeats):
        add_one(rows)
        add_one(cols)


def _load(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    jsonschema.validate(trace, TRACE_SCHEMA)
    return trace


def _complete(trace: dict, cat: str | None = None) -> list[dict]:
    return [e for e in trace["traceEvents"] if e["ph"] == "X" and cat in (None, e["cat"])]


def _inside(inner: dict, outer: dict) -> bool:
    return (
        outer["ts"] - EPSILON_US <= inner["ts"]
        and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + EPSILON_US
    )


def _task_key(event: dict) -> tuple:
    args = event["args"]
    return args["specialisation"], args["launch"], args["task"]


@pytest.fixture
def trace(tmp_path):
    _profiled_launches()
    path = tmp_path / "trace.json"
    written = ti.profiler.export_trace(path)
    trace = _load(path)
    assert written == len(trace["traceEvents"])
    return trace


def test_trace_names_its_process_and_tracks(trace):
    meta = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    processes = [e for e in meta if e["name"] == "process_name"]
    assert [e["args"]["name"] for e in processes] == ["ti_notebook (cpu)"]
    names = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert names[1] == "python: compile" and names[2] == "launches"
    assert names[10] == "launcher"
    workers = {tid: name for tid, name in names.items() if tid > 10}
    assert all(name == f"worker {tid - 10}" for tid, name in workers.items())
    assert {e["pid"] for e in trace["traceEvents"]} == {processes[0]["pid"]}
    assert {e["tid"] for e in _complete(trace)} <= set(names)  # every track is named
    assert trace["displayTimeUnit"] == "ms"


def test_times_are_microseconds_of_the_recorded_nanoseconds(trace):
    origin = trace["otherData"]["origin_ns"]
    launches = {(e.specialisation, e.launch): e for e in ti.profiler.launches()}
    events = _complete(trace, "launch")
    assert len(events) == len(launches) == 6
    for event in events:
        recorded = launches[event["args"]["specialisation"], event["args"]["launch"]]
        assert abs(event["dur"] * 1e3 - recorded.duration_ns) < 1
        assert abs(event["ts"] * 1e3 + origin - recorded.start_ns) < 1
        assert event["name"] == recorded.specialisation
        assert event["args"]["kernel"] == "add_one"
    tasks = _complete(trace, "task")
    assert len(tasks) == sum(len(e.tasks) for e in launches.values()) > 0
    for task in tasks:
        recorded = launches[task["args"]["specialisation"], task["args"]["launch"]]
        assert abs(task["dur"] * 1e3 - recorded.tasks[task["args"]["task"]].duration_ns) < 1
    assert min(e["ts"] for e in _complete(trace)) == 0  # counted from the earliest event


def test_every_task_lies_inside_its_launch_and_every_thread_inside_its_task(trace):
    launches = {
        (e["args"]["specialisation"], e["args"]["launch"]): e for e in _complete(trace, "launch")
    }
    tasks = {}
    for task in _complete(trace, "task"):
        key = (task["args"]["specialisation"], task["args"]["launch"])
        assert _inside(task, launches[key])
        assert task["tid"] == launches[key]["tid"] == 2
        tasks[_task_key(task)] = task
    threads = _complete(trace, "thread")
    assert threads
    for part in threads:
        args = part["args"]
        task = tasks[_task_key(part)]
        assert _inside(part, task)
        assert part["tid"] >= 10
        assert 0 <= args["busy_us"] <= part["dur"] + EPSILON_US
        assert args["kind"] == task["args"]["kind"]
        assert args["loop_config"] == task["args"]["loop_config"]
        assert isinstance(args["iterations"], int)
    # per task, its threads' iterations add up to the task's (dense fields: no skipping)
    for key, task in tasks.items():
        parts = [p for p in threads if _task_key(p) == key]
        assert sum(p["args"]["iterations"] for p in parts) == task["args"]["iterations"]


def test_events_on_one_track_nest_or_follow_each_other(trace):
    by_track: dict[int, list[dict]] = {}
    for event in _complete(trace):
        by_track.setdefault(event["tid"], []).append(event)
    for events in by_track.values():
        open_events: list[dict] = []
        for event in events:  # the file's order: by start, parents first
            while open_events and not _inside(event, open_events[-1]):
                closed = open_events.pop()
                assert event["ts"] >= closed["ts"] + closed["dur"] - EPSILON_US
            open_events.append(event)


def test_two_fields_give_two_specialisations_each_with_its_compile_span(trace):
    labels = {e["args"]["specialisation"] for e in _complete(trace, "launch")}
    assert labels == {"add_one[a=rows]", "add_one[a=cols]"}
    spans = _complete(trace, "python")
    assert sorted(e["args"]["specialisation"] for e in spans) == sorted(labels)
    assert all(e["name"].startswith("compile: ") and e["tid"] == 1 for e in spans)
    for label in labels:  # a first call compiles before it launches
        span = next(e for e in spans if e["args"]["specialisation"] == label)
        first = min(
            (e for e in _complete(trace, "launch") if e["args"]["specialisation"] == label),
            key=lambda e: e["ts"],
        )
        assert span["ts"] + span["dur"] <= first["ts"] + EPSILON_US


def test_export_accepts_a_str_path_and_writes_an_empty_trace_too(tmp_path):
    ti.init(arch=ti.cpu)  # profiler off: nothing recorded, the tracks are still named
    path = str(tmp_path / "empty.json")
    written = ti.profiler.export_trace(path)
    trace = _load(Path(path))
    assert written == len(trace["traceEvents"]) > 0
    assert _complete(trace) == []


@pytest.mark.parametrize("where", ["missing/trace.json", "."])
def test_an_unwritable_path_is_a_clear_error(tmp_path, where):
    _profiled_launches(repeats=1)
    with pytest.raises(ti.errors.TiOSError) as caught:
        ti.profiler.export_trace(tmp_path / where)
    assert isinstance(caught.value, OSError)
    text = str(caught.value)
    assert "cannot write the trace to" in text and str(tmp_path) in text
    assert "hint:" in text


def test_a_path_that_is_not_a_path_is_a_type_error():
    with pytest.raises(ti.errors.TiTypeError, match="needs a file path, got int"):
        ti.profiler.export_trace(1)
