"""Machine code that needs a native helper, each case in its own process: ``x ** n``
(LLVM's ``llvm.powi`` calls ``__powisf2``/``__powidf2``) must compute, not jump to
address 0; a module needing a function nobody has must be a clear error naming the
kernel and the function, after which the process keeps working, also when the code
comes from the offline cache.

A case's code runs after ``import ti_notebook as ti`` (``ti.init`` is the case's) and
prints what it found; the test reads the last ``OUTCOME`` line.
"""

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.robustness

RUNNER = """
import json, sys
import ti_notebook as ti
source = open(sys.argv[1]).read()
try:
    exec(compile(source, sys.argv[1], "exec"), {"ti": ti, "__name__": "__main__"})
    outcome = {"class": None}
except BaseException as error:
    outcome = {"class": type(error).__name__, "message": str(error)}
print("OUTCOME " + json.dumps(outcome))
"""

# Adds, to every CPU module, an exported function calling ``__no_such_helper`` (or the
# name in HELPER), so the module's object code needs that symbol.
PATCH = """
import itertools
import llvmlite.ir as ll
from ti_notebook.codegen.cpu import module as cpu_codegen
_original, _ids = cpu_codegen.exact_reciprocals, itertools.count()
def _needing_helper(module, name=HELPER):
    _original(module)
    helper = ll.Function(module, ll.FunctionType(ll.VoidType(), []), name)
    caller = ll.Function(module, helper.type.pointee, f"tin_probe_{next(_ids)}_{id(module)}")
    builder = ll.IRBuilder(caller.append_basic_block())
    builder.call(helper, [])
    builder.ret_void()
def patch():
    cpu_codegen.exact_reciprocals = _needing_helper
def unpatch():
    cpu_codegen.exact_reciprocals = _original
"""


def run_case(code: str, tmp_path, env: dict | None = None) -> tuple[dict, str]:
    case = tmp_path / "case.py"
    case.write_text(textwrap.dedent(code).strip() + "\n")
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    run = subprocess.run(
        [sys.executable, str(runner), str(case)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert run.returncode == 0, f"ended with {run.returncode}\n{run.stderr[-3000:]}"
    lines = [line for line in run.stdout.splitlines() if line.startswith("OUTCOME ")]
    assert lines, run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads(lines[-1][len("OUTCOME ") :]), run.stdout


@pytest.mark.parametrize("base", ["f32", "f64"])
@pytest.mark.parametrize("exponent", ["i32", "i64"])
@pytest.mark.parametrize("form", ["x ** n", "ti.pow(x, n)"])
def test_float_base_runtime_int_exponent_computes(base, exponent, form, tmp_path):
    outcome, out = run_case(
        f"""
        ti.init(arch=ti.cpu, offline_cache=False)
        @ti.kernel
        def k(x: ti.{base}, n: ti.{exponent}) -> ti.{base}:
            return {form}
        print("VALUES", k(2.0, 10), k(2.0, -3), k(-1.5, 3), k(7.0, 0))
        """,
        tmp_path,
    )
    assert outcome["class"] is None, outcome
    assert "VALUES 1024.0 0.125 -3.375 1.0" in out


def test_unknown_native_function_is_a_compile_error_and_the_process_goes_on(tmp_path):
    outcome, out = run_case(
        'HELPER = "__no_such_helper"\n'
        + PATCH
        + """
ti.init(arch=ti.cpu, offline_cache=False)
@ti.kernel
def needs_helper(x: ti.f32) -> ti.f32:
    return x + 1
patch()
try:
    needs_helper(1.0)
except ti.errors.TiCompileError as error:
    print("ERROR", json.dumps(str(error)))
unpatch()
@ti.kernel
def fine(x: ti.f32) -> ti.f32:
    return x * 2
print("AFTER", fine(2.5))
""".replace("json.dumps", "__import__('json').dumps"),
        tmp_path,
    )
    assert outcome["class"] is None, outcome
    error = json.loads(next(ln for ln in out.splitlines() if ln.startswith("ERROR "))[6:])
    assert "needs_helper" in error and "__no_such_helper" in error, error
    assert "AFTER 5.0" in out


def test_cached_code_needing_a_missing_function_is_refused(tmp_path):
    """The first process binds the helper and caches the kernel's object code; the
    second, without the helper, loads the entry from the cache and must refuse it."""
    cache = tmp_path / "cache"
    kernel = """
ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=CACHE)
@ti.kernel
def cached_kernel(x: ti.f32) -> ti.f32:
    return x + 1
"""
    first = (
        'HELPER = "tin_test_only_helper"\n'
        + PATCH
        + f"CACHE = {str(cache)!r}\n"
        + """
import ctypes
from ti_notebook.runtime.cpu.jit import jit
_keep = ctypes.CFUNCTYPE(None)(lambda: None)
jit().add_symbol(HELPER, ctypes.cast(_keep, ctypes.c_void_p).value)
patch()
"""
        + kernel
        + 'print("FIRST", cached_kernel(1.0), cached_kernel.report.cache)\n'
    )
    outcome, out = run_case(first, tmp_path)
    assert outcome["class"] is None, outcome
    assert "FIRST 2.0" in out
    second = (
        f"CACHE = {str(cache)!r}\n"
        + kernel
        + """
try:
    cached_kernel(1.0)
    print("LOADED", cached_kernel.report.cache)
except ti.errors.TiCompileError as error:
    print("ERROR", repr(str(error)))
@ti.kernel
def fine(x: ti.f32) -> ti.f32:
    return x * 2
print("AFTER", fine(2.5))
"""
    )
    outcome, out = run_case(second, tmp_path)
    assert outcome["class"] is None, outcome
    if "LOADED miss" in out:  # another process changed the compiler's sources meanwhile
        pytest.skip("the cache key changed between the two processes")
    error = next((ln for ln in out.splitlines() if ln.startswith("ERROR ")), out)
    assert "cached_kernel" in error and "tin_test_only_helper" in error, error
    assert "AFTER 5.0" in out
