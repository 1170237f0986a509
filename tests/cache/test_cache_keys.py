"""Offline-cache keys across processes (DESIGN.md §7): what a warm start reuses.

One script, in two variants, defines a kernel per key ingredient. Four fresh processes
share one cache folder:

1. ``v1`` cold: everything compiles ("miss");
2. ``v1`` warm: everything loads ("hit") and gives the same results;
3. ``v2``: each kernel has one ingredient changed (its text, a ti.func two calls deep,
   a captured global, a field's layout, a template argument) → "miss" with the new
   result; a kernel whose own inputs did not change → "hit" although its file did; then
   a config option (fast_math, debug) changes → "miss";
4. ``v1`` again: the v1 entries are still there next to the v2 ones → "hit".
"""

from __future__ import annotations

import math

import pytest
from cache_helpers import (
    STAGE_NAMES,
    has_entry,
    run_script,
    script_env,
    write_script,
)

pytestmark = pytest.mark.cpu

BODY = """
UNRELATED_NOTE = "@NOTE@"  # changes between variants; no kernel reads it
SCALE = @SCALE@
TEMPLATE_ARG = @TEMPLATE@
CONFIG_VARIANTS = @CONFIGS@


class Unhashable:
    value = 3

    def __hash__(self):
        raise TypeError("Unhashable cannot be hashed")

    def __reduce__(self):
        raise TypeError("Unhashable cannot be pickled")


UNHASHABLE = Unhashable()


@ti.func
def inner(v):
    return v + @INNER@


@ti.func
def middle(v):
    return inner(v) * 2


@ti.kernel
def k_text(a: ti.i32) -> ti.i32:
    return a * @MUL@ + 1


@ti.kernel
def k_func(a: ti.i32) -> ti.i32:
    return middle(a)


@ti.kernel
def k_global(a: ti.i32) -> ti.i32:
    return a * SCALE


@ti.kernel
def k_template(n: ti.template()) -> ti.i32:
    return n * 10


@ti.kernel
def k_layout():
    for i, j in fl:
        fl[i, j] = i * 10 + j


@ti.kernel
def k_unrelated(a: ti.i32) -> ti.i32:
    return a * 7 - 2


@ti.kernel
def k_unc(a: ti.i32) -> ti.i32:
    return a * ti.static(UNHASHABLE.value)


@ti.kernel
def k_cfg(a: ti.f32) -> ti.f32:
    return ti.sqrt(a) * 2.0


init()
fl = ti.field(ti.i32)
@LAYOUT@
run("k_text", k_text, 5)
run("k_func", k_func, 5)
run("k_global", k_global, 5)
run("k_template", k_template, TEMPLATE_ARG)
k_layout()
record("k_layout", k_layout, fl.to_numpy().tolist())
run("k_unrelated", k_unrelated, 5)
run("k_unc", k_unc, 5)
run("k_cfg", k_cfg, 2.0)
stages = {"k_text": stages_of(k_text), "k_layout": stages_of(k_layout)}
info = cache_info()
for options in CONFIG_VARIANTS:
    init(**options)
    run("k_cfg " + ",".join(f"{k}={v}" for k, v in options.items()), k_cfg, 2.0)
finish(stages=stages, info_before_reinit=info)
"""

ROW_MAJOR = "ti.root.dense(ti.ij, (4, 8)).place(fl)"
COLUMN_MAJOR = "ti.root.dense(ti.j, 8).dense(ti.i, 4).place(fl)"
V1 = {
    "NOTE": "v1",
    "SCALE": "3",
    "TEMPLATE": "3",
    "CONFIGS": "[]",
    "INNER": "1",
    "MUL": "2",
    "LAYOUT": ROW_MAJOR,
}
# Every change keeps the line count, so k_unrelated sits on the same lines in both.
V2 = {
    "NOTE": "v2",
    "SCALE": "4",
    "TEMPLATE": "5",
    "CONFIGS": '[{"fast_math": False}, {"debug": True}]',
    "INNER": "2",
    "MUL": "3",
    "LAYOUT": COLUMN_MAJOR,
}
CACHEABLE = ["k_text", "k_func", "k_global", "k_template", "k_layout", "k_unrelated", "k_cfg"]
LAYOUT_VALUES = [[i * 10 + j for j in range(8)] for i in range(4)]
EXPECTED_V1 = {
    "k_text": 11,
    "k_func": 12,
    "k_global": 15,
    "k_template": 30,
    "k_layout": LAYOUT_VALUES,
    "k_unrelated": 33,
    "k_unc": 15,
}
EXPECTED_V2 = {
    "k_text": 16,
    "k_func": 14,
    "k_global": 20,
    "k_template": 50,
    "k_layout": LAYOUT_VALUES,
    "k_unrelated": 33,
    "k_unc": 15,
}
CHANGED = ["k_text", "k_func", "k_global", "k_template", "k_layout"]


def _source(variant: dict) -> str:
    body = BODY
    for name, value in variant.items():
        body = body.replace(f"@{name}@", value)
    return body


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The four processes' RESULT objects, keyed cold / warm / changed / again."""
    root = tmp_path_factory.mktemp("keys")
    cache = root / "cache"
    env = script_env(root)
    # Both variants are the same file rewritten, as an edited notebook or script is.
    script = root / "scripts"
    out = {}
    for label, variant in [("cold", V1), ("warm", V1), ("changed", V2), ("again", V1)]:
        path = write_script(script, "kernels", _source(variant), cache=cache)
        out[label] = run_script(path, env)
    out["cache"] = cache
    return out


def _values(result: dict) -> dict:
    return {name: k["value"] for name, k in result["kernels"].items() if name in EXPECTED_V1}


def _status(result: dict, name: str):
    return result["kernels"][name]["cache"]


def test_cold_run_misses_and_writes_entries(runs):
    cold = runs["cold"]
    assert _values(cold) == EXPECTED_V1
    assert math.isclose(cold["kernels"]["k_cfg"]["value"], 2 * math.sqrt(2.0), rel_tol=1e-6)
    assert {name: _status(cold, name) for name in CACHEABLE} == dict.fromkeys(CACHEABLE, "miss")
    info = cold["info"]
    assert info is not None, "ti.cache is missing"
    assert info["hits"] == 0
    assert info["misses"] >= len(CACHEABLE)
    for name in CACHEABLE:
        assert has_entry(info, name), (name, [e["kernel"] for e in info["entries"]])


def test_warm_run_hits_with_the_same_results(runs):
    warm = runs["warm"]
    assert _values(warm) == _values(runs["cold"]) == EXPECTED_V1
    assert warm["kernels"]["k_cfg"]["value"] == runs["cold"]["kernels"]["k_cfg"]["value"]
    assert {name: _status(warm, name) for name in CACHEABLE} == dict.fromkeys(CACHEABLE, "hit")
    info = warm["info"]
    assert info["misses"] == 0
    assert info["hits"] >= len(CACHEABLE)


def test_cache_hit_keeps_every_stage(runs):
    cold, warm = runs["cold"]["stages"], runs["warm"]["stages"]
    for kernel in ("k_text", "k_layout"):
        assert set(warm[kernel]) == set(STAGE_NAMES), kernel
        for stage in STAGE_NAMES:
            text = warm[kernel][stage]
            assert isinstance(text, str) and text.strip(), (kernel, stage)
        if _status(runs["warm"], kernel) == "hit":
            # A hit serves the texts stored by the compiling process.
            assert warm[kernel] == cold[kernel], kernel
    assert "struct_for" in warm["k_layout"]["ir"]


@pytest.mark.parametrize(
    "kernel",
    CHANGED,
    ids=["kernel_text", "func_two_levels_deep", "captured_global", "template_arg", "layout"],
)
def test_changed_ingredient_misses_with_new_result(runs, kernel):
    changed = runs["changed"]
    assert _status(changed, kernel) == "miss"
    assert changed["kernels"][kernel]["value"] == EXPECTED_V2[kernel]


def test_layout_change_runs_code_for_the_new_layout(runs):
    # Stale row-major code on column-major memory would scramble what to_numpy reads.
    assert runs["changed"]["kernels"]["k_layout"]["value"] == LAYOUT_VALUES


def test_unrelated_line_change_in_the_file_still_hits(runs):
    changed = runs["changed"]
    assert _status(changed, "k_unrelated") == "hit"
    assert _status(changed, "k_cfg") == "hit"
    assert changed["kernels"]["k_unrelated"]["value"] == 33


@pytest.mark.parametrize("option", ["fast_math=False", "debug=True"])
def test_config_option_change_misses(runs, option):
    result = runs["changed"]["kernels"][f"k_cfg {option}"]
    assert result["cache"] == "miss"
    assert math.isclose(result["value"], 2 * math.sqrt(2.0), rel_tol=1e-6)


def test_old_variant_entries_survive_next_to_new_ones(runs):
    again = runs["again"]
    assert _values(again) == EXPECTED_V1
    assert {name: _status(again, name) for name in CACHEABLE} == dict.fromkeys(CACHEABLE, "hit")


def test_unhashable_global_is_uncacheable_but_runs(runs):
    for label in ("cold", "warm", "changed"):
        result = runs[label]
        assert result["kernels"]["k_unc"] == {"value": 15, "cache": "uncacheable"}, label
        assert result["info_before_reinit"]["uncacheable"] >= 1, label
        assert not has_entry(result["info_before_reinit"], "k_unc"), label
