"""Fields declared with ``offset=`` and ``order=`` on the CUDA backend (the SIMT emulator,
the device runtime on the fake driver, a real device): the offset is subtracted before
the plan's arithmetic, so results equal the CPU's."""

from sim_compare import assert_same

import ti_notebook as ti


def test_offset_and_order_fields_match_the_cpu(gpu):
    def build():
        x = ti.field(ti.i32, shape=(4, 3), offset=(-2, 5))
        v = ti.Vector.field(2, ti.f32, shape=6, offset=-3, order="i")
        c = ti.field(ti.f32, shape=(3, 4), order="ji", offset=(1, -1))
        s = ti.field(ti.f32)
        ti.root.pointer(ti.i, 2).bitmasked(ti.i, 4).place(s, offset=-4)

        @ti.kernel
        def run():
            for i, j in x:
                x[i, j] = i * 100 + j
            for i in v:
                v[i] = [i, -i]
            for i, j in c:
                c[i, j] = i * 10.0 + j
            for i in range(-4, 4):
                if i % 3 == 0:
                    s[i] = i + 0.5

        @ti.kernel
        def visited() -> ti.i32:
            total = 0
            for i in s:
                total += i
            return total

        run()
        c.from_numpy(c.to_numpy() + 1.0)
        return [x.to_numpy(), v.to_numpy(), c.to_numpy(), s.to_numpy(), visited(), x[1, 7]]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert expected[-1] == 107 and expected[1][0].tolist() == [-3.0, 3.0]
    # s's active cells: the bitmasked cells -3, 0, 3 in both pointer blocks
    assert expected[-2] == (-3 + 0 + 3)
    assert expected[3].tolist() == [0.0, -2.5, 0.0, 0.0, 0.5, 0.0, 0.0, 3.5]
