"""Poll points and write counts in a kernel module's text, for the emulator's watchdog.

On a GPU nothing stops a kernel; on the emulator Ctrl-C must, and a block that waits
for another block (which runs only after it here) must be reported, not hung on
(``watch_ir.py`` defines progress and stalls). So every function of the rewritten module
(``rewrite.py``, printed by LLVM: one instruction a line, labels at column 0) gets:

- a *poll* at the head of each block that a branch reaches backwards in the text. Any
  cycle of blocks has such a branch, so every loop iteration polls. The poll passes a
  site number and a hash of the block's phis: at a loop header that dominates every
  block branching back to it, values that are not its phis are defined before the loop
  and cannot change between two polls of the header with no other poll between them,
  so equal hashes mean the thread's whole state came back. Elsewhere (a non-kernel
  function, which could recurse; an irreducible cycle; a phi type that does not hash;
  a module that reads a clock, whose value no phi carries) the site is 0: it only
  polls for an abort and always counts as a change;
- a count of its writes after each store (except to its own ``alloca``), memory
  intrinsic, and atomic that changes memory (``atomic_add(x, 0)`` does not, so a
  spin-wait that reads with an atomic is still a stall).

    >>> text = '''define void @k(ptr %p) {
    ... entry:
    ...   br label %spin
    ... spin:
    ...   %v = atomicrmw or ptr %p, i32 0 monotonic, align 4
    ...   %z = icmp eq i32 %v, 0
    ...   br i1 %z, label %spin, label %done
    ... done:
    ...   ret void
    ... }'''
    >>> out = instrument(text, {"k"})
    >>> "call void @tin_simt_poll(ptr %__simt.slot, i64 1," in out
    True
    >>> "or i32 %v, 0" in out  # the atomic writes only if it changes the value
    True
"""

from __future__ import annotations

import re

__all__ = ["instrument"]

_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+)'
_LABEL = re.compile(rf"^({_NAME}):")
_TARGET = re.compile(rf"\blabel %({_NAME})")
_DEFINE_NAME = re.compile(rf"@({_NAME})\(")
_PHI = re.compile(
    rf"^\s+(%{_NAME}) = phi (?:(?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc) )*(.+?) \["
)
_ALLOCA = re.compile(rf"^\s+(%{_NAME}) = alloca ")
_STORE = re.compile(rf"^\s+store .*, ptr(?: addrspace\(\d+\))? (%{_NAME}|@{_NAME})")
_ATOMIC = re.compile(
    rf"^\s+(%{_NAME}) = atomicrmw (?:volatile )?(\w+) ptr(?: addrspace\(\d+\))? [^,]+, "
    r"(i\d+|ptr) ([^ ,]+)"
)
_CMPXCHG = re.compile(
    rf"^\s+(%{_NAME}) = cmpxchg (?:weak )?(?:volatile )?ptr(?: addrspace\(\d+\))? [^,]+, "
    r"(i\d+|ptr) ([^ ,]+), (?:i\d+|ptr) ([^ ,]+)"
)
_OTHER_ATOMIC = re.compile(r"^\s+%\S+ = (?:atomicrmw|cmpxchg) ")
_MEMORY_CALL = re.compile(r"\bcall [^@]*@llvm\.(?:mem(?:cpy|move|set)|masked\.(?:store|scatter))")
_CLOCK = re.compile(r"sreg\.(?:clock|globaltimer)|@llvm\.readcyclecounter")
# a changing atomic: (instructions with {old} and {v}, the i1 that says so)
_CHANGES = {
    "xchg": "icmp ne {t} {old}, {v}",
    "add": "icmp ne {t} {v}, 0",
    "sub": "icmp ne {t} {v}, 0",
    "xor": "icmp ne {t} {v}, 0",
    "max": "icmp sgt {t} {v}, {old}",
    "min": "icmp slt {t} {v}, {old}",
    "umax": "icmp ugt {t} {v}, {old}",
    "umin": "icmp ult {t} {v}, {old}",
}
_MIX = 0x100000001B3  # odd: each step of the hash is a bijection of every value
_DECLARATIONS = (
    "\ndeclare ptr @tin_simt_poll_slot() nounwind willreturn speculatable memory(none)\n"
    "declare void @tin_simt_poll(ptr, i64, i64) nounwind\n"
)
_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


def instrument(text: str, kernels: set[str]) -> str:
    """``text`` with poll points and write counts in every function it defines;
    ``kernels``: the names of its kernels (only their loops can be proved stuck)."""
    lines = text.split("\n")
    out: list[str] = []
    clocks = bool(_CLOCK.search(text))
    site = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if not (line.startswith("define ") and line.rstrip().endswith("{")):
            out.append(line)
            i += 1
            continue
        end = lines.index("}", i)
        match = _DEFINE_NAME.search(line)
        name = match[1].strip('"') if match else ""
        provable = name in kernels and not clocks
        body, site = _function(lines[i + 1 : end], provable, site)
        out.append(line)
        out.extend(body)
        out.append("}")
        i = end + 1
    return _strip_attributes("\n".join(out)) + _DECLARATIONS


def _blocks(body: list[str]) -> list[tuple[str | None, list[str]]]:
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in body:
        label = _LABEL.match(line)
        if label:
            if blocks == [(None, [])]:
                blocks = []
            blocks.append((label[1], [line]))
        else:
            blocks[-1][1].append(line)
    return blocks


def _dominators(successors: list[list[int]]) -> list[int]:
    """Immediate dominators (Cooper, Harvey and Kennedy); -1 for unreachable blocks."""
    order, seen, stack = [], {0}, [(0, iter(successors[0]))]
    while stack:  # post-order by an explicit stack: functions can be long
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            order.append(node)
            stack.pop()
        elif child not in seen:
            seen.add(child)
            stack.append((child, iter(successors[child])))
    rank = {node: k for k, node in enumerate(order)}
    predecessors: list[list[int]] = [[] for _ in successors]
    for node, targets in enumerate(successors):
        for target in targets:
            predecessors[target].append(node)
    idom = [-1] * len(successors)
    idom[0] = 0
    changed = True
    while changed:
        changed = False
        for node in reversed(order[:-1]):
            new = -1
            for pred in predecessors[node]:
                if idom[pred] == -1:
                    continue
                if new == -1:
                    new = pred
                    continue
                a, b = pred, new
                while a != b:
                    while rank[a] < rank[b]:
                        a = idom[a]
                    while rank[b] < rank[a]:
                        b = idom[b]
                new = a
            if new != idom[node]:
                idom[node] = new
                changed = True
    return idom


def _dominates(idom: list[int], a: int, b: int) -> bool:
    if idom[b] == -1:
        return False
    while b != a and b != 0:
        b = idom[b]
    return b == a


def _function(body: list[str], provable: bool, site: int) -> tuple[list[str], int]:
    blocks = _blocks(body)
    index = {label: k for k, (label, _) in enumerate(blocks) if label is not None}
    successors = [
        [index[t] for line in lines for t in _TARGET.findall(line) if t in index]
        for _, lines in blocks
    ]
    backward: dict[int, list[int]] = {}
    for source, targets in enumerate(successors):
        for target in targets:
            if target <= source:
                backward.setdefault(target, []).append(source)
    idom = _dominators(successors) if backward and provable else []
    allocas = {m[1] for _, lines in blocks for line in lines if (m := _ALLOCA.match(line))}
    counter = [0]
    new_blocks = []
    for k, (_, lines) in enumerate(blocks):
        lines = _count_writes(lines, allocas, counter)
        if k in backward:
            site += 1
            proof = provable and all(_dominates(idom, k, s) for s in backward[k])
            lines = _poll(lines, site, proof)
        new_blocks.append(lines)
    if counter[0] == 0 and not backward:
        return body, site
    fetch = "  %__simt.slot = call ptr @tin_simt_poll_slot()"
    first = new_blocks[0]
    at = 1 if blocks[0][0] is not None else 0
    new_blocks[0] = first[:at] + [fetch] + first[at:]
    return [line for lines in new_blocks for line in lines], site


def _as_i64(value: str, ty: str, name: str) -> list[str] | None:
    """Instructions that put ``value`` (of type ``ty``) into the i64 ``name``."""
    integer = re.fullmatch(r"i(\d+)", ty)
    if integer and int(integer[1]) <= 64:
        if int(integer[1]) == 64:
            return [f"  {name} = add i64 {value}, 0"]
        return [f"  {name} = zext {ty} {value} to i64"]
    if ty.startswith("ptr"):
        return [f"  {name} = ptrtoint {ty} {value} to i64"]
    bits = _FLOAT_BITS.get(ty)
    vector = re.fullmatch(r"<(\d+) x (i\d+|half|bfloat|float|double)>", ty)
    if vector:
        element = vector[2]
        size = int(element[1:]) if element.startswith("i") else _FLOAT_BITS[element]
        bits = int(vector[1]) * size
    if bits is None or bits > 64:
        return None
    cast = f"  {name}.bits = bitcast {ty} {value} to i{bits}"
    if bits == 64:
        return [cast, f"  {name} = add i64 {name}.bits, 0"]
    return [cast, f"  {name} = zext i{bits} {name}.bits to i64"]


def _poll(lines: list[str], site: int, provable: bool) -> list[str]:
    at = 1  # after the label and the phis
    phis = []
    while at < len(lines) and (phi := _PHI.match(lines[at])):
        phis.append((phi[1], phi[2]))
        at += 1
    code: list[str] = []
    hash_value = str(site)
    for j, (value, ty) in enumerate(phis if provable else ()):
        name = f"%__simt.p{site}.{j}"
        widened = _as_i64(value, ty, name)
        if widened is None:
            provable = False
            break
        code += widened
        code.append(f"  {name}.x = xor i64 {hash_value}, {name}")
        code.append(f"  {name}.h = mul i64 {name}.x, {_MIX}")
        hash_value = f"{name}.h"
    if not provable:
        code, hash_value, site = [], "0", 0
    code.append(f"  call void @tin_simt_poll(ptr %__simt.slot, i64 {site}, i64 {hash_value})")
    return lines[:at] + code + lines[at:]


def _count_writes(lines: list[str], allocas: set[str], counter: list[int]) -> list[str]:
    out = []
    for line in lines:
        out.append(line)
        amount = None
        if (store := _STORE.match(line)) is not None:
            amount = None if store[1] in allocas else "1"
        elif (atomic := _ATOMIC.match(line)) is not None:
            old, op, ty, v = atomic.groups()
            name = f"%__simt.c{counter[0]}"
            if op in ("or", "and"):
                out.append(f"  {name}.v = {op} {ty} {old}, {v}")
                out.append(f"  {name} = icmp ne {ty} {name}.v, {old}")
            elif op in _CHANGES and not (ty == "ptr" and op != "xchg"):
                out.append(f"  {name} = " + _CHANGES[op].format(t=ty, old=old, v=v))
            else:
                out.append(f"  {name} = icmp eq i1 true, true")
            amount = name
        elif (swap := _CMPXCHG.match(line)) is not None:
            result, ty, expected, new = swap.groups()
            name = f"%__simt.c{counter[0]}"
            out.append(f"  {name}.ok = extractvalue {{ {ty}, i1 }} {result}, 1")
            out.append(f"  {name}.d = icmp ne {ty} {expected}, {new}")
            out.append(f"  {name} = and i1 {name}.ok, {name}.d")
            amount = name
        elif _OTHER_ATOMIC.match(line) or _MEMORY_CALL.search(line):
            amount = "1"  # a float atomic or a memory intrinsic: counted as a write
        if amount is None:
            continue
        name = f"%__simt.w{counter[0]}"
        counter[0] += 1
        if amount != "1":
            out.append(f"  {name}.n = zext i1 {amount} to i64")
            amount = f"{name}.n"
        out.append(f"  {name} = load atomic i64, ptr %__simt.slot monotonic, align 8")
        out.append(f"  {name}.1 = add i64 {name}, {amount}")
        out.append(f"  store atomic i64 {name}.1, ptr %__simt.slot monotonic, align 8")
    return out


def _strip_attributes(text: str) -> str:
    """Drops ``memory(...)``, ``nosync`` and ``willreturn`` from the attribute groups of
    defined functions: a poll reads the runtime's state and may leave the kernel."""
    groups = set()
    for line in text.split("\n"):
        if line.startswith("define "):
            groups.update(re.findall(r"#(\d+)", line.split("{")[0]))

    def strip(match: re.Match) -> str:
        if match[1] not in groups:
            return match[0]
        body = re.sub(r"\bmemory\([^)]*\)|\bnosync\b|\bwillreturn\b", "", match[2])
        return f"attributes #{match[1]} = {{{body}}}"

    return re.sub(r"^attributes #(\d+) = \{(.*)\}$", strip, text, flags=re.M)
