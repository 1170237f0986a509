"""Where a kernel's compile time went, as ``%%kernel`` shows it.

The figures are the compiler's own (``kernel.report["stage_times"]``, seconds per stage
in pipeline order, and ``pass_records`` for each pass); nothing is timed here.
:func:`slow_note` is the one line a compile over :data:`SLOW_S` adds to a cell's summary;
:func:`split_text` is the table ``%%kernel --profile`` prints for each kernel the cell
compiled.

    >>> report = {"compile_time_s": 1.5, "cache": "miss",
    ...           "stage_times": {"tracing": 0.25, "passes": 0.2, "llvm_optimise": 1.0,
    ...                           "other": 0.05},
    ...           "pass_records": [{"name": "offload", "changed": True, "time_s": 0.15},
    ...                            {"name": "lower_access", "changed": True, "time_s": 0.05}]}
    >>> print(slow_note(report))
      slowest stage: LLVM optimisation (O3), 1.00 s of 1.50 s
    >>> print(split_text("fill", report))
    compile of fill: 1500.0 ms (cache miss)
      tracing (frontend)               250.0 ms   17%
      passes                           200.0 ms   13%  slowest: offload 150.0 ms
      LLVM optimisation (O3)          1000.0 ms   67%
      other                             50.0 ms    3%
"""

from __future__ import annotations

SLOW_S = 1.0  # a compile this long says where its time went

# the compiler's stage names (compiler/compile_stages.py), in words
TITLES = {
    "tracing": "tracing (frontend)",
    "passes": "passes",
    "ir_text": "IR text for stages()",
    "llvm_ir": "LLVM IR generation",
    "llvm_parse": "LLVM parse and verify",
    "llvm_optimise": "LLVM optimisation (O3)",
    "machine_code": "machine code",
    "load": "loading into the JIT",
    "other": "other",
}


def _title(stage: str) -> str:
    return TITLES.get(stage, stage.replace("_", " "))


def slow_note(report) -> str | None:
    """One line naming the slowest stage of a compile that took more than :data:`SLOW_S`;
    None for a quick compile, a cache load or a report without the split.

        >>> slow_note({"compile_time_s": 0.4, "stage_times": {"tracing": 0.3}}) is None
        True
    """
    total = float(report.get("compile_time_s") or 0.0)
    stages = dict(report.get("stage_times") or {})
    if total <= SLOW_S or report.get("cache") == "hit" or not stages:
        return None
    name = max(stages, key=lambda k: stages[k])
    return f"  slowest stage: {_title(name)}, {stages[name]:.2f} s of {total:.2f} s"


def split_text(name: str, report) -> str:
    """Every stage's time and share of the compile (the slowest pass beside ``passes``);
    a cache load says so instead.

        >>> split_text("k", {"compile_time_s": 0.002, "cache": "hit"})
        'compile of k: loaded from the offline cache in 2.0 ms (no compile)'
    """
    total = float(report.get("compile_time_s") or 0.0)
    stages = dict(report.get("stage_times") or {})
    if report.get("cache") == "hit" or not stages:
        return (
            f"compile of {name}: loaded from the offline cache in {1e3 * total:.1f} ms (no compile)"
        )
    cache = report.get("cache")
    lines = [f"compile of {name}: {1e3 * total:.1f} ms" + (f" (cache {cache})" if cache else "")]
    records = [r for r in report.get("pass_records") or () if r.get("time_s") is not None]
    for stage, seconds in stages.items():
        share = 100.0 * seconds / total if total > 0 else 0.0
        line = f"  {_title(stage):30s} {1e3 * seconds:7.1f} ms {share:4.0f}%"
        if stage == "passes" and records:
            slowest = max(records, key=lambda r: r["time_s"])
            line += f"  slowest: {slowest['name']} {1e3 * slowest['time_s']:.1f} ms"
        lines.append(line)
    return "\n".join(lines)
