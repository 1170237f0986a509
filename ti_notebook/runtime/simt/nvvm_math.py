"""Math on the CPU for NVPTX modules: NVVM math intrinsics and libdevice's ``__nv_*``.

Two cases, both as shims (see ``intrinsics.py``):

- ``llvm.nvvm.<op>.<rounding>[.ftz].<type>`` intrinsics, which appear once libdevice has
  been linked in and inlined (``add.rn.d``, ``fma.rz.f``, ``ex2.approx.ftz.f32``,
  ``d2i.hi``, ``lohi.i2d``, ``saturate.f``...), become LLVM instructions and generic
  intrinsics. Rounding modes other than round-to-nearest, ``.approx`` and ``.ftz`` are
  not reproduced: results can differ from a GPU's in the last bits.
- declared (not linked) ``__nv_X`` functions become calls to the C library's ``X``
  (``__nv_sinf`` -> ``sinf``, ``__nv_fast_expf`` -> ``expf``, ``__nv_pow`` -> ``pow``),
  plus a table for the ones libm lacks (``rsqrtf``, ``saturatef``, ``isnanf``...).

    >>> math_shim("llvm.nvvm.fma.rn.f", "float", ["float", "float", "float"]).body
    '  %r = call float @llvm.fma.f32(float %a0, float %a1, float %a2)\\n  ret float %r'
    >>> libdevice_shim("__nv_sinf", "float", ["float"]).body
    '  %r = call float @sinf(float %a0)\\n  ret float %r'
"""

from __future__ import annotations

import ctypes
import re

from ti_notebook.runtime.simt.intrinsics import Shim

__all__ = ["math_shim", "libdevice_shim"]

_FLOAT_TYPES = {"f": "float", "f32": "float", "d": "double", "f64": "double"}
_SUFFIX = {"float": "f32", "double": "f64"}
_BINARY = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}
_UNARY_INTRINSIC = {
    "sqrt": "sqrt",
    "ex2": "exp2",
    "lg2": "log2",
    "sin": "sin",
    "cos": "cos",
    "tanh": "tanh",
    "fabs": "fabs",
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
    "round": "round",
}
_ROUND_TO_INT = {"rn": "rint", "rm": "floor", "rp": "ceil"}  # rz: fpto*i truncates
_INT_TYPES = {"i": "i32", "ui": "i32", "ll": "i64", "ull": "i64"}
_libc = ctypes.CDLL(None)


def _call(ret: str, fn: str, args: list[str], types: list[str]) -> tuple[str, str]:
    typed = ", ".join(f"{t} {a}" for t, a in zip(types, args, strict=True))
    return f"call {ret} @{fn}({typed})", f"declare {ret} @{fn}({', '.join(types)})"


def _unary(op: str, ty: str) -> Shim:
    intrinsic = f"llvm.{_UNARY_INTRINSIC[op]}.{_SUFFIX[ty]}"
    call, decl = _call(ty, intrinsic, ["%a0"], [ty])
    return Shim(f"  %r = {call}\n  ret {ty} %r", (decl,))


def _float_op(op: str, ty: str) -> Shim | None:
    one = "1.0"
    if op in _BINARY:
        return Shim(f"  %r = {_BINARY[op]} {ty} %a0, %a1\n  ret {ty} %r")
    if op == "fma":
        call, decl = _call(ty, f"llvm.fma.{_SUFFIX[ty]}", ["%a0", "%a1", "%a2"], [ty] * 3)
        return Shim(f"  %r = {call}\n  ret {ty} %r", (decl,))
    if op == "rcp":
        return Shim(f"  %r = fdiv {ty} {one}, %a0\n  ret {ty} %r")
    if op == "rsqrt":
        call, decl = _call(ty, f"llvm.sqrt.{_SUFFIX[ty]}", ["%a0"], [ty])
        return Shim(f"  %s = {call}\n  %r = fdiv {ty} {one}, %s\n  ret {ty} %r", (decl,))
    if op == "saturate":
        sfx = _SUFFIX[ty]
        low, d1 = _call(ty, f"llvm.maxnum.{sfx}", ["%a0", "0.0"], [ty, ty])
        high, d2 = _call(ty, f"llvm.minnum.{sfx}", ["%l", one], [ty, ty])
        return Shim(f"  %l = {low}\n  %r = {high}\n  ret {ty} %r", (d1, d2))
    if op.removesuffix("nan") in ("fmin", "fmax"):
        # .nan variants propagate NaN (llvm.minimum); the plain ones ignore it (minnum)
        plain = op.removesuffix("nan")
        name = plain[1:] + ("imum" if op.endswith("nan") else "num")
        call, decl = _call(ty, f"llvm.{name}.{_SUFFIX[ty]}", ["%a0", "%a1"], [ty, ty])
        return Shim(f"  %r = {call}\n  ret {ty} %r", (decl,))
    if op in _UNARY_INTRINSIC:
        return _unary(op, ty)
    return None


def _conversion(rest: str, ret: str) -> Shim | None:
    match = re.fullmatch(r"(f|d)2(i|ui|ll|ull)\.(rn|rz|rm|rp)(\.ftz)?", rest)
    if match:
        src = _FLOAT_TYPES[match[1]]
        convert = "fptoui" if match[2].startswith("u") else "fptosi"
        if match[3] == "rz":
            return Shim(f"  %r = {convert} {src} %a0 to {ret}\n  ret {ret} %r")
        call, decl = _call(src, f"llvm.{_ROUND_TO_INT[match[3]]}.{_SUFFIX[src]}", ["%a0"], [src])
        return Shim(f"  %x = {call}\n  %r = {convert} {src} %x to {ret}\n  ret {ret} %r", (decl,))
    match = re.fullmatch(r"(i|ui|ll|ull)2(f|d)\.(rn|rz|rm|rp)", rest)
    if match:
        convert = "uitofp" if match[1].startswith("u") else "sitofp"
        return Shim(f"  %r = {convert} {_INT_TYPES[match[1]]} %a0 to {ret}\n  ret {ret} %r")
    if re.fullmatch(r"d2f\.(rn|rz|rm|rp)(\.ftz)?", rest):
        return Shim("  %r = fptrunc double %a0 to float\n  ret float %r")
    if rest in ("d2i.hi", "d2i.lo"):
        shift = "  %h = lshr i64 %b, 32\n" if rest == "d2i.hi" else "  %h = or i64 %b, 0\n"
        return Shim(
            f"  %b = bitcast double %a0 to i64\n{shift}  %r = trunc i64 %h to i32\n  ret i32 %r"
        )
    if rest == "lohi.i2d":
        return Shim(
            "  %lo = zext i32 %a0 to i64\n  %hi0 = zext i32 %a1 to i64\n"
            "  %hi = shl i64 %hi0, 32\n  %b = or i64 %hi, %lo\n"
            "  %r = bitcast i64 %b to double\n  ret double %r"
        )
    if rest in ("bitcast.f2i", "bitcast.i2f", "bitcast.ll2d", "bitcast.d2ll"):
        return Shim(f"  %r = bitcast {{P0}} %a0 to {ret}\n  ret {ret} %r")
    return None


def _integer(rest: str, ret: str) -> Shim | None:
    match = re.fullmatch(r"mulhi\.(i|ui|ll|ull)", rest)
    if match:
        ty = _INT_TYPES[match[1]]
        wide = "i64" if ty == "i32" else "i128"
        ext = "zext" if match[1].startswith("u") else "sext"
        bits = 32 if ty == "i32" else 64
        return Shim(
            f"  %x = {ext} {ty} %a0 to {wide}\n  %y = {ext} {ty} %a1 to {wide}\n"
            f"  %m = mul {wide} %x, %y\n  %h = lshr {wide} %m, {bits}\n"
            f"  %r = trunc {wide} %h to {ty}\n  ret {ty} %r"
        )
    match = re.fullmatch(r"(popc|clz)\.(i|ll)", rest)
    if match:
        ty = _INT_TYPES[match[2]]
        fn = "ctpop" if match[1] == "popc" else "ctlz"
        extra = ", i1 false" if fn == "ctlz" else ""
        types = f"{ty}, i1" if fn == "ctlz" else ty
        decl = f"declare {ty} @llvm.{fn}.{ty}({types})"
        narrow = f"  %r = trunc {ty} %c to i32" if ty == "i64" else "  %r = or i32 %c, 0"
        return Shim(
            f"  %c = call {ty} @llvm.{fn}.{ty}({ty} %a0{extra})\n{narrow}\n  ret i32 %r", (decl,)
        )
    match = re.fullmatch(r"brev(32|64)", rest)
    if match:
        ty = f"i{match[1]}"
        call, decl = _call(ty, f"llvm.bitreverse.{ty}", ["%a0"], [ty])
        return Shim(f"  %r = {call}\n  ret {ty} %r", (decl,))
    return None


def math_shim(name: str, ret: str, params: list[str]) -> Shim | None:
    """The shim for NVVM math intrinsic ``name``, or None if it is not one we know."""
    if not name.startswith("llvm.nvvm."):
        return None
    rest = name[len("llvm.nvvm.") :]
    match = re.fullmatch(
        r"(?P<op>[a-z]+[0-9]?)(?:\.(?:rn|rz|rm|rp|approx|full))?(?:\.ftz)?(?P<nan>\.nan)?"
        r"(?:\.sat)?\.(?P<ty>f|d|f32|f64)",
        rest,
    )
    if match and ret in ("float", "double"):
        op = match["op"] + ("nan" if match["nan"] else "")
        shim = _float_op(op, ret)
        if shim is not None:
            return shim
    shim = _conversion(rest, ret) or _integer(rest, ret)
    if shim is not None and "{P0}" in shim.body:
        shim = Shim(shim.body.replace("{P0}", params[0]), shim.declares, shim.attributes)
    return shim


# libdevice functions whose C library namesake is missing or different.
_LIBDEVICE_SPECIAL = {
    "rsqrtf": "rsqrt.f",
    "rsqrt": "rsqrt.d",
    "saturatef": "saturate.f",
    "fdividef": "div.approx.f",
    "frcp_rn": "rcp.rn.f",
    "drcp_rn": "rcp.rn.d",
    "brev": "brev32",
    "brevll": "brev64",
    "popc": "popc.i",
    "popcll": "popc.ll",
    "clz": "clz.i",
    "clzll": "clz.ll",
    "mulhi": "mulhi.i",
    "umulhi": "mulhi.ui",
    "mul64hi": "mulhi.ll",
    "umul64hi": "mulhi.ull",
}


def _classify(name: str, ty: str) -> Shim | None:
    # __nv_isnanf / isinfd / finitef / isfinited / signbitf: i32 results
    predicates = {
        "isnan": "  %c = fcmp uno {T} %a0, 0.0",
        "isinf": "  %f = call {T} @llvm.fabs.{S}({T} %a0)\n  %c = fcmp oeq {T} %f, {INF}",
        "finite": "  %f = call {T} @llvm.fabs.{S}({T} %a0)\n  %c = fcmp one {T} %f, {INF}",
        "isfinite": "  %f = call {T} @llvm.fabs.{S}({T} %a0)\n  %c = fcmp one {T} %f, {INF}",
        "signbit": "  %i = bitcast {T} %a0 to {I}\n  %c = icmp slt {I} %i, 0",
    }
    base = re.sub(r"^__|[fd]$", "", name)
    if base not in predicates:
        return None
    sfx = _SUFFIX[ty]
    inf = "0x7FF0000000000000"
    lines = predicates[base].format(T=ty, S=sfx, INF=inf, I="i32" if ty == "float" else "i64")
    decl = f"declare {ty} @llvm.fabs.{sfx}({ty})"
    return Shim(f"{lines}\n  %r = zext i1 %c to i32\n  ret i32 %r", (decl,))


def libdevice_shim(name: str, ret: str, params: list[str]) -> Shim | None:
    """The definition of a declared ``__nv_*`` function, or None if we have none."""
    if not name.startswith("__nv_"):
        return None
    base = name[len("__nv_") :]
    base = base.removeprefix("fast_")
    if base in _LIBDEVICE_SPECIAL:
        return math_shim("llvm.nvvm." + _LIBDEVICE_SPECIAL[base], ret, params)
    if params and params[0] in ("float", "double") and ret == "i32":
        shim = _classify(base, params[0])
        if shim is not None:
            return shim
    match = re.fullmatch(r"(u|ll|ull)?(min|max)", base)
    if match and params == [ret, ret]:
        sign = "u" if (match[1] or "").startswith("u") else "s"
        call, decl = _call(ret, f"llvm.{sign}{match[2]}.{ret}", ["%a0", "%a1"], params)
        return Shim(f"  %r = {call}\n  ret {ret} %r", (decl,))
    # CDLL(None) sees every library of the process, libm included (CPython links it).
    if hasattr(_libc, base):
        args = [f"%a{i}" for i in range(len(params))]
        call, decl = _call(ret, base, args, params)
        if ret == "void":
            return Shim(f"  {call}\n  ret void", (decl,))
        return Shim(f"  %r = {call}\n  ret {ret} %r", (decl,))
    return None
