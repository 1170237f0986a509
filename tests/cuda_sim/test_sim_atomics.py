"""Atomics under contention on the GPU: thousands of threads into one cell (every op,
i32 and f32), histograms, and the old values atomics return.

Integer-valued data keeps float results exact in any order, so every comparison with
the CPU and NumPy is exact.
"""

import functools

import numpy as np
import pytest
from sim_compare import assert_same

import ti_notebook as ti

N = 3000  # threads: a few blocks of the default 128
ATOMICS = {
    "add": (ti.atomic_add, lambda start, v: start + v.sum()),
    "sub": (ti.atomic_sub, lambda start, v: start - v.sum()),
    "min": (ti.atomic_min, lambda start, v: min(start, v.min())),
    "max": (ti.atomic_max, lambda start, v: max(start, v.max())),
    "and": (ti.atomic_and, lambda start, v: functools.reduce(np.bitwise_and, v, start)),
    "or": (ti.atomic_or, lambda start, v: functools.reduce(np.bitwise_or, v, start)),
    "xor": (ti.atomic_xor, lambda start, v: functools.reduce(np.bitwise_xor, v, start)),
}
CASES = [(op, "i32") for op in ATOMICS] + [(op, "f32") for op in ("add", "sub", "min", "max")]


def _values(op: str, np_dtype) -> np.ndarray:
    rng = np.random.default_rng(len(op))
    if op in ("and", "or", "xor"):
        # and: mostly ones so the result is not simply 0; or: sparse bits
        bits = rng.integers(0, 31, size=N)
        ones = np.int64(0x7FFFFFFF)
        values = ones ^ (1 << bits) if op == "and" else (1 << bits) if op == "or" else bits * 977
        return (values & 0x7FFFFFFF).astype(np_dtype)
    return rng.integers(-1000, 1000, size=N).astype(np_dtype)


@pytest.mark.parametrize("op,dtype_name", CASES, ids=[f"{o}-{d}" for o, d in CASES])
@pytest.mark.parametrize("thread_local", [True, False], ids=["tls", "no_tls"])
def test_every_thread_into_one_cell(gpu, op, dtype_name, thread_local):
    dtype, np_dtype = (ti.i32, np.int32) if dtype_name == "i32" else (ti.f32, np.float32)
    atomic, reference = ATOMICS[op]
    values = _values(op, np_dtype)
    start = np_dtype(0x7FFFFFFF if op == "and" else 5)

    def build():
        src = ti.field(dtype, shape=N)
        cell = ti.field(dtype, shape=())  # a scalar: what thread-local reduction takes
        src.from_numpy(values)

        @ti.kernel
        def hammer():
            for i in src:
                atomic(cell[None], src[i])

        cell[None] = start
        hammer()
        return cell[None]

    expected, actual = gpu.against_cpu(build, make_thread_local=thread_local)
    assert actual == expected == reference(start, values)


def test_contended_cells_of_a_histogram(gpu):
    values = np.random.default_rng(2).integers(0, 1 << 20, size=N).astype(np.int32)

    def build():
        src = ti.field(ti.i32, shape=N)
        bins = ti.field(ti.i32, shape=7)
        weights = ti.field(ti.f32, shape=7)
        src.from_numpy(values)

        @ti.kernel
        def histogram():
            for i in src:
                b = src[i] % 7
                bins[b] += 1
                weights[b] -= 0.5
                ti.atomic_max(bins[0], 0)  # contention on a cell others add into

        histogram()
        return bins.to_numpy(), weights.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    counts = np.bincount(values % 7, minlength=7)
    assert_same(counts.astype(np.int32), actual[0])
    assert_same((-0.5 * counts).astype(np.float32), actual[1])


def test_atomic_add_returns_each_thread_a_distinct_old_value(gpu):
    def build():
        counter = ti.field(ti.i32, shape=())
        ticket = ti.field(ti.i32, shape=N)

        @ti.kernel
        def take():
            for i in ticket:
                ticket[i] = ti.atomic_add(counter[None], 1)

        take()
        return np.sort(ticket.to_numpy()), counter[None]

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    assert_same(np.arange(N, dtype=np.int32), actual[0])  # a permutation: no ticket twice
    assert actual[1] == N


def test_old_values_of_max_and_sub_under_contention(gpu):
    def build():
        high = ti.field(ti.i32, shape=())
        budget = ti.field(ti.f32, shape=())
        raised = ti.field(ti.i32, shape=())
        olds = ti.field(ti.f32, shape=N)

        @ti.kernel
        def race():
            for i in olds:
                if ti.atomic_max(high[None], i) < i:
                    raised[None] += 1
                olds[i] = ti.atomic_sub(budget[None], 2.0)

        budget[None] = 2.0 * N
        race()
        return high[None], raised[None] >= 1, budget[None], np.sort(olds.to_numpy())

    expected, actual = gpu.against_cpu(build)
    assert actual[:3] == expected[:3] == (N - 1, True, 0.0)
    assert_same(expected[3], actual[3])
    assert_same(2.0 * np.arange(1, N + 1, dtype=np.float32), actual[3])


@pytest.mark.parametrize("dtype_name", ["i64", "f64", "u32"])
def test_wide_and_unsigned_atomics(gpu, dtype_name):
    dtype = getattr(ti, dtype_name)
    np_dtype = {"i64": np.int64, "f64": np.float64, "u32": np.uint32}[dtype_name]
    values = np.random.default_rng(7).integers(0, 1 << 20, size=N).astype(np_dtype)
    if dtype_name == "i64":
        values *= 1 << 20  # past 32 bits

    def build():
        src = ti.field(dtype, shape=N)
        out = ti.field(dtype, shape=3)
        src.from_numpy(values)

        @ti.kernel
        def combine():
            for i in src:
                out[0] += src[i]
                ti.atomic_max(out[1], src[i])
                ti.atomic_min(out[2], src[i])

        out[2] = values.max()
        combine()
        return out.to_numpy()

    expected, actual = gpu.against_cpu(build)
    assert_same(expected, actual)
    want = np.array([values.sum(), values.max(), values.min()]).astype(np_dtype)
    assert_same(want, actual)


def test_atomics_on_a_kernel_local_in_serial_code(gpu):
    def build():
        @ti.kernel
        def locals_(a: ti.i32) -> ti.i32:
            x = 10
            old = ti.atomic_add(x, a)
            old2 = ti.atomic_min(x, 3)
            return old * 10000 + old2 * 100 + x

        return locals_(7), locals_(-20)

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == (10 * 10000 + 17 * 100 + 3, 10 * 10000 - 10 * 100 - 10)
