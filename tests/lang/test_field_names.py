"""The name a field takes from its assignment, which errors and pictures show: found
from the call's own position, so several fields on one line get their own names."""

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiIndexError

pytestmark = pytest.mark.cpu


def test_one_field_per_statement():
    a = ti.field(ti.f32, shape=2)
    b: ti.Field = ti.field(ti.i32, shape=2)
    assert (a.name, b.name) == ("a", "b")


def test_several_statements_on_one_line():
    p = ti.field(ti.f32); q = ti.field(ti.f32)  # noqa: E702  # fmt: skip
    ti.root.dense(ti.i, 2).place(p, q)
    assert (p.name, q.name) == ("p", "q")


def test_tuple_assignment_names_each_element():
    left, right = ti.field(ti.f32, shape=2), ti.field(ti.f32, shape=2)
    vel, mat = ti.Vector.field(2, ti.f32, shape=2), ti.Matrix.field(2, 2, ti.f32, shape=2)
    vec3 = ti.types.vector(3, float)
    pos, mass = vec3.field(shape=2), ti.field(float, shape=2)
    assert [f.name for f in (left, right, vel, mat, pos, mass)] == [
        "left",
        "right",
        "vel",
        "mat",
        "pos",
        "mass",
    ]


def test_call_split_over_lines_nested_calls_and_attributes():
    long_name = ti.field(
        ti.f32,
        shape=3,
    )
    levels = [ti.field(ti.f32, shape=2) for _ in range(2)]

    class Particles:
        def __init__(self):
            self.velocity = ti.Vector.field(3, ti.f32, shape=4)

    assert long_name.name == "long_name"
    assert [f.name for f in levels] == ["levels", "levels"]
    assert Particles().velocity.name == "velocity"


def test_no_assignment_gives_the_default_and_an_explicit_name_wins():
    fields = []
    fields.append(ti.field(ti.f32, shape=2))
    named = ti.field(ti.f32, shape=2, name="density")
    assert fields[0].name == "field"
    assert named.name == "density"


def test_the_second_field_on_a_line_is_named_in_errors():
    first, second = ti.field(ti.i32, shape=2), ti.field(ti.i32, shape=3)

    @ti.kernel
    def read(i: ti.i32) -> ti.i32:
        return first[0] + second[i]

    assert read(2) == 0
    with pytest.raises(TiIndexError, match="field 'second'"):
        read(5)
