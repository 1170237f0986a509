"""make_thread_local: which reductions it rewrites, which it leaves, and that both agree.

Every kernel here is built twice, once with the pass on and once with
``ti.init(make_thread_local=False)``, and checked against NumPy both times.
"""

import numpy as np
import pytest
from tls_helpers import N, assert_fired, both, floats, ints, tls

import ti_notebook as ti

pytestmark = pytest.mark.cpu

# -- fires ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_sum_into_0d_field(dtype):
    data = floats() if dtype == "f32" else ints()

    def build():
        x = ti.field(getattr(ti, dtype), shape=N)
        s = ti.field(getattr(ti, dtype), shape=())
        x.from_numpy(data)

        @ti.kernel
        def total():
            for i in x:
                s[None] += x[i]

        total()
        return s[None], tls(total)

    results = both(build)
    assert_fired(results, [("s[None]", "add")])
    if dtype == "i32":
        assert results[True][0] == results[False][0] == int(data.sum())
    else:
        expected = float(data.astype(np.float64).sum())
        for value, _ in results.values():
            assert value == pytest.approx(expected, rel=1e-3, abs=1e-1)


def test_sub_and_mixed_add_sub():
    data = ints()

    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        d = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def reduce():
            for i in x:
                s[None] -= x[i]
                d[None] += x[i] * 3
                d[None] -= i % 7

        s[None] = 5
        d[None] = -2
        reduce()
        return (s[None], d[None]), tls(reduce)

    results = both(build)
    assert_fired(results, [("s[None]", "add"), ("d[None]", "add")])
    idx = np.arange(N, dtype=np.int64)
    expected = (5 - int(data.sum()), -2 + 3 * int(data.sum()) - int((idx % 7).sum()))
    assert results[True][0] == results[False][0] == expected


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_atomic_max_and_min(dtype):
    data = floats(seed=3) if dtype == "f32" else ints(seed=3)

    def build():
        x = ti.field(getattr(ti, dtype), shape=N)
        hi = ti.field(getattr(ti, dtype), shape=())
        lo = ti.field(getattr(ti, dtype), shape=())
        x.from_numpy(data)

        @ti.kernel
        def extremes():
            for i in x:
                ti.atomic_max(hi[None], x[i])
                ti.atomic_min(lo[None], x[i])

        hi[None] = -10_000  # below every value: the identity is the only thing kept
        lo[None] = 10_000
        extremes()
        return (hi[None], lo[None]), tls(extremes)

    results = both(build)
    assert_fired(results, [("hi[None]", "max"), ("lo[None]", "min")])
    assert results[True][0] == results[False][0] == (data.max(), data.min())


def test_max_keeps_the_initial_value_when_it_is_larger():
    def build():
        x = ti.field(ti.f32, shape=N)
        m = ti.field(ti.f32, shape=())
        x.from_numpy(floats())

        @ti.kernel
        def biggest():
            for i in x:
                ti.atomic_max(m[None], x[i])

        m[None] = 1e9
        biggest()
        return m[None], tls(biggest)

    results = both(build)
    assert_fired(results, [("m[None]", "max")])
    assert results[True][0] == results[False][0] == 1e9


def test_component_of_0d_vector_field():
    data = floats(seed=5)

    def build():
        x = ti.field(ti.f32, shape=N)
        v = ti.Vector.field(2, ti.f32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def by_index():
            for i in x:
                v[None][0] += x[i]
                v[None][1] -= 2 * x[i]

        @ti.kernel
        def by_name():
            for _i in x:
                v[None].y += 1.0

        by_index()
        by_name()
        return v[None].to_numpy(), tls(by_index) + tls(by_name)

    results = both(build)
    on = results[True][1]
    # Both components of by_index (an unused pointer to the other component made by
    # ``v[None][0]`` once kept them out), then .y in by_name.
    assert [r["operation"] for r in on] == ["add"] * 3
    assert len({r["destination"] for r in on}) == 2
    assert results[False][1] == []
    total = float(data.astype(np.float64).sum())
    for value, _ in results.values():
        np.testing.assert_allclose(value, [total, -2 * total + N], rtol=1e-3, atol=0.5)


def test_kernel_local_accumulator():
    data = ints(seed=7)

    def build():
        x = ti.field(ti.i32, shape=N)
        x.from_numpy(data)

        seen = ti.field(ti.i32, shape=N)

        @ti.kernel
        def total(start: ti.i32) -> ti.i32:
            acc = start
            for i in x:
                acc += x[i]
            for i in x:  # the next task sees the finished sum, every chunk's part in it
                seen[i] = acc
            return acc

        value = total(11)
        return (value, np.unique(seen.to_numpy()).tolist()), tls(total, 11)

    results = both(build)
    on = results[True][1]
    assert len(on) == 1 and on[0]["operation"] == "add"
    assert on[0]["task"] == 1  # task 0 is the serial code that sets acc
    assert results[False][1] == []
    expected = 11 + int(data.sum())
    assert results[True][0] == results[False][0] == (expected, [expected])


def test_kernel_local_float_accumulator():
    data = floats(seed=8)

    def build():
        x = ti.field(ti.f32, shape=N)
        x.from_numpy(data)

        @ti.kernel
        def total() -> ti.f32:
            acc = 0.0
            for i in x:
                acc += x[i]
            return acc

        return total(), tls(total)

    results = both(build)
    assert len(results[True][1]) == 1 and results[False][1] == []
    expected = float(data.astype(np.float64).sum())
    for value, _ in results.values():
        assert value == pytest.approx(expected, rel=1e-3, abs=1e-1)


def test_range_for_and_ndrange():
    data = ints(seed=9)

    def build():
        x = ti.field(ti.i32, shape=N)
        a = ti.field(ti.i32, shape=())
        b = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def ranged(n: ti.i32):
            for i in range(1, n):
                a[None] += x[i]
            for i, j in ti.ndrange((0, 7), 1000):
                ti.atomic_max(b[None], x[i * 1000 + j] + i)

        b[None] = -1 << 30
        ranged(N)
        report = ranged.stages(N)["report"]
        kinds = [report["tasks"][r["task"]]["kind"] for r in report["thread_local"]]
        return (a[None], b[None]), (report["thread_local"], kinds)

    results = both(build)
    fired, kinds = results[True][1]
    assert [(r["destination"], r["operation"]) for r in fired] == [
        ("a[None]", "add"),
        ("b[None]", "max"),
    ]
    assert kinds == ["range_for", "range_for"]
    assert fired[0]["task"] < fired[1]["task"]
    assert results[False][1] == ([], [])
    block = data[:7000].reshape(7, 1000) + np.arange(7)[:, None]
    assert results[True][0] == results[False][0] == (int(data[1:].sum()), int(block.max()))


def test_struct_for_over_a_sparse_field():
    def build():
        x = ti.field(ti.i32)
        ti.root.pointer(ti.i, 64).dense(ti.i, 32).place(x)
        s = ti.field(ti.i32, shape=())

        @ti.kernel
        def fill():
            for i in range(64 * 32):
                if i % 3 == 0 and (i // 32) % 4 != 1:  # a quarter of the blocks stay off
                    x[i] = i

        @ti.kernel
        def total():
            for i in x:
                s[None] += x[i] + 1

        fill()
        total()
        return s[None], tls(total)

    results = both(build)
    assert_fired(results, [("s[None]", "add")])
    # Every element of each activated 32-block is visited: ones where nothing was written
    # are 0 and still add 1.
    written = np.arange(0, 64 * 32, 3)
    written = written[(written // 32) % 4 != 1]
    active_blocks = len(np.unique(written // 32))
    expected = int(written.sum()) + active_blocks * 32
    assert results[True][0] == results[False][0] == expected


def test_nested_if_bodies_and_inner_loops():
    data = ints(seed=11)

    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        m = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def k(limit: ti.i32):
            for i in x:
                if x[i] > limit:
                    if i % 2 == 0:
                        s[None] += x[i]
                    else:
                        s[None] -= 1
                        for _ in range(3):
                            ti.atomic_min(m[None], x[i] - i)

        m[None] = 0
        k(100)
        return (s[None], m[None]), tls(k, 100)

    results = both(build)
    assert_fired(results, [("s[None]", "add"), ("m[None]", "min")])
    idx = np.arange(N)
    sel = data > 100
    even, odd = sel & (idx % 2 == 0), sel & (idx % 2 == 1)
    expected = (int(data[even].sum()) - int(odd.sum()), min(0, int((data - idx)[odd].min())))
    assert results[True][0] == results[False][0] == expected
