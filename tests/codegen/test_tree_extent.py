"""A tree's base pointer tells LLVM how many bytes after it are readable (the largest
``FieldLayout.end`` of the fields a function reads there) and its alignment, so LLVM may
speculate a field load that sits under a condition (codegen/function.py)."""

import re

import numpy as np
import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def test_the_base_load_says_how_far_it_is_readable():
    ti.init(arch=ti.cpu)
    small, big = ti.field(ti.f32), ti.field(ti.f32)
    ti.root.dense(ti.i, 16).place(small)
    ti.root.dense(ti.i, 64).place(big)  # another dense node of the same tree, after small

    @ti.kernel
    def copy():
        for i in range(16):
            small[i] = big[i * 4]

    copy()
    text = copy.stages()["llvm"]
    sizes = {int(n) for n in re.findall(r"!\{\s*i64 (\d+)\s*\}", text)}
    loads = re.findall(r"load ptr, ptr %\S+, !dereferenceable ![0-9]+, !align", text)
    assert loads, "the tree's base load carries !dereferenceable and !align"
    assert big.layout().end in sizes and big.layout().end > small.layout().end
    assert 64 in sizes  # the alignment promised


def test_only_tree_bases_carry_the_promise():
    ti.init(arch=ti.cpu)
    x = ti.field(ti.f32, 8)

    @ti.kernel
    def total() -> ti.f32:
        s = 0.0
        for i in range(8):
            s += x[i]
        return s

    total()
    assert "!dereferenceable" in total.stages()["llvm"]
    ti.init(arch=ti.cpu)

    @ti.kernel
    def nothing(a: ti.types.ndarray()):
        for i in range(a.shape[0]):
            a[i] = 1.0

    nothing(np.zeros(4, np.float32))
    assert "!dereferenceable" not in nothing.stages()["llvm"]  # no tree: no promise
