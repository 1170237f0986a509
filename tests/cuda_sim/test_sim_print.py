"""``print`` in CUDA kernels goes through ``vprintf`` (``codegen/nvptx/printing.py``); its
lines must be the CPU's: the same default formats (f32 ``%f``, f64 ``%.12f``), the same
text for every format spec printf can express. Lines of parallel threads come in any
order on both backends, so those are compared sorted.

``capfd`` captures file descriptor 1 as well as ``sys.stdout``: a real GPU's driver
writes there, the CPU and the emulator write to ``sys.stdout``.
"""

import numpy as np
import pytest

import ti_notebook as ti


def _printed(capfd, run) -> str:
    capfd.readouterr()
    run()
    return capfd.readouterr().out


def test_scalars_of_every_type_print_as_on_the_cpu(gpu, capfd):
    def build():
        @ti.kernel
        def show(a: ti.i32, b: ti.i64, c: ti.u8, d: ti.u64, e: ti.f32, f: ti.f64):
            print(a, b, c, d)
            print(e, f, -e, e * 1e10)
            print(a > 0, a == -7, ti.cast(-300, ti.i16))

        return _printed(capfd, lambda: show(-7, -(2**40), 200, 2**64 - 1, 1.5, 1.0 / 3.0))

    expected, actual = gpu.against_cpu(build)
    assert actual == expected
    assert actual.splitlines()[1].startswith("1.500000 0.333333333333 -1.500000 ")


def test_text_sep_end_and_fstrings(gpu, capfd):
    def build():
        @ti.kernel
        def show(a: ti.i32, b: ti.f32):
            print("a =", a, "b =", b)
            print(a, b, sep="|", end="!\n")
            print("100%", a, end=" ")
            print(f"v={a}, w={b}")
            print()

        return _printed(capfd, lambda: show(-7, 0.1))

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == "a = -7 b = 0.100000\n-7|0.100000!\n100% -7 v=-7, w=0.100000\n\n"


INT_SPECS = ("5d", "+d", "05d", "x", "X", "#x", "o", "<6d", ">6d", "6")
FLOAT_SPECS = (".3f", "8.2f", "e", ".2E", "g", "+.1f", "<10.2f", "010.4f")


@pytest.mark.parametrize("values", [(-42, 3.0), (255, 0.1), (0, -1234.5678)])
def test_format_specs_printf_can_express(gpu, capfd, values):
    def build():
        @ti.kernel
        def show(a: ti.i32, b: ti.f32):
            print(
                f"[{a:5d}][{a:+d}][{a:05d}][{a:x}][{a:X}][{a:#x}][{a:o}][{a:<6d}][{a:>6d}][{a:6}]"
            )
            print(f"[{b:.3f}][{b:8.2f}][{b:e}][{b:.2E}][{b:g}][{b:+.1f}][{b:<10.2f}][{b:010.4f}]")

        return _printed(capfd, lambda: show(*values))

    expected, actual = gpu.against_cpu(build)
    assert actual == expected
    a, b = values
    python = "".join(f"[{format(a, spec)}]" for spec in INT_SPECS) + "\n"
    python += "".join(f"[{format(float(np.float32(b)), spec)}]" for spec in FLOAT_SPECS)
    assert actual == python + "\n"


def test_prints_of_parallel_threads_are_all_there(gpu, capfd):
    def build():
        x = ti.field(ti.f32, shape=300)

        @ti.kernel
        def show():
            for i in x:
                if i % 7 == 0:
                    print("cell", i, x[i] + 0.5)

        x.from_numpy(np.arange(300, dtype=np.float32) * 2)
        return sorted(_printed(capfd, show).splitlines())

    expected, actual = gpu.against_cpu(build)
    assert actual == expected
    assert actual == sorted(f"cell {i} {2 * i + 0.5:.6f}" for i in range(0, 300, 7))


def test_print_between_python_prints_stays_in_order(gpu, capfd):
    def build():
        @ti.kernel
        def show(a: ti.i32):
            print("kernel", a)

        def run():
            print("before", flush=True)
            show(1)
            print("after", flush=True)

        return _printed(capfd, run)

    expected, actual = gpu.against_cpu(build)
    assert actual == expected == "before\nkernel 1\nafter\n"
