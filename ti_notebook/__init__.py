"""ti_notebook: Taichi-style data-parallel kernels, compiled by our own compiler.

``import ti_notebook as ti`` gives a compatible subset of the Taichi 1.7 API:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> x = ti.field(ti.f32, shape=8)
    >>> @ti.kernel
    ... def total() -> ti.f32:
    ...     s = 0.0
    ...     for i in x:
    ...         x[i] = i
    ...     for i in range(8):
    ...         s += x[i]
    ...     return s
    >>> total()
    28.0

This module only re-exports; the code lives in ``lang/``, ``compiler/``, ``frontend/``,
``ir/``, ``plan/``, ``passes/``, ``codegen/`` and ``runtime/`` (DESIGN.md section 2).
This module and :mod:`ti_notebook.errors` are the public surface: the notebook layer
(``magics``, ``widgets``, ``kernels``) imports nothing else (``tests/test_layering.py``).
"""

from __future__ import annotations

from types import SimpleNamespace as _Namespace

from ti_notebook import _lib as _lib  # Taichi's examples ask ti._lib.core.with_vulkan()
from ti_notebook import errors
from ti_notebook import lang as lang
from ti_notebook import linalg as linalg
from ti_notebook import math as math
from ti_notebook import tools as tools
from ti_notebook.compiler.progress import listen as watch_compiles
from ti_notebook.lang import matrix_types as _matrix_types
from ti_notebook.lang.data_oriented import data_oriented
from ti_notebook.lang.field import Field, field
from ti_notebook.lang.field_options import Layout
from ti_notebook.lang.func import Pyfunc, pyfunc, real_func
from ti_notebook.lang.linalg import eig, polar_decompose, solve, svd, sym_eig
from ti_notebook.lang.matrix import Matrix, MatrixField, Vector
from ti_notebook.lang.ndarray import NDArray, Ndarray, NdarrayType, Template, ndarray, template
from ti_notebook.lang.ops import (
    abs,
    acos,
    activate,
    asin,
    atan2,
    atomic_add,
    atomic_and,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_sub,
    atomic_xor,
    block_dim,
    block_local,
    cast,
    ceil,
    clock_counter,
    cos,
    deactivate,
    exp,
    floor,
    grouped,
    is_active,
    log,
    loop_config,
    max,
    min,
    ndrange,
    one,
    pow,
    randn,
    random,
    round,
    select,
    sin,
    sqrt,
    static,
    tan,
    tanh,
    zero,
)
from ti_notebook.lang.snode import (
    FieldsBuilder,
    SNode,
    axes,
    i,
    ij,
    ijk,
    ijkl,
    ik,
    j,
    jk,
    k,
    l,
    root,
)
from ti_notebook.lang.snode_ops import (
    append,
    deactivate_all_snodes,
    get_addr,
    length,
    no_activate,
    rescale_index,
)
from ti_notebook.lang.snode_tree import SNodeTree
from ti_notebook.lang.static_checks import static_assert, static_print
from ti_notebook.lang.struct_field import StructField
from ti_notebook.lang.struct_types import dataclass
from ti_notebook.lang.struct_types import struct as _struct
from ti_notebook.lang.struct_values import Struct
from ti_notebook.lang.triplets import sparse_matrix_builder as _sparse_matrix_builder
from ti_notebook.lang.types import (
    f16,
    f32,
    f64,
    float16,
    float32,
    float64,
    i8,
    i16,
    i32,
    i64,
    int8,
    int16,
    int32,
    int64,
    u8,
    u16,
    u32,
    u64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ti_notebook.measure import bandwidth as _bandwidth
from ti_notebook.measure import profile_rows as _profile_rows
from ti_notebook.measure import protocol as _protocol
from ti_notebook.measure.roofline_data import roofline_data as _roofline_data
from ti_notebook.measure.stats import Summary as _Summary
from ti_notebook.measure.traffic import counted_work as _counted_work
from ti_notebook.runtime import profiler as _profiler
from ti_notebook.runtime.trace_export import export_trace as _export_trace
from ti_notebook.session import cache as _cache
from ti_notebook.session import field_loops as _field_loops  # noqa: F401  (fields' compiled loops)
from ti_notebook.session import lifecycle as _session
from ti_notebook.session.ad_tape import Tape, ad
from ti_notebook.session.config import (
    arm64,
    cpu,
    cuda,
    gpu,
    metal,
    opengl,
    resolve_arch,
    vulkan,
    x64,
)
from ti_notebook.session.graph import graph
from ti_notebook.session.kernel import Func, Kernel, func, kernel
from ti_notebook.session.lifecycle import (
    current_arch,
    init,
    init_options,
    is_initialized,
    reset,
    sync,
)
from ti_notebook.ui.colors import hex_to_rgb, rgb_to_hex
from ti_notebook.ui.gui import GUI
from ti_notebook.version import __version__ as __version__

# The package ti_notebook.cache is imported above (through the session), which binds
# this name to it; ``ti.cache`` is the public view of the user's switches instead, so
# this line must stay after every import that loads that package.
cache = _Namespace(info=_cache.info, clear=_cache.clear)

profiler = _Namespace(
    print_kernel_profiler_info=_bandwidth.print_kernel_profiler_info,
    query_kernel_profiler_info=_profiler.query_kernel_profiler_info,
    get_kernel_profiler_total_time=_profiler.get_kernel_profiler_total_time,
    clear_kernel_profiler_info=_profiler.clear_kernel_profiler_info,
    # the recorded data itself, for the notebook layer and people's own plots
    launches=_profiler.launches,
    spans=_profiler.spans,
    rows=_profile_rows.rows,
    is_enabled=_profiler.is_enabled,
    memory_bandwidth=_bandwidth.memory_bandwidth,
    # this machine's ceilings per memory level and its peaks, measured once per CPU model
    machine_ceilings=_bandwidth.machine_ceilings,
    roofline_data=_roofline_data,
    enable=_session.enable_profiler,
    disable=_session.disable_profiler,
    export_trace=_export_trace,
    # the one timing protocol (ti_notebook/measure): tuner, --profile, tutorials, benchmarks
    measure=_protocol.measure,
    time_call=_protocol.time_call,
    Candidate=_protocol.Candidate,
    Timing=_protocol.Timing,
    compare=_protocol.compare,
    Summary=_Summary,
    counted_work=_counted_work,
)

types = _Namespace(
    ndarray=NdarrayType,
    NDArray=NDArray,
    template=template,
    vector=_matrix_types.vector,
    matrix=_matrix_types.matrix,
    struct=_struct,
    sparse_matrix_builder=_sparse_matrix_builder,
    **{t.name: t for t in (f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64)},
)

__all__ = [
    "GUI",
    "hex_to_rgb",
    "rgb_to_hex",
    "Matrix",
    "MatrixField",
    "Vector",
    "Struct",
    "StructField",
    "dataclass",
    "zero",
    "math",
    "linalg",
    "pyfunc",
    "real_func",
    "Pyfunc",
    "one",
    "svd",
    "polar_decompose",
    "sym_eig",
    "eig",
    "solve",
    "Field",
    "FieldsBuilder",
    "Layout",
    "SNode",
    "SNodeTree",
    "axes",
    "i",
    "ij",
    "ijk",
    "ijkl",
    "ik",
    "j",
    "jk",
    "k",
    "l",
    "root",
    "Func",
    "Kernel",
    "Ndarray",
    "Template",
    "Tape",
    "abs",
    "acos",
    "activate",
    "ad",
    "arm64",
    "asin",
    "atan2",
    "atomic_add",
    "atomic_and",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_sub",
    "atomic_xor",
    "block_dim",
    "block_local",
    "cache",
    "profiler",
    "cast",
    "ceil",
    "clock_counter",
    "cos",
    "cpu",
    "cuda",
    "current_arch",
    "data_oriented",
    "deactivate",
    "errors",
    "exp",
    "f16",
    "f32",
    "f64",
    "field",
    "float16",
    "float32",
    "float64",
    "floor",
    "func",
    "gpu",
    "graph",
    "grouped",
    "i8",
    "i16",
    "i32",
    "i64",
    "init",
    "init_options",
    "int8",
    "is_active",
    "is_initialized",
    "int16",
    "int32",
    "int64",
    "kernel",
    "log",
    "loop_config",
    "max",
    "metal",
    "min",
    "ndarray",
    "ndrange",
    "opengl",
    "pow",
    "randn",
    "random",
    "reset",
    "resolve_arch",
    "round",
    "select",
    "sin",
    "sqrt",
    "static",
    "static_assert",
    "static_print",
    "sync",
    "tan",
    "tanh",
    "template",
    "tools",
    "types",
    "u8",
    "u16",
    "u32",
    "u64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "vulkan",
    "watch_compiles",
    "x64",
    # SNode builtins (lang/snode_ops.py)
    "append",
    "deactivate_all_snodes",
    "get_addr",
    "length",
    "no_activate",
    "rescale_index",
]

# `%load_ext ti_notebook`; importing ti_notebook inside IPython registers the magics too.
from ti_notebook.magics import load_ipython_extension as load_ipython_extension  # noqa: E402
from ti_notebook.magics import register_if_in_ipython as _register_if_in_ipython  # noqa: E402
from ti_notebook.magics import unload_ipython_extension as unload_ipython_extension  # noqa: E402

_register_if_in_ipython()
