"""Sectors per warp access and bank conflicts in a CUDA kernel's report
(``passes/analysis/warp_accesses.py``): the layouts and index expressions of issue 16."""

import shutil

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.ptx

N = 64


def _accesses(kernel, *args, memory="global"):
    (task,) = [t for t in kernel.stages(*args, arch="cuda")["report"].tasks if t.kind != "serial"]
    return [a for a in task.warp_accesses if a.memory == memory]


def _one(kernel, field, access="load", args=()):
    (found,) = [a for a in _accesses(kernel, *args) if a.field == field and a.access == access]
    return found


def test_soa_f32_read_by_a_range_for_touches_4_sectors():
    x, y = ti.field(ti.f32, shape=N, name="x"), ti.field(ti.f32, shape=N, name="y")

    @ti.kernel
    def copy():
        for i in range(N):
            y[i] = x[i]

    read, write = _one(copy, "x"), _one(copy, "y", "store")
    assert (read.lane_stride, read.sectors, read.ideal_sectors, read.efficiency) == (4, 4, 4, 1.0)
    assert (write.pattern, write.sectors, write.lanes, write.assumed) == ("affine", 4, 32, False)


def test_aos_vec3_component_x_touches_12_sectors():
    v = ti.Vector.field(3, ti.f32, shape=N, name="v")
    out = ti.field(ti.f32, shape=N, name="out")

    @ti.kernel
    def first_component():
        for i in range(N):
            out[i] = v[i][0]

    read = _one(first_component, "v[0]")
    assert (read.lane_stride, read.sectors, read.ideal_sectors) == (12, 12, 4)
    assert read.efficiency == pytest.approx(1 / 3, abs=1e-3)


def test_three_fields_placed_together_are_aos_too():
    px, py, pz = (ti.field(ti.f32, name=n) for n in ("px", "py", "pz"))
    ti.root.dense(ti.i, N).place(px, py, pz)

    @ti.kernel
    def shift():
        for i in px:
            px[i] += 1.0

    assert _one(shift, "px").sectors == 12 and _one(shift, "px", "store").lane_stride == 12


def test_every_other_element_touches_8_sectors():
    x = ti.field(ti.f32, shape=2 * N, name="x")
    out = ti.field(ti.f32, shape=N, name="out")

    @ti.kernel
    def strided():
        for i in range(N):
            out[i] = x[2 * i]

    read = _one(strided, "x")
    assert (read.lane_stride, read.sectors, read.efficiency) == (8, 8, 0.5)


def _matrix(column_major: bool):
    m = ti.field(ti.f32, name="m")
    if column_major:
        ti.root.dense(ti.j, N).dense(ti.i, N).place(m)
    else:
        ti.root.dense(ti.ij, (N, N)).place(m)
    out = ti.field(ti.f32, shape=(N, N), name="out")

    @ti.kernel
    def read():
        for i, j in ti.ndrange(N, N):  # j inner: consecutive lanes, consecutive j
            out[i, j] = m[i, j]

    return read


def test_column_major_2d_field_read_with_j_inner_touches_32_sectors():
    read = _one(_matrix(column_major=True), "m")
    assert (read.lane_stride, read.sectors, read.ideal_sectors) == (N * 4, 32, 4)


def test_row_major_2d_field_read_with_j_inner_touches_4_sectors():
    read = _one(_matrix(column_major=False), "m")
    assert (read.lane_stride, read.sectors) == (4, 4)


def test_an_ndrange_row_shorter_than_a_warp_is_not_one_stride():
    m = ti.field(ti.f32, shape=(N, 16), name="m")

    @ti.kernel
    def narrow():
        for i, j in ti.ndrange(N, 16):
            m[i, j] = 1.0

    # 32 lanes cover two rows of 16 that lie end to end: contiguous after all
    write = _one(narrow, "m", "store")
    assert (write.pattern, write.lane_stride, write.sectors) == ("affine", 4, 4)

    @ti.kernel
    def inner_part():
        for i, j in ti.ndrange(N, 8):
            m[i, j] = 1.0

    # 4 rows' first 8 elements: 32 bytes of every 64, each one whole sector
    write = _one(inner_part, "m", "store")
    assert (write.pattern, write.lane_stride, write.sectors, write.efficiency) == (
        "non-affine",
        None,
        4,
        1.0,
    )


def test_an_index_read_from_memory_is_irregular():
    x = ti.field(ti.f32, shape=N, name="x")
    idx = ti.field(ti.i32, shape=N, name="idx")
    out = ti.field(ti.f32, shape=N, name="out")

    @ti.kernel
    def gather():
        for i in range(N):
            out[i] = x[idx[i]]

    read = _one(gather, "x")
    assert (read.pattern, read.lane_stride, read.sectors, read.efficiency) == (
        "irregular",
        None,
        None,
        None,
    )
    assert _one(gather, "idx").sectors == 4  # the index array itself is coalesced
    assert "irregular" in str(read)


def test_run_time_offsets_keep_the_stride_and_say_so():
    x = ti.field(ti.f32, shape=4 * N, name="x")

    @ti.kernel
    def offset(k: ti.i32, s: ti.i32):
        for i in range(N):
            x[i + k] = 1.0  # a uniform shift: stride known, alignment not
            x[i * s] = 2.0  # a run-time stride: unknown

    shifted, scaled = [a for a in _accesses(offset, 1, 2) if a.access == "store"]
    assert (shifted.lane_stride, shifted.sectors, shifted.assumed) == (4, 4, True)
    assert scaled.pattern == "irregular"


def test_a_local_holding_the_index_is_followed():
    x = ti.field(ti.f32, shape=3 * N, name="x")

    @ti.kernel
    def through_local():
        for i in range(N):
            k = 3 * i
            x[k] = 1.0

    assert _one(through_local, "x", "store").lane_stride == 12


def test_a_warp_of_fewer_iterations_has_fewer_lanes():
    x = ti.field(ti.f32, shape=8, name="x")

    @ti.kernel
    def short():
        for i in range(8):
            x[i] = 1.0

    write = _one(short, "x", "store")
    assert (write.lanes, write.sectors, write.ideal_sectors) == (8, 1, 1)


def _column_tile(width: int):
    """A block-local buffer of 32 rows x ``width`` columns read down a column: the cells
    of a 32 x 1 block lie along i, one lane each, and each reads a[i, j + k]."""
    a, out = ti.field(ti.f32, name="a"), ti.field(ti.f32, name="out")
    for f in (a, out):
        ti.root.pointer(ti.ij, (2, 64)).dense(ti.ij, (32, 1)).place(f)

    @ti.kernel
    def column():
        ti.block_local(a)
        for i, j in out:
            s = 0.0
            for k in range(width):
                s += a[i, j + k]
            out[i, j] = s

    return column


def test_a_32_wide_tile_read_by_column_is_a_32_way_bank_conflict():
    column = _column_tile(32)
    assert column.stages(arch="cuda")["report"].block_local[0].buffer_shape == (32, 32)
    (read,) = [a for a in _accesses(column, memory="shared") if a.access == "load"]
    assert (read.field, read.lane_stride, read.degree) == ("a (block-local)", 128, 32)
    fills = [a for a in _accesses(column, memory="shared") if a.access == "store"]
    assert fills and all(a.degree == 1 for a in fills)  # the fill runs along the rows


def test_a_tile_padded_to_33_columns_is_conflict_free():
    (read,) = [a for a in _accesses(_column_tile(33), memory="shared") if a.access == "load"]
    assert (read.lane_stride, read.degree) == (132, 1)
    assert "conflict-free" in str(read)


def test_the_cpu_report_has_no_warp_accesses():
    x = ti.field(ti.f32, shape=N, name="x")

    @ti.kernel
    def fill():
        for i in x:
            x[i] = 1.0

    report = fill.stages()["report"]
    assert all(not t.warp_accesses for t in report.tasks)
    assert all("warp_accesses" not in t for t in report["tasks"])
    assert "warp_accesses" not in [r.name for r in report.pass_records]
    cuda = fill.stages(arch="cuda")["report"]
    assert cuda["tasks"][0]["warp_accesses"][0]["sectors"] == 4  # the plain form has it


@pytest.mark.needs_ptxas
@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
def test_the_resources_stage_lists_the_warp_accesses():
    v = ti.Vector.field(3, ti.f32, shape=N, name="v")

    @ti.kernel
    def scale():
        for i in v:
            v[i][0] *= 2.0

    text = str(scale.stages(arch="cuda")["resources"])
    assert "warp accesses:" in text
    assert "load v[0]: 4 B per lane, lane stride 12 B, 12 sectors per warp" in text


def test_ndarray_rows_read_along_the_last_axis_are_coalesced():
    @ti.kernel
    def rows(a: ti.types.ndarray(dtype=ti.f32, ndim=2), b: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i, j in a:
            a[i, j] = b[j]

    a, b = ti.ndarray(ti.f32, (N, N)), ti.ndarray(ti.f32, N)
    store, load = _one(rows, "arg 0", "store", (a, b)), _one(rows, "arg 1", args=(a, b))
    assert (store.lane_stride, store.sectors, store.assumed) == (4, 4, True)  # run-time shape
    assert (load.lane_stride, load.sectors) == (4, 4)
