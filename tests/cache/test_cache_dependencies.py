"""Everything tracing reads is part of what a warm start checks (DESIGN.md §7, issue 11).

One script, in two variants, defines a kernel per way a kernel can reach a Python value:
an attribute of a class or of a module (a ``types.ModuleType``, an imported file, one
named like a standard-library module), an
attribute chain, a local alias, ``ti.static(...)`` of a namespace, plain Python helpers
run while compiling (the globals they read, the names they use, their closures, the
functions they call, their defaults), callables passed as template arguments, and a
``field.fill`` inside a kernel. Three fresh processes share one cache folder:

1. ``v1`` cold: everything compiles ("miss");
2. ``v1`` warm: everything loads ("hit") with the same results;
3. ``v2``: each kernel has one value it reads changed → "miss" with the new result, and
   the control kernel, which reads nothing that changed, still hits.
"""

from __future__ import annotations

import pytest
from cache_helpers import run_script, script_env, write_script

pytestmark = pytest.mark.cpu

MODULE = "N = @N@\nDEEP = (0, @N@)\n"
# A user module named like a standard one is still user code (found by where it is).
STDLIB_NAMED = "N = @N@\n\n\ndef factor():\n    return 10\n"

BODY = """
import types

import cfgfile
import nntplib


class Params:
    scale = @SCALE@


class Outer:
    class Inner:
        value = @SCALE@


cfg = types.ModuleType("cfg")
cfg.N = @N@
K = @K@
A, B = 1, 2


def helper(n):
    return n * K


def pick():
    return @PICK@


def make(c):
    def inner():
        return c

    return inner


closed = make(@CLOSURE@)


def leaf():
    return @LEAF@


def calls_leaf():
    return leaf() + 1


def with_default(n=@DEFAULT@):
    return n


def template_fn():
    return @TEMPLATE_FN@


def make_lambda(c):
    return lambda: c * 10


def make_func(c):
    @ti.func
    def f(v):
        return v + c

    return f


@ti.kernel
def k_class() -> ti.i32:
    return Params.scale


@ti.kernel
def k_module() -> ti.i32:
    return cfg.N


@ti.kernel
def k_imported() -> ti.i32:
    return cfgfile.N + ti.static(cfgfile.DEEP[1])


def via_module():
    return nntplib.N


@ti.kernel
def k_stdlib_named() -> ti.i32:
    return ti.static(nntplib.factor() + via_module())


@ti.kernel
def k_chain() -> ti.i32:
    return Outer.Inner.value


@ti.kernel
def k_alias() -> ti.i32:
    p = Params
    q = ti.static(cfg)
    return p.scale * 100 + q.N


@ti.kernel
def k_helper_global() -> ti.i32:
    total = 0
    for i in range(helper(2)):
        total += 1
    return total


@ti.kernel
def k_helper_names() -> ti.i32:
    return ti.static(pick())


@ti.kernel
def k_helper_closure() -> ti.i32:
    return ti.static(closed())


@ti.kernel
def k_helper_nested() -> ti.i32:
    return ti.static(calls_leaf())


@ti.kernel
def k_helper_default() -> ti.i32:
    return ti.static(with_default())


@ti.kernel
def k_template(fn: ti.template()) -> ti.i32:
    return ti.static(fn())


@ti.kernel
def k_template_func(f: ti.template()) -> ti.i32:
    return f(1)


@ti.kernel
def k_control(a: ti.i32) -> ti.i32:
    return a * 7 - 2


init()
x = ti.field(ti.i32, shape=6)
y = ti.Vector.field(2, ti.i32, shape=3)


@ti.kernel
def k_fill() -> ti.i32:
    x.fill(2)
    total = 0
    for i in x:
        total += x[i]
    return total


@ti.kernel
def k_fill_arg(v: ti.i32) -> ti.i32:
    y.fill(v + 1)
    total = 0
    for i in y:
        total += y[i][0] + y[i][1]
    return total


run("k_class", k_class)
run("k_module", k_module)
run("k_imported", k_imported)
run("k_chain", k_chain)
run("k_stdlib_named", k_stdlib_named)
run("k_alias", k_alias)
run("k_helper_global", k_helper_global)
run("k_helper_names", k_helper_names)
run("k_helper_closure", k_helper_closure)
run("k_helper_nested", k_helper_nested)
run("k_helper_default", k_helper_default)
run("k_template_plain", k_template, template_fn)
run("k_template_lambda", k_template, make_lambda(@CLOSURE@))
run("k_template_func", k_template_func, make_func(@CLOSURE@))
run("k_control", k_control, 5)
x.from_numpy(np.arange(6, dtype=np.int32))
run("k_fill", k_fill)
y.from_numpy(np.arange(6, dtype=np.int32).reshape(3, 2))
run("k_fill_arg", k_fill_arg, 1)
finish(after_fill=x.to_numpy().tolist(), after_fill_arg=y.to_numpy().tolist())
"""

V1 = {
    "SCALE": "1",
    "N": "3",
    "K": "3",
    "PICK": "A",
    "CLOSURE": "5",
    "LEAF": "1",
    "DEFAULT": "7",
    "TEMPLATE_FN": "3",
}
V2 = {
    "SCALE": "2",
    "N": "4",
    "K": "4",
    "PICK": "B",
    "CLOSURE": "6",
    "LEAF": "2",
    "DEFAULT": "8",
    "TEMPLATE_FN": "4",
}
EXPECTED_V1 = {
    "k_class": 1,
    "k_module": 3,
    "k_imported": 6,
    "k_chain": 1,
    "k_stdlib_named": 13,
    "k_alias": 103,
    "k_helper_global": 6,
    "k_helper_names": 1,
    "k_helper_closure": 5,
    "k_helper_nested": 2,
    "k_helper_default": 7,
    "k_template_plain": 3,
    "k_template_lambda": 50,
    "k_template_func": 6,
    "k_control": 33,
    "k_fill": 12,
    "k_fill_arg": 12,
}
EXPECTED_V2 = {
    "k_class": 2,
    "k_module": 4,
    "k_imported": 8,
    "k_chain": 2,
    "k_stdlib_named": 14,
    "k_alias": 204,
    "k_helper_global": 8,
    "k_helper_names": 2,
    "k_helper_closure": 6,
    "k_helper_nested": 3,
    "k_helper_default": 8,
    "k_template_plain": 4,
    "k_template_lambda": 60,
    "k_template_func": 7,
    "k_control": 33,
    "k_fill": 12,
    "k_fill_arg": 12,
}
UNCHANGED = ["k_control", "k_fill", "k_fill_arg"]
CHANGED = [name for name in EXPECTED_V1 if name not in UNCHANGED]


def _fill(template: str, variant: dict) -> str:
    for name, value in variant.items():
        template = template.replace(f"@{name}@", value)
    return template


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("deps")
    cache, folder, env = root / "cache", root / "scripts", script_env(root)
    out = {}
    for label, variant in [("cold", V1), ("warm", V1), ("changed", V2)]:
        script = write_script(folder, "kernels", _fill(BODY, variant), cache=cache)
        (folder / "cfgfile.py").write_text(_fill(MODULE, variant))
        (folder / "nntplib.py").write_text(_fill(STDLIB_NAMED, variant))
        out[label] = run_script(script, env)
    return out


def _values(result: dict) -> dict:
    return {name: k["value"] for name, k in result["kernels"].items()}


def _statuses(result: dict) -> dict:
    return {name: k["cache"] for name, k in result["kernels"].items()}


def test_cold_run_compiles_every_kernel(runs):
    assert _values(runs["cold"]) == EXPECTED_V1
    assert _statuses(runs["cold"]) == dict.fromkeys(EXPECTED_V1, "miss")


def test_unchanged_rerun_hits_with_the_same_results(runs):
    assert _values(runs["warm"]) == EXPECTED_V1
    assert _statuses(runs["warm"]) == dict.fromkeys(EXPECTED_V1, "hit")


@pytest.mark.parametrize("kernel", CHANGED)
def test_changed_value_misses_and_gives_the_new_result(runs, kernel):
    changed = runs["changed"]["kernels"][kernel]
    assert changed == {"value": EXPECTED_V2[kernel], "cache": "miss"}


@pytest.mark.parametrize("kernel", UNCHANGED)
def test_kernel_reading_nothing_changed_still_hits(runs, kernel):
    assert runs["changed"]["kernels"][kernel] == {"value": EXPECTED_V2[kernel], "cache": "hit"}


def test_fill_inside_a_kernel_runs_on_every_launch_even_on_a_hit(runs):
    # x and y held 0..5 before each launch; the kernels must fill them with 2 each time.
    for label in ("cold", "warm", "changed"):
        assert runs[label]["after_fill"] == [2] * 6, label
        assert runs[label]["after_fill_arg"] == [[2, 2]] * 3, label
