"""print() inside kernels: ints, floats, strings, several arguments, sep/end, f-strings.

The formats below are Taichi 1.7.4's, observed on the CPU backend: integers in full,
f32 with ``%f`` (6 decimals), f64 with ``%.12f`` (12 decimals), booleans and comparison
results as 1/0, arguments joined by one space. Taichi prints from C++, so these tests use
``capfd`` (file descriptor 1), which also captures ti_notebook's writes to sys.stdout.
"""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _out(capfd) -> str:
    # A kernel call returns after its output is flushed: no ti.sync() needed.
    return capfd.readouterr().out


def test_print_ints(capfd):
    @ti.kernel
    def p(a: ti.i32, b: ti.i64, c: ti.u8, d: ti.u64):
        print(a)
        print(b)
        print(c)
        print(d)
        print(2)
        print(-a)

    capfd.readouterr()
    p(-7, 2**40, 200, 2**64 - 1)
    assert _out(capfd) == "-7\n1099511627776\n200\n18446744073709551615\n2\n7\n"
    p(0, -(2**63), 0, 0)
    assert _out(capfd) == "0\n-9223372036854775808\n0\n0\n2\n0\n"


def test_print_narrow_int_casts(capfd):
    @ti.kernel
    def p():
        print(ti.cast(-5, ti.i8), ti.cast(250, ti.u8), ti.cast(-300, ti.i16))

    capfd.readouterr()
    p()
    assert _out(capfd) == "-5 250 -300\n"


def test_print_f32(capfd):
    @ti.kernel
    def p(b: ti.f32):
        print(b)
        print(1.5)
        print(-2.25)
        print(3.0)
        print(0.1)
        print(1.0 / 3.0)
        print(1e-7)
        print(-0.0)

    capfd.readouterr()
    p(1.5)
    assert _out(capfd) == (
        "1.500000\n1.500000\n-2.250000\n3.000000\n0.100000\n0.333333\n0.000000\n-0.000000\n"
    )
    p(-1234.5)
    assert _out(capfd).split("\n")[0] == "-1234.500000"


def test_print_f32_large(capfd):
    @ti.kernel
    def p(v: ti.f32):
        print(v)

    capfd.readouterr()
    p(123456789.0)  # rounded to f32 first
    p(1e20)
    p(16777216.0)
    assert _out(capfd) == ("123456792.000000\n100000002004087734272.000000\n16777216.000000\n")


def test_print_f64(capfd):
    @ti.kernel
    def p(c: ti.f64):
        print(c)
        print(c * 1e10)
        print(ti.f64(1.0) / 3.0)

    capfd.readouterr()
    p(0.1)
    assert _out(capfd) == "0.100000000000\n1000000000.000000000000\n0.333333333333\n"
    p(-2.5)
    assert _out(capfd).split("\n")[0] == "-2.500000000000"


def test_print_default_fp_f64_literal(capfd):
    ti.init(arch=ti.cpu, default_fp=ti.f64)

    @ti.kernel
    def p():
        print(1.5)
        print(1.0 / 3.0)

    capfd.readouterr()
    p()
    assert _out(capfd) == "1.500000000000\n0.333333333333\n"


def test_print_bools_and_comparisons(capfd):
    @ti.kernel
    def p(a: ti.i32):
        print(True)
        print(a > 0)
        print(a == -7, a != -7)

    capfd.readouterr()
    p(-7)
    assert _out(capfd) == "1\n0\n1 0\n"


def test_print_strings_and_multiple_args(capfd):
    @ti.kernel
    def p(a: ti.i32, b: ti.f32):
        print("hello")
        print("a =", a, "b =", b)
        print(a // 2, a % 3)
        print()
        print("x", "y")

    capfd.readouterr()
    p(-7, 1.5)
    assert _out(capfd) == "hello\na = -7 b = 1.500000\n-4 2\n\nx y\n"


def test_print_sep_and_end(capfd):
    @ti.kernel
    def p(a: ti.i32, b: ti.f32):
        print(a, b, sep="|")
        print("pair", a, b, sep=", ", end="!\n")
        print(a, end=" ")
        print(b)
        print("x", "y", sep="")
        print(a, end="")
        print("X")

    capfd.readouterr()
    p(-7, 1.5)
    assert _out(capfd) == "-7|1.500000\npair, -7, 1.500000!\n-7 1.500000\nxy\n-7X\n"


def test_print_fstrings(capfd):
    @ti.kernel
    def p(a: ti.i32, b: ti.f32):
        print(f"v={a}, w={b}")
        print(f"{a:5d}|{b:.2f}|")

    capfd.readouterr()
    p(-7, 1.5)
    assert _out(capfd) == "v=-7, w=1.500000\n   -7|1.50|\n"


def test_print_in_serial_loop_keeps_order(capfd):
    @ti.kernel
    def p(n: ti.i32):
        ti.loop_config(serialize=True)
        for i in range(n):
            print("i", i)

    capfd.readouterr()
    p(4)
    assert _out(capfd) == "i 0\ni 1\ni 2\ni 3\n"


def test_print_between_python_prints(capfd):
    @ti.kernel
    def p(a: ti.i32):
        print("kernel", a)

    capfd.readouterr()
    print("before", flush=True)
    p(1)
    print("after", flush=True)
    assert capfd.readouterr().out == "before\nkernel 1\nafter\n"
