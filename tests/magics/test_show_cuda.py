"""``%%kernel --arch cuda --show ptx`` and ``--show resources`` work without a device:
the cell's kernels run on the CPU (arch=cuda falls back, warned) and are compiled for
CUDA as well, for their PTX and ptxas's figures."""

import shutil

import pytest

from ti_notebook.runtime import devices

pytestmark = pytest.mark.cpu

SUM = """%%kernel --quiet --arch cuda --show {stage}
x = ti.field(ti.f32, shape=64)
s = ti.field(ti.f32, shape=())
def tot():
    for i in x:
        s[None] += x[i]
"""


@pytest.fixture
def no_device(monkeypatch):
    monkeypatch.setattr(devices, "cuda_unavailable_reason", lambda: "no CUDA device (test)")


def test_show_ptx_without_a_device(run, no_device):
    cell = run(SUM.format(stage="ptx"))
    assert cell.result.success, cell.stderr
    (bundle,) = cell.outputs
    text = bundle["text/plain"]
    assert text.startswith("--- tot · ptx ---") and ".entry" in text and ".target sm_90" in text
    assert "shfl.sync.down" in text  # the sum's thread-local reduction, warp by warp
    assert "no CUDA device (test)" in cell.stderr  # the fallback is said, with its reason


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
def test_show_resources_without_a_device(run, no_device):
    cell = run(SUM.format(stage="resources"))
    assert cell.result.success, cell.stderr
    (bundle,) = cell.outputs
    text = bundle["text/plain"]
    assert "ptxas -v for sm_90" in text and "registers" in text
    assert "sm_80" in text and "1024:" in text  # occupancy per candidate block_dim


def test_template_kernels_show_ptx_once_launched(run, no_device):
    source = (
        "%%kernel --quiet --show ptx\nx = ti.field(ti.f32, shape=4)\n"
        "def twice(a: ti.template()):\n    for i in a:\n        a[i] *= 2\n"
    )
    cell = run(source)
    assert cell.result.success, cell.stderr
    assert cell.outputs == [] and "twice: no ptx yet" in cell.stderr
    cell = run(source + "twice(x)\n")  # launched by the cell: its specialisation is known
    assert cell.result.success, cell.stderr
    assert "template parameters need example arguments" in cell.stderr
