"""A ti.func's annotations are read by value (DESIGN.md §7): ``x: DT`` with ``DT`` a
global or a module's attribute decides the casts the func makes, so changing ``DT``
between two sessions must recompile, where the source text is the same.

Three fresh processes share one cache folder: ``DT = ti.i32`` cold, then ``ti.f32``
(each kernel recompiles, with the f32 result), then ``ti.f32`` again (each loads). The
kernel's own parameter and return annotations are checked the same way, and a kernel
that reads no annotation keeps hitting.
"""

from __future__ import annotations

import pytest
from cache_helpers import run_script, script_env, write_script

pytestmark = pytest.mark.cpu

BODY = """
import mods

DT = @DT@


@ti.func
def by_global(x: DT) -> ti.f32:
    return x


@ti.func
def by_module(x: mods.DT) -> ti.f32:
    return x


@ti.func
def by_vector(v: ti.types.vector(3, DT)) -> ti.f32:
    return v[0]


@ti.func
def by_return(x) -> DT:
    return x


@ti.func
def by_string(x: "DT") -> ti.f32:
    return x


@ti.kernel
def k_global() -> ti.f32:
    return by_global(3.75)


@ti.kernel
def k_module() -> ti.f32:
    return by_module(3.75)


@ti.kernel
def k_vector() -> ti.f32:
    return by_vector(ti.Vector([3.75, 0.0, 0.0]))


@ti.kernel
def k_return() -> ti.f32:
    return by_return(3.75)


@ti.kernel
def k_string() -> ti.f32:
    return by_string(3.75)


@ti.kernel
def k_own_param(x: DT) -> ti.f64:
    return x + 1  # i32 wraps around, f32 does not


@ti.kernel
def k_own_return(x: ti.f32) -> DT:
    return x


@ti.kernel
def k_plain() -> ti.f32:
    return 1.5


init()
for name, kernel in [
    ("k_global", k_global),
    ("k_module", k_module),
    ("k_vector", k_vector),
    ("k_return", k_return),
    ("k_string", k_string),
    ("k_plain", k_plain),
]:
    run(name, kernel)
run("k_own_param", k_own_param, 2147483647)
run("k_own_return", k_own_return, 3.75)
finish()
"""

VARYING = ["k_global", "k_module", "k_vector", "k_return", "k_string"]
OWN = ["k_own_param", "k_own_return"]


def _session(tmp_path, dtype: str) -> dict:
    folder = tmp_path / "work"
    folder.mkdir(exist_ok=True)
    (folder / "mods.py").write_text(f"import ti_notebook as ti\n\nDT = {dtype}\n")
    script = write_script(folder, "annotations", BODY.replace("@DT@", dtype), cache=tmp_path / "c")
    return run_script(script, script_env(tmp_path))["kernels"]


def test_annotation_values_are_part_of_the_key(tmp_path):
    cold = _session(tmp_path, "ti.i32")
    changed = _session(tmp_path, "ti.f32")
    warm = _session(tmp_path, "ti.f32")
    for name in VARYING:
        assert cold[name] == {"value": 3.0, "cache": "miss"}, name
        assert changed[name] == {"value": 3.75, "cache": "miss"}, name
        assert warm[name] == {"value": 3.75, "cache": "hit"}, name
    # the kernel's own annotations: its parameter and return types are in the pre-key
    assert [cold["k_own_param"]["value"], changed["k_own_param"]["value"]] == [-(2**31), 2**31]
    assert [cold["k_own_return"]["value"], changed["k_own_return"]["value"]] == [3, 3.75]
    for name in OWN:
        assert [s[name]["cache"] for s in (cold, changed, warm)] == ["miss", "miss", "hit"], name
    assert [s["k_plain"]["cache"] for s in (cold, changed, warm)] == ["miss", "hit", "hit"]
