"""The JIT's check of external symbols (``runtime/cpu/native_symbols.py``): objects are read
before they load, libgcc's helpers are bound, the IR fallbacks compute what libgcc does,
and a symbol nobody has is a clear error that loads nothing."""

import ctypes
import struct

import llvmlite.binding as llvm
import numpy as np
import pytest

from ti_notebook.errors import TiCompileError
from ti_notebook.runtime.cpu import native_symbols
from ti_notebook.runtime.cpu.jit import jit

pytestmark = pytest.mark.cpu

POWI = """
declare float @llvm.powi.f32.i32(float, i32)
declare double @llvm.powi.f64.i32(double, i32)
define float @{p}_powf(float %x, i32 %n) {{
  %r = call float @llvm.powi.f32.i32(float %x, i32 %n)
  ret float %r
}}
define double @{p}_powd(double %x, i32 %n) {{
  %r = call double @llvm.powi.f64.i32(double %x, i32 %n)
  ret double %r
}}
"""


def test_an_object_lists_the_helpers_its_machine_code_calls():
    engine = jit()
    module = engine.parse(POWI.format(p="t_list"))
    code = engine.object_code(module)
    assert native_symbols.undefined_symbols(code) == ["__powidf2", "__powisf2"]
    assert native_symbols.defined_symbols(code) == ["t_list_powd", "t_list_powf"]


def test_a_module_calling_powi_loads_and_computes():
    found = jit().add_ir(POWI.format(p="t_load"), ["t_load_powf", "t_load_powd"])
    powf = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_int32)(found["t_load_powf"])
    powd = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int32)(found["t_load_powd"])
    assert [powf(2.0, 10), powf(2.0, -2), powf(-3.0, 3)] == [1024.0, 0.25, -27.0]
    assert [powd(1.5, 4), powd(10.0, -1), powd(5.0, 0)] == [5.0625, 0.1, 1.0]


def test_every_helper_libgcc_has_is_bound():
    engine = jit()
    for name in native_symbols.HELPERS:
        if native_symbols.libgcc_address(name) or name in native_symbols.FALLBACK_IR:
            assert native_symbols.resolve(name, engine) is not None, name


def test_an_unknown_function_is_an_error_naming_it_and_nothing_loads():
    text = """
    declare void @__no_such_helper()
    define void @t_unknown_caller() {
      call void @__no_such_helper()
      ret void
    }
    """
    engine = jit()
    with pytest.raises(TiCompileError, match="'__no_such_helper'"):
        engine.add_ir(text, ["t_unknown_caller"])
    assert "t_unknown_caller" not in engine.defined
    # the engine goes on: the same name defined afresh, without the unknown call
    fine = "define i32 @t_unknown_caller() { ret i32 7 }"
    address = engine.add_ir(fine, ["t_unknown_caller"])["t_unknown_caller"]
    assert ctypes.CFUNCTYPE(ctypes.c_int32)(address)() == 7


def test_a_symbol_of_an_earlier_object_resolves():
    engine = jit()
    engine.add_ir("define i32 @t_earlier() { ret i32 41 }", ["t_earlier"])
    later = """
    declare i32 @t_earlier()
    define i32 @t_later() {
      %v = call i32 @t_earlier()
      %r = add i32 %v, 1
      ret i32 %r
    }
    """
    address = engine.add_ir(later, ["t_later"], optimize=False)["t_later"]
    assert ctypes.CFUNCTYPE(ctypes.c_int32)(address)() == 42


def _compiled(name: str, as_name: str) -> int:
    return jit().add_ir(native_symbols.fallback_ir(name, as_name), [as_name])[as_name]


@pytest.mark.parametrize(("helper", "ctype"), [("__powisf2", "c_float"), ("__powidf2", "c_double")])
def test_the_powi_fallback_gives_libgcc_bits(helper, ctype):
    libgcc = native_symbols.libgcc_address(helper)
    if libgcc is None:
        pytest.skip("no libgcc here to compare with")
    real = getattr(ctypes, ctype)
    signature = ctypes.CFUNCTYPE(real, real, ctypes.c_int32)
    ours = signature(_compiled(helper, f"t_fallback{helper}"))
    theirs = signature(libgcc)
    rng = np.random.default_rng(5)
    for x, n in zip(rng.normal(0, 3, 300), rng.integers(-40, 40, 300), strict=True):
        a, b = ours(float(x), int(n)), theirs(float(x), int(n))
        assert a == b or (np.isnan(a) and np.isnan(b)), (x, n, a, b)
    assert ours(2.0, -(2**31)) == theirs(2.0, -(2**31)) == 0.0


def test_the_gnu_half_fallbacks_convert_as_numpy():
    to_float = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_uint16)(
        _compiled("__gnu_h2f_ieee", "t_gnu_h2f")
    )
    to_half = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(
        _compiled("__gnu_f2h_ieee", "t_gnu_f2h")
    )
    values = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, 1e-7, 3.14159, np.inf], np.float32)
    for v in values:
        bits = int(np.float16(v).view(np.uint16))
        assert to_half(float(v)) == bits, v
        assert to_float(bits) == np.float32(np.float16(v)), v


@pytest.mark.skipif(not llvm.get_process_triple().startswith("x86_64"), reason="x86-64 only")
def test_baseline_x86_code_calling_half_and_128_bit_helpers_computes():
    """Code for an x86-64 without F16C calls libgcc for every half conversion: the
    helpers' calling convention (a half in an xmm register) must match LLVM's."""
    text = """
    define i16 @t_base_half_add(i16 %a, i16 %b) {
      %x = bitcast i16 %a to half
      %y = bitcast i16 %b to half
      %s = fadd half %x, %y
      %r = bitcast half %s to i16
      ret i16 %r
    }
    define i16 @t_base_narrow(double %d) {
      %h = fptrunc double %d to half
      %r = bitcast half %h to i16
      ret i16 %r
    }
    define double @t_base_widen(i16 %a) {
      %x = bitcast i16 %a to half
      %d = fpext half %x to double
      ret double %d
    }
    define i64 @t_base_div128(i64 %a, i64 %b) {
      %x = sext i64 %a to i128
      %y = sext i64 %b to i128
      %big = mul i128 %x, 1000000007
      %q = sdiv i128 %big, %y
      %r = trunc i128 %q to i64
      ret i64 %r
    }
    """
    engine = jit()
    machine = llvm.Target.from_triple(engine.triple).create_target_machine(
        cpu="x86-64", opt=2, codemodel="jitdefault"
    )
    module = engine.parse(text)
    code = machine.emit_object(module)
    needed = set(native_symbols.undefined_symbols(code))
    assert {"__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__divti3"} <= needed, needed
    names = ["t_base_half_add", "t_base_narrow", "t_base_widen", "t_base_div128"]
    found = engine.add_object(code, names)
    u16, f64, i64 = ctypes.c_uint16, ctypes.c_double, ctypes.c_int64
    half_add = ctypes.CFUNCTYPE(u16, u16, u16)(found["t_base_half_add"])
    narrow = ctypes.CFUNCTYPE(u16, f64)(found["t_base_narrow"])
    widen = ctypes.CFUNCTYPE(f64, u16)(found["t_base_widen"])
    div128 = ctypes.CFUNCTYPE(i64, i64, i64)(found["t_base_div128"])

    def bits(v) -> int:
        return int(np.float16(v).view(np.uint16))

    assert half_add(bits(1.5), bits(2.25)) == bits(3.75)
    for v in (1 + 2**-11 + 2**-40, -3.14159, 65519.0, 1e-9):
        assert narrow(v) == bits(v), v
    assert widen(bits(-0.333)) == float(np.float16(-0.333))
    a, b = 9_000_000_000_000_000_000, 3_000_000_019
    assert div128(a, b) == a * 1000000007 // b
    assert struct.calcsize("e") == 2  # the half bit patterns above are IEEE binary16


def test_a_truncated_object_is_refused_before_loading():
    engine = jit()
    code = engine.object_code(engine.parse(POWI.format(p="t_cut")))
    with pytest.raises(TiCompileError, match="cannot be read"):
        engine.add_object(code[:200], ["t_cut_powf"])
    assert "t_cut_powf" not in engine.defined
