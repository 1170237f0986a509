"""Reverse-mode autodiff: a kernel's IR becomes its grad kernel's (``kernel.grad()``).

Source transformation, as Taichi and Warp do it, on the traced IR (``ti.func``\\ s are
inlined, vectors and matrices are scalars by then), before any other pass, so the grad
kernel is optimised, cached and reported like any kernel:

- each top-level loop stays a parallel loop (the loops run in reverse order); its body
  is the forward code again (global stores and atomics left out: the grad kernel
  changes no primal data), then every statement's adjoint, last statement first;
- a float value's adjoint is a local, zero where its block starts; an operation adds
  ``adjoint * ∂result/∂operand`` into its operands' (``ad_rules.partials``);
- ``v = x[i]`` adds ``adjoint(v)`` into ``x.grad[i]`` atomically; ``x[i] = v`` reads
  ``x.grad[i]`` into ``adjoint(v)`` and clears it; ``x[i] += v`` reads it;
  ``ti.atomic_max(x[i], v)`` (``min``) reads it into ``adjoint(v)`` where ``v`` is the
  value ``x[i]`` ended with (each of a tie gets it: Taichi 1.7 gives it to every ``v``);
- a local's adjoint is a local too: a load adds into it, a store moves it to the
  stored value and clears it;
- a serial loop inside runs backwards; the locals it changes are pushed on a
  per-thread stack (``ad_stack.py``) as each forward iteration starts and popped as
  each reversed one starts, which then recomputes the iteration's forward values.

Fields declared without ``needs_grad`` get no adjoint; neither do kernel arguments.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu, default_fp=ti.f64)
    >>> x = ti.field(ti.f64, shape=3, needs_grad=True)
    >>> y = ti.field(ti.f64, shape=(), needs_grad=True)
    >>> @ti.kernel
    ... def square_sum():
    ...     for i in x:
    ...         y[None] += x[i] ** 2
    >>> x.from_numpy(__import__("numpy").array([1.0, 2.0, 3.0]))
    >>> y.grad[None] = 1.0
    >>> square_sum.grad()
    >>> x.grad.to_numpy().tolist()
    [2.0, 4.0, 6.0]
    >>> "make_adjoint" in square_sum.grad.report.passes
    True
"""

from __future__ import annotations

from ti_notebook.errors import TiNotImplementedError
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.capabilities import Capabilities
from ti_notebook.ir.kernel_ir import KernelIR
from ti_notebook.ir.options import CompileOptions
from ti_notebook.passes import ad_access_rule, ad_local_atomics, ad_replay
from ti_notebook.passes.ad_clone import Env, renamed
from ti_notebook.passes.ad_rules import Math, differentiable, partials
from ti_notebook.passes.ad_stack import AdStack

_TOP_LOOPS = (ir.RangeForStmt, ir.StructForStmt)


def run(kernel: KernelIR, options: CompileOptions, capabilities: Capabilities) -> bool:
    if options.autodiff not in ("reverse", "reverse_validated"):
        return False
    if options.autodiff == "reverse_validated":  # ti.ad.Tape(validation=True)
        ad_access_rule.check(kernel.name.removesuffix("_grad"), kernel.block)
    ad_local_atomics.spell_out(kernel.block)
    kernel.block = _Adjoint(kernel, options).kernel_block(kernel.block)
    return True


class _Adjoint:
    def __init__(self, kernel: KernelIR, options: CompileOptions) -> None:
        self.kernel = kernel
        self.stack_size = options.ad_stack_size if options.ad_stack_size > 0 else 32
        self.forward = ad_replay.Replay(kernel)
        self.adjoints: dict[int, ir.AllocaStmt] = {}  # original id -> its adjoint local
        self.heads: dict[int, list] = {}  # original block id -> adjoint locals made for it
        self.region: set[int] = set()  # ids of the statements of the loop being reversed
        self.stacks: dict[int, AdStack] = {}
        self.home: ir.Block | None = None  # where this task's stacks are made
        self.out: ir.Block | None = None

    # -- the kernel ---------------------------------------------------------------------------
    def kernel_block(self, block: ir.Block) -> ir.Block:
        new = ir.Block()
        env = Env()
        self.out = new
        self.region = {
            s.id
            for top in block.stmts
            if not isinstance(top, _TOP_LOOPS)
            for s in [top, *top.walk_all()]
        }
        self.forward.home = self
        self.forward.block(block, env, new, record=True, top_level=True)
        for stmt in self.reversed_block(block, env):
            new.append(stmt)
        return new

    def top_loop(self, loop: ir.Stmt, env: Env) -> None:
        """A top-level loop's grad: the same loop, its body forward code then adjoints."""
        if isinstance(loop, ir.RangeForStmt):
            made = ir.RangeForStmt(
                *(env_get(env, loop.begin), env_get(env, loop.end)),
                loop.config,
                [env_get(env, e) for e in loop.extents],
                [env_get(env, s) for s in loop.starts],
            )
        else:
            made = ir.StructForStmt(loop.field, loop.config)
        made.pos = loop.pos
        self.out.append(made)
        inner = env.child()
        inner[loop.id] = made
        outer_region, self.region = self.region, {s.id for s in loop.walk_all()}
        outer_home, self.home, outer_stacks = self.home, made.body, self.stacks
        self.stacks = {}
        self.forward.block(loop.body, inner, made.body, record=True)
        for stmt in self.reversed_block(loop.body, inner):
            made.body.append(stmt)
        self.region, self.home, self.stacks = outer_region, outer_home, outer_stacks

    # -- the adjoint sweep ------------------------------------------------------------------
    def reversed_block(self, block: ir.Block, env: Env) -> list[ir.Stmt]:
        """The adjoint code of ``block``, its last statement first, after the adjoint
        locals of the values it defines (zeroed)."""
        saved, self.out = self.out, ir.Block()
        self.heads[id(block)] = []
        for stmt in reversed(block.stmts):
            self.reverse(stmt, env)
        made = self.heads.pop(id(block)) + self.out.stmts
        self.out = saved
        return made

    def reverse(self, stmt: ir.Stmt, env: Env) -> None:
        m = Math(self.out, stmt.pos)
        if isinstance(stmt, _TOP_LOOPS) and stmt.parent is not None and stmt.parent.owner is None:
            self.top_loop(stmt, env)
        elif isinstance(stmt, ir.IfStmt):
            made = m.emit(ir.IfStmt(env_get(env, stmt.cond)))
            for old, new in (
                (stmt.true_block, made.true_block),
                (stmt.false_block, made.false_block),
            ):
                inner = ad_replay.spilled_values(old, env, new)  # the forward if's values
                for s in self.reversed_block(old, inner):
                    new.append(s)
        elif isinstance(stmt, ir.RangeForStmt):
            self.serial_loop(stmt, env, m)
        elif isinstance(stmt, ir.LocalLoadStmt):
            g = self.adjoint(stmt)
            if g is not None:
                self.accumulate(stmt.alloca, g, m)
        elif isinstance(stmt, ir.LocalStoreStmt):
            self.local_store(stmt.alloca, stmt.value, m, clear=True)
        elif isinstance(stmt, ir.AtomicOpStmt) and isinstance(stmt.dest, ir.AllocaStmt):
            if stmt.op in ("add", "sub"):
                self.local_store(stmt.dest, stmt.value, m, clear=False, sign=stmt.op)
        elif isinstance(stmt, ir.GlobalLoadStmt):
            g = self.adjoint(stmt)
            target = self.gradient_pointer(stmt.ptr, env, m)
            if g is not None and target is not None:
                m.emit(ir.AtomicOpStmt("add", target, g))
        elif isinstance(stmt, ir.GlobalStoreStmt):
            target = self.gradient_pointer(stmt.ptr, env, m)
            if target is not None:
                self.accumulate(stmt.value, m.emit(ir.GlobalLoadStmt(target)), m)
                m.emit(ir.GlobalStoreStmt(target, m.const(0.0, target.dtype)))
        elif isinstance(stmt, ir.AtomicOpStmt):
            self.global_atomic(stmt, env, m)
        elif differentiable(stmt):
            g = self.adjoint(stmt)
            if g is None:
                return
            for operand, factor in partials(stmt, lambda s: env_get(env, s), m):
                delta = m.scale(g, factor)
                if isinstance(stmt, ir.CastStmt) and operand.dtype is not stmt.dtype:
                    delta = m.emit(ir.CastStmt(delta, operand.dtype))
                self.accumulate(operand, delta, m)

    def local_store(self, alloca, value, m: Math, clear: bool, sign: str = "add") -> None:
        if not differentiable(alloca) or alloca.id not in self.adjoints:
            return
        g = m.emit(ir.LocalLoadStmt(self.adjoints[alloca.id]))
        self.accumulate(value, g if sign == "add" else m.un("neg", g), m)
        if clear:
            m.emit(ir.LocalStoreStmt(self.adjoints[alloca.id], m.const(0.0, alloca.dtype)))

    def global_atomic(self, stmt: ir.AtomicOpStmt, env: Env, m: Math) -> None:
        target = self.gradient_pointer(stmt.dest, env, m)
        if target is None or not differentiable(stmt.value):
            return
        if stmt.op in ("max", "min"):
            # the kernel left the winner in the field (the grad kernel runs after it)
            final = m.emit(ir.GlobalLoadStmt(self.primal_pointer(stmt.dest, env, m)))
            chosen = m.cmp("eq", env_get(env, stmt.value), final)
            g = m.emit(ir.GlobalLoadStmt(target))
            self.accumulate(stmt.value, m.select(chosen, g, m.const(0.0, g.dtype)), m)
            return
        if stmt.op not in ("add", "sub"):
            raise TiNotImplementedError(
                f"kernel '{self.kernel.name}': atomic {stmt.op} on a field with a gradient "
                "has no derivative in ti_notebook's autodiff",
                stmt.pos,
                hint="write the result with ti.atomic_add, or compute it outside the Tape",
            )
        g = m.emit(ir.GlobalLoadStmt(target))
        self.accumulate(stmt.value, g if stmt.op == "add" else m.un("neg", g), m)

    def serial_loop(self, loop: ir.RangeForStmt, env: Env, m: Math) -> None:
        """A serial loop backwards: per reversed iteration, the locals it changes popped
        back, its forward code recomputed, then its adjoint."""
        if loop.extents and len(loop.extents) != len(loop.starts):
            raise TiNotImplementedError("autodiff of this loop", loop.pos)
        begin, end = env_get(env, loop.begin), env_get(env, loop.end)
        count = m.bin("sub", end, begin)
        zero = m.emit(ir.ConstStmt(0, count.dtype))
        made = m.emit(ir.RangeForStmt(zero, count, dict(loop.config)))
        body = Math(made.body, loop.pos)
        step = body.emit(ir.LoopIndexStmt(made, 0, count.dtype))
        last = body.bin("sub", end, body.emit(ir.ConstStmt(1, count.dtype)))
        flat = body.bin("sub", last, step)  # end - 1 - k: the forward index, backwards
        inner = env.child()
        inner[("index", loop.id)] = _axes(loop, flat, env, body)
        for local in self.forward.carried(loop):
            self.stack(local).pop_into(made.body, env_get(env, local), loop.pos)
        self.forward.block(loop.body, inner, made.body, record=True)
        for stmt in self.reversed_block(loop.body, inner):
            made.body.append(stmt)

    def stack(self, alloca: ir.Stmt) -> AdStack:
        if self.home is None:
            raise TiNotImplementedError(
                f"kernel '{self.kernel.name}': autodiff of a serial loop outside the "
                "kernel's parallel loops, with locals carried between its iterations",
                alloca.pos,
                hint="put the loop inside a top-level for (e.g. for _ in range(1):)",
            )
        if alloca.id not in self.stacks:
            owner = f"kernel '{self.kernel.name}'"
            self.stacks[alloca.id] = AdStack(self.home, alloca, self.stack_size, owner)
        return self.stacks[alloca.id]

    # -- adjoint values ------------------------------------------------------------------------
    def adjoint(self, stmt: ir.Stmt) -> ir.Stmt | None:
        """The adjoint of ``stmt`` so far (a load of its local), or None while it is zero."""
        local = self.adjoints.get(stmt.id)
        return None if local is None else self.out.append(_at(ir.LocalLoadStmt(local), stmt))

    def accumulate(self, stmt: ir.Stmt, delta: ir.Stmt, m: Math) -> None:
        """``adjoint(stmt) += delta``, for a float ``stmt`` that carries a derivative."""
        if not differentiable(stmt) or isinstance(stmt, (ir.ConstStmt, ir.ArgLoadStmt)):
            return
        if stmt.id not in self.region:  # defined outside the loop being reversed
            return
        local = self.adjoints.get(stmt.id)
        if local is None:
            local = self.adjoints[stmt.id] = _at(ir.AllocaStmt(stmt.dtype, "adj"), stmt)
            zero = _at(ir.ConstStmt(0.0, stmt.dtype), stmt)
            self.heads[id(stmt.parent)] += [local, zero, _at(ir.LocalStoreStmt(local, zero), stmt)]
        old = m.emit(ir.LocalLoadStmt(local))
        m.emit(ir.LocalStoreStmt(local, m.bin("add", old, delta)))

    def primal_pointer(self, ptr: ir.Stmt, env: Env, m: Math) -> ir.Stmt:
        """``ptr`` made again here from its indices (its forward copy may sit in a branch
        that does not reach this code)."""
        if isinstance(ptr, ir.GlobalPtrStmt):
            return m.emit(ir.GlobalPtrStmt(ptr.field, env_get(env, ptr.indices)))
        indices = env_get(env, ptr.indices)
        return m.emit(ir.ExternalPtrStmt(ptr.arg_index, ptr.ndim, indices, ptr.dtype))

    def gradient_pointer(self, ptr: ir.Stmt, env: Env, m: Math) -> ir.Stmt | None:
        """Where the adjoint of what ``ptr`` points at lives (None: nowhere)."""
        if isinstance(ptr, ir.GlobalPtrStmt):
            if ptr.field.grad is None or not ptr.dtype.is_float:
                return None
            return m.emit(ir.GlobalPtrStmt(ptr.field.grad, env_get(env, ptr.indices)))
        if isinstance(ptr, ir.ExternalPtrStmt):
            slot = self.kernel.adjoint_args.get(("grad", ptr.arg_index))
            if slot is None or not ptr.dtype.is_float:
                return None
            indices = env_get(env, ptr.indices)
            return m.emit(ir.ExternalPtrStmt(slot, ptr.ndim, indices, ptr.dtype))
        return None


def _axes(loop: ir.RangeForStmt, flat: ir.Stmt, env: Env, m: Math) -> list[ir.Stmt]:
    """The loop's indices at flat counter ``flat`` (ndrange axes split as codegen does)."""
    if not loop.extents:
        return [flat]
    axes = []
    for k, extent in enumerate(loop.extents):
        below = flat
        for later in loop.extents[k + 1 :]:
            below = m.bin("floordiv", below, env_get(env, later))
        within = m.bin("mod", below, env_get(env, extent))
        axes.append(m.bin("add", env_get(env, loop.starts[k]), within))
    return axes


def env_get(env: Env, value):
    """``value`` (a statement or a list of them) as computed where the code is emitted."""
    return renamed(value, env)


def _at(stmt: ir.Stmt, where: ir.Stmt) -> ir.Stmt:
    stmt.pos = where.pos
    return stmt
