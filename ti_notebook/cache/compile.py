"""Compiling through the offline cache: look up before tracing, store after compiling.

    compile_cached(request)
      pre-key (no tracing) → candidates in the index → dependencies still hold?
        yes, and the entry is valid → load its code: a hit, no frontend at all
        no → compile (the trace tells the dependencies) → store the entry → a miss

The backend says how its artifact serialises (``Backend.serialise``); its entries live
in its own folder of the cache directory (``cache/policy.py``). With
``print_ir=True`` a kernel is compiled (and its entry rewritten) even when the cache
holds it: the point is to see the passes run. A trace the cache will store gets the
cache's fingerprint function on its request (``CompileRequest.fingerprint``), with which
tracing checks what it reads: the frontend never imports the cache.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def one() -> ti.i32:
    ...     return 1
    >>> one(), one.report["cache"] in ("hit", "miss")
    (1, True)
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time

from ti_notebook.cache import keys, policy
from ti_notebook.cache.fingerprint import fingerprint
from ti_notebook.cache.store import CacheStore
from ti_notebook.codegen.module_base import symbol_name
from ti_notebook.compiler.backends.base import Artifact
from ti_notebook.compiler.driver import compile_kernel
from ti_notebook.compiler.report import KernelReport
from ti_notebook.compiler.request import CompileRequest, return_count, return_slots
from ti_notebook.compiler.stages import Stages

_log = logging.getLogger("ti_notebook.cache")
_STAGE_NAMES = ("ast", "ir", "ir_optimized", "annotate", "llvm", "llvm_optimized")


class _Hooks:
    """What ``compile_kernel`` tells the cache on a miss."""

    wants_object = True

    def __init__(self, request: CompileRequest, pre: str) -> None:
        self.request, self.pre = request, pre
        self.key = self.dependencies = self.artifact = None
        self.why_not = ""

    def prefix(self, inputs: dict) -> str | None:
        self.captured = inputs["captured"]
        self.dependencies, self.why_not = keys.record_dependencies(
            inputs["captured"],
            self.request.template_values,
            keys.compound_types(self.request),
        )
        if inputs.get("uncacheable"):  # tracing read something it cannot follow
            self.dependencies, self.why_not = None, inputs["uncacheable"]
        if self.dependencies is None:
            self.wants_object = False
            return None
        self.key = keys.full_key(self.pre, self.dependencies)
        prefix = f"tin_{symbol_name(self.request.name)}_{self.key[:24]}"
        if self.key in policy.loaded:  # recompiling a key loaded here: the JIT has it
            prefix += f"_{len(policy.loaded)}"
        return prefix

    def keep(self, artifact: Artifact) -> None:
        self.artifact = artifact


def compile_cached(request: CompileRequest):
    """``compile_kernel`` through the offline cache of ``request.cache``."""
    settings, backend = request.cache, request.backend
    if not settings.enabled:
        backend.start()
        return _with_cache_report(compile_kernel(request), "off")
    started = time.perf_counter()
    store = policy.store_for(settings, backend.cache_subdir)
    backend.start(store)
    pre = keys.pre_key(request, keys.target_description(backend))
    if pre is None:
        return _uncacheable(request, "a template argument has no stable fingerprint")
    # print_ir asks to see the passes run: a hit would run none (the entry is rewritten)
    # an index entry is trusted only for the key its pre-key and dependencies make: one
    # edited to name another entry is ignored (and replaced), never loaded
    key_of = functools.partial(keys.full_key, pre)
    candidates = [] if request.options.print_ir else store.candidates(pre, key_of)
    for candidate in candidates:
        dependencies, key = candidate.get("dependencies"), candidate.get("key")
        if not isinstance(dependencies, list) or not isinstance(key, str):
            continue
        values = keys.dependencies_hold(
            dependencies,
            request.source.func,
            request.template_values,
            keys.compound_types(request),
        )
        if values is None:
            continue
        hit = _load(store, key, request, started, values, dependencies, pre)
        if hit is not None:
            policy.stats["hits"] += 1
            return hit
    # the trace is to be stored: it checks what it reads with the cache's fingerprints
    request = dataclasses.replace(request, fingerprint=fingerprint)
    hooks = _Hooks(request, pre)
    result = compile_kernel(request, hooks)
    if hooks.key is None:
        return _uncacheable(request, hooks.why_not, result)
    if not _save(store, hooks, result, request):
        return _uncacheable(request, "a field it uses is reached only indirectly", result)
    policy.stats["misses"] += 1
    policy.remember_loaded(hooks.key, getattr(result[0], "code", None))
    return _with_cache_report(result, "miss")


_told: set = set()


def _uncacheable(request, why: str, result=None):
    policy.stats["uncacheable"] += 1
    if request.name not in _told:  # once per kernel, not at every specialisation
        _told.add(request.name)
        _log.debug("kernel '%s' is not cached: %s", request.name, why)
    return _with_cache_report(result or compile_kernel(request), "uncacheable")


def _with_cache_report(result, status: str):
    stages = result[1]
    stages["report"] = dataclasses.replace(stages["report"], cache=status)
    return result


def _save(store: CacheStore, hooks: _Hooks, result, request: CompileRequest) -> bool:
    """Stores the entry; False when its trees could not be found again later."""
    _compiled, stages, _inputs = result
    artifact = hooks.artifact
    values = [hooks.captured[(scope, name)] for scope, name, _ in hooks.dependencies]
    trees = keys.locate_trees(artifact.tree_slots, request.template_values, values)
    if trees is None:
        return False
    header, payload = request.backend.serialise(artifact, request.source)
    report = stages["report"].to_dict()
    report.pop("cache", None)
    report.pop("stage_times", None)  # this compile's split; a later load has none
    header.update(stages={name: stages[name] for name in _STAGE_NAMES}, report=report, trees=trees)
    header.update(pre=hooks.pre, dependencies=hooks.dependencies)  # what its key is made of
    try:
        store.save(hooks.key, request.name, header, payload)
        store.remember(hooks.pre, hooks.dependencies, hooks.key)
    except OSError as error:  # a read-only or full disk must not stop the kernel
        _log.warning("offline cache: cannot write %s: %s", store.dir, error)
        return True
    policy.keep_within_size(store, request.cache)
    return True


def _load(
    store: CacheStore,
    key: str,
    request: CompileRequest,
    started: float,
    values: list,
    dependencies: list,
    pre: str,
):
    loaded = store.load(key)
    if loaded is None:
        return None
    header, payload = loaded
    if header.get("pre") != pre or header.get("dependencies") != dependencies:
        return None  # compiled for another kernel or other values: recompiled, replaced
    trees = keys.trees_now(header.get("trees") or [], request.template_values, values)
    if trees is None:
        return None
    backend = request.backend
    artifact = backend.deserialise(dict(header, trees=trees), payload, request.source)
    address = policy.loaded.get(key) or backend.load_code(artifact)
    policy.remember_loaded(key, address)
    report = KernelReport.from_dict(header["report"])
    returns = return_count(request.return_type)
    layout = backend.arg_layout(request.params, list(report.written_arguments), returns)
    compiled = backend.launchable(
        request.name, address, layout, return_slots(request.return_type), artifact
    )
    report = dataclasses.replace(report, cache="hit", compile_time_s=time.perf_counter() - started)
    texts = header["stages"]
    stages = Stages(
        backend,
        texts["llvm_optimized"],
        **{k: texts.get(k, "") for k in _STAGE_NAMES[:-1]},
        report=report,
    )
    # what the trace would have recorded: each dependency's path and its value now
    captured = {(dep[0], dep[1]): value for dep, value in zip(dependencies, values, strict=False)}
    return compiled, stages, {"captured": captured}
