"""Every widget's output carries pictures that need no live kernel: a deterministic SVG
and a PNG (JupyterLab shows the PNG in untrusted notebooks and where the widget state
was not saved), besides the live view and a text line."""

from __future__ import annotations

import base64

import pytest

import ti_notebook as ti
from ti_notebook import widgets

pytestmark = pytest.mark.cpu

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _check(view) -> None:
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/svg+xml"].lstrip().startswith(("<?xml", "<svg"))
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    assert bundle["text/plain"]


def test_layout_bls_occupancy_timeline_roofline_and_tuner_bundles():
    a, b = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="b")
    ti.root.pointer(ti.ij, 4).dense(ti.ij, 4).place(a, b)

    @ti.kernel
    def foo():
        ti.block_local(a)
        for i, j in b:
            b[i, j] = a[i - 1, j] + a[i, j + 2]

    b[0, 0] = 0.0
    foo()
    x = ti.field(ti.f32, shape=256, name="x")

    @ti.kernel
    def scale(s: ti.f32):
        for i in x:
            x[i] = x[i] * s

    _check(widgets.layout(x))
    _check(widgets.bls(foo, block=0, fields=[a]))
    _check(widgets.occupancy(registers=32, block_dims=(64, 128)))
    _check(widgets.timeline(launches=()))
    _check(widgets.roofline(scale, 2.0, seconds=1e-6))
    tuner = widgets.tune(scale, 2.0, parallelize=[1, 2], repeat=1)
    try:
        _check(tuner)
    finally:
        tuner.close()
