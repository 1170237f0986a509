"""The occupancy view (``ti_notebook.widgets.occupancy``) draws the CUDA analysis' values.

Its data equal :func:`ti_notebook.cuda_analysis.theoretical_occupancy` point by point, for given
resources and for PTX text (through ptxas); every point's marker names its limiting
resource and the current block_dim is marked, in the figure and in the SVG; the SVG is
the same bytes every time; the arch dropdown recomputes for the arch chosen; a kernel
without PTX (no CUDA backend yet) is a clear error.
"""

from __future__ import annotations

import pytest

import ti_notebook as ti
from ti_notebook.cuda_analysis import DEVICES, RESOURCES, kernel_resources, theoretical_occupancy
from ti_notebook.errors import TiNotImplementedError, TiTypeError, TiValueError
from ti_notebook.widgets import OccupancyView, occupancy, occupancy_figure
from ti_notebook.widgets.occupancy_data import occupancy_data
from ti_notebook.widgets.occupancy_draw import MARKERS, draw, point_id
from ti_notebook.widgets.render import svg_text

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# llvmlite's NVPTX output for sm_80 of two kernels (tests/cuda_analysis/conftest.py has their IR),
# with the shared tile enlarged by hand to 16 KB so that shared memory limits too
PTX = """\
.version 7.8
.target sm_80
.address_size 64

.visible .entry reverse(
    .param .u64 .ptr .global .align 1 reverse_param_0
)
{
    .reg .b32   %r<4>;
    .reg .b64   %rd<7>;
    .shared .align 4 .b8 tile[16384];
    ld.param.b64    %rd1, [reverse_param_0];
    mov.u32     %r1, %tid.x;
    mul.wide.u32    %rd2, %r1, 4;
    add.s64     %rd3, %rd1, %rd2;
    ld.global.b32   %r2, [%rd3];
    mov.b64     %rd4, tile;
    add.s64     %rd5, %rd4, %rd2;
    st.shared.b32   [%rd5], %r2;
    bar.sync    0;
    sub.s64     %rd6, %rd4, %rd2;
    ld.shared.b32   %r3, [%rd6+1020];
    st.global.b32   [%rd3], %r3;
    ret;
}

.visible .entry saxpy(
    .param .u64 .ptr .global .align 1 saxpy_param_0,
    .param .u64 .ptr .global .align 1 saxpy_param_1,
    .param .f32 saxpy_param_2
)
{
    .reg .b32   %r<7>;
    .reg .b64   %rd<6>;
    ld.param.b64    %rd1, [saxpy_param_0];
    ld.param.b64    %rd2, [saxpy_param_1];
    mov.u32     %r1, %tid.x;
    ld.param.b32    %r2, [saxpy_param_2];
    mul.wide.u32    %rd3, %r1, 4;
    add.s64     %rd4, %rd1, %rd3;
    add.s64     %rd5, %rd2, %rd3;
    ld.global.b32   %r3, [%rd4];
    ld.global.b32   %r4, [%rd5];
    mul.rn.f32  %r5, %r2, %r3;
    add.rn.f32  %r6, %r5, %r4;
    st.global.b32   [%rd5], %r6;
    ret;
}
"""


def _expected(arch, block_dim, **resources):
    return theoretical_occupancy(arch, block_size=block_dim, **resources)


@pytest.mark.unit
@pytest.mark.parametrize("arch", sorted(DEVICES))
def test_resources_give_the_occupancy_modules_values(arch):
    resources = {"registers": 40, "shared_bytes": 12_000, "dynamic_shared_bytes": 2048}
    dims = (32, 64, 96, 128, 256, 512, 1024)
    data = occupancy_data(arch=arch, block_dims=dims, barriers=2, **resources)
    (series,) = data.series
    assert data.arch == arch and data.device is DEVICES[arch] and data.source == "resources"
    assert data.block_dims == dims and data.block_dim == 128
    for dim, point in zip(dims, series.points, strict=True):
        assert point == _expected(arch, dim, barriers=2, **resources)
    assert data.archs == tuple(DEVICES)


@pytest.mark.unit
def test_every_point_is_marked_with_its_limiting_resource():
    # registers 16, 5 barriers on sm_90: barriers limit small blocks, warps large ones;
    # 40 KB of shared memory and 168 registers give the other two resources
    cases = [
        ({"registers": 16, "barriers": 5}, {"barriers", "warps"}),
        ({"registers": 32, "shared_bytes": 40_000}, {"shared memory", "warps"}),
        ({"registers": 168}, {"registers"}),
        ({"registers": 16, "barriers": 1, "arch": "sm_80"}, {"blocks", "warps"}),
    ]
    seen = set()
    for resources, limits in cases:
        data = occupancy_data(**resources)
        ax = draw(data).axes[0]
        markers = {line.get_gid(): line for line in ax.lines if line.get_gid()}
        points = data.series[0].points
        assert {p.limiting for p in points} == limits
        for point in points:
            gid = point_id("kernel", point.block_size, point.limiting)
            assert markers[gid].get_marker() == MARKERS[point.limiting]
            assert markers[gid].get_ydata()[0] == pytest.approx(100 * point.occupancy)
        legend = {t.get_text() for t in ax.get_legend().get_texts()}
        assert {f"limited by {r}" for r in limits} <= legend
        seen |= limits
    assert seen == set(RESOURCES)


@pytest.mark.unit
def test_the_svg_is_deterministic_and_names_points_and_the_current_block_dim():
    view = occupancy(registers=64, shared_bytes=8192, arch="sm_80")
    first, again = view.svg(), occupancy(registers=64, shared_bytes=8192, arch="sm_80").svg()
    assert first == again
    assert 'id="current-block-dim-128"' in first
    for point in view.data.series[0].points:
        assert f'id="{point_id("kernel", point.block_size, point.limiting)}"' in first
    view.block_dim.value = 512
    moved = view.svg()
    assert 'id="current-block-dim-512"' in moved and 'id="current-block-dim-128"' not in moved
    assert view.info.value.startswith("sm_80, 512 threads x 64 registers")


@pytest.mark.unit
def test_the_arch_dropdown_recomputes():
    view = occupancy(registers=32, block_dim=256)
    assert isinstance(view, OccupancyView)
    assert list(view.arch.options) == list(DEVICES) and view.arch.value == "sm_90"
    before = view.image.value
    view.arch.value = "sm_86"
    assert view.data.arch == "sm_86" and view.data.block_dim == 256
    assert view.data.series[0].at(1024) == _expected("sm_86", 1024, registers=32)
    assert view.data.series[0].at(1024).occupancy == 1024 / 32 / 48
    assert view.image.value != before and view.image.value[:4] == b"\x89PNG"
    assert "sm_86 (GeForce RTX 3090)" in view.figure().axes[0].get_title()


@pytest.mark.unit
def test_the_figure_function_draws_the_same_picture_as_the_view():
    fig = occupancy_figure(registers=48, arch="sm_89", block_dim=64)
    view = occupancy(registers=48, arch="sm_89", block_dim=64)
    assert svg_text(fig) == view.svg()
    assert fig.axes[0].get_title() == "theoretical occupancy on sm_89 (L4)"
    current = [line for line in fig.axes[0].lines if line.get_gid() == "current-block-dim-64"]
    assert len(current) == 1 and list(current[0].get_xdata()) == [1, 1]  # 64 is the 2nd


@pytest.mark.unit
def test_mime_bundle_carries_widget_svg_and_text():
    bundle = occupancy(registers=32)._repr_mimebundle_()
    assert WIDGET_VIEW in bundle and bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert "limited by warps" in bundle["text/plain"]


@pytest.mark.unit
def test_bad_targets_are_errors():
    with pytest.raises(TiTypeError, match="resources"):
        occupancy()
    with pytest.raises(TiTypeError, match="not both"):
        occupancy(PTX, registers=32)
    with pytest.raises(TiValueError, match="1 .. 1024"):
        occupancy(registers=32, block_dims=(64, 2048))
    with pytest.raises(TiValueError, match="sm_75"):
        occupancy(registers=32, arch="sm_75")


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_a_kernel_of_a_cpu_session_is_compiled_for_cuda_for_its_occupancy():
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def fill():
        for i in x:
            x[i] = i

    view = occupancy(fill)
    (series,) = view.data.series  # one task: one CUDA kernel
    assert "fill" in series.name and view.data.source == "kernel" and series.registers > 0


def test_something_that_does_not_compile_for_cuda_says_so():
    class CpuOnly:
        name = "saxpy"

        def stages(self, *args, arch=None):
            return {"asm": "..."}

    with pytest.raises(TiNotImplementedError, match="does not compile for CUDA"):
        occupancy(CpuOnly())


@pytest.mark.ptx
@pytest.mark.needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx_gives_one_series_per_kernel_with_ptxas_resources(arch):
    view = occupancy(PTX, arch=arch)
    data = view.data
    assert data.source == "ptx" and data.archs == tuple(DEVICES)  # .target sm_80
    assert [s.name for s in data.series] == ["reverse", "saxpy"]
    for series in data.series:
        used = kernel_resources(PTX, arch, kernel=series.name)
        assert (series.registers, series.shared_bytes) == (used.registers, used.shared_bytes)
        assert series.barriers == used.barriers
        resources = {"registers": used.registers, "shared_bytes": used.shared_bytes}
        for point in series.points:
            assert point == _expected(arch, point.block_size, barriers=used.barriers, **resources)
    reverse = data.series[0]
    assert reverse.shared_bytes == 16384 and reverse.barriers == 1
    assert reverse.at(32).limiting == "shared memory"
    svg = view.svg()
    assert f'id="{point_id("reverse", 32, "shared memory")}"' in svg
    assert "reverse at block_dim=128" in "".join(t.get_text() for t in view.figure().texts)


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_ptx_for_sm_90_offers_only_sm_90():
    ptx = PTX.replace(".target sm_80", ".target sm_90")
    assert occupancy_data(ptx).archs == ("sm_90",)
    with pytest.raises(TiValueError, match="targets sm_90"):
        occupancy(ptx, arch="sm_80")


@pytest.mark.ptx
@pytest.mark.needs_ptxas
def test_a_kernel_with_a_ptx_stage_is_read_through_it():
    class CudaKernel:  # what a kernel compiled by the CUDA backend offers
        name = "reverse"

        def stages(self, *args):
            return {"ptx": PTX, "args": args}

    data = occupancy_data(CudaKernel(), arch="sm_90", dynamic_shared_bytes=4096)
    assert data.source == "kernel" and [s.name for s in data.series] == ["reverse", "saxpy"]
    tile = data.series[0].at(128)
    assert tile.shared_bytes == 16384 and tile.dynamic_shared_bytes == 4096
