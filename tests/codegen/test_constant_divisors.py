"""Integer ``//`` and ``%`` by a constant: the guards for 0 and INT_MIN // -1 are left
out where the divisor cannot need them, with Python's results all the same."""

import re

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def _python(op: str, a: int, d: int, bits: int, signed: bool) -> int:
    if d == 0:
        return 0  # the compiler's answer for a zero divisor (debug mode stops first)
    if signed and a == -(1 << (bits - 1)) and d == -1:
        return a if op == "//" else 0  # wraps, as two's complement does
    return a // d if op == "//" else a % d


def _divides_by(llvm_text: str, sign: str) -> set[str]:
    """The divisors of the i32 divisions and remainders (``sign``: "s" or "u") in the
    unoptimised module: a constant, or "guarded" for a value the guards selected."""
    found = re.findall(rf"= {sign}(?:div|rem) i32 %\S+, (\S+)", llvm_text)
    return {"guarded" if d.startswith("%") else d for d in found}


@pytest.mark.parametrize("divisor", [8, 7, -3, -8, -1, 1, 0])
def test_signed_floor_division_and_modulo_by_a_constant(divisor):
    @ti.kernel
    def divide(v: ti.i32) -> ti.types.vector(2, ti.i32):
        return ti.Vector([v // divisor, v % divisor])

    for v in (I32_MIN, I32_MIN + 1, -17, -8, -7, -1, 0, 1, 7, 8, 17, I32_MAX):
        expected = [_python("//", v, divisor, 32, True), _python("%", v, divisor, 32, True)]
        assert divide(v).to_list() == expected, v
    # the divisor itself, or (0 and -1) the value the guards chose
    expected = str(divisor) if divisor not in (0, -1) else "guarded"
    assert _divides_by(divide.stages(0)["llvm"], "s") == {expected}


@pytest.mark.parametrize("divisor", [8, 5, 1, 0])
def test_unsigned_division_by_a_constant_has_no_guard_unless_zero(divisor):
    @ti.kernel
    def divide(v: ti.u32) -> ti.types.vector(2, ti.u32):
        return ti.Vector([v // ti.u32(divisor), v % ti.u32(divisor)])

    for v in (0, 1, 7, 8, 9, 1 << 31, (1 << 32) - 1):
        expected = [_python("//", v, divisor, 32, False), _python("%", v, divisor, 32, False)]
        assert divide(v).to_list() == expected, v
    expected = str(divisor) if divisor else "guarded"
    assert _divides_by(divide.stages(0)["llvm"], "u") == {expected}


def test_a_signed_minus_one_written_as_its_unsigned_bits_keeps_the_guard():
    # INT_MIN // -1 traps on x86 without the guard, whichever integer spells the -1
    import llvmlite.ir as ll

    from ti_notebook.codegen.arithmetic import Arithmetic
    from ti_notebook.codegen.llvm_types import I32
    from ti_notebook.ir import types

    class Owner:
        fast_math = False
        module = ll.Module()

    owner = Owner()
    fn = ll.Function(owner.module, ll.FunctionType(I32, [I32]), "f")
    owner.b = ll.IRBuilder(fn.append_basic_block())
    arith = Arithmetic(owner)
    arith.binary("floordiv", fn.args[0], ll.Constant(I32, (1 << 32) - 1), types.i32)
    assert _divides_by(str(owner.module), "s") == {"guarded"}
