"""``print`` in a CUDA kernel: CUDA's ``vprintf(format, args)``.

The format is a C string in constant memory (``addrspace(4)``), the arguments a buffer
of 8-byte slots (integers widened to 64 bits, floats to double, as C's varargs
promotion does). The driver prints the lines when the host next synchronises, to the
process's standard output. The print table (``ModuleGeneratorBase.register_print``)
is still filled, so a launcher or the SIMT emulator can format the lines itself.

Python format specs map to printf where printf has the same meaning (``"4d"``,
``".3f"``, ``"x"``); others print as without a spec.

    >>> printf_conversion("i32", None), printf_conversion("u64", "x")
    ('%lld', '%llx')
    >>> printf_conversion("f32", ".3f"), printf_conversion("f64", None)
    ('%.3f', '%.12f')
    >>> printf_conversion("f32", ">10s")
    '%f'
"""

from __future__ import annotations

import re

import llvmlite.ir as ll

from ti_notebook.codegen import common as c
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import types

_SPEC = re.compile(r"(?P<flags>[-+ #0]*)(?P<width>\d*)(?:\.(?P<precision>\d+))?(?P<kind>[a-zA-Z]?)")
_INT_KINDS = {"": "d", "d": "d", "x": "x", "X": "X", "o": "o"}
_FLOAT_KINDS = {"f", "F", "e", "E", "g", "G"}
CONSTANT_SPACE = 4


def printf_conversion(dtype_name: str, spec: str | None) -> str:
    """The printf conversion printing a value of ``dtype_name`` with Python ``spec``."""
    is_float = dtype_name.startswith("f")
    default = ("%.12f" if dtype_name == "f64" else "%f") if is_float else None
    if default is None:
        default = "%lld" if dtype_name.startswith("i") else "%llu"
    match = _SPEC.fullmatch(spec or "")
    if not spec or match is None:
        return default
    flags, width, precision, kind = match.group("flags", "width", "precision", "kind")
    if is_float:
        if kind not in _FLOAT_KINDS and kind != "":
            return default
        kind = kind or "g"
    else:
        if kind not in _INT_KINDS or precision is not None:
            return default
        kind = _INT_KINDS[kind]
        if kind == "d" and dtype_name.startswith("u"):
            kind = "u"
        kind = "ll" + kind
    return f"%{flags}{width}{'.' + precision if precision is not None else ''}{kind}"


def printf_format(stmt: ir.PrintStmt) -> str:
    """The whole line's printf format (``%`` in text doubled)."""
    out = []
    for item in stmt.layout:
        if item is None:
            out.append(stmt.sep.replace("%", "%%"))
        elif isinstance(item, str):
            out.append(item.replace("%", "%%"))
        else:
            out.append(printf_conversion(stmt.values[item].dtype.name, stmt.specs[item]))
    return "".join(out) + stmt.end.replace("%", "%%")


class DevicePrint:
    """``emit_Print`` for the NVPTX emitter."""

    def emit_Print(self, s: ir.PrintStmt):
        self.gen.register_print(s)
        b = self.b
        slots = max(len(s.values), 1)
        args = self.entry_builder.alloca(ll.ArrayType(c.I64, slots), name="printf_args")
        args.align = 8
        for k, item in enumerate(s.values):
            raw = self.v(item)
            if item.dtype.is_float:
                raw = b.bitcast(self.cast(raw, item.dtype, types.f64), c.I64)
            else:
                wide = types.i64 if item.dtype.is_signed else types.u64
                raw = self.cast(raw, item.dtype, wide)
            b.store(raw, b.gep(args, [ll.Constant(c.I64, 0), ll.Constant(c.I32, k)]))
        vprintf = self.declare("vprintf", c.I32, [c.PTR, c.PTR])
        b.call(vprintf, [self.format_string(printf_format(s)), args])

    def format_string(self, text: str) -> ll.Value:
        """A generic pointer to ``text`` (NUL-terminated) in constant memory."""
        data = bytearray(text.encode("utf-8") + b"\0")
        string_type = ll.ArrayType(c.I8, len(data))
        name = f"{self.gen.prefix}_format{len(self.gen.prints) - 1}"
        string = ll.GlobalVariable(self.module, string_type, name, addrspace=CONSTANT_SPACE)
        string.global_constant = True
        string.linkage = "private"
        string.initializer = ll.Constant(string_type, data)
        return self.b.addrspacecast(string, c.PTR)
