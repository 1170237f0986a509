"""What ``prove_bounds`` leaves in the code: nothing where it proves, little elsewhere.

Read from ``kernel.report["bounds"]`` (accesses proven / checked / hoisted, checks
emitted) and the stages' text; nothing here runs an out-of-range index (that is
``test_bounds_checks.py``), least of all with the checks off.
"""

import re

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _bounds(kernel) -> dict:
    return kernel.report["bounds"]


def _asserts(text: str) -> int:
    return sum("= assert " in line for line in text.splitlines())


def _section(ir_text: str, name: str) -> str:
    """The lines of the first task's ``name:`` section (prologue/body) in printed IR."""
    out, inside = [], False
    for line in ir_text.splitlines():
        if line.startswith("  ") and not line.startswith("   ") and line.endswith(":"):
            inside = line.strip() == f"{name}:"
            continue
        if line.startswith("$"):
            inside = False
        if inside:
            out.append(line)
    return "\n".join(out)


def test_loop_ranges_offsets_and_arithmetic_are_proven():
    n = 64
    a = ti.field(ti.f32, (n, n))
    b = ti.field(ti.f32, (n, n))
    c = ti.field(ti.f32, n)

    @ti.kernel
    def patterns(k: ti.i32):
        for i in c:  # struct-for: its own cells, and % & min max of them
            c[i] = c[(i + k) % n] + c[i & 31] + c[ti.max(i - 1, 0)] + c[ti.min(i, n - 1)]
            if i > 0:
                c[i - 1] += 1.0
            if i + 1 < n:
                c[i + 1] += 1.0
            for d in ti.static(range(-2, 3)):  # unrolled constants
                c[ti.max(ti.min(i + d, n - 1), 0)] += 1.0
        for i, j in ti.ndrange((1, n - 1), (1, n - 1)):  # offsets against the starts
            b[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
        for i in range(n // 2):
            c[2 * i + 1] = c[i // 2] + c[i >> 1]

    patterns(1)
    report = _bounds(patterns)
    assert report["enabled"] and report["checked"] == 0 and report["asserts"] == 0
    assert report["proven"] == 20
    assert _asserts(patterns.stages()["ir_optimized"]) == 0


def test_struct_fors_over_blocked_sparse_and_node_index_spaces_are_proven():
    a = ti.field(ti.f32, (64, 64))
    blocked = ti.field(ti.f32)
    ti.root.dense(ti.ij, (8, 8)).dense(ti.ij, (8, 8)).place(blocked)
    sparse = ti.field(ti.f32)
    blk = ti.root.pointer(ti.ij, (4, 4))
    blk.dense(ti.ij, (16, 16)).place(sparse)

    @ti.kernel
    def layouts():
        for i, j in blocked:
            blocked[i, j] = a[i, j]
        for i, j in sparse:
            sparse[i, j] += a[j, i]
        for cell in ti.grouped(blk):  # the node's own 4 x 4 cells
            a[cell * 16 + 15] += 1.0

    layouts()
    assert _bounds(layouts)["proven"] == 5 and _bounds(layouts)["checked"] == 0


def test_a_ti_func_argument_is_the_loop_index_it_was_given():
    x = ti.field(ti.f32, 16)

    @ti.func
    def bump(p):
        x[p] += 1.0

    @ti.kernel
    def loop():
        for i in x:
            bump(i)

    loop()
    assert _bounds(loop)["proven"] == 1 and _bounds(loop)["checked"] == 0
    np.testing.assert_array_equal(x.to_numpy(), np.ones(16))


def test_range_over_an_ndarrays_shape_is_proven_symbolically():
    @ti.kernel
    def twice(a: ti.types.ndarray()):
        for i, j in ti.ndrange(a.shape[0], a.shape[1]):
            a[i, j] *= 2.0
        for i in range(a.shape[0]):
            for j in range(a.shape[1] - 1):
                a[i, j + 1] += a[i, j]

    data = np.ones((3, 5), np.float32)
    twice(data)
    assert _bounds(twice)["proven"] == 3 and _bounds(twice)["checked"] == 0
    assert data[0].tolist() == [2.0, 4.0, 6.0, 8.0, 10.0]


def test_a_runtime_range_is_checked_once_per_chunk_and_the_loop_still_vectorises():
    x = ti.field(ti.f32, 4096)
    y = ti.field(ti.f32, 4096)
    y.from_numpy(np.arange(4096, dtype=np.float32))

    @ti.kernel
    def scale(n: ti.i32):
        for i in range(n):
            x[i] = y[i] * 2.0

    scale(4096)
    np.testing.assert_array_equal(x.to_numpy(), 2.0 * np.arange(4096))
    report = _bounds(scale)
    assert report["checked"] == 2 and report["hoisted"] == 2 and report["asserts"] == 1
    text = scale.stages()["ir_optimized"]
    assert _asserts(_section(text, "prologue")) == 1 and _asserts(_section(text, "body")) == 0
    llvm = scale.stages()["llvm_optimized"]
    assert "x float>" in llvm  # <4 x float> or <8 x float>: the loop is vectorised


def test_an_inner_loop_with_runtime_bounds_is_left_check_free():
    x = ti.field(ti.f32, (8, 32))

    @ti.kernel
    def rows(m: ti.i32):
        for i in range(8):
            for j in range(m):
                x[i, j] = i + j

    rows(32)
    report = _bounds(rows)
    assert report["hoisted"] == 1 and report["asserts"] == 1
    body = _section(rows.stages()["ir_optimized"], "body")
    inner = body[body.index("range_for") :]  # the inner loop and what follows
    assert _asserts(body) == 1 and _asserts(inner.split("body:", 1)[1]) == 0


def test_an_unrolled_stencil_on_one_base_shares_one_check_per_line():
    g = 16
    grid = ti.Vector.field(3, ti.f32, (g, g, g))
    mass = ti.field(ti.f32, (g, g, g))
    pos = ti.Vector.field(3, ti.f32, 64)
    pos.from_numpy(np.full((64, 3), 0.5, np.float32))

    @ti.kernel
    def scatter():
        for p in pos:
            base = ti.cast(pos[p] * g - 0.5, ti.i32)
            for i, j, k in ti.static(ti.ndrange(3, 3, 3)):
                grid[base + ti.Vector([i, j, k])] += ti.Vector([1.0, 1.0, 1.0])
                mass[base + ti.Vector([i, j, k])] += 1.0

    scatter()
    report = _bounds(scatter)
    assert report["checked"] == 27 * 4 and report["asserts"] == 2
    assert sorted(c["accesses"] for c in report["checks"]) == [27, 81]
    assert mass.to_numpy().sum() == 64 * 27


def test_a_check_that_stays_branches_to_a_cold_routine():
    x = ti.field(ti.f32, 1024)
    where = ti.field(ti.i32, 1024)

    @ti.kernel
    def gather():
        for i in x:
            x[i] = x[where[i]]

    gather()
    assert _bounds(gather)["checked"] == 1 and _bounds(gather)["hoisted"] == 0
    llvm = gather.stages()["llvm_optimized"]
    assert '!"branch_weights"' in llvm and "!prof" in llvm
    header = next(line for line in llvm.splitlines() if "define" in line and "check_failed" in line)
    group = header.rsplit("#", 1)[1].split()[0]  # the function's attribute group
    assert re.search(rf"attributes #{group} = {{[^}}]*\bcold\b[^}}]*\bnoinline\b", llvm)


def test_proven_struct_for_accesses_keep_their_linear_addresses():
    x = ti.field(ti.f32, (64, 64))
    y = ti.field(ti.f32, (64, 64))

    @ti.kernel
    def copy():
        for i, j in x:
            y[i, j] = x[i, j]

    copy()
    text = copy.stages()["ir_optimized"]
    # the cell's memory-order number: row start + position in the row, widened to i64
    start = re.search(r"(\$\d+) : i32 = row_start", text)[1]
    offset = re.search(r"(\$\d+) : i32 = row_offset", text)[1]
    number = re.search(rf"(\$\d+) : i32 = add {re.escape(start)}, {re.escape(offset)}\n", text)[1]
    linear = re.search(rf"(\$\d+) : i64 = cast {re.escape(number)}\n", text)[1]
    assert len(re.findall(rf"= mul {re.escape(linear)}, ", text)) == 2  # both addresses
    assert _asserts(text) == 0


def test_check_bounds_false_removes_every_check():
    def build():
        x = ti.field(ti.f32, 16)
        blk = ti.root.pointer(ti.i, 4)
        s = ti.field(ti.f32)
        blk.dense(ti.i, 4).place(s)

        @ti.kernel
        def unproven(i: ti.i32, a: ti.types.ndarray()) -> ti.i32:
            x[i] = a[i]
            return ti.is_active(blk, i)

        return unproven

    checked = build()
    checked(1, np.zeros(4, np.float32))
    assert _bounds(checked)["asserts"] == 3
    assert _asserts(checked.stages()["ir_optimized"]) == 3
    ti.init(arch=ti.cpu, check_bounds=False)
    unchecked = build()
    unchecked(1, np.zeros(4, np.float32))  # in range: fine to run
    assert _bounds(unchecked) == {"enabled": False}
    assert _asserts(unchecked.stages()["ir_optimized"]) == 0
    assert "tin_check_failed" not in unchecked.stages()["llvm"]


def test_check_bounds_is_part_of_the_code_key():
    key_on = ti.session.config.current().codegen_key()
    ti.init(arch=ti.cpu, check_bounds=False)
    assert ti.session.config.current().codegen_key() != key_on


def test_a_check_never_leaves_a_loop_where_the_access_may_be_skipped():
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def skips(m: ti.i32, k: ti.i32):
        for _i in range(2):
            for j in range(m):
                if j >= 4:
                    continue
                x[j] += 1  # runs for j < 4 only: m = 10 is fine
            for j in range(k):
                x[j + 100] += 1  # never runs for k = 0: no error

    @ti.kernel
    def breaks(m: ti.i32):
        ti.loop_config(serialize=True)
        for j in range(m):
            if j == 4:
                break
            x[j] += 10

    skips(10, 0)
    breaks(10)
    assert x.to_numpy().tolist() == [12, 12, 12, 12]
    assert _bounds(breaks)["hoisted"] == 0
    assert _bounds(skips)["checked"] == 2 and _bounds(skips)["hoisted"] == 1  # guarded
