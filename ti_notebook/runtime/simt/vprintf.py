"""``vprintf`` and ``__assertfail`` for emulated kernels: CUDA's device-side printf.

NVPTX code calls ``vprintf(fmt, args)`` where ``args`` is a buffer holding the
arguments one after another, each at its natural alignment, after C's promotions
(``float`` as ``double``, small integers as ``int``). The callback reads that buffer
by the format's conversions, formats the line as C would and keeps it; the launch writes
the kept lines to ``sys.stdout`` when it ends, so they land in the cell that ran it
(threads of a block print in whatever order they ran, as on a GPU).

    >>> import ctypes, struct
    >>> args = ctypes.create_string_buffer(struct.pack("<i4xd", 7, 2.5))
    >>> format_printf(b"x=%d y=%.2f%%\\n", ctypes.addressof(args))
    'x=7 y=2.50%\\n'
"""

from __future__ import annotations

import ctypes
import re
import struct
import sys

__all__ = ["format_printf", "vprintf_address", "assertfail_address"]

_CONVERSION = re.compile(
    rb"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d*))?"
    rb"(?P<length>hh|h|ll|l|L|q|j|z|t)?(?P<conv>[diouxXeEfFgGaAcspn%])"
)
_VPRINTF = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)
_ASSERTFAIL = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint64
)
_pending: list[str] = []
_assertion: list[str] = []
_callbacks: dict[str, object] = {}


class _ArgReader:
    """Reads promoted arguments from a vprintf buffer, each at its natural alignment."""

    def __init__(self, address: int) -> None:
        self.address = address
        self.offset = 0

    def take(self, size: int, code: str):
        self.offset = (self.offset + size - 1) // size * size
        raw = ctypes.string_at(self.address + self.offset, size)
        self.offset += size
        return struct.unpack("<" + code, raw)[0]


def _c_alternate_form(match: re.Match, width, precision, conv: str, value: int) -> str:
    """The spec (without its conversion) that makes Python's ``%`` print C's ``#`` form:
    C prints 0 in ``%#x`` as ``0`` (Python: ``0x0``) and ``%#o`` with a leading ``0``
    (Python: ``0o``), by raising the precision."""
    flags = match["flags"].decode()
    if conv == "o":
        flags = flags.replace("#", "")
        digits = len(f"{value:o}")
        if value != 0:
            precision = str(max(int(precision or 0), digits + 1)).encode()
    elif value == 0:
        flags = flags.replace("#", "")
    spec = "%" + flags + (width or b"").decode()
    return spec + ("." + (precision.decode() or "0") if precision is not None else "")


def _format_one(match: re.Match, reader: _ArgReader) -> str:
    conv = match["conv"].decode()
    if conv == "%":
        return "%"
    width, precision = match["width"], match["precision"]
    if width == b"*":
        width = str(reader.take(4, "i")).encode()
    if precision == b"*":
        precision = str(reader.take(4, "i")).encode()
    spec = "%" + match["flags"].decode() + (width or b"").decode()
    if precision is not None:
        spec += "." + (precision.decode() or "0")
    wide = match["length"] in (b"l", b"ll", b"q", b"j", b"z", b"t")
    if conv in "diouxXc":
        signed = conv in "di"
        size = 8 if wide else 4
        value = reader.take(size, ("q" if wide else "i") if signed else ("Q" if wide else "I"))
        if conv == "c":
            return (spec + "s") % chr(value & 0xFF)
        if "#" in match["flags"].decode() and conv in "xXo":
            spec = _c_alternate_form(match, width, precision, conv, value)
        return (spec + ("d" if conv == "u" else conv)) % value
    if conv in "eEfFgGaA":
        value = reader.take(8, "d")
        if conv in "aA":
            text = value.hex()
            return (spec.split(".")[0] + "s") % (text.upper() if conv == "A" else text)
        return (spec + conv) % value
    pointer = reader.take(8, "Q")
    if conv == "s":
        text = ctypes.string_at(pointer).decode(errors="replace") if pointer else "(null)"
        return (spec + "s") % text
    if conv == "p":
        return (spec.split(".")[0] + "s") % hex(pointer)
    return ""  # %n writes nothing here


def format_printf(fmt: bytes, args_address: int | None) -> str:
    """Formats C printf ``fmt`` with arguments read from a CUDA vprintf buffer."""
    reader = _ArgReader(args_address or 0)
    out, last = [], 0
    for match in _CONVERSION.finditer(fmt):
        out.append(fmt[last : match.start()].decode(errors="replace"))
        out.append(_format_one(match, reader))
        last = match.end()
    out.append(fmt[last:].decode(errors="replace"))
    return "".join(out)


def _on_vprintf(fmt: int, args: int) -> int:
    try:
        text = format_printf(ctypes.string_at(fmt), args)
    except Exception as exc:  # never let an exception cross into native code
        text = f"<printf failed: {exc}>\n"
    _pending.append(text)
    return len(text)


def _on_assertfail(message: int, file: int, line: int, function: int, _char_size: int) -> None:
    def text(address: int) -> str:
        return ctypes.string_at(address).decode(errors="replace") if address else "?"

    if not _assertion:
        _assertion.append(
            f"assertion '{text(message)}' failed at {text(file)}:{line} in {text(function)}"
        )


def _address(name: str, kind, function) -> int:
    if name not in _callbacks:
        _callbacks[name] = kind(function)
    return ctypes.cast(_callbacks[name], ctypes.c_void_p).value


def vprintf_address() -> int:
    """The native address of the ``vprintf`` callback (kept alive for the process)."""
    return _address("vprintf", _VPRINTF, _on_vprintf)


def assertfail_address() -> int:
    """The native address of the ``__assertfail`` callback."""
    return _address("assertfail", _ASSERTFAIL, _on_assertfail)


def begin_launch() -> None:
    """Forgets output and assertion messages of earlier launches."""
    _pending.clear()
    _assertion.clear()


def end_launch() -> None:
    """Writes the launch's printed lines to the caller's ``sys.stdout``."""
    if _pending:
        sys.stdout.write("".join(_pending))
        _pending.clear()
        sys.stdout.flush()


def take_assertion() -> str:
    """The message of the launch's first failed assertion, or ''."""
    return _assertion.pop() if _assertion else ""
