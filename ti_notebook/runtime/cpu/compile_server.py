"""The optimise-and-emit step of a CPU compile, and the loop that runs it in a helper
process.

:func:`optimise` runs LLVM's default O<speed_level> pipeline; :func:`compile_text` takes
LLVM IR text through parse, verify, :func:`optimise` and machine code, and returns (object
code, optimised IR, seconds per stage). The process JIT (``runtime/cpu/jit.py``) runs the same
functions in-process, so a module compiled here or there becomes the same bytes.

Run as a script (``python -P compile_server.py READ_FD WRITE_FD TRIPLE CPU FEATURES``),
this module is the compile worker that ``runtime/cpu/compile_worker.py`` starts: it reads
requests from one pipe and answers on the other until the pipe closes or its parent
dies. It imports only the standard library and llvmlite, so it starts in about 0.3 s
rather than the package's seconds, and it must stay that way.

    >>> import llvmlite.binding as llvm
    >>> machine = target_machine(*host_target())
    >>> code, text, seconds = compile_text(
    ...     machine, "define i32 @f(i32 %x) { %y = add i32 %x, 0\\n ret i32 %y }"
    ... )
    >>> "ret i32 %x" in text, len(code) > 0, sorted(seconds)
    (True, True, ['llvm_optimise', 'llvm_parse', 'machine_code'])
"""

from __future__ import annotations

import os
import signal
import sys
import time

import llvmlite
import llvmlite.binding as llvm

# How often an idle worker checks that its parent is still alive (a pipe end inherited
# by a forked child of the parent would otherwise keep it waiting).
_PARENT_CHECK_S = 5.0


def host_target() -> tuple[str, str, str]:
    """(triple, CPU name, CPU features) of this machine, after initialising LLVM's native
    target: what :func:`target_machine` is made from, in either process."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    return (
        llvm.get_process_triple(),
        llvm.get_host_cpu_name(),
        llvm.get_host_cpu_features().flatten(),
    )


def target_machine(triple: str, cpu: str, features: str) -> llvm.TargetMachine:
    """The JIT's target machine for ``triple``/``cpu``/``features`` (O3, JIT code model)."""
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=cpu, features=features, opt=3, reloc="default", codemodel="jitdefault"
    )


def versions() -> tuple[str, tuple[int, ...]]:
    """llvmlite's and LLVM's versions: a worker must match its parent's to make the same
    code."""
    return llvmlite.__version__, tuple(llvm.llvm_version_info)


def optimise(
    module: llvm.ModuleRef,
    machine: llvm.TargetMachine,
    speed_level: int = 3,
    slp_vectorize: bool = True,
) -> None:
    """Runs LLVM's default O<speed_level> pipeline (with vectorisers) on ``module``;
    ``slp_vectorize=False`` leaves the straight-line vectoriser out (what the code
    generator chooses for kernels whose long blocks are loop bodies:
    ``codegen/cpu/slp_vectoriser.py``).

    The pass builder and its pipeline are made per call: a pipeline cannot run twice
    (LLVM aborts), and a kept pass builder keeps every module's analyses. Each call
    leaves ~70 KiB inside llvmlite 0.50 that no dispose frees, which is why compiles
    after the first few run in a worker process (``runtime/cpu/compile_worker.py``)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = speed_level >= 2
    pto.slp_vectorization = speed_level >= 2 and slp_vectorize
    pto.loop_unrolling = speed_level >= 2
    pass_builder = llvm.create_pass_builder(machine, pto)
    pass_manager = pass_builder.getModulePassManager()
    pass_manager.run(module, pass_builder)


def compile_text(
    machine: llvm.TargetMachine,
    llvm_text: str,
    speed_level: int = 3,
    slp_vectorize: bool = True,
) -> tuple[bytes, str, dict[str, float]]:
    """(object code, optimised IR, seconds per stage) of LLVM IR text; raises
    ``RuntimeError`` (llvmlite's) if the text does not parse or verify."""
    seconds = {}
    started = time.perf_counter()
    module = llvm.parse_assembly(llvm_text)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    module.verify()
    parsed = time.perf_counter()
    optimise(module, machine, speed_level, slp_vectorize)
    optimised = time.perf_counter()
    code = machine.emit_object(module)
    seconds["llvm_parse"] = parsed - started
    seconds["llvm_optimise"] = optimised - parsed
    seconds["machine_code"] = time.perf_counter() - optimised
    return code, str(module), seconds


def _handle(machine: llvm.TargetMachine, request: tuple) -> tuple:
    kind, llvm_text, speed_level, slp_vectorize = request
    if kind != "compile":
        return ("failed", f"unknown request {kind!r}")
    try:
        code, text, seconds = compile_text(machine, llvm_text, speed_level, slp_vectorize)
    except RuntimeError as exc:  # llvmlite's parse/verify errors: the caller's to report
        return ("error", str(exc))
    return ("ok", code, text, seconds)


def serve(read_fd: int, write_fd: int, triple: str, cpu: str, features: str) -> None:
    """The worker's loop: answers ``("compile", text, speed_level, slp_vectorize)``
    with ``("ok", code, optimised_text, seconds)`` or ``("error", message)`` until the
    request pipe closes or the parent process is gone."""
    from multiprocessing.connection import Connection

    # Ctrl-C in a terminal, or Jupyter interrupting or shutting down its kernel, reaches
    # the whole process group: the parent decides (it kills a worker it interrupted
    # mid-request), so the worker neither dies idle nor prints a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = Connection(read_fd, writable=False)
    replies = Connection(write_fd, readable=False)
    parent = os.getppid()
    host_target()
    machine = target_machine(triple, cpu, features)
    replies.send(("ready", os.getpid(), versions()))
    while True:
        while not requests.poll(_PARENT_CHECK_S):
            if os.getppid() != parent:
                return
        try:
            request = requests.recv()
        except EOFError:
            return
        try:
            reply = _handle(machine, request)
        except Exception as exc:  # anything else: the parent compiles it itself
            reply = ("failed", f"{type(exc).__name__}: {exc}")
        replies.send(reply)


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:6])
