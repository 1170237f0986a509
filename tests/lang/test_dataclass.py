"""``@ti.dataclass``: struct types from annotated classes, with ``@ti.func`` methods.

This module uses ``from __future__ import annotations`` on purpose: the members'
annotations are strings, evaluated where the class is defined (as Taichi needs them).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiSyntaxError, TiTypeError

pytestmark = pytest.mark.cpu

vec2 = ti.types.vector(2, ti.f32)


@ti.dataclass
class Ray:
    origin: vec2
    direction: vec2

    @ti.func
    def at(self, t):
        return self.origin + t * self.direction


@ti.dataclass
class Sphere:
    center: vec2
    radius: ti.f32
    tag: ti.i32

    @ti.func
    def area(self):
        return math.pi * self.radius**2

    @ti.func
    def scaled(self, k: ti.f32) -> Sphere:
        return Sphere(center=self.center, radius=self.radius * k, tag=self.tag)

    @ti.func
    def grow(self, k: ti.f32):
        self.radius *= k  # self is a copy: the caller's value does not change
        return self.radius

    @ti.func
    def hits(self, ray: Ray, t) -> ti.i32:
        return (ray.at(t) - self.center).norm() <= self.radius

    def python_helper(self):
        return "plain"


def test_members_and_methods_from_the_class():
    assert Sphere.keys() == ["center", "radius", "tag"]
    assert sorted(Sphere.methods) == ["area", "grow", "hits", "python_helper", "scaled"]
    assert repr(Sphere) == "Sphere(center=vector(2, f32), radius=f32, tag=i32)"
    assert isinstance(Sphere.area, ti.Func)
    value = Sphere(radius=2, tag=3)
    assert value.to_dict() == {"center": [0.0, 0.0], "radius": 2.0, "tag": 3}
    assert value.python_helper() == "plain"
    with pytest.raises(TiSyntaxError, match="can only be called from a kernel"):
        value.area()


def test_methods_on_field_elements_locals_and_arguments():
    spheres = Sphere.field(shape=4)

    @ti.kernel
    def run() -> ti.f32:
        for i in spheres:
            spheres[i] = Sphere(center=[i, 0], radius=i + 1, tag=i)
        total = 0.0
        for i in range(4):
            total += spheres[i].area()
        big = spheres[1].scaled(3.0)  # a method returning a struct
        kept = spheres[2]
        grown = kept.grow(10.0)
        ray = Ray(origin=[0.0, 5.0], direction=[0.0, -1.0])
        hit = spheres[0].hits(ray, 5.0) + spheres[3].hits(ray, 0.0)
        return total + big.radius * 1000 + grown * 100000 + kept.radius * 1e7 + hit * 1e9

    expected = math.pi * (1 + 4 + 9 + 16) + 6 * 1000 + 30 * 100000 + 3 * 1e7 + 1 * 1e9
    assert run() == pytest.approx(expected, rel=1e-6)
    np.testing.assert_allclose(spheres.radius.to_numpy(), [1, 2, 3, 4])


def test_struct_annotated_func_parameters_convert_and_check():
    @ti.func
    def radius_of(s: Sphere) -> ti.f32:
        return s.radius

    @ti.kernel
    def good() -> ti.f32:
        return radius_of(Sphere(radius=2.5))

    @ti.kernel
    def bad() -> ti.f32:
        return radius_of(Ray())

    @ti.kernel
    def not_a_struct() -> ti.f32:
        return radius_of(1.0)

    assert good() == 2.5
    with pytest.raises(TiTypeError, match="needs members \\['center', 'radius', 'tag'\\]"):
        bad()
    with pytest.raises(TiTypeError, match="parameter 's' is a struct Sphere"):
        not_a_struct()


def test_nested_dataclasses():
    @ti.dataclass
    class Segment:
        a: Ray
        length: ti.f32

        @ti.func
        def end(self):
            return self.a.at(self.length)

    segments = Segment.field(shape=2)

    @ti.kernel
    def run():
        for i in segments:
            segments[i].a = Ray(origin=[i, i], direction=[1.0, 0.0])
            segments[i].length = 2.0 + i
            segments[i].a.origin.y += segments[i].end().x

    run()
    np.testing.assert_allclose(segments.a.origin.to_numpy(), [[0, 2], [1, 5]])


def test_a_default_value_or_a_bad_annotation_is_an_error():
    with pytest.raises(TiSyntaxError, match="member 'r' has a default value"):

        @ti.dataclass
        class WithDefault:
            r: ti.f32 = 1.0

    with pytest.raises(TiTypeError, match="cannot evaluate the annotation of 'r'"):

        @ti.dataclass
        class Undefined:
            r: no_such_type  # noqa: F821 - the point of the test

    with pytest.raises(TiTypeError, match="member 'r' has type"):

        @ti.dataclass
        class NotAType:
            r: 42  # an annotation that is no type

    with pytest.raises(TiTypeError, match="decorates a class"):
        ti.dataclass(lambda: None)


def test_a_plain_method_is_not_callable_in_a_kernel():
    @ti.kernel
    def run() -> ti.i32:
        s = Sphere()
        return s.python_helper()

    with pytest.raises(TiSyntaxError, match="'python_helper' of struct Sphere is not a @ti.func"):
        run()
