"""What each NVVM thread intrinsic becomes on the CPU: a small "shim" function.

The rewrite (``rewrite.py``) renames every ``@llvm.nvvm.X`` (and ``@llvm.trap``) of a
module to ``@__simt.llvm.nvvm.X`` and links in a definition of that name, made here
from the intrinsic's own signature. The definitions call the runtime's ``tin_simt_*``
functions (``sync_ir.py``); they are ``alwaysinline`` so, after the host O3 pipeline,
a kernel calls the runtime directly. Math intrinsics are in ``nvvm_math.py``.

Emulated: the ``sreg`` reads (``tid``, ``ntid``, ``ctaid``, ``nctaid``, ``laneid``,
``warpid``, ``warpsize``, ``lanemask.*``, ``clock``/``clock64``/``globaltimer``),
every form of ``barrier``/``barrier0`` (barrier 0 over the whole block; named barriers
and thread counts other than the block's are reported at run time) and its
``popc``/``and``/``or`` reductions, ``bar.warp.sync``, ``shfl.sync.*`` (also the ``p``
forms), ``vote.*.sync``, ``activemask``, ``membar``/``fence``, ``nanosleep`` and ``llvm.trap``. Warp
operations need a whole-warp mask (``-1``); other masks are reported at run time.

    >>> shim = thread_shim("llvm.nvvm.shfl.sync.down.f32", "float", ["i32", "float", "i32", "i32"])
    >>> "@tin_simt_shfl(i32 1, i32 %a0" in shim.body
    True
    >>> thread_shim("llvm.nvvm.not.an.intrinsic", "void", []) is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Shim", "thread_shim", "RUNTIME_DECLARATIONS"]


@dataclass(frozen=True)
class Shim:
    """The body of a replacement function (arguments are ``%a0``, ``%a1``...), the
    declarations it needs, and the function attributes to give it."""

    body: str
    declares: tuple[str, ...] = ()
    attributes: str = "alwaysinline nounwind"


# The runtime's functions as kernels see them. The sreg reads are constant for the life
# of a CUDA thread, so LLVM may hoist and merge them like the intrinsics they replace.
_PURE = "nounwind willreturn speculatable memory(none)"
RUNTIME_DECLARATIONS = f"""
declare i32 @tin_simt_tid_x() {_PURE}
declare i32 @tin_simt_tid_y() {_PURE}
declare i32 @tin_simt_tid_z() {_PURE}
declare i32 @tin_simt_laneid() {_PURE}
declare i32 @tin_simt_warpid() {_PURE}
declare i32 @tin_simt_ntid(i32) {_PURE}
declare i32 @tin_simt_nctaid(i32) {_PURE}
declare i32 @tin_simt_ctaid(i32) {_PURE}
declare void @tin_simt_barrier(i32, i32) convergent nounwind
declare i32 @tin_simt_barrier_reduce(i32, i32, i32, i32) convergent nounwind
declare void @tin_simt_syncwarp(i32) convergent nounwind
declare i32 @tin_simt_shfl(i32, i32, i32, i32, i32, ptr) convergent nounwind
declare i32 @tin_simt_vote(i32, i32, i32) convergent nounwind
declare i32 @tin_simt_activemask() convergent nounwind
declare void @tin_simt_trap() noreturn nounwind
declare i32 @tin_simt_vprintf(ptr, ptr)
declare void @tin_simt_assertfail(ptr, ptr, i32, ptr, i64)
declare i64 @llvm.readcyclecounter()
"""

_AXES = {"x": 0, "y": 1, "z": 2}
_SHFL_MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}
_VOTES = {"all": 0, "any": 1, "uni": 2, "ballot": 3}
_REDUCTIONS = {"popc": 0, "and": 1, "or": 2}
_PURE_ATTRS = "alwaysinline " + _PURE


def _ret(ty: str, value: str) -> str:
    return f"  ret {ty} {value}"


def _sreg(reg: str) -> Shim | None:
    match = re.fullmatch(r"(tid|ntid|ctaid|nctaid)\.([xyz])", reg)
    if match:
        kind, axis = match.groups()
        if kind == "tid":
            call = f"call i32 @tin_simt_tid_{axis}()"
        else:
            call = f"call i32 @tin_simt_{kind}(i32 {_AXES[axis]})"
        return Shim(f"  %r = {call}\n" + _ret("i32", "%r"), attributes=_PURE_ATTRS)
    simple = {
        "laneid": "  %r = call i32 @tin_simt_laneid()\n  ret i32 %r",
        "warpid": "  %r = call i32 @tin_simt_warpid()\n  ret i32 %r",
        "warpsize": "  ret i32 32",
        "nwarpid": "  ret i32 32",
        "smid": "  ret i32 0",
        "nsmid": "  ret i32 1",
    }
    if reg in simple:
        return Shim(simple[reg], attributes=_PURE_ATTRS)
    masks = {
        "lanemask.eq": "  %r = shl i32 1, %l",
        "lanemask.lt": "  %b = shl i32 1, %l\n  %r = sub i32 %b, 1",
        "lanemask.le": "  %b = shl i32 2, %l\n  %r = sub i32 %b, 1",
        "lanemask.gt": "  %b = shl i32 2, %l\n  %m = sub i32 %b, 1\n  %r = xor i32 %m, -1",
        "lanemask.ge": "  %b = shl i32 1, %l\n  %m = sub i32 %b, 1\n  %r = xor i32 %m, -1",
    }
    if reg in masks:
        body = "  %l = call i32 @tin_simt_laneid()\n" + masks[reg] + "\n  ret i32 %r"
        return Shim(body, attributes=_PURE_ATTRS)
    if reg in ("clock", "clock64", "globaltimer"):
        body = "  %c = call i64 @llvm.readcyclecounter()\n"
        if reg == "clock":
            return Shim(body + "  %r = trunc i64 %c to i32\n  ret i32 %r")
        return Shim(body + "  ret i64 %c")
    return None


def _barrier(rest: str, ret: str, params: list[str]) -> Shim | None:
    # barrier0(); barrier.sync(id); barrier.sync.cnt(id, n); barrier(id, n);
    # barrier.cta.sync[.aligned].{all(id), count(id, n)} (LLVM 22's names for all these)
    plain = {
        "barrier0": ("0", "-1"),
        "barrier.sync": ("%a0", "-1"),
        "barrier.cta.sync.aligned.all": ("%a0", "-1"),
        "barrier.cta.sync.all": ("%a0", "-1"),
        "barrier.sync.cnt": ("%a0", "%a1"),
        "barrier": ("%a0", "%a1"),
        "barrier.cta.sync.aligned.count": ("%a0", "%a1"),
        "barrier.cta.sync.count": ("%a0", "%a1"),
    }
    if rest in plain and ret == "void":
        ident, count = plain[rest]
        return Shim(f"  call void @tin_simt_barrier(i32 {ident}, i32 {count})\n  ret void")
    match = re.fullmatch(r"barrier0\.(popc|and|or)", rest)
    if match:
        op = _REDUCTIONS[match[1]]
        return Shim(
            f"  %r = call i32 @tin_simt_barrier_reduce(i32 {op}, i32 0, i32 -1, i32 %a0)\n"
            "  ret i32 %r"
        )
    match = re.fullmatch(r"barrier\.cta\.red\.(popc|and|or)(\.aligned)?\.(all|count)", rest)
    if match:
        op = _REDUCTIONS[match[1]]
        count = "%a1" if match[3] == "count" else "-1"
        pred = f"%a{len(params) - 1}"
        body = (
            f"  %p = zext i1 {pred} to i32\n"
            f"  %r = call i32 @tin_simt_barrier_reduce(i32 {op}, i32 %a0, i32 {count}, i32 %p)\n"
        )
        if ret == "i1":
            return Shim(body + "  %b = icmp ne i32 %r, 0\n  ret i1 %b")
        return Shim(body + "  ret i32 %r")
    return None


def _shuffle(rest: str, ret: str, params: list[str]) -> Shim | None:
    match = re.fullmatch(r"shfl(\.sync)?\.(up|down|bfly|idx)\.(i32|f32)(p?)", rest)
    if not match:
        return None
    synced, mode, ty, with_pred = match.groups()
    mask, first = ("%a0", 1) if synced else ("-1", 0)
    value = f"%a{first}"
    lines = []
    if ty == "f32":
        lines.append(f"  %v = bitcast float {value} to i32")
        value = "%v"
    pred_ptr = "null"
    if with_pred:
        lines.append("  %pp = alloca i8, align 1")
        pred_ptr = "%pp"
    lines.append(
        f"  %r = call i32 @tin_simt_shfl(i32 {_SHFL_MODES[mode]}, i32 {mask}, i32 {value}, "
        f"i32 %a{first + 1}, i32 %a{first + 2}, ptr {pred_ptr})"
    )
    result = "%r"
    if ty == "f32":
        lines.append("  %f = bitcast i32 %r to float")
        result = "%f"
    scalar = "float" if ty == "f32" else "i32"
    if with_pred:
        lines += [
            "  %pb = load i8, ptr %pp, align 1",
            "  %p = trunc i8 %pb to i1",
            f"  %s0 = insertvalue {ret} poison, {scalar} {result}, 0",
            f"  %s1 = insertvalue {ret} %s0, i1 %p, 1",
            f"  ret {ret} %s1",
        ]
    else:
        lines.append(f"  ret {scalar} {result}")
    return Shim("\n".join(lines))


def _vote(rest: str, ret: str) -> Shim | None:
    match = re.fullmatch(r"vote\.(all|any|uni|ballot)(\.sync)?", rest)
    if not match:
        return None
    op, synced = match.groups()
    mask, pred = ("%a0", "%a1") if synced else ("-1", "%a0")
    body = (
        f"  %p = zext i1 {pred} to i32\n"
        f"  %r = call i32 @tin_simt_vote(i32 {_VOTES[op]}, i32 {mask}, i32 %p)\n"
    )
    if ret == "i1":
        return Shim(body + "  %b = icmp ne i32 %r, 0\n  ret i1 %b")
    return Shim(body + "  ret i32 %r")


def thread_shim(name: str, ret: str, params: list[str]) -> Shim | None:
    """The shim for intrinsic ``name`` (``llvm.nvvm.*`` or ``llvm.trap``) with return
    type ``ret`` and parameter types ``params``; None if it is not a thread intrinsic."""
    if name in ("llvm.trap", "llvm.debugtrap"):
        return Shim("  call void @tin_simt_trap()\n  unreachable")
    if not name.startswith("llvm.nvvm."):
        return None
    rest = name[len("llvm.nvvm.") :]
    if rest.startswith("read.ptx.sreg."):
        return _sreg(rest[len("read.ptx.sreg.") :])
    if rest.startswith("barrier"):
        return _barrier(rest, ret, params)
    if rest == "bar.warp.sync":
        return Shim("  call void @tin_simt_syncwarp(i32 %a0)\n  ret void")
    if rest.startswith("shfl."):
        return _shuffle(rest, ret, params)
    if rest.startswith("vote."):
        return _vote(rest, ret)
    if rest == "activemask":
        return Shim("  %r = call i32 @tin_simt_activemask()\n  ret i32 %r")
    if rest == "nanosleep":
        # a real sleep, so tests can make a thread late (a missing barrier then shows)
        return Shim(
            "  %us = udiv i32 %a0, 1000\n  %r = call i32 @usleep(i32 %us)\n  ret void",
            ("declare i32 @usleep(i32)",),
        )
    if re.fullmatch(r"membar\.(cta|gl|sys)|fence\.[a-z.]+", rest) and ret == "void":
        return Shim("  fence seq_cst\n  ret void")
    return None
