"""``print`` in a CUDA kernel: CUDA's ``vprintf(format, args)``.

The format is a C string in constant memory (``addrspace(4)``), the arguments a buffer
of 8-byte slots (integers widened to 64 bits, floats to double, as C's varargs
promotion does). The driver prints the lines when the host next synchronises, to the
process's standard output. The print table (``ModuleGeneratorBase.register_print``)
is still filled, so a launcher or the SIMT emulator can format the lines itself.

Lines match the CPU's (``runtime/printing.py``, Python's ``format``): without a spec
f32 prints as ``%f``, f64 as ``%.12f``, integers in full. A Python format spec maps to
the printf conversion that prints the same text: sign, ``#``, ``0``, width, precision,
``<`` / ``>`` alignment and the types ``d x X o e E f F g G``; a negative integer in hex
or octal prints as ``-2a`` (sign and magnitude, as Python), not in two's complement.
What printf cannot say prints as without a spec, so it differs from the CPU: centring
(``^``), ``=`` and fill characters, grouping (``,`` ``_``), the types ``b c n %``,
``#o``, and a float spec without a type (``8``, ``.3``), which prints as ``%g``;
so does the width of a negative hex number (the sign goes before the padding). ``#x``
prints its ``0x`` as text, since C's ``%#x`` prints 0 as ``0`` where Python prints
``0x0``; with a width it stays ``%#x`` (padding goes before the prefix), and only 0
prints differently.

    >>> printf_conversion("i32", None), printf_conversion("u64", "x")
    ('%lld', '%llx')
    >>> printf_conversion("f32", ".3f"), printf_conversion("f64", None)
    ('%.3f', '%.12f')
    >>> printf_conversion("i32", "<6d"), printf_conversion("i32", "^6d")
    ('%-6lld', '%lld')
    >>> printf_conversion("f32", ">10s"), signed_magnitude("i32", "#x")
    ('%f', True)
    >>> hex_prefix("i32", "#x"), printf_conversion("i32", "#x"), printf_conversion("i32", "#8x")
    ('0x', '%llx', '%#8llx')
"""

from __future__ import annotations

import re

import llvmlite.ir as ll

from ti_notebook.codegen.function import FunctionEmitter
from ti_notebook.codegen.llvm_types import I8, I32, I64, PTR
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types

# Python's format-spec mini-language: [[fill]align][sign][z][#][0][width][grouping]
# [.precision][type]
_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<kind>[a-zA-Z%])?",
    re.S,
)
_INT_KINDS = {"": "d", "d": "d", "x": "x", "X": "X", "o": "o"}
_FLOAT_KINDS = {"", "f", "F", "e", "E", "g", "G"}
CONSTANT_SPACE = 4


def _default(dtype_name: str) -> str:
    if dtype_name.startswith("f"):
        return "%.12f" if dtype_name == "f64" else "%f"
    return "%lld" if dtype_name.startswith("i") else "%llu"


def printf_conversion(dtype_name: str, spec: str | None) -> str:
    """The printf conversion printing a value of ``dtype_name`` as Python's ``spec``
    would, or as without a spec where printf has no equivalent (see the module)."""
    match = _SPEC.fullmatch(spec or "")
    if not spec or match is None:
        return _default(dtype_name)
    m = match.groupdict()
    is_float = dtype_name.startswith("f")
    kind = m["kind"] or ""
    expressible = (
        m["fill"] in (None, " ")
        and m["align"] in (None, "<", ">")
        and not m["z"]
        and not m["grouping"]
        and kind in (_FLOAT_KINDS if is_float else _INT_KINDS)
        and (is_float or m["precision"] is None)
        and not (m["alt"] and kind == "o")  # Python's 0o52 against C's 052
    )
    if not expressible:
        return _default(dtype_name)
    flags = ("-" if m["align"] == "<" else "") + (m["sign"] or "").replace("-", "")
    alt = m["alt"] and not (kind in "xX" and not m["width"])  # else printed as text
    flags += ("#" if alt else "") + (m["zero"] or "")
    precision = f".{m['precision']}" if m["precision"] is not None else ""
    if is_float:
        kind = kind or "g"
    else:
        kind = _INT_KINDS[kind]
        if kind == "d" and dtype_name.startswith("u"):
            kind = "u"
        kind = "ll" + kind
    return f"%{flags}{m['width'] or ''}{precision}{kind}"


def hex_prefix(dtype_name: str, spec: str | None) -> str:
    """The ``0x``/``0X`` that a ``#x``/``#X`` spec without a width prints as text
    (before the digits, after the sign), or ``""``."""
    match = _SPEC.fullmatch(spec or "")
    if not spec or match is None or not match["alt"] or match["width"]:
        return ""
    conversion = printf_conversion(dtype_name, spec)
    return "0" + conversion[-1] if conversion[-1] in "xX" and "#" not in conversion else ""


def signed_magnitude(dtype_name: str, spec: str | None) -> bool:
    """True when a signed integer prints in hex or octal: as a sign (``%s``) and the
    magnitude, as Python prints ``-42`` in hex (``-2a``)."""
    if not dtype_name.startswith("i"):
        return False
    return printf_conversion(dtype_name, spec)[-1] in "xXo"


def printf_format(stmt: ir.PrintStmt) -> str:
    """The whole line's printf format (``%`` in text doubled)."""
    out = []
    for item in stmt.layout:
        if item is None:
            out.append(stmt.sep.replace("%", "%%"))
        elif isinstance(item, str):
            out.append(item.replace("%", "%%"))
        else:
            dtype_name, spec = stmt.values[item].dtype.name, stmt.specs[item]
            sign = "%s" if signed_magnitude(dtype_name, spec) else ""
            prefix = hex_prefix(dtype_name, spec)
            out.append(sign + prefix + printf_conversion(dtype_name, spec))
    return "".join(out) + stmt.end.replace("%", "%%")


def emit_print(e: FunctionEmitter, s: ir.PrintStmt) -> None:
    """A ``vprintf`` of the line's format and its values (see the module)."""
    e.gen.register_print(s)
    b = e.b
    slots: list[ll.Value] = []
    for item, spec in zip(s.values, s.specs, strict=True):
        raw = e.v(item)
        if item.dtype.is_float:
            slots.append(b.bitcast(e.arith.cast(raw, item.dtype, types.f64), I64))
            continue
        wide = types.i64 if item.dtype.is_signed else types.u64
        raw = e.arith.cast(raw, item.dtype, wide)
        if signed_magnitude(item.dtype.name, spec):
            negative = b.icmp_signed("<", raw, ll.Constant(I64, 0))
            sign = b.select(negative, sign_string(e, "-"), sign_string(e, ""))
            slots.append(b.ptrtoint(sign, I64))
            raw = b.select(negative, b.neg(raw), raw)
        slots.append(raw)
    args = e.entry_builder.alloca(ll.ArrayType(I64, max(len(slots), 1)), name="printf_args")
    args.align = 8
    for k, raw in enumerate(slots):
        b.store(raw, b.gep(args, [ll.Constant(I64, 0), ll.Constant(I32, k)]))
    vprintf = e.declare("vprintf", I32, [PTR, PTR])
    b.call(vprintf, [format_string(e, printf_format(s)), args])


def sign_string(e: FunctionEmitter, text: str) -> ll.Value:
    """A generic pointer to the constant string ``text`` ("-" or "")."""
    name = f"{e.gen.prefix}_sign{'_minus' if text else '_none'}"
    string = e.module.globals.get(name)
    if string is None:
        data = bytearray(text.encode() + b"\0")
        string_type = ll.ArrayType(I8, len(data))
        string = ll.GlobalVariable(e.module, string_type, name, addrspace=CONSTANT_SPACE)
        string.global_constant = True
        string.linkage = "private"
        string.initializer = ll.Constant(string_type, data)
    return e.b.addrspacecast(string, PTR)


def format_string(e: FunctionEmitter, text: str) -> ll.Value:
    """A generic pointer to ``text`` (NUL-terminated) in constant memory."""
    data = bytearray(text.encode("utf-8") + b"\0")
    string_type = ll.ArrayType(I8, len(data))
    name = f"{e.gen.prefix}_format{len(e.gen.prints) - 1}"
    string = ll.GlobalVariable(e.module, string_type, name, addrspace=CONSTANT_SPACE)
    string.global_constant = True
    string.linkage = "private"
    string.initializer = ll.Constant(string_type, data)
    return e.b.addrspacecast(string, PTR)
