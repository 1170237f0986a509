"""Code for ``ti.random``/``ti.randn``: one Philox-4x32-10 block per draw.

A draw is a pure function of (key, counter), computed where it is needed; there is no
generator state to carry from one iteration to the next, so loops that draw random
numbers still vectorise, and the numbers do not depend on which thread runs which
chunk. ``ir/philox.py`` defines the generator (a Python reference the tests compare
this code with) and ``runtime/random_streams.py`` the keying scheme:

- key: ``mix64(stream ^ mix64(launch))``, from the launch context, once per function;
- counter: ``(iteration, site, count, 0)``: the task loop's flat index (0 in serial
  code), the call site's number in the kernel, and for a site inside a loop nested in
  the iteration, how many times it ran before in this iteration.

An emitter holds a :class:`RandomNumbers` (``emitter.random``): the draw sites' numbers
and counters and the task loop's current index; :func:`emit_rand` is the emit table's
entry for a draw.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def draw() -> ti.f32:
    ...     return ti.random()
    >>> "tin_philox4x32_10" in draw.stages()["llvm"]
    True
"""

from __future__ import annotations

import math

import llvmlite.ir as ll

from ti_notebook.codegen.emit_table import Emitter
from ti_notebook.codegen.llvm_types import I32, I64, llvm_type
from ti_notebook.ir import launch_abi as abi
from ti_notebook.ir import nodes as ir
from ti_notebook.ir import philox

_PHILOX = "tin_philox4x32_10"
_WORDS = ll.LiteralStructType([I32] * 4)
_MANTISSA = {16: 11, 32: 24, 64: 53}  # bits a uniform float in [0, 1) can hold exactly


class RandomNumbers:
    """``emitter``'s draws of random numbers and the bookkeeping they need."""

    def __init__(self, emitter: Emitter) -> None:
        self.emitter = emitter
        self.loop: ir.Stmt | None = None  # the task's loop (None in serial code)
        self.flat: ll.Value | None = None  # its current flat index
        # per draw site: its number in the kernel, its counter when in a nested loop
        self.sites: dict[int, tuple[int, ll.Value | None]] = {}
        self.counters: list[ll.Value] = []

    def start(self, task: ir.OffloadedStmt) -> None:
        """Numbers the task's draw sites before its code is emitted.

        Sites under a nested loop (or while) get a counter, which restarts at every
        iteration of the task's loop (in serial code: here, once per launch).
        """
        self.loop = task.loop if task.kind != "serial" else None
        self.flat = None
        self.counters = []
        for block in task.blocks():
            self._number_sites(block, looped=False)
        if self.loop is None:
            self._reset_counters()

    def _number_sites(self, block: ir.Block, looped: bool) -> None:
        e = self.emitter
        for stmt in block.stmts:
            if isinstance(stmt, ir.RandStmt):
                counter = e.alloca(I32, "random_count") if looped else None
                self.sites[stmt.id] = (next(e.gen.random_sites), counter)
                if counter is not None:
                    self.counters.append(counter)
            # anything but an if may run its body several times per iteration
            inner = looped or not isinstance(stmt, ir.IfStmt)
            for child in stmt.blocks():
                self._number_sites(child, inner)

    def iteration(self, loop: ir.Stmt, flat) -> None:
        """Called where an iteration of ``loop`` starts; ``flat()`` makes its flat index.

        Only the task's own loop counts: an inner serial loop's iterations are told
        apart by the counters of the sites in it.
        """
        if loop is None or loop is not self.loop:
            return
        self.flat = flat()
        self._reset_counters()

    def end_loop(self) -> None:
        """After the task's loop: its index no longer exists (the epilogue is per chunk)."""
        self.loop = self.flat = None

    def _reset_counters(self) -> None:
        for counter in self.counters:
            self.emitter.b.store(ll.Constant(I32, 0), counter)

    # -- the draw ----------------------------------------------------------------------
    def draw(self, s: ir.RandStmt) -> ll.Value:
        """The value of ``ti.random``/``ti.randn`` statement ``s``."""
        b = self.emitter.b
        site, counter = self.sites[s.id]
        count = ll.Constant(I32, 0)
        if counter is not None:
            count = b.load(counter, typ=I32)
            b.store(b.add(count, ll.Constant(I32, 1)), counter)
        iteration = self.flat
        if iteration is None:
            iteration = ll.Constant(I32, 0)
        key = self.random_key()
        counter_words = [iteration, ll.Constant(I32, site), count, ll.Constant(I32, 0)]
        block = b.call(self.philox_function(), [*counter_words, *key])
        words = [b.extract_value(block, k) for k in range(4)]
        if s.normal:
            return self.normal(words, s.dtype)
        if s.dtype.is_float:
            return self.uniform(words[0], words[1], s.dtype)
        if s.dtype.bits == 64:
            return self.join64(words[1], words[0])
        return words[0] if s.dtype.bits == 32 else b.trunc(words[0], llvm_type(s.dtype))

    def join64(self, high: ll.Value, low: ll.Value) -> ll.Value:
        b = self.emitter.b
        wide = b.shl(b.zext(high, I64), ll.Constant(I64, 32))
        return b.or_(wide, b.zext(low, I64))

    def uniform(self, low: ll.Value, high: ll.Value, dtype, plus_one: bool = False):
        """A float in [0, 1) from the top mantissa bits (``plus_one``: in (0, 1])."""
        b = self.emitter.b
        bits = _MANTISSA[dtype.bits]
        if bits > 32:
            word, width = self.join64(high, low), I64
        else:
            word, width = low, I32
        top = b.lshr(word, ll.Constant(width, width.width - bits))
        if plus_one:  # log(u) needs u > 0
            top = b.add(top, ll.Constant(width, 1))
        scaled = b.uitofp(top, llvm_type(dtype))
        arith = self.emitter.arith
        return arith.flagged(b.fmul(scaled, ll.Constant(llvm_type(dtype), 2.0**-bits)))

    def normal(self, words: list, dtype):
        """Box-Muller: ``sqrt(-2 log u1) * cos(2 pi u2)``, computed in f32 or f64."""
        from ti_notebook.ir import types

        work = types.f64 if dtype.bits == 64 else types.f32
        t = llvm_type(work)
        b, arith = self.emitter.b, self.emitter.arith
        u1 = self.uniform(words[0], words[1], work, plus_one=True)
        u2 = self.uniform(words[2], words[3], work)
        # libm's scalar log and cos, never the vector variants (codegen/vector_math.py):
        # the same seed must give the same bits whether an element falls in a vector
        # body or a loop's remainder, on any thread count or block_dim
        log = arith.scalar_math("log", u1, work)
        radius = arith.unary("sqrt", arith.flagged(b.fmul(log, ll.Constant(t, -2.0))), work)
        angle = arith.flagged(b.fmul(u2, ll.Constant(t, 2.0 * math.pi)))
        value = arith.flagged(b.fmul(radius, arith.scalar_math("cos", angle, work)))
        return value if work is dtype else b.fptrunc(value, llvm_type(dtype))

    def random_key(self) -> list[ll.Value]:
        """The launch's Philox key (two i32 words), computed once in the entry block."""

        e = self.emitter

        def make():
            stream = e.ctx_slot(abi.CTX_STREAM, I64)
            launch = e.ctx_slot(abi.CTX_LAUNCH, I64)
            key = e.with_entry(lambda: self.mix64(e.b.xor(stream, self.mix64(launch))))
            eb = e.entry_builder
            high = eb.trunc(eb.lshr(key, ll.Constant(I64, 32)), I32)
            return [eb.trunc(key, I32), high]

        return e.invariant(("random_key",), make)

    def mix64(self, x: ll.Value) -> ll.Value:
        b = self.emitter.b
        for shift, multiplier in ((30, philox.MIX_M1), (27, philox.MIX_M2)):
            x = b.mul(b.xor(x, b.lshr(x, ll.Constant(I64, shift))), ll.Constant(I64, multiplier))
        return b.xor(x, b.lshr(x, ll.Constant(I64, 31)))

    def philox_function(self) -> ll.Function:
        """``tin_philox4x32_10(c0, c1, c2, c3, k0, k1)``: one block of four words."""
        module = self.emitter.module
        existing = module.globals.get(_PHILOX)
        if existing is not None:
            return existing
        fn = ll.Function(module, ll.FunctionType(_WORDS, [I32] * 6), _PHILOX)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")  # one call per draw: inlined, so it vectorises
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        c0, c1, c2, c3, k0, k1 = fn.args
        i64 = I64

        def mul_hi_lo(multiplier: int, value: ll.Value):
            product = b.mul(b.zext(value, i64), ll.Constant(i64, multiplier))
            return b.trunc(b.lshr(product, ll.Constant(i64, 32)), I32), b.trunc(product, I32)

        for round_ in range(philox.PHILOX_ROUNDS):
            if round_:
                k0 = b.add(k0, ll.Constant(I32, philox.PHILOX_W0))
                k1 = b.add(k1, ll.Constant(I32, philox.PHILOX_W1))
            hi0, lo0 = mul_hi_lo(philox.PHILOX_M0, c0)
            hi1, lo1 = mul_hi_lo(philox.PHILOX_M1, c2)
            c0, c1, c2, c3 = b.xor(b.xor(hi1, c1), k0), lo1, b.xor(b.xor(hi0, c3), k1), lo0
        result = ll.Constant(_WORDS, ll.Undefined)
        for k, word in enumerate((c0, c1, c2, c3)):
            result = b.insert_value(result, word, k)
        b.ret(result)
        return fn


def emit_rand(e: Emitter, s: ir.RandStmt) -> ll.Value:
    """The emit table's entry for a draw (codegen/function.py)."""
    return e.random.draw(s)
