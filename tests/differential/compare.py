"""Compares results with exact arithmetic, or two backends with each other, and says
where they differ, one line per case.

>>> check_model({"arg|+|i8|i8": [0] * 64}, "i8", "+")[:1]
["const i8(-7) + i8(-7): got {'error': 'missing'}, want -14"]
"""

from __future__ import annotations

import math

from tests.differential import cases
from tests.differential.cases import OPERANDS
from tests.differential.model import UNDEFINED, agrees, expected, result_type


def _show(value) -> str:
    if isinstance(value, float) and not math.isnan(value) and not math.isinf(value):
        return repr(value)
    return str(value)


def describe(mode: str, op: str, a: str, b: str, i: int, j: int) -> str:
    """``"arg i8(127) + i8(1)"``: one case in words."""
    x = f"{a}({_show(OPERANDS[a][i])})"
    if op == "cast":
        return f"{mode} ti.cast({x}, ti.{b})"
    if cases.arity(op) == 1:
        return f"{mode} {op} {x}"
    return f"{mode} {x} {op} {b}({_show(OPERANDS[b][j])})"


def cases_of(group: str, op: str):
    """Every ``(mode, b, i, j, x, y, key, n)`` of one group's operator: ``n`` indexes the
    result list under ``key``."""
    for mode in cases.MODES:
        for b in cases.rhs_types(op, mode, group):
            if not cases.valid(op, group, b):
                continue
            k = cases.key(mode, op, group, b)
            for n, (i, j) in enumerate(cases.pairs(group, op, b, mode)):
                y = OPERANDS[b][j] if cases.arity(op) == 2 else None
                yield mode, b, i, j, OPERANDS[group][i], y, k, n


def _value(results: dict, k: str, n: int):
    got = results.get(k, {"error": "missing"})
    return got if isinstance(got, dict) else got[n]


def check_model(results: dict, group: str, op: str) -> list[str]:
    """Where ``results`` differ from exact arithmetic for ``op`` on ``group``."""
    bad = []
    for mode, b, i, j, x, y, k, n in cases_of(group, op):
        want = expected(op, group, b, x, y)
        got = _value(results, k, n)
        if want is UNDEFINED or got is None:
            continue
        if not agrees(op, result_type(op, group, b), got, want):
            bad.append(
                f"{describe(mode, op, group, b, i, j)}: got {_show(got)}, want {_show(want)}"
            )
    return bad


def check_errors(results: dict, group: str, op: str, error: str | None = None) -> list[str]:
    """Invalid items (integer-only operators on floats...) that compiled, or (``error``
    given) that raised another exception class than ``error``."""
    bad = []
    for b in cases.rhs_types(op, "arg", group):
        if cases.valid(op, group, b):
            continue
        got = results.get(cases.key("invalid", op, group, b), [{"error": "missing"}])
        if not isinstance(got, list) or got[0].get("error") in (None, "crash", "missing"):
            bad.append(f"{op} on {group}, {b or '-'}: compiled ({got})")
        elif error is not None and got[0]["error"] != error:
            bad.append(f"{op} on {group}, {b or '-'}: {got[0]['error']}, not {error}")
    return bad


def check_pair(ours: dict, theirs: dict, group: str, op: str) -> list[str]:
    """Where two backends' results differ (cases undefined in the model left out): the
    first is the one checked, the second the reference."""
    bad = []
    for mode, b, i, j, x, y, k, n in cases_of(group, op):
        if expected(op, group, b, x, y) is UNDEFINED:
            continue
        got, ref = _value(ours, k, n), _value(theirs, k, n)
        if got is None or ref is None:
            continue
        rt = result_type(op, group, b)
        if isinstance(ref, dict) or isinstance(got, dict):
            same = isinstance(ref, dict) and isinstance(got, dict)
        else:
            same = agrees(op, rt, got, ref, scale=2)
        if not same:
            bad.append(
                f"{describe(mode, op, group, b, i, j)}: got {_show(got)}, Taichi {_show(ref)}"
            )
    return bad
