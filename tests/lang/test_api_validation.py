"""Invalid arguments to the Python API are errors naming what to write instead, never
silently accepted (a truncated shape, a dtype of None, a mistyped ti.init option)."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook import errors

pytestmark = pytest.mark.cpu


@pytest.mark.parametrize("shape", [(2.5,), 2.5, (4, "8"), (True,), (np.float32(3),)])
def test_non_integer_shapes_are_type_errors(shape):
    with pytest.raises(errors.TiTypeError, match="is not an integer"):
        ti.field(ti.f32, shape=shape)


@pytest.mark.parametrize("shape", [(0,), (4, -1)])
def test_non_positive_shapes_are_value_errors(shape):
    with pytest.raises(errors.TiValueError, match="positive"):
        ti.field(ti.f32, shape=shape)


def test_numpy_integer_shapes_are_accepted():
    x = ti.field(ti.i32, shape=(np.int64(3), np.int32(2)))
    assert x.shape == (3, 2)


def test_snode_extents_are_checked_too():
    with pytest.raises(errors.TiTypeError, match="is not an integer"):
        ti.root.dense(ti.i, 2.5)
    with pytest.raises(errors.TiTypeError):
        ti.Vector.field(2, ti.f32, shape=(1.5, 2))


def test_field_of_none_is_an_error():
    with pytest.raises(errors.TiTypeError, match="None is not a type"):
        ti.field(None, shape=3)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("debug", "no"),
        ("offline_cache_file_path", 123),
        ("random_seed", "x"),
        ("random_seed", 1.5),
        ("cpu_max_num_threads", True),
        ("offline_cache", "yes"),
        ("offline_cache_max_size_of_files", "big"),
    ],
)
def test_mistyped_init_options_are_type_errors(option, value):
    with pytest.raises(errors.TiTypeError) as info:
        ti.init(arch=ti.cpu, **{option: value})
    assert option in str(info.value) and "hint: e.g. ti.init(" in str(info.value)
    ti.init(arch=ti.cpu)  # and the process goes on


def test_path_like_cache_path_is_accepted(tmp_path):
    ti.init(arch=ti.cpu, offline_cache_file_path=tmp_path)
    assert ti.session.config.current().offline_cache_file_path == str(tmp_path)


def test_read_only_array_passed_where_the_kernel_writes_is_refused():
    @ti.kernel
    def write(a: ti.types.ndarray()):
        for i in range(a.shape[0]):
            a[i] = 5

    array = np.zeros(4, np.int32)
    array.flags.writeable = False
    with pytest.raises(errors.TiValueError, match="read-only") as info:
        write(array)
    assert "argument 'a'" in str(info.value)
    np.testing.assert_array_equal(array, 0)
    writable = np.zeros(4, np.int32)
    write(writable)
    np.testing.assert_array_equal(writable, 5)


def test_read_only_array_is_fine_where_the_kernel_only_reads():
    total = ti.field(ti.i32, shape=())

    @ti.kernel
    def read(a: ti.types.ndarray()):
        for i in range(a.shape[0]):
            total[None] += a[i]

    array = np.arange(4, dtype=np.int32)
    array.flags.writeable = False
    read(array)
    assert total[None] == 6


def test_atomic_through_a_func_counts_as_a_write():
    @ti.func
    def bump(a: ti.template(), i):
        ti.atomic_add(a[i], 1)

    @ti.kernel
    def through_func(a: ti.types.ndarray()):
        for i in range(a.shape[0]):
            bump(a, i)

    array = np.zeros(3, np.int32)
    array.flags.writeable = False
    with pytest.raises(errors.TiValueError, match="read-only"):
        through_func(array)
    assert through_func.stages(np.zeros(3, np.int32))["report"]["written_arguments"] == ["a"]
