"""What the Taichi 1.7.4 comparison leaves out or expects to differ.

:data:`CRASHES` lists the items Taichi itself cannot compile without killing the process
(each with the reason); they are never sent to Taichi, so a Taichi run needs no restarts.
:data:`DIFFERENCES` lists the ``(group, operator)`` tests where ti_notebook and Taichi
are known to differ, each with who is right and why; they are strict xfails, so an entry
whose difference disappears fails and must go.

>>> crash_reason("field", "abs", "i8", "")[:21]
'Taichi aborts: its co'
>>> crash_reason("arg", "+", "i8", "i8") is None
True
"""

from __future__ import annotations

import math

import numpy as np

from tests.differential import cases, model

# Taichi runs every mode: with no restarts, even literal operands (const) are affordable
MODES = ["const", "arg", "field", "invalid"]

_CODEGEN = "Taichi aborts: its codegen has no {what} (codegen_llvm.cpp: 'Not supported')"
_SMALL = ("i8", "i16")


def crash_reason(mode: str, op: str, a: str, b: str) -> str | None:
    """Why Taichi 1.7.4 kills the process compiling item ``(op, b)`` of group ``a`` in
    ``mode``, or None where it does not."""
    if op in ("abs", "ti.abs") and a in _SMALL:
        return _CODEGEN.format(what="abs of i8/i16")
    if op in ("**", "ti.pow") and b in _SMALL:
        return _CODEGEN.format(what="abs of the i8/i16 exponent of an integral power")
    if op in ("min", "max") and a in ("i8", "u8") and b in ("i8", "u8"):
        return _CODEGEN.format(what="min/max of 8-bit integers")
    if mode == "const" and op in ("**", "ti.pow") and not cases.is_float(a):
        if b == "u64":
            return "Taichi's constant folding of int ** u64 fails 'is_signed(dt)' and aborts"
        if b.startswith("i"):  # the literal operands include negative exponents
            return "Taichi's constant folding of int ** negative int raises, then aborts"
    return None


def units(group: str) -> list[list]:
    """The units of ``group`` Taichi runs: :data:`MODES` only, crashing items left out."""
    from tests.differential import harness

    kept = []
    for g, mode, items in harness.group_units(group):
        items = [it for it in items if not crash_reason(mode, it[0], g, it[1])]
        if mode in MODES and items:
            kept.append([g, mode, items])
    return kept


def skipped(group: str, op: str) -> dict[str, str]:
    """The result keys of ``op`` on ``group`` that Taichi does not run, with the reason."""
    out = {}
    for mode in cases.MODES:
        for b in cases.rhs_types(op, mode, group):
            reason = crash_reason(mode, op, group, b)
            if reason and cases.valid(op, group, b):
                out[cases.key(mode, op, group, b)] = reason
    return out


def flushed(op: str, a: str, b: str, x, y):
    """The model's value of a float case when every subnormal intermediate or result is
    flushed to zero, as Taichi's CPU runtime does (FTZ/DAZ), or None where that changes
    nothing or ``op`` is not covered. f16 is computed in f32, so only f32's and f64's
    subnormals flush: ``flushed("*", "f32", "f32", 2.0**-126, 0.5) -> 0.0``."""
    rt = model.result_type(op, a, b)
    if not cases.is_float(rt) or y is None or op not in _FLUSHING:
        return None
    limit = cases.FLOAT_LIMITS["f32" if rt == "f16" else rt][1]

    def flush(v):
        return math.copysign(0.0, v) if v != 0 and abs(v) < limit else v

    if op in ("//", "%"):
        cx, cy = model.convert(x, a, rt), model.convert(y, b, rt)
        with np.errstate(all="ignore"):
            q = float(np.floor(flush(float(model.NP[rt](cx) / model.NP[rt](cy)))))
            r = q if op == "//" else float(model.NP[rt](cx - cy * q))
    else:
        want = model.expected(op, a, b, x, y)
        if want is model.UNDEFINED or not isinstance(want, float):
            return None
        r = flush(want)
    return None if r == model.expected(op, a, b, x, y) else r


_FLUSHING = {"*", "/", "//", "%", "**", "ti.pow", "ti.atan2"}

# (group, op) -> [(modes, "who is right: why")], one line each; a difference in a listed
# mode is expected (strict: a listed entry whose difference is gone fails).
DIFFERENCES: dict[tuple[str, str], list[tuple[tuple[str, ...], str]]] = {}
ALL = ("const", "arg", "field")


def _add(groups, ops, reason: str, modes=ALL) -> None:
    for g in groups:
        for op in ops:
            DIFFERENCES.setdefault((g, op), []).append((tuple(modes), reason))


INTS, SIGNED = cases.INTS, ["i8", "i16", "i32", "i64"]
_add(cases.GROUPS, ["!="], "Taichi bug: x != NaN is 0 (an ordered compare); IEEE says 1")
_F32_FIRST = (
    "deliberate: with an f64 operand, Taichi rounds the integer operand of / and atan2 "
    "through f32 first (f64 / 16777217 loses a bit); ti_notebook converts it exactly"
)
_add(["i32", "u32", "f64"], ["/"], _F32_FIRST)
_add(
    ["i8", "u8"],
    ["//", "%"],
    "Taichi bug: // and % of 8-bit integers are wrong (i8(1) // i8(-1) gives 1)",
)
_add(
    ["i32", "i64", "u64"],
    ["//", "%"],
    "Taichi bug: constant folding of // and % truncates, or rounds 64-bit operands to f64",
    ["const"],
)
_add(
    ["i32"],
    ["abs", "ti.abs"],
    "Taichi bug: abs(i32 min) gives 2**31, which is no i32 (two's complement: itself)",
    ["arg", "field"],
)
_add(
    ["i64", "u64"],
    ["abs", "ti.abs"],
    "Taichi bug: constant folding of abs: abs(i64 max) is i64 min, abs(u64 max) is 2**63",
    ["const"],
)
_add(
    ["u8", "u16", "u32", "f16", "f32", "f64"],
    ["**", "ti.pow"],
    "Taichi bug: constant folding of ** with an unsigned exponent fails 'is_signed(dt)'",
    ["const"],
)
