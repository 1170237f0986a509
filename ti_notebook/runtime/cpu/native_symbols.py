"""Every external symbol a module's machine code needs, found before the code runs.

LLVM's instruction selection turns some operations into calls of compiler-rt/libgcc
helpers that the LLVM IR never mentions: ``x ** n`` with an integer ``n`` becomes
``llvm.powi``, which lowers to ``__powisf2``/``__powidf2``; 128-bit arithmetic to
``__multi3``, ``__divti3``...; half-precision conversions to ``__extendhfsf2``,
``__truncdfhf2``. The JIT resolves an external symbol through the process, where a
Python process usually has no libgcc, and an unresolved one is silently address 0: the
first call jumps there and the process dies.

So every object is read before it is loaded (its ELF symbol table lists what it needs,
after optimisation and instruction selection), and each undefined symbol must resolve:
to a symbol of the process (libc, libm, libmvec, the runtime's callbacks), to one an
earlier object defined, to libgcc's helper (``libgcc_s.so.1``) or libmvec's vector
math (both bound with ``llvm.add_symbol``), or to one of the small LLVM IR definitions here
(:data:`FALLBACK_IR`, used where libgcc lacks the helper). Anything else is a
:class:`~ti_notebook.errors.TiCompileError` naming the symbol, raised before the code is
loaded, so the process keeps working. An object that is not ELF64 (another OS) is not
read: the check is skipped there.

    >>> import llvmlite.binding as llvm
    >>> from ti_notebook.runtime.cpu.jit import jit
    >>> engine = jit()
    >>> module = engine.parse('''
    ... declare float @llvm.powi.f32.i32(float, i32)
    ... define float @p(float %x, i32 %n) {
    ...   %r = call float @llvm.powi.f32.i32(float %x, i32 %n)
    ...   ret float %r
    ... }''')
    >>> undefined_symbols(engine.object_code(module))
    ['__powisf2']
    >>> resolve("__powisf2", engine) > 0
    True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import struct
import threading

import llvmlite.binding as llvm

from ti_notebook.errors import TiCompileError

# The helpers LLVM's x86-64 and AArch64 back ends call for our IR's operations: powi of
# f32/f64; 128-bit multiply, divide and modulo (i64 overflow checks and wide
# intermediates); half <-> float/double conversions (GCC 12's names, and the older
# GNU ones some targets use); 128-bit <-> float conversions.
HELPERS = (
    "__powisf2",
    "__powidf2",
    "__multi3",
    "__muloti4",
    "__divti3",
    "__udivti3",
    "__modti3",
    "__umodti3",
    "__extendhfsf2",
    "__extendhfdf2",
    "__truncsfhf2",
    "__truncdfhf2",
    "__gnu_h2f_ieee",
    "__gnu_f2h_ieee",
    "__fixsfti",
    "__fixdfti",
    "__fixunssfti",
    "__fixunsdfti",
    "__floattisf",
    "__floattidf",
    "__floatuntisf",
    "__floatuntidf",
)

# Symbols the JIT's linker defines itself.
_LINKER_SYMBOLS = frozenset({"_GLOBAL_OFFSET_TABLE_"})

_POWI = """
define {t} @{name}({t} %a, i32 %b) {
entry:
  br label %loop
loop:
  %r = phi {t} [ 1.0, %entry ], [ %r1, %next ]
  %x = phi {t} [ %a, %entry ], [ %x1, %next ]
  %e = phi i32 [ %b, %entry ], [ %e1, %next ]
  %bit = and i32 %e, 1
  %odd = icmp ne i32 %bit, 0
  %rx = fmul {t} %r, %x
  %r1 = select i1 %odd, {t} %rx, {t} %r
  %e1 = sdiv i32 %e, 2
  %stop = icmp eq i32 %e1, 0
  br i1 %stop, label %done, label %next
next:
  %x1 = fmul {t} %x, %x
  br label %loop
done:
  %negative = icmp slt i32 %b, 0
  %inverse = fdiv {t} 1.0, %r1
  %out = select i1 %negative, {t} %inverse, {t} %r1
  ret {t} %out
}
"""

# compiler-rt's algorithms as LLVM IR, for a process without libgcc (``{name}``: the
# symbol to define). powi multiplies by squaring as compiler-rt does, so the results are
# the same bits; the GNU half conversions take and give the half's bits in an i16.
FALLBACK_IR = {
    "__powisf2": _POWI.replace("{t}", "float"),
    "__powidf2": _POWI.replace("{t}", "double"),
    "__gnu_h2f_ieee": """
define float @{name}(i16 %h) {
  %x = bitcast i16 %h to half
  %f = fpext half %x to float
  ret float %f
}
""",
    "__gnu_f2h_ieee": """
define i16 @{name}(float %f) {
  %h = fptrunc float %f to half
  %x = bitcast half %h to i16
  ret i16 %x
}
""",
}

_resolve_lock = threading.RLock()  # a fallback's own object is checked while resolving


# -- reading an object ------------------------------------------------------------------
def _elf_symbols(code: bytes) -> list[tuple[str, bool]] | None:
    """(name, defined) of each global or weak symbol of an ELF64 little-endian object;
    None for any other format; ValueError for an ELF64 object that cannot be read."""
    if len(code) < 64 or code[:4] != b"\x7fELF" or code[4] != 2 or code[5] != 1:
        return None
    try:
        return _read_elf_symbols(code)
    except (struct.error, IndexError, ValueError) as exc:  # ValueError: no NUL, bad UTF-8
        raise ValueError(f"malformed ELF object: {exc}") from None


def _read_elf_symbols(code: bytes) -> list[tuple[str, bool]]:
    shoff = struct.unpack_from("<Q", code, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", code, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", code, shoff + k * shentsize) for k in range(shnum)
    ]
    found = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or not entsize:  # SHT_SYMTAB
            continue
        strings_at = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):  # entry 0 is null
            name_at, info, _other, section, _value, _size = struct.unpack_from("<IBBHQQ", code, at)
            if info >> 4 not in (1, 2) or not name_at:  # local symbols link nothing
                continue
            end = code.index(b"\0", strings_at + name_at)
            found.append((code[strings_at + name_at : end].decode(), section != 0))
    return found


def undefined_symbols(code: bytes) -> list[str] | None:
    """The external symbols object ``code`` needs, sorted; None if it is not ELF64.

    >>> undefined_symbols(b"not an object") is None
    True
    """
    symbols = _elf_symbols(code)
    if symbols is None:
        return None
    return sorted({name for name, defined in symbols if not defined} - _LINKER_SYMBOLS)


def defined_symbols(code: bytes) -> list[str]:
    """The global symbols object ``code`` defines (what later objects may call)."""
    return sorted(name for name, defined in _elf_symbols(code) or () if defined)


# -- resolving --------------------------------------------------------------------------
# Libraries whose functions compiled code may call without the process having loaded
# them: libgcc's helpers, and libmvec's vector math (an offline-cache hit can need it
# before anything else loaded it; ``codegen/vector_math.py`` declares those calls).
LIBRARIES = (("gcc_s", "libgcc_s.so.1"), ("mvec", "libmvec.so.1"))


@functools.cache
def _library(short: str, soname: str) -> ctypes.CDLL | None:
    for name in (ctypes.util.find_library(short), soname):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                continue
    return None


def library_address(name: str) -> int | None:
    """The address of ``name`` in one of :data:`LIBRARIES`, or None.

    >>> library_address("__no_such_helper") is None
    True
    """
    for short, soname in LIBRARIES:
        lib = _library(short, soname)
        if lib is None:
            continue
        try:
            return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return None


def libgcc_address(name: str) -> int | None:
    """The address of libgcc's ``name``, or None (no libgcc, or not in it)."""
    lib = _library(*LIBRARIES[0])
    if lib is None:
        return None
    try:
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def fallback_ir(name: str, as_name: str | None = None) -> str | None:
    """:data:`FALLBACK_IR`'s definition of helper ``name`` (defining ``as_name``).

    >>> "define float @my_powi(float %a, i32 %b)" in fallback_ir("__powisf2", "my_powi")
    True
    """
    text = FALLBACK_IR.get(name)
    return None if text is None else text.replace("{name}", as_name or name)


def resolve(name: str, engine) -> int | None:
    """Makes ``name`` resolvable in ``engine`` (a :class:`~ti_notebook.runtime.cpu.jit.
    JitEngine`) if it can be; returns its address (0 for a symbol an object loaded
    there defines, which the JIT links itself), or None."""
    with _resolve_lock:
        if name in engine.defined:  # the runtime's code defines it: share it
            found = engine.engine
            address = found.get_function_address(name) or found.get_global_value_address(name)
            if address:
                llvm.add_symbol(name, address)
            return address or 0
        # process-wide first: a kernel's code loads into an engine of its own
        # (runtime/cpu/kernel_code.py), where only registered symbols resolve
        address = llvm.address_of_symbol(name)
        if address:
            return address
        address = library_address(name)
        if address:
            llvm.add_symbol(name, address)
            return address
        text = fallback_ir(name)
        if text is None:
            return None
        address = engine.add_ir(text, [name])[name]
        llvm.add_symbol(name, address)  # for the kernels' own engines too
        return address


def check_object(code: bytes, engine) -> None:
    """Raises :class:`~ti_notebook.errors.TiCompileError` naming every external symbol
    of object ``code`` that nothing resolves (binding helpers on the way), before the
    object is loaded."""
    try:
        needed = undefined_symbols(code) or ()
    except ValueError as exc:
        raise TiCompileError(
            f"the compiled code cannot be read ({exc}); it was not loaded",
            hint="clear the offline cache (ti.cache.clear()) if the code came from there",
        ) from None
    with _resolve_lock:
        missing = [name for name in needed if resolve(name, engine) is None]
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        raise TiCompileError(
            f"the compiled code calls the native function{'s' * (len(missing) > 1)} "
            f"{names}, which this process does not have; the code was not loaded",
            hint="this is a ti_notebook bug: please report it with the kernel's source; "
            "the notebook keeps working, other kernels are not affected",
        )
