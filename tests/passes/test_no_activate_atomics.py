"""``ti.no_activate``: an atomic whose old value the kernel keeps, on cells that several
iterations share (so it stays an atomic): the value is the old one where the cell is
active and 0 where it is not, and an inactive cell stays inactive. (The local holding
the value was once declared after the branch that writes it: the kernel failed to
compile.) Taichi 1.7.4 gives the same values for the active cells; on inactive ones
its ``no_activate`` is a promise it does not check (its atomics there counted 0..3),
while here those writes are dropped, as ``passes/no_activate.py`` states."""

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_kept_old_values_of_shared_cells():
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32)
    y = ti.field(ti.i32)
    block = ti.root.pointer(ti.i, 8)
    block.dense(ti.i, 8).place(x, y)
    y[0] = 5  # activates block 0 (cells 0..7); block 4 (cells 32..39) stays inactive

    @ti.kernel
    def bump():
        ti.no_activate(y)
        for i in range(16):
            old = ti.atomic_add(y[i % 4], 1)  # 4 iterations per cell: not demoted
            x[i] += old
            gone = ti.atomic_add(y[32 + i % 4], 1)
            x[16 + i] += gone + 1

    bump()
    # cell c gets 4 increments from its start s: the old values s..s+3, in some order
    assert y.to_numpy()[:4].tolist() == [9, 4, 4, 4]
    assert x.to_numpy()[:16].sum() == (5 + 6 + 7 + 8) + 3 * (0 + 1 + 2 + 3)
    np.testing.assert_array_equal(x.to_numpy()[16:32], np.ones(16, np.float32))
    assert ti.is_active(block, 4) == 0 and y.to_numpy()[32:36].tolist() == [0, 0, 0, 0]
