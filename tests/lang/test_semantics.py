"""Semantics that used to give silently wrong results (issue 11), each against NumPy or
plain Python: norm/normalized with eps, integer division at the type's edge, loop bounds
that do not fit i32, and the precision warning for a float stored into an int local."""

import pathlib
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook import errors

pytestmark = pytest.mark.cpu


def test_norm_and_normalized_honour_eps_as_taichi_defines_them():
    out = ti.field(ti.f32, shape=3)
    unit = ti.Vector.field(3, ti.f32, shape=2)

    @ti.kernel
    def norms(eps: ti.f32):
        z = ti.Vector([0.0, 0.0, 0.0])
        v = ti.Vector([3.0, 0.0, 4.0])
        out[0] = z.norm(eps)
        out[1] = v.norm(eps=eps)
        out[2] = v.norm_inv(eps)
        unit[0] = z.normalized(eps)
        unit[1] = v.normalized(eps)

    eps = 1e-4
    norms(eps)
    # Taichi: norm = sqrt(|v|^2 + eps), normalized = v / (norm + eps)
    np.testing.assert_allclose(out.to_numpy(), [eps**0.5, 25.0001**0.5, 1 / 25.0001**0.5], 1e-5)
    np.testing.assert_array_equal(unit.to_numpy()[0], [0.0, 0.0, 0.0])  # not NaN
    expected = np.array([3.0, 0.0, 4.0]) / (25.0001**0.5 + eps)
    np.testing.assert_allclose(unit.to_numpy()[1], expected, rtol=1e-5)


def test_norm_without_eps_is_unchanged():
    out = ti.field(ti.f32, shape=())

    @ti.kernel
    def plain():
        out[None] = ti.Vector([3.0, 4.0]).norm()

    plain()
    assert out[None] == 5.0


def test_norm_rejects_unknown_keywords():
    @ti.kernel
    def bad() -> ti.f32:
        return ti.Vector([3.0, 4.0]).norm(epsilon=1.0)

    with pytest.raises(errors.TiTypeError, match="norm"):
        bad()


def test_integer_division_at_the_edge_wraps_instead_of_trapping(tmp_path):
    # In a subprocess: a regression would kill the process with SIGFPE.
    script = textwrap.dedent(
        """
        import ti_notebook as ti
        ti.init(arch=ti.cpu, offline_cache=False)

        @ti.kernel
        def divmod32(a: ti.i32, b: ti.i32) -> ti.i64:
            return ti.cast(a // b, ti.i64) * 1000 + a % b

        @ti.kernel
        def div64(a: ti.i64, b: ti.i64) -> ti.i64:
            return a // b

        @ti.kernel
        def mod64(a: ti.i64, b: ti.i64) -> ti.i64:
            return a % b

        print(divmod32(-2**31, -1), div64(-2**63, -1), mod64(-2**63, -1), divmod32(-7, 2))
        """
    )
    path = tmp_path / "edge.py"
    path.write_text(script)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # the two's complement results: INT_MIN // -1 == INT_MIN, INT_MIN % -1 == 0
    assert run.stdout.split() == [str(-(2**31) * 1000), str(-(2**63)), "0", str(-4 * 1000 + 1)]


def test_python_floor_semantics_elsewhere_are_kept():
    @ti.kernel
    def both(a: ti.i32, b: ti.i32) -> ti.i32:
        return (a // b) * 100 + a % b

    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (2**31 - 1, -1)]:
        expected = ((a // b) * 100 + a % b + 2**31) % 2**32 - 2**31  # i32 wrap-around
        assert both(a, b) == expected, (a, b)


@pytest.mark.parametrize(
    "loop",
    [
        "i in range(3_000_000_000)",
        "i in range(-3_000_000_000, 0)",
        "i, j in ti.ndrange(10**5, 10**5)",
    ],
)
def test_loop_bounds_that_do_not_fit_i32_are_errors(loop, tmp_path):
    source = textwrap.dedent(
        f"""
        import ti_notebook as ti
        c = ti.field(ti.i32, shape=())

        @ti.kernel
        def huge():
            for {loop}:
                c[None] += 1
        """
    )
    path = tmp_path / "huge.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(errors.TiTypeError) as info:
        namespace["huge"]()
    message = str(info.value)
    assert "i32" in message and "line 7" in message


def test_large_but_fitting_bounds_still_run():
    c = ti.field(ti.i32, shape=())

    @ti.kernel
    def edge():
        ti.loop_config(serialize=True)
        for i in range(2**31 - 3, 2**31 - 1):  # noqa: B007 - counts iterations
            c[None] += 1

    edge()
    assert c[None] == 2


def test_float_into_int_local_warns_with_the_line():
    @ti.kernel
    def truncating(v: ti.f32) -> ti.i32:
        a = 1
        a = v  # the warned line
        return a

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert truncating(2.7) == 2
    (warning,) = [w for w in caught if issubclass(w.category, errors.TiPrecisionWarning)]
    assert "f32" in str(warning.message) and "'a'" in str(warning.message)
    assert warning.filename == __file__
    lines = pathlib.Path(__file__).read_text().splitlines()
    assert "the warned line" in lines[warning.lineno - 1]


def test_no_warning_when_nothing_is_lost():
    @ti.kernel
    def exact() -> ti.f32:
        a = 1
        a = 2.0
        b = 1.5
        b = a
        return b

    with warnings.catch_warnings():
        warnings.simplefilter("error", errors.TiPrecisionWarning)
        assert exact() == 2.0
