"""The PTX shadow tier: every kernel the CPU tests compile is also compiled for CUDA
(sm_80) and its PTX checked by ptxas.

``tests/conftest.py`` switches it on (``TI_PTX_SHADOW=1``; by default in CI when ptxas is
on PATH) by wrapping the compile step of the offline-cache path
(``ti_notebook.cache.compile.compile_kernel``): right after a CPU compile succeeds, the
same request is traced again for the CUDA target (``ptx_backend``) and compiled to PTX, quietly (no
warnings, no printed IR, symbols of its own), with the driver and the pass pipeline as
they were when the session started: a test that spies on them (a patched
``driver.trace_kernel`` or ``pipeline.verify``) sees its own compiles only. A Python exception
in that path or a ptxas error fails the test that compiled the kernel; a kernel using a
feature CUDA does not have yet (:class:`TiNotImplementedError`) is counted as
skipped-for-PTX. The summary line at the end of the session gives the counts and the
time spent.

ptxas runs in a thread beside the tests (a process of its own: the second core works
while the test goes on) and each PTX text is checked once (parametrised tests compile
the same kernel many times); a test's verdicts are collected when it ends.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import io
import os
import shutil
import subprocess
import tempfile
import time
import traceback
import warnings

ARCH = "sm_80"


def enabled() -> bool:
    """``TI_PTX_SHADOW`` decides when set (``0``: off); else on in CI with ptxas."""
    value = os.environ.get("TI_PTX_SHADOW")
    if value is not None:
        return value not in ("", "0")
    return bool(os.environ.get("CI")) and shutil.which("ptxas") is not None


class _QuietHooks:
    """compile_kernel's hooks for a shadow compile: a fixed symbol prefix (the CPU's
    symbol counter stays where it was), nothing to keep."""

    wants_object = False

    def prefix(self, inputs: dict) -> str:
        return "tin_ptx_shadow"

    def keep(self, artifact) -> None:
        pass


class Shadow:
    """Counts and failures of the shadow compiles of one session."""

    def __init__(self) -> None:
        from ti_notebook.compiler.backends.cuda import ptx_backend

        self.backend = ptx_backend(compute_capability=ARCH)
        self.checked = 0
        self.skipped: collections.Counter = collections.Counter()
        self.failed = 0
        self.seconds = 0.0
        self.pending: list[str] = []  # failures of the test running now
        # ptxas verdicts: one future per PTX text, keyed by its digest (a session's
        # thousands of texts are not kept); those of the test running now
        self.verdicts: dict[bytes, concurrent.futures.Future] = {}
        self.waiting: list[tuple[str, concurrent.futures.Future]] = []
        self.ptxas = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ptxas")
        self.originals: dict = {}  # (module, name) -> the function when installed

    def install(self, monkeypatch) -> None:
        from ti_notebook.cache import compile as cached
        from ti_notebook.compiler import driver
        from ti_notebook.passes import pipeline

        for module in (driver, pipeline):
            for name, value in vars(module).items():
                if callable(value) and not isinstance(value, type):
                    self.originals[(module, name)] = value
        original = cached.compile_kernel

        def compile_and_shadow(request, hooks=None):
            result = original(request, hooks)
            if request.backend.arch == "cpu":
                with self.pristine():
                    self.check(original, request)
            return result

        monkeypatch.setattr(cached, "compile_kernel", compile_and_shadow)

    @contextlib.contextmanager
    def pristine(self):
        """The driver's and the pipeline's functions as they were at install time."""
        changed = {}
        for (module, name), value in self.originals.items():
            if getattr(module, name, None) is not value:
                changed[(module, name)] = getattr(module, name, None)
                setattr(module, name, value)
        try:
            yield
        finally:
            for (module, name), value in changed.items():
                setattr(module, name, value)

    def check(self, compile_kernel, request) -> None:
        from ti_notebook.errors import TiNotImplementedError

        started = time.perf_counter()
        shadow = dataclasses.replace(
            request,
            backend=self.backend,
            options=dataclasses.replace(request.options, print_ir=False),
        )
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                compiled, _stages, _inputs = compile_kernel(shadow, _QuietHooks())
            digest = hashlib.sha256(compiled.ptx.encode()).digest()
            verdict = self.verdicts.get(digest)
            if verdict is None:
                verdict = self.ptxas.submit(ptxas_error, compiled.ptx)
                self.verdicts[digest] = verdict
            self.waiting.append((request.name, verdict))
        except TiNotImplementedError as exc:
            self.skipped[exc.message.partition(": ")[2] or exc.message] += 1
        except Exception:
            self.fail(request, "the NVPTX path raised:\n" + traceback.format_exc())
        finally:
            self.seconds += time.perf_counter() - started

    def fail(self, request, why: str) -> None:
        self.failed += 1
        self.pending.append(f"PTX shadow of kernel '{request.name}': {why}")

    def take_failures(self) -> list[str]:
        """The failures of the test that just ran, once ptxas has judged its kernels."""
        started = time.perf_counter()
        for name, verdict in self.waiting:
            error = verdict.result()
            if error:
                self.failed += 1
                why = f"ptxas -arch={ARCH} refused its PTX:\n{error}"
                self.pending.append(f"PTX shadow of kernel '{name}': {why}")
            else:
                self.checked += 1
        self.waiting = []
        self.seconds += time.perf_counter() - started
        failures, self.pending = self.pending, []
        return failures

    def summary(self) -> str:
        skipped = sum(self.skipped.values())
        reasons = "; ".join(f"{n} x {why}" for why, n in self.skipped.most_common())
        line = (
            f"PTX shadow ({ARCH}): {self.checked} kernels accepted by ptxas, {self.failed} "
            f"failed, {skipped} skipped-for-PTX, {self.seconds:.1f} s"
        )
        return line + (f" (skipped: {reasons})" if reasons else "")


def ptxas_error(ptx: str) -> str:
    """ptxas's complaint about ``ptx`` for :data:`ARCH`, or "" when it accepts it."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as source:
        source.write(ptx)
        source.flush()
        command = [shutil.which("ptxas"), f"-arch={ARCH}", source.name, "-o", os.devnull]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    return "" if result.returncode == 0 else result.stderr.strip() or "(no message)"
