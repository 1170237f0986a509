"""Python-scope vectors read by kernels, and vector/matrix types called and annotated.

A ``ti.Vector`` value a kernel reaches (a global, a closure variable, a ti.func default,
an attribute of a captured object, a template argument, a helper's result) is a
constant of its element type; a ``ti.types.vector``/``ti.math.vec3`` call builds a
kernel vector; annotations check and cast. Taichi 1.7.4 (observed): ``vec3(1, 2, 3)``,
``vec3(x)`` fills, ``vec4(v3, 1.0)`` concatenates, ``mat2([[1, 2], [3, 4]])`` and
``mat2(1, 2, 3, 4)`` build the same matrix, ``vec3(1, 2)`` is an error.
"""

import types

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError

pytestmark = pytest.mark.cpu

ORIGIN = ti.Vector([1.0, 2.0, 3.0])
ROTATE = ti.Matrix([[0, -1], [1, 0]])
COUNTS = ti.Vector([3, 4], ti.i64)
vec3 = ti.types.vector(3, ti.f32)
ivec2 = ti.types.vector(2, ti.i32)
mat2 = ti.types.matrix(2, 2, float)


class _Camera:
    def __init__(self) -> None:
        self.eye = ti.Vector([0.0, 0.5, 4.0])


CAMERA = _Camera()
SETTINGS = types.SimpleNamespace(light=ti.Vector([0.0, 3.0, 4.0]))


def _offset():
    return ti.Vector([10, 20])


def test_values_from_every_kind_of_name_become_constants():
    closure = ti.Vector([0.25, 0.5])

    @ti.func
    def shifted(x, by=ti.Vector([100.0, 200.0])):  # noqa: B008 - read as a constant
        return x + by

    @ti.kernel
    def read(out: ti.types.ndarray()):
        w = ROTATE @ ti.Vector([1, 0])  # global matrix times a literal
        out[0] = ORIGIN.x + ORIGIN.norm_sqr()  # global: component, method
        out[1] = w[1]
        out[2] = closure.y  # closure variable
        out[3] = shifted(1.0)[1]  # ti.func default argument
        out[4] = CAMERA.eye.z + SETTINGS.light.norm()  # attributes of captured objects
        out[5] = _offset()[1]  # what a Python helper returns while compiling
        out[6] = COUNTS.x * COUNTS.y
        out[7] = ti.Vector.unit(3, 2)[2] + ti.Vector.zero(ti.f32, 2)[0]

    out = np.zeros(8, np.float64)
    read(out)
    assert out.tolist() == [15.0, 1.0, 0.5, 201.0, 9.0, 20.0, 12.0, 1.0]


def test_constants_keep_their_element_types():
    exact = ti.Vector([16777217, 3], ti.i64)  # not representable in f32
    halves = ti.Vector([0.5, 1.5], ti.f64)

    @ti.kernel
    def types_() -> ti.i64:
        return exact[0] + ti.cast(halves[1] * 2, ti.i64)

    assert types_() == 16777220
    assert types_.stages()["ir"].count("i64") > 0


def test_weak_vectors_take_the_kernel_defaults():
    tenth = ti.Vector([0.1, 0.2])
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def precise() -> ti.f64:
        return tenth.x + tenth.y

    assert precise() == 0.1 + 0.2  # f64 arithmetic, not f32-rounded constants


def test_field_element_read_while_compiling():
    v = ti.Vector.field(2, ti.f32, shape=3)
    v[1] = [4, 5]
    element = v[1]

    @ti.kernel
    def first() -> ti.f32:
        return element.x + element.y

    assert first() == 9.0


def test_vector_template_arguments_specialise_by_value():
    @ti.kernel
    def total(v: ti.template()) -> ti.f32:
        return v.sum()

    a = ti.Vector([1.0, 2.0])
    assert total(a) == 3.0
    assert total(ti.Vector([1.0, 2.0])) == 3.0 and len(total._compiled) == 1
    a[0] = 5.0
    assert total(a) == 7.0 and len(total._compiled) == 2


# -- vector and matrix types called -----------------------------------------------------
def test_type_calls_in_kernels_and_python_agree():
    vec4 = ti.types.vector(4, ti.f32)

    @ti.kernel
    def build(a: ti.f32, out: ti.types.ndarray()):
        p = vec3(1, 2, 3)
        q = vec3(a)  # fills
        r = vec4(p, 9)  # concatenates
        s = mat2([[1, 2], [3, 4]]) + mat2(1, 2, 3, 4) + mat2(ti.Vector([1, 2]), [3, 4])
        t = ivec2(2.7, -1.5)  # cast to the element type: truncates
        u = ivec2(ORIGIN.x, 5)  # a captured vector's component
        for k in ti.static(range(4)):
            out[k] = r[k]
        out[4] = q.z
        out[5] = s[1, 0]
        out[6] = t.x * 10 + t.y
        out[7] = u.x + u.y + p.sum()

    out = np.zeros(8, np.float32)
    build(0.5, out)
    assert out.tolist() == [1.0, 2.0, 3.0, 9.0, 0.5, 9.0, 19.0, 12.0]
    assert ti.types.vector(4, ti.f32)(vec3(1, 2, 3), 9).tolist() == out[:4].tolist()
    assert vec3(0.5).tolist() == [0.5] * 3 and vec3(0.5).dtype == ti.f32
    python = mat2([[1, 2], [3, 4]]) + mat2(1, 2, 3, 4) + mat2(ti.Vector([1, 2]), [3, 4])
    assert python[1, 0] == 9.0 and isinstance(python, ti.Matrix)
    assert ivec2(2.7, -1.5).tolist() == [2, -1] and ivec2(2.7, -1.5).dtype == ti.i32
    assert ivec2(np.array([3, 4])).tolist() == [3, 4]


def test_type_calls_with_default_types_follow_init():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    vec = ti.types.vector(2, float)

    @ti.kernel
    def third() -> ti.f64:
        return vec(1.0 / 3.0, 0.0).x

    assert third() == 1.0 / 3.0 and vec(1, 2).dtype == ti.f64


def test_annotated_parameters_and_locals_cast():
    @ti.func
    def area(size: ivec2) -> ti.i32:
        return size.x * size.y

    @ti.kernel
    def run() -> ti.f32:
        p: vec3 = ti.Vector([1, 2, 3])  # int literal vector, stored as f32
        q: ivec2 = ti.Vector([2.9, 3.9])
        return area(ti.Vector([2.5, 4.5])) + p.z / 2 + q.x * 100

    assert run() == 8 + 1.5 + 200


def test_type_call_errors():
    @ti.kernel
    def short() -> ti.f32:
        v = vec3(1, 2)
        return v.x

    with pytest.raises(TiTypeError) as info:
        short()
    text = str(info.value)
    assert "Kernel 'short'" in text and "takes 3 values (or one to fill it), got 2" in text
    assert "v = vec3(1, 2)" in text and "^^^^" in text and "hint: give 3 numbers" in text
    with pytest.raises(TiTypeError, match="takes 4 values"):
        mat2(1, 2, 3)
    with pytest.raises(TiTypeError, match="needs values"):
        vec3()
    with pytest.raises(TiTypeError, match="takes numbers"):
        vec3("a", "b", "c")


def test_annotation_errors():
    @ti.func
    def needs_vec3(p: vec3):
        return p.x

    @ti.kernel
    def wrong_parameter() -> ti.f32:
        return needs_vec3(ti.Vector([1.0, 2.0]))

    with pytest.raises(TiTypeError) as info:
        wrong_parameter()
    text = str(info.value)
    assert "parameter 'p' is annotated vector(3, f32) (shape (3,))" in text
    assert "shape (2,)" in text and "Kernel 'wrong_parameter'" in text

    @ti.kernel
    def scalar_local() -> ti.f32:
        p: vec3 = 1.0
        return p.x

    with pytest.raises(TiTypeError, match="'p' is annotated vector.*shape a scalar"):
        scalar_local()


def test_a_static_loop_over_a_list_of_vectors():
    # mass_spring_3d_ggui.py's pattern: spring_offsets.append(ti.Vector([i, j]))
    offsets = [ti.Vector([i, j]) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0)]
    x = ti.field(ti.i32, shape=(4, 4))

    @ti.kernel
    def neighbours() -> ti.i32:
        total = 0
        for cell in ti.grouped(x):
            for offset in ti.static(offsets):
                other = cell + offset
                if 0 <= other[0] < 4 and 0 <= other[1] < 4:
                    total += 1
        return total

    assert neighbours() == 4 * 3 + 8 * 5 + 4 * 8  # corners, edges, inside
