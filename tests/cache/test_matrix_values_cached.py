"""The offline cache sees Python-scope vectors a kernel reads, and caches ti.math users.

A kernel re-decorated (as re-running a notebook cell does) after a global ``ti.Vector``
changed - rebound, or written in place - compiles again and returns the new value; with
the value unchanged it is a hit. Kernels that call ``ti.math`` functions (ti_notebook's
own ``ti.pyfunc``\\ s) and types are cacheable.
"""

from __future__ import annotations

import types

import pytest

import ti_notebook as ti
import ti_notebook.math as tm
from ti_notebook.cache.fingerprint import fingerprint

pytestmark = pytest.mark.cpu

OFFSET = ti.Vector([1.0, 2.0])
SIZE = tm.ivec2
SCENE = types.SimpleNamespace(light=ti.Vector([0.0, 3.0, 4.0]))


@pytest.fixture(autouse=True)
def _own_cache(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))


def _status(kernel) -> str:
    return kernel.stages()["report"]["cache"]


def _shifted():
    @ti.kernel
    def shifted(a: ti.f32) -> ti.f32:
        return tm.clamp(a, 0.0, 1.0) + OFFSET.y + tm.length(tm.vec2(3.0, 4.0)) + SIZE(1, 2).y

    return shifted


def test_a_changed_global_vector_compiles_again(monkeypatch):
    first = _shifted()
    assert (first(0.5), _status(first)) == (9.5, "miss")
    again = _shifted()
    assert (again(0.5), _status(again)) == (9.5, "hit")
    monkeypatch.setattr(__import__(__name__), "OFFSET", ti.Vector([1.0, 5.0]))
    rebound = _shifted()
    assert (rebound(0.5), _status(rebound)) == (12.5, "miss")
    OFFSET[1] = 7.0  # the same object, written in place
    written = _shifted()
    assert (written(0.5), _status(written)) == (14.5, "miss")


def _lit():
    @ti.kernel
    def lit() -> ti.f32:
        return SCENE.light.norm()

    return lit


def test_a_changed_vector_attribute_compiles_again(monkeypatch):
    first = _lit()
    assert (first(), _status(first)) == (5.0, "miss")
    again = _lit()
    assert (again(), _status(again)) == (5.0, "hit")
    monkeypatch.setattr(SCENE, "light", ti.Vector([0.0, 6.0, 8.0]))
    changed = _lit()
    assert (changed(), _status(changed)) == (10.0, "miss")


def test_fingerprints_tell_values_and_types_apart():
    assert fingerprint(ti.Vector([1, 2])) == fingerprint(ti.Vector([1, 2]))
    assert fingerprint(ti.Vector([1, 2])) != fingerprint(ti.Vector([1, 3]))
    assert fingerprint(ti.Vector([1, 2])) != fingerprint(ti.Vector([1, 2], ti.i32))
    assert fingerprint(ti.Vector([1.0, 2.0])) != fingerprint(ti.Vector([1, 2]))
    assert fingerprint(tm.vec3) != fingerprint(tm.ivec3) != fingerprint(tm.uvec3)
    assert fingerprint(ti.types.vector(3, ti.f32)) != fingerprint(tm.vec3)
