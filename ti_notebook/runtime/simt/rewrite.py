"""Rewrites an NVPTX-form LLVM module so that the x86-64 back end compiles it.

What changes, and why:

- the module is parsed once as it is (LLVM upgrades old forms: ``barrier0`` becomes
  ``barrier.cta.sync.aligned.all``, ``!nvvm.annotations`` kernels become ``ptx_kernel``),
  rid of unused functions (all of libdevice when it was linked but not optimised) and
  printed back, so the text rewrites below see one canonical spelling;
- ``target triple``/``datalayout`` go (the host's are stamped on by ``jit().parse``);
  ``ptx_kernel``/``ptx_device`` calling conventions go (x86 has neither);
- every ``@llvm.nvvm.*`` and ``@llvm.trap`` is renamed ``@__simt.<name>`` and a shim of
  that name is linked in (``intrinsics.py``, ``nvvm_math.py``); declared ``__nv_*``,
  ``vprintf``, ``__assertfail`` and ``__nvvm_reflect`` get definitions under their own
  names; libdevice's inline PTX ``asm`` becomes calls of IR equivalents (``ptx_asm.py``);
- ``extern`` ``addrspace(3)`` arrays (dynamic shared memory) all become the runtime's
  one buffer, ``@tin_simt_dynamic_shared``;
- address spaces stay: x86 treats address spaces below 256 as plain memory and an
  ``addrspacecast`` between them as a no-op, so ``addrspace(1)``/``(3)`` pointers, static
  shared arrays and ``syncscope("device")`` atomics compile as they are;
- every loop polls for an abort (Ctrl-C), and writes are counted, for the watchdog
  (``polls.py``);
- each kernel gets an entry trampoline ``void(ptr args)`` that loads its parameters from
  8-byte slots, so the native block loop can call any signature.

Anything the emulator cannot provide (an unknown intrinsic or external function, PTX
inline assembly, a kernel parameter that is not a scalar or pointer) raises
:class:`~ti_notebook.errors.TiRuntimeError` naming it.

    >>> ir = '''
    ... declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ... define ptx_kernel void @k(ptr %out) {
    ...   %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   store i32 %t, ptr %out
    ...   ret void
    ... }'''
    >>> host = rewrite_for_host(ir, "tin_simt_entry_doc")
    >>> [(k.name, k.param_types, k.entry) for k in host.kernels]
    [('k', ('ptr',), 'tin_simt_entry_doc_0')]
    >>> "ptx_kernel" in host.text, "@__simt.llvm.nvvm.read.ptx.sreg.tid.x" in host.text
    (False, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import llvmlite.binding as llvm

from ti_notebook.errors import TiRuntimeError, TiValueError
from ti_notebook.runtime.cpu.jit import jit
from ti_notebook.runtime.simt.intrinsics import RUNTIME_DECLARATIONS, Shim, thread_shim
from ti_notebook.runtime.simt.nvvm_math import libdevice_shim, math_shim
from ti_notebook.runtime.simt.polls import instrument
from ti_notebook.runtime.simt.ptx_asm import DECLARATIONS as ASM_DECLARATIONS
from ti_notebook.runtime.simt.ptx_asm import asm_body, normalize
from ti_notebook.runtime.simt.runtime import DYNAMIC_SHARED_SYMBOL

__all__ = ["KernelEntry", "HostModule", "rewrite_for_host", "split_types"]

_PARAM_TYPES = {"i1", "i8", "i16", "i32", "i64", "half", "float", "double"}
_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._][-a-zA-Z$._0-9]*)'
# A global name, or a string constant (skipped, so text in c"..." is never renamed).
_SYMBOL_OR_STRING = re.compile(r'c"[^"]*"|@(' + _NAME + r")")
_KERNEL_DEFINE = re.compile(r"^define [^\n]*?\bptx_kernel\b[^\n]*?@(" + _NAME + r")\(", re.M)
_ASM_CALL = re.compile(
    r"(?P<head>\bcall )(?P<ret>[^\"\n]*?) asm (?:sideeffect |alignstack |inteldialect )*"
    r'"(?P<asm>(?:[^"\\]|\\.)*)", "(?P<constraints>(?:[^"\\]|\\.)*)"\((?P<args>[^)]*)\)'
)
_SPECIAL = {
    "vprintf": Shim("  %r = call i32 @tin_simt_vprintf(ptr %a0, ptr %a1)\n  ret i32 %r"),
    "__assertfail": Shim(
        "  call void @tin_simt_assertfail(ptr %a0, ptr %a1, i32 %a2, ptr %a3, i64 %a4)\n"
        "  call void @tin_simt_trap()\n  unreachable"
    ),
    # libdevice linked but not optimised asks for the target: sm_80, no flush to zero
    "__nvvm_reflect": Shim(
        "  %c = call i32 @strcmp(ptr %a0, ptr @__simt.cuda_arch)\n  %arch = icmp eq i32 %c, 0\n"
        "  %r = select i1 %arch, i32 800, i32 0\n  ret i32 %r",
        (
            "declare i32 @strcmp(ptr, ptr)",
            '@__simt.cuda_arch = linkonce_odr constant [12 x i8] c"__CUDA_ARCH\\00"',
        ),
    ),
}


@dataclass(frozen=True)
class KernelEntry:
    """A kernel of the module: its name, LLVM parameter types and trampoline symbol."""

    name: str
    param_types: tuple[str, ...]
    entry: str


@dataclass(frozen=True)
class HostModule:
    """The rewritten module (``text``) and the shims to link into it (``shim_text``)."""

    text: str
    shim_text: str
    kernels: tuple[KernelEntry, ...]
    static_shared_bytes: int
    uses_dynamic_shared: bool


def split_types(text: str) -> list[str]:
    """Splits a comma-separated LLVM type list at the top level.

    >>> split_types("i32, { i32, i1 }, ptr addrspace(1)")
    ['i32', '{ i32, i1 }', 'ptr addrspace(1)']
    """
    parts, depth, current = [], 0, []
    for char in text:
        if char in "({[<":
            depth += 1
        elif char in ")}]>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    tail = "".join(current).strip()
    return parts + [tail] if tail else parts


def _signature(fn: llvm.ValueRef) -> tuple[str, list[str]]:
    text = str(fn.global_value_type)  # e.g. "float (i32, float, i32, i32)"
    ret, _, params = text.partition(" (")
    return ret.strip(), split_types(params[: params.rindex(")")])


def _unquote(name: str) -> str:
    if name.startswith('"'):
        return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), name[1:-1])
    return name


def _quote(name: str) -> str:
    if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name):
        return "@" + name
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in name)
    return f'@"{escaped}"'


def _addrspace(type_text: str) -> int:
    match = re.search(r"addrspace\((\d+)\)", type_text)
    return int(match[1]) if match else 0


def _parse_original(text: str) -> llvm.ModuleRef:
    try:
        module = llvm.parse_assembly(text)
        module.verify()
    except RuntimeError as exc:
        raise TiValueError(
            f"the SIMT emulator was given LLVM IR it cannot parse: {exc}",
            hint="pass the NVPTX module's text exactly as the CUDA backend printed it",
        ) from None
    # Unused internal functions (all of libdevice, if it was linked but not optimised)
    # and unused declarations go, so only what the kernels reach must be emulated.
    engine = jit()
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.add_strip_dead_prototype_pass()
    options = llvm.create_pipeline_tuning_options(speed_level=0)
    passes.run(module, llvm.create_pass_builder(engine.target_machine, options))
    return module


def _shim_definition(name: str, ret: str, params: list[str], shim: Shim) -> str:
    args = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    return (
        f"define linkonce_odr {ret} {_quote(name)}({args}) {shim.attributes} {{\n{shim.body}\n}}\n"
    )


def _entry_trampoline(kernel: str, types: list[str], entry: str) -> str:
    lines = [f"define void @{entry}(ptr %args) {{"]
    for i, ty in enumerate(types):
        lines.append(f"  %p{i} = getelementptr i64, ptr %args, i64 {i}")
        lines.append(f"  %a{i} = load {ty}, ptr %p{i}, align 8")
    call_args = ", ".join(f"{t} %a{i}" for i, t in enumerate(types))
    lines += [f"  call void {_quote(kernel)}({call_args})", "  ret void", "}"]
    declaration = f"declare void {_quote(kernel)}({', '.join(types)})"
    return declaration + "\n" + "\n".join(lines) + "\n"


def _kernel_params(module: llvm.ModuleRef, name: str) -> list[str]:
    fn = module.get_function(name)
    types = [str(arg.type) for arg in fn.arguments]
    for i, ty in enumerate(types):
        if ty not in _PARAM_TYPES and not ty.startswith("ptr"):
            raise TiRuntimeError(
                f"kernel '{name}': parameter {i} has type {ty}; the SIMT emulator passes "
                "only integers, floats and pointers",
                hint="pass aggregates through a pointer (a context buffer)",
            )
    return types


def _replace_libdevice_asm(text: str) -> tuple[str, list[str]]:
    """Turns each known PTX ``asm`` call (libdevice's, see ``ptx_asm.py``) into a call of
    a shim; returns the text and the shims' definitions. Unknown asm is refused."""
    shims: dict[tuple[str, str, str, str], str] = {}

    def replace(match: re.Match) -> str:
        body = asm_body(match["asm"], match["constraints"])
        if body is None:
            raise TiRuntimeError(
                f'the module contains inline PTX assembly ("{normalize(match["asm"])[:80]}"), '
                "which the SIMT emulator cannot run",
                hint="express it with NVVM intrinsics instead of asm (libdevice's own asm "
                "is supported)",
            )
        types = [arg.split()[0] for arg in split_types(match["args"])]
        key = (normalize(match["asm"]), match["constraints"], match["ret"], ",".join(types))
        if key not in shims:
            name = f"__simt.asm.{len(shims)}"
            params = ", ".join(f"{t} %a{i}" for i, t in enumerate(types))
            shims[key] = (
                f"define linkonce_odr {match['ret']} @{name}({params}) alwaysinline nounwind "
                f"{{\n{body}\n}}\n"
            )
        name = f"__simt.asm.{list(shims).index(key)}"
        return f"{match['head']}{match['ret']} @{name}({match['args']})"

    text = _ASM_CALL.sub(replace, text)
    for i, (_, _, ret, types) in enumerate(shims):
        text += f"\ndeclare {ret} @__simt.asm.{i}({types.replace(',', ', ')})\n"
    if re.search(r"^module asm", text, re.M):
        raise TiRuntimeError(
            "the module contains module-level PTX assembly, which the SIMT emulator cannot run",
            hint="express it with NVVM intrinsics instead of asm",
        )
    return text, list(shims.values())


def _check_text(canonical: str) -> None:
    for space in {int(s) for s in re.findall(r"addrspace\((\d+)\)", canonical)}:
        if space >= 256:
            raise TiRuntimeError(
                f"the module uses addrspace({space}), which x86 reserves for segment registers",
                hint="NVPTX modules use address spaces 0-5 only",
            )


def rewrite_for_host(nvptx_ir: str, entry_prefix: str) -> HostModule:
    """Rewrites ``nvptx_ir`` for the host; trampolines are named ``<entry_prefix>_<i>``."""
    module = _parse_original(nvptx_ir)
    canonical, asm_shims = _replace_libdevice_asm(str(module))
    _check_text(canonical)
    kernel_names = [_unquote(m) for m in _KERNEL_DEFINE.findall(canonical)]
    if not kernel_names:
        raise TiValueError(
            "the module defines no kernel for the SIMT emulator to run",
            hint="kernels are `define ptx_kernel void @name(...)` (or listed as "
            '"kernel" in !nvvm.annotations)',
        )
    renames: dict[str, str] = {}
    shims: list[str] = []
    declares: set[str] = set()
    unknown: list[str] = []
    for fn in module.functions:
        if not fn.is_declaration:
            continue
        name = fn.name
        ret, params = _signature(fn)
        if name.startswith("llvm.nvvm.") or name in ("llvm.trap", "llvm.debugtrap"):
            shim = thread_shim(name, ret, params) or math_shim(name, ret, params)
            new_name = "__simt." + name
            renames[name] = new_name
        elif name.startswith("llvm."):
            continue  # generic intrinsics: the x86 back end has them
        else:
            shim = _SPECIAL.get(name) or libdevice_shim(name, ret, params)
            new_name = name
        if shim is None:
            unknown.append(name)
            continue
        shims.append(_shim_definition(new_name, ret, params, shim))
        declares.update(shim.declares)
    intrinsics = sorted(n for n in unknown if n.startswith(("llvm.", "__nv_")))
    if intrinsics:
        raise TiRuntimeError(
            f"the SIMT emulator cannot run {', '.join(intrinsics)}: it has no CPU version of them",
            hint="the supported intrinsics are listed in ti_notebook/runtime/simt/"
            "intrinsics.py and nvvm_math.py; link libdevice for other __nv_* functions, "
            "or run the kernel on a GPU",
        )
    if unknown:
        raise TiRuntimeError(
            f"the module calls {', '.join(sorted(unknown))}, declared but not defined in it",
            hint="a CUDA kernel module must define every function it calls (link the "
            "library that has them into the module)",
        )
    static_shared, dynamic = 0, []
    target_data = jit().target_data
    for var in module.global_variables:
        space = _addrspace(str(var.type))
        if var.is_declaration:
            if space != 3:
                raise TiRuntimeError(
                    f"the module refers to the external global @{var.name}, which the SIMT "
                    "emulator cannot provide",
                    hint="define it in the module",
                )
            dynamic.append(var.name)
            renames[var.name] = DYNAMIC_SHARED_SYMBOL
        elif space == 3:
            static_shared += target_data.get_abi_size(var.global_value_type)
    text = _rename(canonical, renames)
    text = re.sub(r"^target (triple|datalayout) = .*$", "", text, flags=re.M)
    text = re.sub(r"^((?:define|declare) [^\n]*?)\bptx_(?:kernel|device) ", r"\1", text, flags=re.M)
    text = re.sub(r"\bcall ptx_(?:kernel|device) ", "call ", text)
    text = instrument(text, set(kernel_names))  # polls for Ctrl-C and the stall watchdog
    if dynamic:
        declaration = re.compile(rf"^@{re.escape(DYNAMIC_SHARED_SYMBOL)} = external [^\n]*$", re.M)
        text = declaration.sub("", text)
        text += f"\n@{DYNAMIC_SHARED_SYMBOL} = external addrspace(3) global [0 x i8], align 16\n"
    kernels = []
    for i, name in enumerate(kernel_names):
        kernels.append(
            KernelEntry(name, tuple(_kernel_params(module, name)), f"{entry_prefix}_{i}")
        )
    if asm_shims:
        declares.update(ASM_DECLARATIONS)
    shim_text = RUNTIME_DECLARATIONS + "\n".join(sorted(declares)) + "\n"
    shim_text += "".join(shims) + "".join(asm_shims)
    shim_text += "".join(_entry_trampoline(k.name, list(k.param_types), k.entry) for k in kernels)
    return HostModule(text, shim_text, tuple(kernels), static_shared, bool(dynamic))


def _rename(text: str, renames: dict[str, str]) -> str:
    if not renames:
        return text

    def replace(match: re.Match) -> str:
        if match[1] is None:
            return match[0]
        new = renames.get(_unquote(match[1]))
        return match[0] if new is None else _quote(new)

    return _SYMBOL_OR_STRING.sub(replace, text)
