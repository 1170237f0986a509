"""The inline PTX assembly that libdevice contains, as LLVM IR for the CPU.

PTX in ``asm`` cannot run on x86, but libdevice (linked into a module that calls
``__nv_sinf``...) uses 21 small snippets: carry chains for the 32- and 128-bit integer
arithmetic of the trigonometric argument reduction, ``rcp.approx``, ``rsqrt.approx``,
subtractions with a rounding mode, ``bfind`` and a compare-and-select. Each known
snippet (compared with its whitespace collapsed) gets an IR body with the same result;
any other ``asm`` is refused by the rewrite.

    >>> body = asm_body("rcp.approx.ftz.f32 $0,$1;", "=f,f")
    >>> print(body)
      %r = fdiv float 1.0, %a0
      ret float %r
    >>> asm_body("exit;", "") is None
    True
"""

from __future__ import annotations

import re

__all__ = ["asm_body", "normalize"]

_ADD_OR_SUB_128 = (
    "{ .reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3; mov.b64 {a0,a1}, $2; "
    "mov.b64 {a2,a3}, $3; mov.b64 {b0,b1}, $4; mov.b64 {b2,b3}, $5; OP.cc.u32 r0, a0, b0; "
    "OPc.cc.u32 r1, a1, b1; OPc.cc.u32 r2, a2, b2; OPc.u32 r3, a3, b3; "
    "mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }"
)
_MUL_ADD_64 = (
    "{ .reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi, clo, chi; mov.b64 {alo,ahi}, $2; "
    "mov.b64 {blo,bhi}, $3; mov.b64 {clo,chi}, $4; mad.lo.cc.u32 r0, alo, blo, clo; "
    "madc.hi.cc.u32 r1, alo, blo, chi; madc.hi.u32 r2, alo, bhi, 0; "
    "mad.lo.cc.u32 r1, alo, bhi, r1; madc.hi.cc.u32 r2, ahi, blo, r2; "
    "madc.hi.u32 r3, ahi, bhi, 0; mad.lo.cc.u32 r1, ahi, blo, r1; "
    "madc.lo.cc.u32 r2, ahi, bhi, r2; addc.u32 r3, r3, 0; mov.b64 $0, {r0,r1}; "
    "mov.b64 $1, {r2,r3}; }"
)
_MUL_64 = (
    "{ .reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi; mov.b64 {alo,ahi}, $2; "
    "mov.b64 {blo,bhi}, $3; mul.lo.u32 r0, alo, blo; mul.hi.u32 r1, alo, blo; "
    "mad.lo.cc.u32 r1, alo, bhi, r1; madc.hi.u32 r2, alo, bhi, 0; "
    "mad.lo.cc.u32 r1, ahi, blo, r1; madc.hi.cc.u32 r2, ahi, blo, r2; "
    "madc.hi.u32 r3, ahi, bhi, 0; mad.lo.cc.u32 r2, ahi, bhi, r2; addc.u32 r3, r3, 0; "
    "mov.b64 $0, {r0,r1}; mov.b64 $1, {r2,r3}; }"
)

# (low, high) halves of a wide value %w of type WIDE, returned as { HALF, HALF }.
_SPLIT = (
    "  %lo = trunc {W} %w to {H}\n  %hs = lshr {W} %w, {B}\n  %hi = trunc {W} %hs to {H}\n"
    "  %s0 = insertvalue {{ {H}, {H} }} poison, {H} %lo, 0\n"
    "  %s1 = insertvalue {{ {H}, {H} }} %s0, {H} %hi, 1\n  ret {{ {H}, {H} }} %s1"
)


def _join_128(name: str, lo: str, hi: str) -> str:
    return (
        f"  %{name}l = zext i64 {lo} to i128\n  %{name}h0 = zext i64 {hi} to i128\n"
        f"  %{name}h = shl i128 %{name}h0, 64\n  %{name} = or i128 %{name}h, %{name}l\n"
    )


def _wide(op: str) -> str:
    if op in ("add", "sub"):
        body = _join_128("x", "%a0", "%a1") + _join_128("y", "%a2", "%a3")
        body += f"  %w = {op} i128 %x, %y\n"
    else:
        body = "  %x = zext i64 %a0 to i128\n  %y = zext i64 %a1 to i128\n"
        body += "  %m = mul i128 %x, %y\n"
        if op == "mul_add":
            body += "  %c = zext i64 %a2 to i128\n  %w = add i128 %m, %c\n"
        else:
            body += "  %w = or i128 %m, 0\n"
    return body + _SPLIT.format(W="i128", H="i64", B=64)


def _sub(ty: str) -> str:
    return f"  %r = fsub {ty} %a0, %a1\n  ret {ty} %r"


def normalize(asm: str) -> str:
    """The asm text of an LLVM ``asm "..."`` string with escapes and whitespace runs
    turned into single spaces."""
    return re.sub(r"\s+", " ", re.sub(r"\\0A|\\09", " ", asm)).strip()


_BODIES: dict[tuple[str, str], str] = {
    ("rcp.approx.ftz.f32 $0,$1;", "=f,f"): "  %r = fdiv float 1.0, %a0\n  ret float %r",
    ("rsqrt.approx.ftz.f64 $0, $1;", "=d,d"): (
        "  %s = call double @llvm.sqrt.f64(double %a0)\n  %r = fdiv double 1.0, %s\n  ret double %r"
    ),
    ("bfind.shiftamt.u32 $0, $1;", "=r,r"): (
        "  %c = call i32 @llvm.ctlz.i32(i32 %a0, i1 false)\n  %z = icmp eq i32 %a0, 0\n"
        "  %r = select i1 %z, i32 -1, i32 %c\n  ret i32 %r"
    ),
    (
        "{ .reg .pred __$$temp3; setp.equ.f64 __$$temp3, $1, $2; selp.f64 $0, $3, $4, __$$temp3;}",
        "=d,d,d,d,d",
    ): "  %c = fcmp ueq double %a0, %a1\n  %r = select i1 %c, double %a2, double %a3\n"
    "  ret double %r",
    ("{ mad.lo.cc.u32 $0, $2, $3, $4; madc.hi.u32 $1, $2, $3, 0; }", "=r,=r,r,r,r"): (
        "  %x = zext i32 %a0 to i64\n  %y = zext i32 %a1 to i64\n  %c = zext i32 %a2 to i64\n"
        "  %m = mul i64 %x, %y\n  %w = add i64 %m, %c\n" + _SPLIT.format(W="i64", H="i32", B=32)
    ),
    (_ADD_OR_SUB_128.replace("OP", "add"), "=l,=l,l,l,l,l"): _wide("add"),
    (_ADD_OR_SUB_128.replace("OP", "sub"), "=l,=l,l,l,l,l"): _wide("sub"),
    (_MUL_ADD_64, "=l,=l,l,l,l"): _wide("mul_add"),
    (_MUL_64, "=l,=l,l,l"): _wide("mul"),
}
for _rounding in ("rn", "rz", "rm", "rp"):
    for _ftz in ("", ".ftz"):
        _BODIES[(f"sub.{_rounding}{_ftz}.f32 $0, $1, $2;", "=f,f,f")] = _sub("float")
    _BODIES[(f"sub.{_rounding}.f64 $0, $1, $2;", "=d,d,d")] = _sub("double")

DECLARATIONS = (
    "declare double @llvm.sqrt.f64(double)",
    "declare i32 @llvm.ctlz.i32(i32, i1)",
)


def asm_body(asm: str, constraints: str) -> str | None:
    """The IR body (arguments ``%a0``...) equal to the PTX ``asm``, or None."""
    return _BODIES.get((normalize(asm), constraints))
