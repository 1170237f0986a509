"""Where a compile's time went, in a ``%%kernel`` cell: the split ``--profile`` prints
per kernel, and the one line a compile over a second adds to the summary. Only the
shape is checked (which stages, in which order, where the note goes), never a time."""

import re

import pytest

from ti_notebook.magics import compile_split
from ti_notebook.magics.report import summary_line

pytestmark = pytest.mark.cpu

FILL = """%%kernel {flags}
x = ti.field(ti.f32, shape=1024)
def fill(v: ti.f32):
    for i in x:
        x[i] = v * i
fill(2.0)
"""
# every stage of a CPU compile but "other" (present only when something is unclaimed)
CPU_STAGES = [
    "tracing (frontend)",
    "passes",
    "IR text for stages()",
    "LLVM IR generation",
    "LLVM parse and verify",
    "LLVM optimisation (O3)",
    "machine code",
    "loading into the JIT",
]


def test_profile_prints_each_compiled_kernels_split(run):
    import ti_notebook as ti

    ti.init(arch=ti.cpu, offline_cache=False)
    cell = run(FILL.format(flags="--profile --quiet"))
    assert cell.error is None, cell.stderr
    lines = cell.stdout.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("compile of fill: "))
    assert "(cache off)" in lines[start]
    rows = []
    for line in lines[start + 1 :]:
        found = re.match(r"  (.+?)\s+(\d+\.\d) ms\s+(\d+)%", line)
        if found is None:
            break
        rows.append(found.group(1))
    assert [r for r in rows if r != "other"] == CPU_STAGES
    passes_line = next(line for line in lines if line.startswith("  passes "))
    assert re.search(r"slowest: [a-z_]+ \d+\.\d ms$", passes_line)


def test_no_split_without_profile_and_no_note_for_a_quick_compile(run):
    import ti_notebook as ti

    ti.init(arch=ti.cpu, offline_cache=False)
    cell = run(FILL.format(flags=""))
    assert cell.error is None, cell.stderr
    assert "compile of fill" not in cell.stdout
    assert "slowest stage" not in cell.stdout  # the compile took well under a second


def test_a_slow_compile_names_its_slowest_stage(run, monkeypatch):
    import ti_notebook as ti

    ti.init(arch=ti.cpu, offline_cache=False)
    monkeypatch.setattr(compile_split, "SLOW_S", 0.0)  # every compile counts as slow
    cell = run(FILL.format(flags=""))
    assert cell.error is None, cell.stderr
    lines = cell.stdout.splitlines()  # the summary (one line or wrapped), then the note
    assert lines[0].startswith("fill: compiled in ")
    note = lines[-1]
    found = re.fullmatch(r"  slowest stage: (.+), (\d+\.\d\d) s of (\d+\.\d\d) s", note)
    assert found and found.group(1) in CPU_STAGES + ["other"]
    assert float(found.group(2)) <= float(found.group(3))


def test_the_note_is_left_out_for_quick_compiles_and_cache_loads():
    slow = {"compile_time_s": 2.0, "stage_times": {"tracing": 0.5, "llvm_optimise": 1.5}}
    assert summary_line("k", dict(slow, cache="miss")).splitlines()[1] == (
        "  slowest stage: LLVM optimisation (O3), 1.50 s of 2.00 s"
    )
    assert "slowest" not in summary_line("k", dict(slow, compile_time_s=0.9, cache="miss"))
    assert "slowest" not in summary_line("k", dict(slow, cache="hit"))
    assert "slowest" not in summary_line("k", {"compile_time_s": 2.0, "cache": "miss"})
    # the wrapped form (a long line) keeps the note last
    long = dict(slow, cache="miss", passes=["offload"] * 30)
    assert summary_line("k", long).splitlines()[-1].startswith("  slowest stage: ")
