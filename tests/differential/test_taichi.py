"""ti_notebook against Taichi 1.7.4 on the whole matrix (every operator, math function
and cast over every type pair; literal, argument and field-element operands; the items
that must not compile). Skipped where Taichi 1.7.4 is not installed.

Taichi runs one process per group, two groups at a time, with IEEE floats
(``fast_math=False``: its fast math assumes no NaN or inf) and without the items that
crash it (``taichi_known.crash_reason``), so no run needs a restart. A case is compared where
the model defines it: integers equal, floats equal or both NaN, transcendental functions
within twice the ulps the exact tests allow; subnormals that Taichi flushes to zero are
excused case by case. Known differences are listed in ``taichi_known.DIFFERENCES``,
per mode, and are strict: a listed difference that is gone fails the test.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.differential import cases, compare, taichi_known
from tests.differential.model import UNDEFINED, agrees, expected, result_type

pytestmark = [
    pytest.mark.taichi,
    pytest.mark.cpu,
    # the model computes its infinities by overflowing NumPy casts on purpose
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
]


@pytest.fixture(scope="module")
def both(taichi_results, notebook_results) -> tuple[dict, dict]:
    """``(ti_notebook's, Taichi's)`` results of every group (ti_notebook's two groups at
    a time too)."""
    with ThreadPoolExecutor(2) as pool:
        ours: dict = {}
        for results in pool.map(notebook_results, cases.GROUPS):
            ours.update(results)
    return ours, taichi_results


def _value(results: dict, key: str, n: int):
    got = results.get(key, {"error": "missing"})
    return got if isinstance(got, dict) else got[n]


def differences(ours: dict, theirs: dict, group: str, op: str) -> list[tuple[str, str]]:
    """``(mode, description)`` of each case of ``op`` on ``group`` where ti_notebook and
    Taichi differ (cases Taichi does not run, undefined ones and flushed subnormals left
    out)."""
    skipped = taichi_known.skipped(group, op)
    bad = []
    for mode, b, i, j, x, y, k, n in compare.cases_of(group, op):
        if k in skipped or expected(op, group, b, x, y) is UNDEFINED:
            continue
        got, ref = _value(ours, k, n), _value(theirs, k, n)
        if got is None or ref is None:
            continue
        if isinstance(ref, dict) or isinstance(got, dict):
            same = isinstance(ref, dict) and isinstance(got, dict)
        else:
            rt = result_type(op, group, b)
            same = agrees(op, rt, got, ref, scale=2)
            flushed = taichi_known.flushed(op, group, b, x, y)
            if not same and flushed is not None:
                same = agrees(op, rt, flushed, ref, scale=2)
        if not same:
            if isinstance(ref, dict):
                ref = ref.get("error")
            line = compare.describe(mode, op, group, b, i, j)
            bad.append((mode, f"{line}: got {compare._show(got)}, Taichi {compare._show(ref)}"))
    for b in cases.rhs_types(op, "arg", group):
        k = cases.key("invalid", op, group, b)
        if cases.valid(op, group, b) or k not in theirs:
            continue
        compiled = [r.get(k, [{}])[0].get("error") is None for r in (ours, theirs)]
        if compiled[0] != compiled[1]:
            bad.append(("invalid", f"{op} on {group}, {b or '-'}: compiles {compiled}"))
    return bad


@pytest.mark.parametrize(
    "group, op", [pytest.param(g, op, id=f"{g}-{op}") for g in cases.GROUPS for op in cases.OPS]
)
def test_matches_taichi(both, group: str, op: str) -> None:
    ours, theirs = both
    skipped, keys = taichi_known.skipped(group, op), _keys(group, op)
    if keys and all(k in skipped for k in keys):
        pytest.skip(next(iter(skipped.values())))
    known = taichi_known.DIFFERENCES.get((group, op), [])
    bad = differences(ours, theirs, group, op)
    unknown = [line for mode, line in bad if not any(mode in m for m, _ in known)]
    assert not unknown, f"{len(unknown)} cases differ:\n" + "\n".join(unknown[:20])
    gone = [why for modes, why in known if not any(mode in modes for mode, _ in bad)]
    assert not gone, f"listed differences are gone (remove them): {gone}"
    if known:
        pytest.xfail("; ".join(why for _, why in known))


def _keys(group: str, op: str) -> list[str]:
    return [k for *_, k, n in compare.cases_of(group, op) if n == 0]
