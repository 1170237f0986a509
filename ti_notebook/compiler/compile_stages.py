"""Where one compile's time went, stage by stage: ``kernel.report.stage_times``.

The driver (``compiler/driver.py``) times each stage with ``runtime/stage_clock.py``;
:func:`split` puts the figures in pipeline order, with what no stage claimed as
``other``. The stages:

- ``tracing``: the frontend, Python's syntax tree to IR (``ti.func``s inlined,
  ``ti.static`` unrolled);
- ``passes``: the IR passes, all of them (each one's time is in ``pass_records``);
- ``ir_text``: the IR's text before and after the passes and the per-line map that
  ``kernel.stages()`` and ``--show annotate`` show;
- ``llvm_ir``: code generation, IR to LLVM IR text;
- ``llvm_parse``, ``llvm_optimise`` (LLVM's O3 pipeline), ``machine_code`` (x86-64
  object code or PTX), ``load`` (linking the object into the JIT);
- ``other``: the rest (argument layout, the offline cache's bookkeeping).

    >>> split({"passes": 0.25, "tracing": 0.5, "llvm_optimise": 1.0}, 2.0)
    {'tracing': 0.5, 'passes': 0.25, 'llvm_optimise': 1.0, 'other': 0.25}
    >>> slowest({"tracing": 0.5, "passes": 0.25, "other": 0.1})
    ('tracing', 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping

STAGES = (
    "tracing",
    "passes",
    "ir_text",
    "llvm_ir",
    "llvm_parse",
    "llvm_optimise",
    "machine_code",
    "load",
    "other",
)


def split(seconds: Mapping[str, float], total: float) -> dict[str, float]:
    """``seconds`` per stage in pipeline order (stages that took no time left out), and
    ``other``: ``total`` less the stages' sum."""
    ordered = {name: float(seconds[name]) for name in STAGES if name in seconds}
    ordered.update((k, float(v)) for k, v in seconds.items() if k not in ordered)
    rest = total - sum(ordered.values())
    if rest > 0:
        ordered["other"] = ordered.get("other", 0.0) + rest
    return ordered


def slowest(stage_times: Mapping[str, float]) -> tuple[str, float] | None:
    """The stage that took longest, and its seconds (None for an empty split)."""
    if not stage_times:
        return None
    name = max(stage_times, key=lambda k: stage_times[k])
    return name, stage_times[name]
