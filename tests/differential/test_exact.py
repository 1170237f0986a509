"""ti_notebook against exact arithmetic: every operator of the matrix on every group,
constant, argument and field-element operands (see ``cases`` and ``model``). Each group
runs in its own processes, so a case that crashes fails only its own test."""

from __future__ import annotations

import pytest

from tests.differential import cases, compare, harness

pytestmark = pytest.mark.cpu

# Known disagreements with exact arithmetic / Taichi's documented rules, each a strict
# xfail: fixing one makes its test pass, and the entry must then go.
KNOWN: dict[tuple[str, str], str] = {}


def _params():
    for group in cases.GROUPS:
        for op in cases.OPS:
            reason = KNOWN.get((group, op))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(group, op, marks=marks, id=f"{group}-{op}")


@pytest.mark.parametrize("group, op", list(_params()))
def test_matches_exact_arithmetic(notebook_results, group: str, op: str) -> None:
    results = notebook_results(group)
    bad = compare.check_model(results, group, op) + compare.check_errors(
        results, group, op, "TiTypeError"
    )
    assert not bad, f"{len(bad)} cases differ:\n" + "\n".join(bad[:20])


def test_a_crash_fails_only_its_operator(monkeypatch) -> None:
    """The harness reruns the rest of a unit whose kernel kills the process."""
    monkeypatch.setenv("TI_DIFFERENTIAL_CRASH_OP", "-")
    results = harness.run("ti_notebook", [["i32", "field", [["+", "i32"], ["-", "i32"]]]])
    assert results["field|-|i32|i32"]["error"] == "crash"
    assert results["field|+|i32|i32"][:3] == [0, 1, -1]  # 0 + (0, 1, -1)
