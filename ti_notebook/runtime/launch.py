"""Launching a compiled kernel on the CPU: pack arguments, call, check, unpack.

Launch overhead is a first-class cost (DESIGN.md section 5): each compiled kernel owns
its launch context buffer and a precomputed ``struct`` layout, so a launch is one
``pack_into``, one ctypes call and one read of the error slot.

    >>> layout = ArgLayout([ArgSlot("n", "int", None, 0)])
    >>> layout.offsets, layout.size
    ({0: 128, ('return', 0): 88}, 136)
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct
import sys
import threading
import time

import numpy as np

from ti_notebook.errors import (
    KernelInterrupted,
    SourcePos,
    TiIndexError,
    TiOverflowError,
    TiRuntimeError,
    TiTypeError,
    TiValueError,
)
from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir import types as T
from ti_notebook.ir.launch_abi import ProfileLayout
from ti_notebook.runtime import interrupt, memory, printing, profiler
from ti_notebook.runtime.arg_packer import make_packer
from ti_notebook.runtime.profiler_events import KernelProfile, LaunchEvent, decode

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_LAUNCH_LOCK = threading.RLock()  # re-entrant: a print callback may not, but be safe


def no_launch_running() -> threading.RLock:
    """The lock every launch holds: ``with no_launch_running():`` waits for a launch in
    another thread to finish, so memory it uses can be freed safely (``ti.reset``,
    ``ti.init``, ``tree.destroy``)."""
    return _LAUNCH_LOCK


_ERROR = struct.Struct("<q8q")
_STRUCT_CODES = {
    "i8": "b",
    "u8": "B",
    "i16": "h",
    "u16": "H",
    "i32": "i",
    "u32": "I",
    "i64": "q",
    "u64": "Q",
    "f16": "e",
    "f32": "f",
    "f64": "d",
}


@dataclasses.dataclass
class ArgSlot:
    """One runtime argument: ``kind`` is int, uint, float or ndarray."""

    name: str
    kind: str
    dtype: T.DataType | None
    ndim: int
    written: bool = False  # ndarrays: the kernel stores into it


class ArgLayout:
    """Where each runtime argument sits in the context, and its ``struct`` format.

    ``offsets`` maps argument slot ``k`` to its offset, and ``("return", k)`` to where
    return slot ``k`` is written: the first at ``CTX_RETURN``, the others (a vector's or
    a struct's scalars, a tuple's values) 8 bytes each right after the arguments.

        >>> layout = ArgLayout([ArgSlot("n", "int", None, 0)], returns=3)
        >>> [layout.offsets[("return", k)] for k in range(3)], layout.size
        ([88, 136, 144], 152)
    """

    def __init__(self, slots: list[ArgSlot], returns: int = 1) -> None:
        self.slots = slots
        self.offsets: dict = {}
        fmt = ["<q"]  # the launch number, just before the arguments
        offset = abi.CTX_ARGS
        for k, slot in enumerate(slots):
            self.offsets[k] = offset
            if slot.kind == "ndarray":
                fmt.append("Q" + "q" * slot.ndim)
                offset += 8 + 8 * slot.ndim
            else:
                fmt.append({"int": "q", "uint": "Q", "float": "d"}[slot.kind])
                offset += 8
        self.packer = struct.Struct("".join(fmt))
        self.offsets[("return", 0)] = abi.CTX_RETURN
        self.extra_returns = (offset, 8 * max(returns - 1, 0))  # (offset, bytes) after args
        for k in range(1, returns):
            self.offsets[("return", k)] = offset
            offset += 8
        self.size = offset


def _int_converter(name: str, dtype: T.DataType):
    mask = (1 << 64) - 1
    low, high = dtype.int_range()

    def convert(value, out):
        if isinstance(value, (bool, int, np.integer)):
            number = int(value)
            if not low <= number <= high:
                raise TiOverflowError(
                    f"argument '{name}' = {number} is outside the range of {dtype} [{low}, {high}]",
                    hint=f"pass a value in range, or annotate '{name}' with a wider type (ti.i64)",
                )
            out.append(number & mask if not dtype.is_signed else number)
            return
        raise TiTypeError(
            f"argument '{name}' must be an integer ({dtype}), got {type(value).__name__} {value!r}",
            hint=f"pass an int, or annotate '{name}' as float",
        )

    return convert


def _float_converter(name: str, dtype: T.DataType):
    def convert(value, out):
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            out.append(float(value))
            return
        raise TiTypeError(
            f"argument '{name}' must be a number ({dtype}), got {type(value).__name__}",
            hint="pass a Python or NumPy number",
        )

    return convert


def _array_data_reader():
    """The fastest way to an array's data address this interpreter allows.

    CPython lays a NumPy array out as ``PyObject_HEAD`` (two words) then ``char *data``:
    reading that word (~0.2 µs) beats ``__array_interface__`` (~1.3 µs, it builds a
    dict) on every ndarray argument of every launch. A probe checks the layout once;
    anywhere it differs (another interpreter, a debug build) the interface is used.
    """
    word = ctypes.c_void_p.from_address

    def read_struct(array):
        return word(id(array) + 16).value or 0

    def read_interface(array):
        return array.__array_interface__["data"][0]

    probe = np.arange(4.0)[1:]
    same = read_struct(probe) == read_interface(probe)
    return read_struct if sys.implementation.name == "cpython" and same else read_interface


_array_data = _array_data_reader()


def _ndarray_converter(name: str, dtype: T.DataType, ndim: int, written: bool):
    np_dtype = dtype.np_dtype
    data = _array_data

    def convert(value, out):
        array = value if type(value) is np.ndarray else getattr(value, "_array", value)
        if not isinstance(array, np.ndarray):
            raise TiTypeError(
                f"argument '{name}' must be a NumPy array or ti.ndarray, got {type(value).__name__}"
            )
        if array.dtype != np_dtype or array.ndim != ndim:
            raise TiValueError(
                f"argument '{name}' must be a {ndim}-D {dtype} array, got {array.ndim}-D "
                f"{array.dtype}"
            )
        flags = array.flags
        if not flags.c_contiguous:
            raise TiValueError(
                f"argument '{name}' is not C-contiguous",
                hint="pass np.ascontiguousarray(a); the kernel writes through to it",
            )
        if written and not flags.writeable:
            raise TiValueError(
                f"argument '{name}' is a read-only array, and the kernel writes into it",
                hint="pass a writable copy (a.copy()), or set a.flags.writeable = True",
            )
        out.append(data(array))
        out.extend(array.shape)

    return convert


class CompiledKernel:
    """Machine code of one specialised kernel, ready to launch."""

    def __init__(
        self,
        name: str,
        entry_address: int,
        layout: ArgLayout,
        return_type: T.DataType | tuple[T.DataType, ...] | None,
        prints: list[dict],
        asserts: list[dict],
        tree_ids: list[int] = (),
        profile: tuple[int, int] | None = None,
        code: object = None,
    ) -> None:
        self.name = name
        # what owns the machine code at entry_address (runtime/cpu/kernel_code.py): held as
        # long as this kernel can launch, freed with it
        self.code = code
        self.layout = layout
        self.return_type = return_type
        self.asserts = asserts
        self.ctx = ctypes.create_string_buffer(max(layout.size, abi.CTX_ARGS))
        self.ctx_address = ctypes.addressof(self.ctx)
        # The bases of the trees the code uses, by its local slots. A tree's base is
        # fixed while it lives, and destroying one recompiles every kernel.
        table = memory.roots_table()
        self.trees = memory.holders(tree_ids)  # mapped while this code can run
        self.roots = (ctypes.c_int64 * max(len(tree_ids), 1))(*(int(table[t]) for t in tree_ids))
        struct.pack_into("<q", self.ctx, abi.CTX_ROOTS, ctypes.addressof(self.roots))
        struct.pack_into("<q", self.ctx, abi.CTX_INTERRUPT, interrupt.state_address)
        self.entry_address = entry_address
        self.entry = _ENTRY(entry_address)
        self.pack_into = layout.packer.pack_into
        self.launches = 0
        self.random_stream = 0  # in the context at CTX_STREAM: random_streams.attach
        # the profiler: what events are labelled with (the language layer names the
        # specialisation), and the buffer the code writes its times into
        self.about = KernelProfile(name, name, "cpu", ())
        self.events: ProfileLayout | None = ProfileLayout(*profile) if profile else None
        if self.events is not None:
            self.event_words = (ctypes.c_int64 * self.events.words)()
            self.event_bytes = ctypes.sizeof(self.event_words)
            struct.pack_into("<q", self.ctx, abi.CTX_PROFILE, ctypes.addressof(self.event_words))
        printing.register(self.ctx_address, prints)
        self.has_prints = bool(prints)
        converters = []
        for slot in layout.slots:
            if slot.kind == "ndarray":
                converters.append(
                    _ndarray_converter(slot.name, slot.dtype, slot.ndim, slot.written)
                )
            elif slot.kind == "float":
                converters.append(_float_converter(slot.name, slot.dtype))
            else:
                converters.append(_int_converter(slot.name, slot.dtype))
        self.converters = converters
        self._make_packer(layout.slots)
        self.error_code = ctypes.c_int64.from_buffer(self.ctx, abi.CTX_ERROR)
        # None, one DataType (a value at CTX_RETURN) or a tuple of them (a tuple of values,
        # at the layout's return slots: a vector's, a struct's or a tuple's scalars)
        self.return_format = None
        self.return_slots: list[tuple[int, struct.Struct]] | None = None
        if isinstance(return_type, tuple):
            self.return_slots = [
                (layout.offsets[("return", k)], struct.Struct("<" + _STRUCT_CODES[t.name]))
                for k, t in enumerate(return_type)
            ]
            self.return_format = self.return_slots[0][1] if return_type else None
        elif return_type is not None:
            self.return_format = struct.Struct("<" + _STRUCT_CODES[return_type.name])

    def launch(self, args) -> object:
        return self.launch_packed(self.pack(args))

    def _make_packer(self, slots: list[ArgSlot]) -> None:
        described = [(s.kind, s.dtype, s.ndim, s.written) for s in slots]
        self.pack = make_packer(described, self.pack_checked, _array_data)

    def pack_checked(self, args) -> list:
        """The argument words of a launch (the launch number first, rewritten when it
        runs), each argument through its converter; raises TiTypeError/TiValueError for
        an argument this code cannot take. ``pack`` is the generated fast version."""
        if len(args) != len(self.converters):
            raise TiTypeError(
                f"kernel '{self.name}' takes {len(self.converters)} argument(s) but "
                f"{len(args)} were given"
            )
        values = [0]
        for convert, value in zip(self.converters, args, strict=False):
            convert(value, values)
        return values

    def launch_packed(self, values: list) -> object:
        """Runs the code with arguments from :meth:`pack`; returns what the kernel returns."""
        # ctypes releases the GIL during the call: one launch at a time per process
        # keeps this kernel's context and the thread pool's job slot to one caller.
        with _LAUNCH_LOCK:
            values[0] = self.launches
            self.launches += 1
            self.pack_into(self.ctx, abi.CTX_LAUNCH, *values)
            if profiler.enabled:
                self.profiled_launch(self.launches - 1)
            else:
                self.run()
            if self.has_prints:
                printing.flush()
            if interrupt.state[0]:
                raise KernelInterrupted(
                    f"kernel '{self.name}' was interrupted; fields keep what it wrote"
                )
            if self.asserts and self.error_code.value:  # one word read when nothing failed
                self.check_error()
            if self.return_slots is not None:
                return tuple(fmt.unpack_from(self.ctx, at)[0] for at, fmt in self.return_slots)
            if self.return_format is not None:
                return self.return_format.unpack_from(self.ctx, abi.CTX_RETURN)[0]
            return None

    def run(self) -> None:
        """Runs the code once, arguments packed (another target's launcher overrides it)."""
        self.entry(self.ctx_address)

    def profiled_launch(self, number: int) -> None:
        """Runs the code and records the launch's event (with its tasks' times when the
        code was compiled with the profiler; else the launch's time, from here)."""
        if self.events is None:
            started = time.monotonic_ns()
            self.run()
            about = self.about
            event = LaunchEvent(
                about.kernel,
                about.specialisation,
                number,
                about.device,
                started,
                time.monotonic_ns(),
            )
        else:
            ctypes.memset(self.event_words, 0, self.event_bytes)
            self.run()
            # a copy of the words now, decoded when someone reads the events: the
            # launch pays for a memcpy, not for building the records
            raw, layout, about = bytes(self.event_words), self.events, self.about
            profiler.record_raw(lambda: decode(memoryview(raw).cast("q"), layout, about, number))
            return
        profiler.record_launch(event)

    def check_error(self) -> None:
        code, *args = _ERROR.unpack_from(self.ctx, abi.CTX_ERROR)
        if code == 0:
            return
        struct.pack_into("<q", self.ctx, abi.CTX_ERROR, 0)
        info = self.asserts[code - 1]
        pos: SourcePos | None = info["pos"]
        if info["kind"] in ("bounds", "bounds_offset"):  # _offset: a field with offset=
            count = info["nargs"] // 2
            index, shape = tuple(args[:count]), tuple(args[count : 2 * count])
            if info["kind"] == "bounds":
                text = f"index {index} is outside shape {shape}"
                hint = "check the loop bounds against the shape (indices start at 0)"
            else:  # the message states the field's index range
                text = f"index {index} is outside them (shape {shape})"
                hint = "check the loop bounds against the field's index range"
            raise TiIndexError(f"{info['message']}: {text}", pos, hint=hint)
        if info["kind"] == "dynamic_full":  # passes/dynamic_lists.py
            raise TiIndexError(
                f"{info['message']}: it already holds every element it can",
                pos,
                hint="declare the dynamic node with a larger extent, or empty the list "
                "(ti.deactivate(node, I)) before appending more",
            )
        raise TiRuntimeError(info["message"], pos)

    def __del__(self) -> None:
        unregister = getattr(printing, "unregister", None)
        if unregister is not None:  # None while the interpreter shuts down
            unregister(getattr(self, "ctx_address", 0))
