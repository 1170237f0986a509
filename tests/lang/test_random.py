"""``ti.random`` and ``ti.randn``: distributions, streams that never repeat, seeds.

The generator is Philox-4x32-10 keyed by seed, kernel, launch, loop iteration and call
site (``ti_notebook/runtime/random_streams.py``). Unlike Taichi's per-thread
generators, the numbers do not depend on the thread count or chunking, so those tests
compare exactly. Processes and the offline cache: ``tests/cache/test_cache_random.py``.
"""

import inspect
import math

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError
from ti_notebook.ir import philox as rs

pytestmark = pytest.mark.cpu

MILLION = 1 << 20
BINS = 128  # divides every integer type's range exactly


def _chi_square_limit(dof: int) -> float:
    """About 5.5 standard deviations above the mean: P(chi2 > limit) < 1e-6."""
    return dof + 5.5 * math.sqrt(2 * dof)


def _fill_kernel(field, dtype=float, normal=False):
    @ti.kernel
    def fill():
        for i in field:
            if ti.static(normal):
                field[i] = ti.randn(dtype)
            else:
                field[i] = ti.random(dtype)

    return fill


def _chi_square(values: np.ndarray, bins: int, low: float, high: float) -> float:
    counts, _ = np.histogram(values, bins=bins, range=(low, high))
    expected = len(values) / bins
    return float(((counts - expected) ** 2 / expected).sum())


# -- distributions ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_uniform_moments_and_chi_square(dtype):
    r = ti.field(dtype, shape=MILLION)
    _fill_kernel(r, dtype)()
    a = r.to_numpy().astype(np.float64)
    assert a.min() >= 0.0 and a.max() < 1.0
    # the mean's standard error is 0.29 / 1024; the variance's about 0.075 / 1024
    assert abs(a.mean() - 0.5) < 5 * 0.2887 / 1024
    assert abs(a.var() - 1 / 12) < 5 * 0.075 / 1024
    assert _chi_square(a, BINS, 0.0, 1.0) < _chi_square_limit(BINS - 1)
    # neighbours are independent: lag-1 correlation about 0 (standard error 1/1024)
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 5 / 1024
    as_f32 = a.astype(np.float32).astype(np.float64)
    assert np.all(as_f32 == a) == (dtype == ti.f32)  # f64 uses 53 bits


def test_default_type_is_default_fp():
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    r = ti.field(ti.f64, shape=4096)
    _fill_kernel(r)()
    a = r.to_numpy()
    assert not np.all(a.astype(np.float32).astype(np.float64) == a)


@pytest.mark.parametrize(
    "dtype, low, high",
    [
        (ti.i8, -128, 127),
        (ti.u8, 0, 255),
        (ti.i16, -(1 << 15), (1 << 15) - 1),
        (ti.u16, 0, (1 << 16) - 1),
        (ti.i32, -(1 << 31), (1 << 31) - 1),
        (ti.u32, 0, (1 << 32) - 1),
        (ti.i64, -(1 << 63), (1 << 63) - 1),
        (ti.u64, 0, (1 << 64) - 1),
    ],
)
def test_integers_cover_their_whole_range(dtype, low, high):
    r = ti.field(dtype, shape=1 << 18)
    _fill_kernel(r, dtype)()
    a = r.to_numpy()
    span = float(high) - float(low) + 1
    # equal bins over the type's range (powers of two, so exact as floats)
    chi2 = _chi_square(a.astype(np.float64), BINS, float(low), float(high) + 1)
    assert chi2 < _chi_square_limit(BINS - 1)
    assert a.astype(np.float64).min() < low + span / 100
    assert a.astype(np.float64).max() > high - span / 100
    # as many distinct values as ideal draws give, to within 6 standard deviations
    values, n, distinct = 2.0**dtype.bits, len(a), len(np.unique(a))
    if dtype.bits <= 16:  # occupancy: N (1 - e^-(n/N)) values seen
        empty = math.exp(-n / values)
        sd = math.sqrt(values * empty * (1 - (1 + n / values) * empty))
        assert abs(distinct - values * (1 - empty)) <= 6 * sd
    else:  # birthday collisions: about n^2 / 2N of them
        collisions = n * n / (2 * values)
        assert n - distinct <= collisions + 6 * math.sqrt(collisions) + 1


@pytest.mark.parametrize("dtype", [ti.f32, ti.f64])
def test_randn_is_standard_normal(dtype):
    r = ti.field(dtype, shape=MILLION)
    _fill_kernel(r, dtype, normal=True)()
    a = r.to_numpy().astype(np.float64)
    assert np.isfinite(a).all()
    assert abs(a.mean()) < 5 / 1024
    assert abs(a.var() - 1.0) < 5 * math.sqrt(2) / 1024
    assert abs(np.mean(np.abs(a) < 1.0) - 0.682689) < 0.003
    assert abs(np.mean(np.abs(a) < 2.0) - 0.954500) < 0.002
    assert abs(np.mean(a**3)) < 0.02 and abs(np.mean(a**4) - 3.0) < 0.05  # skew, kurtosis


def test_randn_default_and_dt_keyword():
    r = ti.field(ti.f32, shape=3)

    @ti.kernel
    def draw():
        r[0] = ti.randn()
        r[1] = ti.randn(dt=ti.f32)
        r[2] = ti.randn(float)

    draw()
    a = r.to_numpy()
    assert len(set(a.tolist())) == 3 and np.isfinite(a).all()


# -- streams ---------------------------------------------------------------------------


def _launches(kernel, field, count: int) -> np.ndarray:
    rows = []
    for _ in range(count):
        kernel()
        rows.append(field.to_numpy())
    return np.array(rows)


def test_no_two_launches_share_numbers():
    r = ti.field(ti.i64, shape=1024)
    rows = _launches(_fill_kernel(r, ti.i64), r, 64)
    # 65536 draws of 64 bits: any repeat is a shared stream, not chance
    assert len(np.unique(rows)) == rows.size
    f = ti.field(ti.f32, shape=4096)
    floats = _launches(_fill_kernel(f), f, 8).astype(np.float64)
    for k in range(7):  # consecutive launches (2k and 2k+1 used to repeat) are unrelated
        assert abs(np.corrcoef(floats[k], floats[k + 1])[0, 1]) < 5 / 64


def test_different_kernels_and_specialisations_draw_different_numbers():
    a = ti.field(ti.i64, shape=512)
    b = ti.field(ti.i64, shape=512)

    @ti.kernel
    def first():
        for i in a:
            a[i] = ti.random(ti.i64)

    @ti.kernel
    def second():
        for i in a:
            a[i] = ti.random(ti.i64)

    @ti.kernel
    def into(x: ti.template()):
        for i in x:
            x[i] = ti.random(ti.i64)

    first()
    got = [a.to_numpy()]
    second()
    got.append(a.to_numpy())
    into(a)
    into(b)  # same code, another specialisation: a stream of its own
    got += [a.to_numpy(), b.to_numpy()]
    every = np.concatenate(got)
    assert len(np.unique(every)) == every.size


# Sizes for _seeded_draws: the struct-for and ndrange are over two chunks of the
# smallest grain (4096), so two threads really share them without a block_dim.
FLAT, GRID, INNER = 20_000, (100, 90), (40, 7)


def _seeded_draws(seed: int | None, threads: int = 0, block_dim: int | None = None):
    """Three launches of kernels covering every place a draw can be, as one array."""
    options = {} if seed is None else {"random_seed": seed}
    ti.init(arch=ti.cpu, cpu_max_num_threads=threads, **options)
    flat = ti.field(ti.f64, shape=FLAT)
    grid = ti.field(ti.f32, shape=GRID)
    inner = ti.field(ti.u32, shape=INNER)
    serial = ti.field(ti.f32, shape=5)

    @ti.func
    def pair():
        return ti.random(ti.f64) - ti.random(ti.f64)

    @ti.kernel
    def everywhere():
        for i in flat:  # struct-for
            flat[i] = pair() + ti.randn(ti.f64)
        for i, j in ti.ndrange(GRID[0], GRID[1]):
            grid[i, j] = ti.random()
        for i in range(INNER[0]):
            for j in range(INNER[1]):  # nested serial loop in a parallel one
                inner[i, j] = ti.random(ti.u32)
        serial[0] = ti.random()  # serial code
        ti.loop_config(serialize=True)
        for k in range(1, 5):
            serial[k] = ti.random()

    if block_dim is not None:
        everywhere.configure(block_dim=block_dim)
    rows = []
    for _ in range(3):
        everywhere()
        parts = (flat, grid, inner, serial)
        rows.append(np.concatenate([p.to_numpy().ravel().astype(np.float64) for p in parts]))
    return np.array(rows)


def test_same_seed_same_numbers_whatever_threads_and_chunks():
    one = _seeded_draws(5, threads=1)
    assert np.array_equal(one, _seeded_draws(5, threads=2))
    assert np.array_equal(one, _seeded_draws(5, threads=2, block_dim=7))
    assert np.array_equal(one, _seeded_draws(5, threads=1, block_dim=1))
    ti.reset()
    assert np.array_equal(one, _seeded_draws(5, threads=2))  # and after ti.reset()


def test_seeds_change_the_numbers_and_default_seed_is_zero():
    zero = _seeded_draws(0)
    assert np.array_equal(zero, _seeded_draws(None))
    other = _seeded_draws(1)
    assert np.mean(other == zero) < 0.01


def test_draws_inside_loops_and_funcs_are_all_distinct():
    rows = _seeded_draws(3)
    start = FLAT + math.prod(GRID)
    inner = rows[:, start : start + math.prod(INNER)]  # the u32 draws of the nested loop
    assert len(np.unique(inner)) == inner.size
    serial = rows[:, -5:]
    assert len(np.unique(serial)) == serial.size


def test_generated_code_matches_the_reference_philox():
    """The scheme itself: launch, loop index, site and nested-loop count, as documented."""
    out = ti.field(ti.u32, shape=(6, 3))

    @ti.kernel
    def draws():
        for i in range(6):
            out[i, 0] = ti.random(ti.u32)  # site 0
            for j in range(1, 3):
                out[i, j] = ti.random(ti.u32)  # site 1, count j - 1

    draws()
    draws()
    stream = draws.compiled_for(())[0].launcher.random_stream
    expected = [
        [rs.block(stream, 1, i, 0)[0]] + [rs.block(stream, 1, i, 1, j - 1)[0] for j in (1, 2)]
        for i in range(6)
    ]
    assert out.to_numpy().tolist() == expected


def test_python_scope_random_and_randn():
    assert 0.0 <= ti.random() < 1.0
    assert isinstance(ti.randn(), float)


# -- errors ----------------------------------------------------------------------------


def _bad_string() -> ti.f32:
    return ti.random("f32")


def _bad_str_type() -> ti.f32:
    return ti.random(str)


def _bad_value() -> ti.f32:
    v = 1.5
    return ti.random(v)


def _bad_number() -> ti.f32:
    return ti.random(3)


def _bad_two_types() -> ti.f32:
    return ti.random(ti.f32, ti.f64)


def _bad_keyword() -> ti.f32:
    return ti.random(kind=ti.f32)


def _bad_int_normal() -> ti.f32:
    return ti.randn(ti.i32)


def _bad_numpy_int_normal() -> ti.f32:
    return ti.randn(np.int64)


@pytest.mark.parametrize(
    "function, words",
    [
        (_bad_string, "takes a type"),
        (_bad_str_type, "takes a type"),
        (_bad_value, "takes a type"),
        (_bad_number, "takes a type"),
        (_bad_two_types, "one optional argument"),
        (_bad_keyword, "one optional argument"),
        (_bad_int_normal, "draws floats"),
        (_bad_numpy_int_normal, "draws floats"),
    ],
)
def test_bad_arguments_are_type_errors_with_the_line(function, words):
    lines, first = inspect.getsourcelines(function)
    lineno = first + len(lines) - 1  # the return line holds the call
    with pytest.raises(TiTypeError) as info:
        ti.kernel(function)()
    message = str(info.value)
    assert words in message, message
    assert info.value.lineno == lineno, message
    assert function.__name__ in message and lines[-1].strip() in message and "hint:" in message
    assert any(set(line.strip()) == {"^"} for line in message.splitlines() if line.strip())


def test_random_in_a_plain_python_helper_is_refused_at_its_line():
    # Run while compiling, it would bake one constant into every launch.
    x = ti.field(ti.f32, shape=4)

    def jitter():
        return ti.random()

    @ti.kernel
    def uses_helper():
        for i in x:
            x[i] = jitter()

    with pytest.raises(ti.errors.TiSyntaxError, match="plain Python helper") as info:
        uses_helper()
    assert "@ti.func" in str(info.value) and "jitter()" in str(info.value)
    assert 0.0 <= ti.random() < 1.0  # Python scope is unaffected
