"""Every bad input we know of, each in its own process: the process must end normally
(no signal, no hang) with the expected ``ti_notebook.errors`` class, and errors about
kernel code must name the line. Issues 11 and 12 list where these came from.

A case is (id, code, expected): ``code`` runs after ``import ti_notebook as ti`` and
``ti.init(arch=ti.cpu)``; ``expected`` is an error class name, with ``@line`` when the
message must point at the line marked ``# <-`` in ``code``, or ``OK:<text>`` when the
code must run and print ``text``.
"""

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.robustness

CASES = [
    # -- issue 12: clear errors instead of unclear ones --------------------------------
    (
        "constant_division_by_zero",
        """
        @ti.kernel
        def k() -> ti.i32:
            return 7 // 0  # <-
        k()
        """,
        "TiZeroDivisionError@line",
    ),
    (
        "loop_config_block_dim_not_a_number",
        """
        x = ti.field(ti.i32, shape=8)
        @ti.kernel
        def k():
            ti.loop_config(block_dim="abc")  # <-
            for i in x:
                x[i] = 1
        k()
        """,
        "TiTypeError@line",
    ),
    (
        "non_ascii_names_just_work",
        """
        größe = ti.field(ti.f32, shape=4)
        @ti.kernel
        def füllen(wert: ti.f32):
            for i in größe:
                größe[i] = wert
        füllen(2.5)
        print(größe.to_numpy().tolist())
        """,
        "OK:[2.5, 2.5, 2.5, 2.5]",
    ),
    (
        "vectors_of_different_sizes",
        """
        @ti.kernel
        def k() -> ti.f32:
            a = ti.Vector([1.0, 2.0, 3.0]) + ti.Vector([1.0, 2.0])  # <-
            return a[0]
        k()
        """,
        "TiTypeError@line",
    ),
    (
        "argument_outside_its_type",
        """
        @ti.kernel
        def k(small: ti.i8) -> ti.i32:
            return small
        k(1000)
        """,
        "TiOverflowError",
    ),
    (
        "bytes_that_cannot_be_mapped",
        """
        m = ti.Matrix.field(128, 128, ti.f64, shape=(1 << 31) - 1)  # 256 TiB
        m[0] = [[0.0] * 128] * 128
        """,
        "TiMemoryError",
    ),
    (
        "random_of_a_string",
        """
        @ti.kernel
        def k() -> ti.f32:
            return ti.random(str)  # <-
        k()
        """,
        "TiTypeError@line",
    ),
    (
        "float_too_large_for_an_int_field",
        """
        x = ti.field(ti.i32, shape=4)
        x[0] = 1e20
        """,
        "TiOverflowError",
    ),
    (
        "the_4097th_tree",
        """
        trees = []
        for _ in range(4097):
            builder = ti.FieldsBuilder()
            builder.dense(ti.i, 4).place(ti.field(ti.i32))
            trees.append(builder.finalize())
        """,
        "TiMemoryError",
    ),
    (
        "atomic_and_on_a_float_field",
        """
        x = ti.field(ti.f32, shape=4)
        @ti.kernel
        def k():
            ti.atomic_and(x[0], 1)  # <-
        k()
        """,
        "TiTypeError@line",
    ),
    (
        "a_2000_component_vector_value",
        """
        v = ti.Vector.field(2000, ti.f32, shape=4)
        @ti.kernel
        def k():
            for i in v:
                v[i] = v[i] * 2.0  # <-
        k()
        """,
        "TiValueError@line",
    ),
    (
        "one_component_of_a_2000_component_field_works",
        """
        v = ti.Vector.field(2000, ti.f32, shape=4)
        @ti.kernel
        def k():
            for i in v:
                v[i][1999] = 3.0
                v[i][7] += v[i][1999]
        k()
        print(v[2][7])
        """,
        "OK:3.0",
    ),
    ("unknown_arch", "ti.init(arch='tpu')", "TiValueError"),
    ("matrix_field_of_a_string_type", "ti.Matrix.field(2, 2, 'nope', shape=3)", "TiTypeError"),
    (
        "more_than_2_31_cells",
        "x = ti.field(ti.i8, shape=(1 << 16, 1 << 16))\nx[0, 0] = 1",
        "TiValueError",
    ),
    # -- issue 11: invalid arguments that used to be accepted ------------------------
    ("fractional_shape", "ti.field(ti.f32, shape=(2.5,))", "TiTypeError"),
    ("field_of_none", "ti.field(None, shape=3)", "TiTypeError"),
    ("debug_as_a_string", "ti.init(debug='no')", "TiTypeError"),
    ("cache_path_as_a_number", "ti.init(offline_cache_file_path=123)", "TiTypeError"),
    ("seed_as_a_string", "ti.init(random_seed='x')", "TiTypeError"),
    (
        "read_only_array_written_by_the_kernel",
        """
        import numpy as np
        @ti.kernel
        def k(a: ti.types.ndarray()):
            for i in range(a.shape[0]):
                a[i] = 1
        a = np.zeros(3, np.int32)
        a.flags.writeable = False
        k(a)
        """,
        "TiValueError",
    ),
    (
        "loop_bound_beyond_i32",
        """
        c = ti.field(ti.i32, shape=())
        @ti.kernel
        def k():
            for i in range(3_000_000_000):  # <-
                c[None] += 1
        k()
        """,
        "TiTypeError@line",
    ),
    (
        "int_min_divided_by_minus_one",
        """
        @ti.kernel
        def k(a: ti.i32, b: ti.i32) -> ti.i32:
            return a // b + a % b
        print(k(-2**31, -1))
        """,
        "OK:-2147483648",
    ),
    (
        "out_of_range_read_in_a_kernel",
        """
        x = ti.field(ti.f32, shape=8)
        @ti.kernel
        def k(n: ti.i32) -> ti.f32:
            total = 0.0
            for i in range(n):
                total += x[i]  # <-
            return total
        k(100)
        """,
        "TiIndexError@line",
    ),
    (
        "activate_out_of_range",
        """
        x = ti.field(ti.i32)
        block = ti.root.pointer(ti.i, 4)
        block.place(x)
        @ti.kernel
        def k(i: ti.i32):
            ti.activate(block, [i])  # <-
        k(1000)
        """,
        "TiIndexError@line",
    ),
]

RUNNER = """
import json, sys, traceback
import ti_notebook as ti
ti.init(arch=ti.cpu, offline_cache=False)
source = open(sys.argv[1]).read()
try:
    exec(compile(source, sys.argv[1], "exec"), {"ti": ti, "__name__": "__main__"})
    outcome = {"class": None}
except BaseException as error:
    outcome = {"class": type(error).__name__, "module": type(error).__module__,
               "message": str(error)}
print("OUTCOME " + json.dumps(outcome))
"""


@pytest.mark.parametrize(("code", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_ends_with_a_clear_error(code, expected, tmp_path):
    code = textwrap.dedent(code).strip() + "\n"
    case = tmp_path / "case.py"
    case.write_text(code)
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    run = subprocess.run(
        [sys.executable, str(runner), str(case)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, f"ended with {run.returncode}\n{run.stderr[-3000:]}"
    lines = [line for line in run.stdout.splitlines() if line.startswith("OUTCOME ")]
    assert lines, run.stdout[-2000:] + run.stderr[-2000:]
    outcome = json.loads(lines[-1][len("OUTCOME ") :])
    if expected.startswith("OK:"):
        assert outcome["class"] is None, outcome
        assert expected[3:] in run.stdout
        return
    name, _, where = expected.partition("@")
    assert outcome["class"] == name, outcome
    assert outcome["module"] == "ti_notebook.errors", outcome
    if where == "line":
        marked = next(n for n, text in enumerate(code.splitlines(), 1) if "# <-" in text)
        assert f"line {marked}" in outcome["message"], outcome["message"]
        assert "^" in outcome["message"], outcome["message"]
