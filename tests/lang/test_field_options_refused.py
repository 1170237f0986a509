"""Taichi field options ti_notebook does not implement are refused, not ignored: an
ignored ``offset`` or ``order`` would index or lay out the field other than the program
expects (silently wrong results)."""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "options, hint",
    [
        ({"offset": (-1, 0)}, "add the offset in the kernel"),
        ({"order": "ji"}, "ti.root.dense(ti.j"),
    ],
)
def test_unsupported_options_are_refused_with_a_hint(options, hint):
    for make in (
        lambda: ti.field(ti.f32, shape=(4, 4), **options),
        lambda: ti.Vector.field(3, ti.f32, shape=(4, 4), **options),
        lambda: ti.Matrix.field(2, 2, ti.f32, shape=(4, 4), **options),
    ):
        with pytest.raises(ti.errors.TiNotImplementedError, match="not supported") as caught:
            make()
        assert hint in caught.value.hint


def test_default_values_and_unknown_keywords():
    x = ti.field(ti.f32, shape=(2, 2), offset=(0, 0), needs_grad=False, order=None)
    assert x.shape == (2, 2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'shpe'"):
        ti.field(ti.f32, shpe=3)
