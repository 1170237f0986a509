"""ti_notebook against exact arithmetic: every operator of the matrix on every group,
constant, argument and field-element operands (see ``cases`` and ``model``). Each group
runs in its own processes, so a case that crashes fails only its own test."""

from __future__ import annotations

import pytest

from tests.differential import cases, compare, harness

pytestmark = pytest.mark.cpu

INTS, FLOATS = cases.INTS, cases.FLOATS
# Known disagreements with exact arithmetic / Taichi's documented rules, each a strict
# xfail: fixing one makes its test pass, and the entry must then go.
KNOWN: dict[tuple[str, str], str] = {}
for _g in INTS:
    for _op in ("ti.floor", "ti.ceil", "ti.round"):
        KNOWN[_g, _op] = f"{_op} accepts integers; Taichi takes floats only"
    for _op in ("and", "or"):
        KNOWN[_g, _op] = f"'{_op}' with a float operand compiles; Taichi takes integers only"
for _g in ("i8", "i16", "i32", "u8", "u16", "u32"):
    for _op in ("**", "ti.pow"):
        KNOWN[_g, _op] = (
            "int ** int has the promoted type, not the base's (Taichi: an "
            "integral exponent keeps the base's type), and constant folding "
            "does not wrap"
        )
for _g in ("i16", "i32", "u16", "u32", "f16"):
    KNOWN[_g, "%"] = "x % f16 keeps f32 intermediates instead of rounding each to f16"
for _g in ("i64",):
    for _op in ("**", "ti.pow"):
        KNOWN[_g, _op] = "constant folding of int ** u64 does not wrap around"
for _g in FLOATS:
    for _op in ("and", "or", "not"):
        KNOWN[_g, _op] = f"'{_op}' on floats compiles; Taichi takes integers only"
    for _op in ("**", "ti.pow"):
        KNOWN[_g, _op] = "constant folding of float ** u64(2**64-1) loses the odd exponent"
for _op in ("+", "-", "/", "//", "%", "abs", "ti.sqrt", "ti.sin", "ti.cos", "ti.tan"):
    KNOWN["f64", _op] = "a float literal in ti.f64(...) is rounded to f32 first (f64 max -> inf)"
for _op in ("ti.log", "ti.floor", "ti.ceil", "ti.round", "ti.abs", "cast", "min", "max", "neg"):
    KNOWN["f64", _op] = KNOWN["f64", "+"]
KNOWN["f64", "ti.atan2"] = KNOWN["f64", "+"]


def _params():
    for group in cases.GROUPS:
        for op in cases.OPS:
            reason = KNOWN.get((group, op))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(group, op, marks=marks, id=f"{group}-{op}")


@pytest.mark.parametrize("group, op", list(_params()))
def test_matches_exact_arithmetic(notebook_results, group: str, op: str) -> None:
    results = notebook_results(group)
    bad = compare.check_model(results, group, op) + compare.check_errors(results, group, op)
    assert not bad, f"{len(bad)} cases differ:\n" + "\n".join(bad[:20])


def test_a_crash_fails_only_its_operator(monkeypatch) -> None:
    """The harness reruns the rest of a unit whose kernel kills the process."""
    monkeypatch.setenv("TI_DIFFERENTIAL_CRASH_OP", "-")
    results = harness.run("ti_notebook", [["i32", "field", [["+", "i32"], ["-", "i32"]]]])
    assert results["field|-|i32|i32"]["error"] == "crash"
    assert results["field|+|i32|i32"][:3] == [0, 1, -1]  # 0 + (0, 1, -1)
