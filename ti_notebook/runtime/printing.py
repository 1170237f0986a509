"""``print`` inside kernels: a native callback formats lines; the launcher flushes them.

Kernels call ``tin_print(ctx, print_id, values)``; the callback (a ctypes function
registered with the JIT) looks up the format of ``print_id`` for the kernel that owns
``ctx``, formats the line and buffers it. The launcher writes the buffer to
``sys.stdout`` when the launch ends, so output lands in the notebook cell that ran the
kernel (DESIGN.md section 5).

    >>> format_value(1.5, "f32"), format_value(-3, "i32"), format_value(-3, "i32", "4d")
    ('1.500000', '-3', '  -3')
"""

from __future__ import annotations

import ctypes
import struct
import sys

_formats: dict[int, list[dict]] = {}  # ctx address -> print formats of that kernel
_pending: list[str] = []
_PRINT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p)
_callback_ref = None


def format_value(value, dtype_name: str, spec: str | None = None) -> str:
    """Taichi's formats: integers in full, f32 as ``%f``, f64 as ``%.12f``."""
    if spec:
        return format(value, spec)
    if dtype_name.startswith("f"):
        return f"{value:.6f}" if dtype_name in ("f16", "f32") else f"{value:.12f}"
    return str(int(value))


def _on_print(ctx: int, print_id: int, values: int) -> None:
    try:
        spec = _formats[ctx][print_id]
        parts = spec["parts"]
        count = sum(1 for p in parts if p[0] == "value")
        raw = (ctypes.c_int64 * max(count, 1)).from_address(values) if count else []
        out, k = [], 0
        for part in parts:
            if part[0] == "text":
                out.append(part[1])
            elif part[0] == "sep":
                out.append(spec["sep"])
            else:
                bits = raw[k]
                k += 1
                dtype_name = part[1]
                if dtype_name.startswith("f"):
                    value = struct.unpack("<d", struct.pack("<q", bits))[0]
                elif dtype_name.startswith("u"):
                    value = bits & 0xFFFFFFFFFFFFFFFF
                else:
                    value = bits
                out.append(format_value(value, dtype_name, part[2]))
        _pending.append("".join(out) + spec["end"])
    except Exception as exc:  # never let an exception cross into native code
        _pending.append(f"<print failed: {exc}>\n")


def callback_address() -> int:
    global _callback_ref
    if _callback_ref is None:
        _callback_ref = _PRINT_CALLBACK(_on_print)
    return ctypes.cast(_callback_ref, ctypes.c_void_p).value


def register(ctx_address: int, formats: list[dict]) -> None:
    if formats:
        _formats[ctx_address] = formats


def unregister(ctx_address: int) -> None:
    _formats.pop(ctx_address, None)


def flush() -> None:
    """Writes buffered kernel output to the caller's ``sys.stdout``."""
    if _pending:
        text = "".join(_pending)
        _pending.clear()
        sys.stdout.write(text)
