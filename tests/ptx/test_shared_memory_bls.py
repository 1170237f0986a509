"""Block-local storage on CUDA: shared-memory buffers, one CUDA block per block, barriers.

The kernels follow Taichi's performance page (``ti.block_local`` over a pointer level
holding dense 4x4 blocks); ptxas checks each for sm_80 and sm_90.
"""

import pytest
from ptx_helpers import check_kernel, cuda_stages, entries, instructions

import ti_notebook as ti

pytestmark = [pytest.mark.ptx, pytest.mark.needs_ptxas]


def _blocked(dtype=ti.f32, block=4, blocks=32):
    field = ti.field(dtype)
    ti.root.pointer(ti.ij, blocks).dense(ti.ij, block).place(field)
    return field


def test_the_performance_page_kernel_caches_into_shared_memory(bls_page):
    foo = bls_page()["foo"]
    stages = check_kernel(foo)
    (kernel,) = entries(stages["sm_80"]["ptx"]).values()
    assert ".shared .align 16" in stages["sm_80"]["ptx"]
    assert instructions(kernel, "ld.shared") and instructions(kernel, "st.shared")
    # the start of a block, before its cells, after its cells
    assert len(instructions(kernel, "bar.sync")) == 3
    (launch,) = stages["sm_80"]["report"].launches
    assert launch["block_local"] and launch["iterations"] == 32 * 32
    assert launch["grid_dim"] == 32 * 32 and launch["block_dim"] == 32  # 16 cells: a warp
    assert launch["shared_bytes"] == 0  # static: the buffer is 7 x 6 f32


def test_accumulating_into_a_cached_field_adds_atomically_in_shared_memory():
    a, b = _blocked(), _blocked()

    @ti.kernel
    def spread():
        ti.block_local(b)
        for i, j in a:
            b[i + 1, j] += a[i, j]
            b[i, j - 1] += 0.5 * a[i, j]

    ptx = check_kernel(spread)["sm_90"]["ptx"]
    assert len(instructions(ptx, "atom.shared.add.f32")) == 2  # cells share the buffer
    assert instructions(ptx, "atom.global.add.f32")  # the write-back
    assert spread.stages()["report"].block_local[0].mode == "accumulate"  # the CPU's own


def test_buffers_past_48_kb_use_dynamic_shared_memory():
    fields = [_blocked(ti.f32, block=64, blocks=2) for _ in range(4)]
    a, b, c, out = fields

    @ti.kernel
    def stencil():
        ti.block_local(a, b, c)
        for i, j in out:
            # 66 x 64 + 64 x 66 + 64 x 64 f32: 50 176 bytes, past the static 48 KB
            out[i, j] = a[i - 1, j] + a[i + 1, j] + b[i, j - 1] + b[i, j + 1] + c[i, j]

    stages = check_kernel(stencil)
    # out shares the tree of a, b, c: writing it may activate cells, so the loop reads
    # the activity bits from a copy a kernel of its own takes first
    snapshot, launch = stages["sm_80"]["report"].launches
    assert snapshot["kind"] == "snapshot" and snapshot["kernel"] == launch["kernel"] + "_snapshot"
    assert launch["shared_bytes"] > 48 << 10 and launch["block_dim"] == 128
    assert ".extern .shared .align 16 .b8" in stages["sm_80"]["ptx"]


def test_buffers_larger_than_a_block_may_have_are_a_compile_error():
    a, b, out = (_blocked(ti.f64, block=128, blocks=1) for _ in range(3))

    @ti.kernel
    def too_much():  # two 128 x 128 f64 buffers: 256 KB
        ti.block_local(a, b)
        for i, j in out:
            out[i, j] = a[i, j] + b[i, j]

    with pytest.raises(ti.errors.TiValueError, match="bytes of shared memory"):
        cuda_stages(too_much)


def test_random_draws_and_asserts_in_block_local_loops():
    ti.init(arch=ti.cpu, debug=True)
    a, b = _blocked(), _blocked()

    @ti.kernel
    def noisy(limit: ti.f32):
        ti.block_local(a)
        for i, j in b:
            value = a[i, j - 1] + ti.random()
            assert value < limit, "too large"
            b[i, j] = value

    stages = check_kernel(noisy, 10.0)
    assert stages["sm_80"]["report"].launches[-1]["checks_errors"]
    # a failed check goes on with the next cell: the kernel has one way out, at its end
    (kernel,) = [k for name, k in entries(stages["sm_80"]["ptx"]).items() if "snapshot" not in name]
    assert len(instructions(kernel, "ret;")) == 1
