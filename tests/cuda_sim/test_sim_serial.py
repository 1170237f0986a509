"""Serial tasks on the GPU (one thread of one block): code outside loops, return
values, serialised loops, and several tasks in a row handing values to each other
through the launch context's temporaries."""

import numpy as np
import pytest
from sim_compare import assert_same, task_launches

import ti_notebook as ti


def test_code_outside_loops_runs_once_on_one_thread(gpu):
    def build():
        x = ti.field(ti.i32, shape=4)

        @ti.kernel
        def serial(a: ti.i32):
            x[0] += a
            x[1] = x[0] * 2
            if a > 3:
                x[2] = 1
            else:
                x[3] = 1

        serial(5)
        serial(2)
        return x.to_numpy(), task_launches(serial)

    (expected, _), (actual, launches) = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert actual.tolist() == [7, 14, 1, 1]
    (launch,) = launches
    assert (launch["kind"], launch["block_dim"], launch["grid_dim"]) == ("serial", 1, 1)


@pytest.mark.parametrize(
    "dtype_name,args,expect",
    [("i32", (7, -3), -21), ("i64", (2**33, 3), 3 * 2**33), ("f32", (1.5, 0.25), 0.375)],
)
def test_return_values(gpu, dtype_name, args, expect):
    dtype = getattr(ti, dtype_name)

    def build():
        @ti.kernel
        def product(a: dtype, b: dtype) -> dtype:
            return a * b

        return product(*args)

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == expect


def test_f64_return_after_a_loop(gpu):
    def build():
        @ti.kernel
        def series(n: ti.i32) -> ti.f64:
            s = 0.0
            for k in range(n):
                s += 1.0 / ((k + 1.0) * (k + 1.0))
            return s

        return series(2000)

    expected, actual = gpu.against_cpu(build, default_fp=ti.f64)
    assert actual == pytest.approx(expected, rel=1e-13)
    assert actual == pytest.approx(np.sum(1.0 / np.arange(1, 2001) ** 2), rel=1e-13)


def test_tasks_in_sequence_pass_values(gpu):
    def build():
        x = ti.field(ti.f32, shape=500)
        out = ti.field(ti.f32, shape=500)

        @ti.kernel
        def pipeline(scale: ti.f32) -> ti.f32:
            offset = scale * 2  # serial
            for i in x:  # parallel, reads a value the serial task computed
                x[i] = i * scale + offset
            total = 0.0
            for i in x:  # a reduction into a local
                total += x[i]
            mean = total / 500  # serial again
            for i in out:
                out[i] = x[i] - mean
            return mean

        mean = pipeline(0.5)
        kinds = [launch["kind"] for launch in task_launches(pipeline) or []]
        return mean, out.to_numpy(), kinds

    (mean_cpu, out_cpu, _), (mean, out, kinds) = gpu.against_cpu(build)
    assert mean == mean_cpu == pytest.approx(np.arange(500).mean() * 0.5 + 1.0, rel=1e-6)
    assert_same(out_cpu, out)
    assert kinds.count("struct_for") == 3 and kinds[-1] == "serial"  # mean, the return


def test_serialised_loop_keeps_its_order(gpu):
    def build():
        x = ti.field(ti.i32, shape=200)
        running = ti.field(ti.i32, shape=200)

        @ti.kernel
        def prefix_sum():
            ti.loop_config(serialize=True)
            for i in range(1, 200):
                running[i] = running[i - 1] + x[i]

        x.from_numpy(np.arange(200, dtype=np.int32) % 9)
        prefix_sum()
        return running.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    want = np.cumsum(np.arange(200) % 9)
    want -= want[0]
    assert_same(want.astype(np.int32), actual)


def test_break_in_a_serialised_loop(gpu):
    def build():
        x = ti.field(ti.i32, shape=100)

        @ti.kernel
        def first_over(limit: ti.i32) -> ti.i32:
            found = -1
            ti.loop_config(serialize=True)
            for i in range(100):
                if x[i] > limit:
                    found = i
                    break
            return found

        x.from_numpy((np.arange(100) * 37 % 101).astype(np.int32))
        return first_over(90), first_over(1000)

    expected, actual = gpu.against_cpu(build)
    values = np.arange(100) * 37 % 101
    assert actual == expected == (int(np.argmax(values > 90)), -1)


def test_inner_loops_and_while_in_each_thread(gpu):
    def build():
        steps = ti.field(ti.i32, shape=300)
        table = ti.field(ti.i32, shape=(300, 4))

        @ti.kernel
        def collatz():
            for i in steps:
                n = i + 1
                count = 0
                while n != 1:
                    n = n // 2 if n % 2 == 0 else 3 * n + 1
                    count += 1
                steps[i] = count
                for k in range(4):
                    if k == 2:
                        continue
                    table[i, k] = count * k

        collatz()
        return steps.to_numpy(), table.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)

    def length(n):
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        return count

    assert actual[0].tolist() == [length(i + 1) for i in range(300)]
    assert (actual[1][:, 2] == 0).all()


def test_many_launches_of_one_kernel_accumulate(gpu):
    def build():
        x = ti.field(ti.f32, shape=256)

        @ti.kernel
        def step(k: ti.i32):
            for i in x:
                x[i] = x[i] * 0.5 + k

        for k in range(20):
            step(k)
        return x.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    value = np.float32(0)
    for k in range(20):
        value = np.float32(value * 0.5 + k)
    assert (actual == value).all()
