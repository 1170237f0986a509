"""The call fast path of kernels with ndarray arguments: same results as the first
(specialising) call, a new dtype or rank specialises again, every check still runs once
the path is warm, and the kernel's own generated ``__call__`` keeps every behaviour of a
call (threads, Tape, grad kernels, the profiler, a new session)."""

import threading

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError, TiValueError
from ti_notebook.runtime.cpu import array_args
from ti_notebook.session.fast_calls import NdarrayDispatch

pytestmark = pytest.mark.cpu


def _saxpy():
    @ti.kernel
    def saxpy(a: ti.f32, x: ti.types.ndarray(ndim=1), y: ti.types.ndarray(ndim=1)):
        for i in range(x.shape[0]):
            y[i] = a * x[i] + y[i]

    return saxpy


def test_warm_calls_take_the_dispatch_and_match_numpy():
    saxpy = _saxpy()
    x, y = np.arange(16, dtype=np.float32), np.ones(16, np.float32)
    saxpy(0.5, x, y)
    assert isinstance(saxpy._fast, NdarrayDispatch)
    for _ in range(3):
        saxpy(2.0, x, y)
    np.testing.assert_allclose(y, 1 + 0.5 * x + 6.0 * x)


def test_new_dtype_or_rank_specialises_again():
    saxpy = _saxpy()
    x32, y32 = np.ones(4, np.float32), np.zeros(4, np.float32)
    x64, y64 = np.ones(4, np.float64), np.zeros(4, np.float64)
    saxpy(1.0, x32, y32)
    saxpy(1.0, x64, y64)  # f64: a second specialisation
    saxpy(1.0, x32, y32)  # back to the first
    saxpy(3, x64, y64)  # an int for the f32 scalar: the checked path converts it
    assert y32.tolist() == [2.0] * 4 and y64.tolist() == [4.0] * 4
    assert len(saxpy._fast.launchers) == 2


def test_checks_still_run_when_warm():
    saxpy = _saxpy()
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    saxpy(1.0, x, y)
    with pytest.raises(TiValueError, match="not C-contiguous"):
        saxpy(1.0, x, np.zeros(16, np.float32)[::2])
    frozen = np.zeros(8, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TiValueError, match="read-only"):
        saxpy(1.0, x, frozen)
    with pytest.raises(TiTypeError, match="NumPy array"):
        saxpy(1.0, x, [0.0] * 8)
    with pytest.raises(TiTypeError, match="argument"):
        saxpy(1.0, x)
    with pytest.raises(TiTypeError, match="must be a number"):
        saxpy("a", x, y)
    saxpy(1.0, x, y)  # and it still works afterwards
    assert y.tolist() == [2.0] * 8


def test_fixed_dtype_annotation_refuses_another_dtype_when_warm():
    @ti.kernel
    def bump(a: ti.types.ndarray(ti.i32, ndim=1)):
        for i in range(a.shape[0]):
            a[i] += 1

    a = np.zeros(3, np.int32)
    bump(a)
    bump(a)
    with pytest.raises(TiValueError, match="must have dtype i32"):
        bump(np.zeros(3, np.float32))
    assert a.tolist() == [2, 2, 2]


@pytest.mark.parametrize("shape", [(1,), (5,), (2, 3, 4)])
def test_any_rank(shape):
    @ti.kernel
    def total(a: ti.types.ndarray()) -> ti.f64:
        s = 0.0
        for idx in ti.grouped(a):
            s += a[idx]
        return s

    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 1
    assert total(a) == pytest.approx(a.sum())
    assert total(a * 2) == pytest.approx(2 * a.sum())


def test_ti_ndarray_and_vector_ndarrays_take_the_long_way():
    @ti.kernel
    def fill(a: ti.types.ndarray(dtype=ti.math.vec3, ndim=1)):
        for i in range(a.shape[0]):
            a[i] = ti.Vector([i, 2 * i, 3 * i])

    v = np.zeros((4, 3), np.float32)
    fill(v)
    fill(v)
    assert v[3].tolist() == [3.0, 6.0, 9.0]
    saxpy = _saxpy()
    x = ti.ndarray(ti.f32, 4)
    y = ti.ndarray(ti.f32, 4)
    x.fill(1.0)
    saxpy(2.0, x, y)
    saxpy(2.0, x, y)
    assert y.to_numpy().tolist() == [4.0] * 4


def test_a_warm_kernel_is_called_in_its_own_generated_call():
    saxpy = _saxpy()
    x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    saxpy(1.0, x, y)
    assert type(saxpy) is not ti.Kernel and isinstance(saxpy, ti.Kernel)
    assert type(saxpy).__call__.__code__.co_filename.startswith("<ti_notebook __call__")
    saxpy(a=1.0, x=x, y=y)  # keywords: the kernel class's __call__ binds them
    assert y.tolist() == [2.0] * 4
    with pytest.raises(TiTypeError, match="saxpy"):
        saxpy(1.0, x, y, y)
    with pytest.raises(TiTypeError, match="saxpy"):
        saxpy(1.0, x, z=y)


def test_wrong_arrays_raise_the_clear_error_when_warm():
    @ti.kernel
    def copy(dst: ti.types.ndarray(ti.f32, ndim=1), src: ti.types.ndarray(ti.f32, ndim=1)):
        for i in range(dst.shape[0]):
            dst[i] = src[i]

    dst, src = np.zeros(4, np.float32), np.arange(4, dtype=np.float32)
    copy(dst, src)
    copy(dst, src)
    with pytest.raises(TiValueError, match="argument 'src'"):
        copy(dst, np.zeros((2, 2), np.float32))  # another rank
    with pytest.raises(TiValueError, match="argument 'dst'") as caught:
        copy(np.zeros(4, np.float64), src)  # another dtype
    assert "copy" in str(caught.value)  # located at the kernel's definition
    with pytest.raises(TiTypeError, match="argument 'src'"):
        copy(dst, None)
    with pytest.raises(TiTypeError, match="copy"):
        copy(dst)

    class Sub(np.ndarray):
        pass

    dst[:] = 0
    copy(dst.view(Sub), src)  # a subclass: the checked path takes it
    assert dst.tolist() == [0.0, 1.0, 2.0, 3.0]
    copy(dst, src * 2)  # and the fast path still works after every refusal
    assert dst.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_calls_from_several_threads_at_once_each_get_their_own_result():
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def weighted(a: ti.types.ndarray(ti.f64, ndim=1), w: float) -> ti.f64:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * w
        return s

    arrays = [np.full(4096 + k, float(k + 1)) for k in range(4)]
    weighted(arrays[0], 1.0)
    wrong, errors = [], []
    start = threading.Barrier(4)

    def worker(k: int) -> None:
        try:
            a = arrays[k]
            start.wait()
            for n in range(2000):
                w = float(n % 7)
                if weighted(a, w) != a.sum() * w:  # each launch's own arguments and result
                    wrong.append((k, n))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wrong == []


def test_configure_a_new_session_and_reset_drop_the_generated_call():
    @ti.kernel
    def add(a: ti.types.ndarray(ti.i32, ndim=1), v: ti.i32):
        for i in range(a.shape[0]):
            a[i] += v

    a = np.zeros(4, np.int32)
    add(a, 1)
    assert type(add) is not ti.Kernel
    add.configure(serialize=True)
    assert type(add) is ti.Kernel and "__call__" not in add._own_class.__dict__
    add(a, 1)
    assert type(add) is not ti.Kernel
    ti.init(arch=ti.cpu)  # a new session: the old code must not run
    add(a, 1)
    assert a.tolist() == [3] * 4
    ti.reset()
    assert type(add) is ti.Kernel
    ti.init(arch=ti.cpu)
    add(a, 2)
    assert a.tolist() == [5] * 4


def test_a_tape_records_and_grad_kernels_run_their_own_code_when_warm():
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def energy(k: ti.f64):
        for i in x:
            loss[None] += k * x[i] * x[i]

    x.from_numpy(np.arange(4.0))
    energy(1.0)
    energy(1.0)  # warm: the generated call is installed
    loss[None] = 0.0
    with ti.ad.Tape(loss=loss):
        energy(3.0)
    assert loss[None] == 3.0 * 14.0
    assert x.grad.to_numpy().tolist() == [0.0, 6.0, 12.0, 18.0]
    x.grad.fill(0.0)
    loss.grad[None] = 1.0
    energy.grad(0.5)  # the grad kernel, not the kernel's own generated call
    assert loss[None] == 3.0 * 14.0
    assert x.grad.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_the_profiler_records_warm_ndarray_launches():
    ti.init(arch=ti.cpu, kernel_profiler=True)
    saxpy = _saxpy()
    x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    for _ in range(5):
        saxpy(1.0, x, y)
    assert y.tolist() == [5.0] * 4
    assert ti.profiler.query_kernel_profiler_info("saxpy").counter == 5


def test_without_the_native_array_reader_the_python_checks_take_over(monkeypatch):
    monkeypatch.setattr(array_args, "_functions", ())
    assert not array_args.available()
    saxpy = _saxpy()
    x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    for _ in range(3):
        saxpy(2.0, x, y)
    assert y.tolist() == [6.0] * 4
    assert "launch_arrays" not in type(saxpy).__call__.__code__.co_names
    with pytest.raises(TiValueError, match="not C-contiguous"):
        saxpy(1.0, x, np.zeros(8, np.float32)[::2])


def test_a_redefined_kernel_runs_its_own_code():
    def define(value: int):
        @ti.kernel
        def put(a: ti.types.ndarray(ti.i32, ndim=1)):
            a[0] = value

        return put

    a = np.zeros(1, np.int32)
    first = define(1)
    first(a)
    first(a)
    second = define(2)  # a re-run cell: the same name, other code
    second(a)
    second(a)
    assert a[0] == 2
    first(a)
    assert a[0] == 1
    assert type(first) is not type(second)
