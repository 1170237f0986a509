"""Kernels of every kind compile to PTX that ptxas accepts for sm_80 and sm_90.

Each test builds one kernel in the test's CPU session, compiles it for CUDA with
``kernel.stages(..., arch="cuda")`` and hands the PTX to ptxas for both capabilities.
"""

import numpy as np
import pytest
from ptx_helpers import check_kernel, entries, instructions

import ti_notebook as ti

pytestmark = [pytest.mark.ptx, pytest.mark.needs_ptxas]


def test_range_for_with_runtime_bounds():
    x = ti.field(ti.f32, shape=1000)

    @ti.kernel
    def fill(lo: ti.i32, hi: ti.i32, value: ti.f32):
        for i in range(lo, hi):
            x[i] = value * i

    stages = check_kernel(fill, 1, 900, 2.0)
    launch = stages["sm_80"]["report"].launches[0]
    assert (launch["kind"], launch["iterations"], launch["block_dim"]) == ("range_for", None, 128)


def test_ndrange_and_grouped():
    a = ti.field(ti.i32, shape=(17, 9))

    @ti.kernel
    def fill(n: ti.i32):
        for i, j in ti.ndrange((1, n), 9):
            a[i, j] = i * 100 + j
        for I in ti.grouped(ti.ndrange(4, 3)):  # noqa: E741
            a[I] += 1

    stages = check_kernel(fill, 17)
    launches = stages["sm_90"]["report"].launches
    # both extents go to the kernels as arithmetic on the argument: no serial task
    assert [(launch["kind"], launch["iterations"]) for launch in launches] == [
        ("range_for", None),
        ("range_for", 12),
    ]


def test_dense_struct_for_2d_and_nested_layout():
    x = ti.field(ti.f32)
    ti.root.dense(ti.ij, (8, 4)).dense(ti.ij, (4, 8)).place(x)
    y = ti.field(ti.f64, shape=(5, 7))

    @ti.kernel
    def touch():
        for i, j in x:
            x[i, j] = i + j
        for i, j in y:
            y[i, j] = ti.cast(x[i, j], ti.f64)

    stages = check_kernel(touch)
    first = stages["sm_80"]["report"].launches[0]
    assert (first["kind"], first["iterations"], first["grid_dim"]) == ("struct_for", 1024, 8)


def test_serial_code_and_values_crossing_tasks():
    x = ti.field(ti.i32, shape=64)

    @ti.kernel
    def mixed(n: ti.i32) -> ti.i32:
        m = n * 2  # a local of the first serial task, read by the last
        k = n + 3  # an SSA value the loop's bound needs
        for i in range(k):
            x[i] = i
        total = 0
        ti.loop_config(serialize=True)
        for i in range(n):
            total += x[i]
        return total + m

    stages = check_kernel(mixed, 10)
    kinds = [launch["kind"] for launch in stages["sm_80"]["report"].launches]
    assert kinds == ["serial", "range_for", "serial"]
    assert "spill_between_tasks" in stages["sm_80"]["report"].passes
    assert mixed(10) == sum(range(10)) + 20  # the CPU code is the CPU's, untouched


@pytest.mark.parametrize("dtype", [ti.f32, ti.i32, ti.f64, ti.i64, ti.u32])
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_thread_local_reductions(dtype, op):
    x = ti.field(dtype, shape=1000)
    s = ti.field(dtype, shape=())

    @ti.kernel
    def total():
        for i in x:
            s[None] += x[i]

    @ti.kernel
    def smallest():
        for i in x:
            ti.atomic_min(s[None], x[i])

    @ti.kernel
    def largest():
        for i in x:
            ti.atomic_max(s[None], x[i])

    stages = check_kernel({"add": total, "min": smallest, "max": largest}[op])
    report = stages["sm_80"]["report"]
    assert [t.operation for t in report.thread_local] == [op]
    assert report.launches[0]["warp_reduction"]


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64, ti.i32, ti.i64, ti.u32, ti.i8, ti.i16])
def test_atomics_of_every_op(dtype):
    bitwise = not dtype.is_float
    x = ti.field(dtype, shape=16)
    y = ti.field(dtype, shape=16)

    @ti.kernel
    def atomics(v: dtype):
        for i in range(64):
            j = i % 16
            x[j] += v
            x[j] -= v
            ti.atomic_min(x[j], v)
            ti.atomic_max(x[j], v)
            y[j] = ti.atomic_add(x[(j + 1) % 16], v)  # the old value is used
            if ti.static(bitwise):
                ti.atomic_and(x[j], v)
                ti.atomic_or(x[j], v)
                ti.atomic_xor(x[j], v)

    check_kernel(atomics, 1)


def test_print_in_serial_and_parallel_code():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def show(n: ti.i64):
        print("n =", n, "and 100% sure")
        for i in x:
            print(i, x[i], sep=", ")
        print(f"{n:4d} {x[0]:.3f}")

    ptx = check_kernel(show, 3)["sm_90"]["ptx"]
    assert "vprintf" in ptx and "100%% sure" not in ptx  # the format holds bytes


def test_random_numbers():
    x = ti.field(ti.f32, shape=100)
    y = ti.field(ti.f64, shape=100)
    k = ti.field(ti.i64, shape=100)

    @ti.kernel
    def draw() -> ti.i32:
        for i in x:
            x[i] = ti.random() + ti.randn()
            y[i] = ti.random(ti.f64) + ti.randn(ti.f64)
            k[i] = ti.random(ti.i64) + ti.random(ti.i32)
            for _ in range(3):
                x[i] += ti.random()
        return ti.random(ti.i32)

    check_kernel(draw)


def test_vectors_and_matrices():
    v = ti.Vector.field(3, ti.f32, shape=32)
    m = ti.Matrix.field(3, 3, ti.f32, shape=32)

    @ti.kernel
    def algebra():
        for i in v:
            a = ti.Vector([1.0, 2.0, i])
            rotation = ti.Matrix([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
            m[i] = rotation @ m[i] + rotation.transpose()
            v[i] = rotation @ a + v[i].normalized() * a.dot(v[i]) + a.cross(v[i])

    check_kernel(algebra)


def test_ndarray_arguments_read_and_written():
    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(), y: ti.types.ndarray()):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    @ti.kernel
    def image(img: ti.types.ndarray(dtype=ti.u8, ndim=2)) -> ti.i32:
        total = 0
        for i, j in ti.ndrange(img.shape[0], img.shape[1]):
            total += ti.cast(img[i, j], ti.i32)
        return total

    check_kernel(saxpy, 2.0, np.ones(8, np.float32), np.ones(8, np.float32))
    check_kernel(image, np.zeros((4, 5), np.uint8))


@pytest.mark.parametrize("block_dim", [32, 48, 256, 1024])
def test_loop_config_block_dim(block_dim):
    x = ti.field(ti.f32, shape=5000)
    s = ti.field(ti.f32, shape=())

    @ti.kernel
    def total():
        ti.loop_config(block_dim=block_dim)
        for i in x:
            s[None] += x[i]

    launch = check_kernel(total)["sm_80"]["report"].launches[0]
    assert launch["block_dim"] == block_dim
    assert launch["grid_dim"] == -(-5000 // block_dim)
    assert launch["warp_reduction"] == (block_dim % 32 == 0)


def test_while_break_continue_and_asserts():
    ti.init(arch=ti.cpu, debug=True)
    x = ti.field(ti.i32, shape=100)

    @ti.kernel
    def collatz(limit: ti.i32):
        for i in x:
            n = i + 1
            steps = 0
            while n != 1:
                if steps > limit:
                    break
                steps += 1
                if n % 2 == 0:
                    n //= 2
                    continue
                n = 3 * n + 1
            x[i] = steps
            assert steps <= limit, "too long"

    stages = check_kernel(collatz, 1000)
    assert stages["sm_80"]["report"].launches[0]["checks_errors"]


def test_sparse_fields_in_range_and_struct_fors():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.i, 8).bitmasked(ti.i, 4).place(x)

    @ti.kernel
    def activate_then_visit():
        for i in range(11):
            x[i * 3] = 1.0
        for i in x:
            x[i] += 1.0
        for i in range(32):
            if ti.is_active(x.snode.parent(2), [i // 4]):
                ti.deactivate(x.snode.parent(), [i])

    check_kernel(activate_then_visit)


def test_clock_counter_and_integer_math():
    x = ti.field(ti.i64, shape=8)

    @ti.kernel
    def timed(a: ti.i32, b: ti.u16):
        for i in x:
            start = ti.clock_counter()
            x[i] = (a // (i - 3)) % 7 + a**3 + ti.cast(b, ti.i64) ** 2 + (a >> 2)
            x[i] += ti.clock_counter() - start

    check_kernel(timed, 5, 9)


def test_a_struct_for_that_changes_activity_visits_a_snapshot_of_the_bits():
    x = ti.field(ti.i32)
    ti.root.pointer(ti.i, 16).bitmasked(ti.i, 8).place(x)

    @ti.kernel
    def grow():
        for i in x:
            x[(i + 8) % 128] = x[i] + 1  # activates cells the loop has not visited yet

    stages = check_kernel(grow)
    snapshot, clear, listing, loop = stages["sm_80"]["report"].launches
    kinds = [launch["kind"] for launch in (snapshot, clear, listing, loop)]
    assert kinds == ["snapshot", "list_clear", "list", "struct_for"]
    assert snapshot["iterations"] * 4 >= (16 + 128) // 8  # words of both levels' bits


def test_a_sparse_struct_for_runs_over_a_list_of_active_blocks():
    x = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 64).dense(ti.ij, 8).place(x)

    @ti.kernel
    def scale(k: ti.f32):
        for i, j in x:
            x[i, j] *= k

    stages = check_kernel(scale, 2.0)
    clear, listing, loop = stages["sm_80"]["report"].launches
    assert (clear["kind"], clear["grid_dim"], clear["block_dim"]) == ("list_clear", 1, 1)
    assert (listing["kind"], listing["iterations"]) == ("list", 64 * 64)  # a thread a block
    assert loop["block_list"] and loop["block_dim"] == 64  # a thread per cell of a block
    assert loop["grid_dim"] == 64 * 64 and loop["iterations"] == 512 * 512
    kernels = entries(stages["sm_80"]["ptx"])
    assert instructions(kernels[listing["kernel"]], "atom.global.add.u32")  # appending
    assert "_blocks" in kernels[loop["kernel"]]  # the loop reads the list
