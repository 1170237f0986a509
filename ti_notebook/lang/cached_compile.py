"""Compiling through the offline cache: look up before tracing, store after compiling.

    compile_cached(request)
      pre-key (no tracing) → candidates in the index → dependencies still hold?
        yes, and the entry is valid → load its object code: a hit, no frontend at all
        no → compile (the trace tells the dependencies) → store the entry → a miss

``ti.cache.info()`` and ``ti.cache.clear()`` are the public face (see ``info``).

    >>> import ti_notebook as ti
    >>> sorted(ti.cache.info())
    ['enabled', 'entries', 'hits', 'misses', 'path', 'total_bytes', 'uncacheable']
"""

from __future__ import annotations

import atexit
import logging
import time

from ti_notebook.codegen.cpu import CpuModuleGenerator
from ti_notebook.errors import SourcePos
from ti_notebook.lang import config as _config
from ti_notebook.lang.compile import CompileRequest, Stages, compile_kernel, runtime_layout
from ti_notebook.runtime import cache_keys
from ti_notebook.runtime import cpu as cpu_runtime
from ti_notebook.runtime.cache import CacheStore, default_path
from ti_notebook.runtime.launch import CompiledKernel

_log = logging.getLogger("ti_notebook.cache")
_stats = {"hits": 0, "misses": 0, "uncacheable": 0}
_loaded: dict[str, int] = {}  # key -> entry address, for kernels loaded in this process
_stores: dict[str, CacheStore] = {}
_STAGE_NAMES = ("ast", "ir", "ir_optimized", "llvm", "llvm_optimized")


def store_for(config) -> CacheStore:
    path = config.offline_cache_file_path or default_path()
    if path not in _stores:
        _stores[path] = CacheStore(path, _version())
    return _stores[path]


def _version() -> str:
    import ti_notebook

    return ti_notebook.__version__


class _Hooks:
    """What ``compile_kernel`` tells the cache on a miss."""

    wants_object = True

    def __init__(self, request: CompileRequest, pre: str) -> None:
        self.request, self.pre = request, pre
        self.key = self.dependencies = self.code = self.generator = None
        self.why_not = ""

    def prefix(self, inputs: dict) -> str | None:
        self.captured = inputs["captured"]
        self.dependencies, self.why_not = cache_keys.record_dependencies(
            inputs["captured"], self.request.template_values
        )
        if inputs.get("uncacheable"):  # tracing read something it cannot follow
            self.dependencies, self.why_not = None, inputs["uncacheable"]
        if self.dependencies is None:
            self.wants_object = False
            return None
        self.key = cache_keys.full_key(self.pre, self.dependencies)
        # symbols are ASCII: a kernel named 'füllen' gets 'f_llen' (the key keeps it unique)
        safe = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in self.request.name)
        prefix = f"tin_{safe}_{self.key[:24]}"
        if self.key in _loaded:  # recompiling a key loaded here: the JIT has its symbols
            prefix += f"_{len(_loaded)}"
        return prefix

    def keep(self, code: bytes, generator: CpuModuleGenerator) -> None:
        self.code, self.generator = code, generator


def compile_cached(request: CompileRequest):
    """``compile_kernel`` through the offline cache of ``request.config``."""
    config = request.config
    if not config.offline_cache:
        return _with_cache_report(compile_kernel(request), "off")
    started = time.perf_counter()
    store = store_for(config)
    pre = cache_keys.pre_key(request, cache_keys.target_description())
    if pre is None:
        return _uncacheable(request, "a template argument has no stable fingerprint")
    for candidate in store.candidates(pre):
        dependencies, key = candidate.get("dependencies"), candidate.get("key")
        if not isinstance(dependencies, list) or not isinstance(key, str):
            continue
        values = cache_keys.dependencies_hold(
            dependencies, request.source.func, request.template_values
        )
        if values is None:
            continue
        hit = _load(store, key, request, started, values)
        if hit is not None:
            _stats["hits"] += 1
            return hit
    hooks = _Hooks(request, pre)
    result = compile_kernel(request, hooks)
    if hooks.key is None:
        return _uncacheable(request, hooks.why_not, result)
    if not _save(store, hooks, result, request):
        return _uncacheable(request, "a field it uses is reached only indirectly", result)
    _stats["misses"] += 1
    _loaded[hooks.key] = result[0].entry_address
    return _with_cache_report(result, "miss")


_told: set = set()


def _uncacheable(request, why: str, result=None):
    _stats["uncacheable"] += 1
    if request.name not in _told:  # once per kernel, not at every specialisation
        _told.add(request.name)
        _log.debug("kernel '%s' is not cached: %s", request.name, why)
    return _with_cache_report(result or compile_kernel(request), "uncacheable")


def _with_cache_report(result, status: str):
    result[1]["report"]["cache"] = status
    return result


def _save(store: CacheStore, hooks: _Hooks, result, request: CompileRequest) -> bool:
    """Stores the entry; False when its trees could not be found again later."""
    _compiled, stages, _inputs = result
    generator = hooks.generator
    values = [hooks.captured[(scope, name)] for scope, name, _ in hooks.dependencies]
    trees = cache_keys.locate_trees(generator.tree_slots, request.template_values, values)
    if trees is None:
        return False
    first_line, filename = request.source.first_lineno, request.source.filename
    header = {
        "entry": generator.entry_name,
        "prints": generator.prints,
        "asserts": [_assert_to_json(a, first_line, filename) for a in generator.asserts],
        "stages": {name: stages[name] for name in _STAGE_NAMES},
        "report": {k: v for k, v in stages["report"].items() if k != "cache"},
        "trees": trees,
    }
    try:
        store.save(hooks.key, request.name, header, hooks.code)
        store.remember(hooks.pre, hooks.dependencies, hooks.key)
    except OSError as error:  # a read-only or full disk must not stop the kernel
        _log.warning("offline cache: cannot write %s: %s", store.dir, error)
        return True
    if store.total_bytes() > request.config.offline_cache_max_size_of_files:
        store.clean(
            request.config.offline_cache_cleaning_policy,
            request.config.offline_cache_max_size_of_files,
        )
    return True


def _load(store: CacheStore, key: str, request: CompileRequest, started: float, values: list):
    loaded = store.load(key)
    if loaded is None:
        return None
    header, code = loaded
    trees = cache_keys.trees_now(header.get("trees") or [], request.template_values, values)
    if trees is None:
        return None
    entry = header["entry"]
    address = _loaded.get(key) or cpu_runtime.load_object(code, entry)
    _loaded[key] = address
    first_line = request.source.first_lineno
    asserts = [_assert_from_json(a, first_line, request.source.filename) for a in header["asserts"]]
    compiled = CompiledKernel(
        request.name,
        address,
        runtime_layout(request.params, header["report"].get("written_arguments", [])),
        request.return_type,
        header["prints"],
        asserts,
        trees,
    )
    texts = header["stages"]
    report = dict(header["report"], cache="hit", compile_time_s=time.perf_counter() - started)
    stages = Stages(
        texts["llvm_optimized"], **{k: texts[k] for k in _STAGE_NAMES[:-1]}, report=report
    )
    return compiled, stages, {}


def _assert_to_json(info: dict, first_line: int, filename: str) -> dict:
    pos = info.get("pos")
    out = {k: v for k, v in info.items() if k != "pos"}
    if pos is not None:
        same = pos.filename == filename
        out["pos"] = {
            "filename": pos.filename,
            "line": pos.lineno - first_line if same else pos.lineno,
            "relative": same,
            "col": pos.col,
            "end_col": pos.end_col,
            "line_text": pos.line_text,
            "kernel_name": pos.kernel_name,
        }
    return out


def _assert_from_json(info: dict, first_line: int, filename: str) -> dict:
    out = dict(info)
    pos = info.get("pos")
    if pos is not None:
        line = pos["line"] + first_line if pos["relative"] else pos["line"]
        out["pos"] = SourcePos(
            filename if pos["relative"] else pos["filename"],
            line,
            pos["col"],
            pos["end_col"],
            pos["line_text"],
            pos["kernel_name"],
        )
    return out


def info() -> dict:
    """The cache directory's entries, their total size, and this process's counts.

    >>> import ti_notebook as ti
    >>> ti.cache.info()["hits"] >= 0
    True
    """
    config = _config.current()
    store = store_for(config)
    return dict(store.info(), enabled=config.offline_cache, **_stats)


def clear() -> None:
    """Deletes every entry of the current cache directory."""
    store_for(_config.current()).clear()
    _loaded.clear()


def _clean_at_exit() -> None:
    config = _config.current()
    if config.offline_cache and config.offline_cache_cleaning_policy != "never":
        store = store_for(config)
        if store.dir.is_dir():
            policy = config.offline_cache_cleaning_policy
            store.clean(policy, config.offline_cache_max_size_of_files)


atexit.register(_clean_at_exit)
