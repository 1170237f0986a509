"""``@ti.data_oriented``: kernels and ti.funcs as methods, ``self`` a template.

Semantics follow Taichi 1.7 (taichi/lang/kernel_impl.py): each instance is its own
specialisation (keyed by a weak reference), and its attributes are read while
compiling, so a number assigned to an attribute after the first call is seen only when
the kernel compiles again; the offline cache keys on the values it read.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu


@ti.data_oriented
class Array:
    def __init__(self, n, scale):
        self.n = n
        self.scale = scale
        self.x = ti.field(ti.f32, shape=n)

    @ti.func
    def value(self, i):
        return i * self.scale

    @ti.kernel
    def fill(self):
        for i in range(self.n):
            self.x[i] = self.value(i)

    @ti.kernel
    def total(self) -> ti.f32:
        s = 0.0
        for i in self.x:
            s += self.x[i]
        return s

    @ti.kernel
    def add(self, other: ti.template(), k: ti.f32):
        for i in self.x:
            self.x[i] += k * other.x[i]

    def step(self):
        """A Python method calling kernel methods."""
        self.fill()
        return self.total()


def test_kernel_method_reads_its_own_fields_and_numbers():
    a = Array(5, 2.0)
    a.fill()
    np.testing.assert_allclose(a.x.to_numpy(), np.arange(5) * 2.0)
    assert a.total() == pytest.approx(20.0)


def test_instances_have_their_own_fields_and_specialisations():
    a, b = Array(4, 1.0), Array(6, 10.0)
    assert a.step() == pytest.approx(6.0)
    assert b.step() == pytest.approx(150.0)
    np.testing.assert_allclose(a.x.to_numpy(), [0, 1, 2, 3])
    np.testing.assert_allclose(b.x.to_numpy(), np.arange(6) * 10.0)
    assert len(Array.fill.specialisations) == 2
    b.add(b, 0.5)  # another data-oriented object as a template argument
    np.testing.assert_allclose(b.x.to_numpy(), np.arange(6) * 15.0)


def test_a_dead_instance_drops_its_specialisation():
    a = Array(3, 1.0)
    a.fill()
    before = len(Array.fill.specialisations)
    del a
    gc.collect()
    assert len(Array.fill.specialisations) == before - 1


def test_attributes_are_read_when_the_kernel_compiles(monkeypatch):
    a = Array(3, 1.0)
    a.fill()
    a.scale = 5.0  # as in Taichi: the compiled specialisation keeps what it read
    a.fill()
    np.testing.assert_allclose(a.x.to_numpy(), [0, 1, 2])
    b = Array(3, 5.0)  # a new instance compiles with its own values
    b.fill()
    np.testing.assert_allclose(b.x.to_numpy(), [0, 5, 10])


def test_bound_kernel_describes_the_instance_specialisation():
    a = Array(3, 1.0)
    bound = a.total
    assert repr(bound) == "<bound ti.kernel Array.total>"
    assert bound == a.total and hash(bound) == hash(a.total)
    assert bound.name == "total"
    assert "struct_for" in [t["kind"] for t in bound.report["tasks"]]
    assert "globalload" in bound.stages()["ir"]


@ti.data_oriented
class Lists:
    def __init__(self):
        self.levels = [ti.field(ti.i32, shape=4) for _ in range(3)]
        self.inner = Array(4, 3.0)
        self.weights = (1, 10, 100)

    @staticmethod
    @ti.func
    def double(v):
        return 2 * v

    @property
    def size(self):
        return 4

    @ti.kernel
    def run(self):
        self.inner.fill()  # noqa: B018 - refused: a kernel cannot launch a kernel

    @ti.kernel
    def spread(self):
        for i in range(self.size):
            for k in ti.static(range(len(self.levels))):
                level = self.levels[k]
                level[i] = self.double(self.weights[k]) + self.inner.value(i)


def test_lists_of_fields_nested_objects_static_methods_and_properties():
    obj = Lists()
    obj.spread()
    for k, w in enumerate((1, 10, 100)):
        np.testing.assert_array_equal(obj.levels[k].to_numpy(), 2 * w + np.arange(4) * 3)


def test_a_kernel_method_cannot_call_a_kernel():
    with pytest.raises(TiSyntaxError, match="a kernel cannot call another kernel") as info:
        Lists().run()
    assert "self.inner.fill()" in str(info.value)


@ti.data_oriented
class Base:
    def __init__(self):
        self.out = ti.field(ti.i32, shape=3)

    @ti.func
    def rule(self, i):
        return i

    @ti.kernel
    def apply(self):
        for i in self.out:
            self.out[i] = self.rule(i)


class Derived(Base):  # inherits @ti.data_oriented, as in Taichi
    def __init__(self, k):
        super().__init__()
        self.k = k

    @ti.func
    def rule(self, i):
        return i * self.k


def test_inheritance_overrides_a_func_the_base_kernel_calls():
    base, derived = Base(), Derived(7)
    base.apply()
    derived.apply()
    assert base.out.to_numpy().tolist() == [0, 1, 2]
    assert derived.out.to_numpy().tolist() == [0, 7, 14]


def test_static_kernel_and_kernel_property():
    @ti.data_oriented
    class Tools:
        def __init__(self):
            self.x = ti.field(ti.i32, shape=2)

        @staticmethod
        @ti.kernel
        def set_all(f: ti.template(), v: ti.i32):
            for i in f:
                f[i] = v

        @property
        @ti.kernel
        def first(self) -> ti.i32:
            return self.x[0]

    tools = Tools()
    tools.set_all(tools.x, 9)
    Tools.set_all(tools.x, 4)
    assert tools.first == 4


def test_undecorated_class_is_refused_with_a_hint():
    class Plain:
        def __init__(self):
            self.x = ti.field(ti.i32, shape=2)

        @ti.kernel
        def go(self):
            for i in self.x:
                self.x[i] = 1

    plain = Plain()
    assert hasattr(plain, "go")  # reading the method is fine; calling it is not
    with pytest.raises(TiSyntaxError, match="not decorated with @ti.data_oriented") as info:
        plain.go()
    assert "@ti.data_oriented above 'class Plain:'" in str(info.value)


def test_decorating_a_function_is_a_type_error():
    with pytest.raises(TiTypeError, match="decorates a class"):
        ti.data_oriented(lambda: None)


def test_unknown_attribute_and_assigning_an_attribute_name_the_line():
    @ti.data_oriented
    class Broken:
        def __init__(self):
            self.x = ti.field(ti.i32, shape=2)
            self.n = 2

        @ti.kernel
        def missing(self):
            for i in self.x:
                self.x[i] = self.nope

        @ti.kernel
        def assigns(self):
            self.n = 3

    broken = Broken()
    with pytest.raises(TiSyntaxError, match="'self' has no attribute 'nope'") as info:
        broken.missing()
    assert "self.x[i] = self.nope" in str(info.value) and "^" in str(info.value)
    with pytest.raises(TiSyntaxError, match="cannot assign to 'self.n'") as info:
        broken.assigns()
    assert "Python attribute" in str(info.value)


def test_wrong_argument_count_names_the_kernel():
    a = Array(2, 1.0)
    with pytest.raises(TiTypeError, match="kernel 'add' takes 3 argument"):
        a.add(a)


# -- the offline cache ----------------------------------------------------------------------
def _make_class():
    """A fresh class, as re-running a notebook cell makes (new kernel objects)."""

    @ti.data_oriented
    class Scaled:
        def __init__(self, n, scale):
            self.scale = scale
            self.x = ti.field(ti.i32, shape=n)

        @ti.kernel
        def fill(self):
            for i in self.x:
                self.x[i] = i * self.scale

    return Scaled


def test_offline_cache_tells_instances_and_attribute_values_apart(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
    first = _make_class()(4, 2)
    first.fill()
    assert first.fill.report["cache"] == "miss"
    second = _make_class()(4, 2)  # same values, its own field: the same code, relocated
    second.fill()
    assert second.fill.report["cache"] == "hit"
    first.x.fill(0)
    second.fill()
    assert first.x.to_numpy().tolist() == [0, 0, 0, 0]
    assert second.x.to_numpy().tolist() == [0, 2, 4, 6]
    third = _make_class()(4, 3)  # another attribute value: another entry
    third.fill()
    assert third.fill.report["cache"] == "miss"
    assert third.x.to_numpy().tolist() == [0, 3, 6, 9]
    bigger = _make_class()(5, 2)  # another field shape: another entry
    bigger.fill()
    assert bigger.fill.report["cache"] == "miss"
    assert bigger.x.to_numpy().tolist() == [0, 2, 4, 6, 8]


def test_the_offline_cache_records_template_paths_through_self():
    from ti_notebook.cache import keys as cache_keys
    from ti_notebook.frontend.kernel_trace import trace_kernel
    from ti_notebook.session.compiling import request_for
    from ti_notebook.session.specialisation import specialise

    a = Array(3, 2.0)
    chosen = specialise(Array.fill, (a,))
    templates = chosen.templates
    _kernel_ir, inputs = trace_kernel(request_for(Array.fill, chosen.params, templates))
    dependencies, why = cache_keys.record_dependencies(inputs["captured"], templates)
    assert why == ""
    recorded = {path: value for scope, path, value in dependencies if scope == "<template>"}
    assert recorded["self.n"] == "int:3" and recorded["self.scale"] == "float:2.0"
    assert recorded["self.x"].startswith("field:") and recorded["self.value"].startswith("func:")
    assert cache_keys.fingerprint(a) == f"data_oriented:{Array.__module__}.Array"
