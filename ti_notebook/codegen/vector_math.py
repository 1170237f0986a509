"""Vectorised transcendental math on the CPU through glibc's libmvec.

``ti.sin(x[i])`` in a parallel loop was one scalar libm call per element, so LLVM's
loop vectoriser gave up on the whole loop. glibc ships vector versions of libm
(``libmvec``: ``_ZGVdN8v_sinf`` takes 8 floats in a ymm register, AVX2). A libm
declaration carrying ``"vector-function-abi-variant"`` names its vector version, and
the vectoriser calls that one on 8 (f32) or 4 (f64) elements at a time; the vector
declarations stay in the module through ``@llvm.compiler.used``. The scalar remainder
still calls libm.

Only what stays within 2 ulp of libm is mapped (``tests/codegen/test_vector_math.py``
checks each over random and special inputs). Measured here against glibc 2.35's libm:
f32 ``sin cos pow asin acos tanh`` at most 2 ulp; f32 ``log`` (4 ulp), ``atan2``
and ``tan`` (3) are computed as f64 through the double variants (``log atan2 tan``, at
most 2 ulp in f64), then rounded: under 1 ulp in f32, at half the lanes. The f64
``sin cos exp tanh tan`` variants are 3 ulp off: those stay scalar libm calls in f64. The mapping
needs an AVX2 host and libmvec; elsewhere :func:`available` is empty.

    >>> sorted(VARIANTS_F32)[:3]
    ['acos', 'asin', 'cos']
    >>> vector_name("pow", 32), sorted(WIDENED_F32)
    ('_ZGVdN8vv_powf', ['atan2', 'log', 'tan'])
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import llvmlite.ir as ll

# op -> number of arguments, for the variants within 2 ulp of libm (see above); each
# exists in glibc 2.35's libmvec as the AVX2 ("d") variant
# (f32 exp is not here: codegen/inline_exp.py computes it without a call; libmvec's
# sends every lane of a vector down a scalar path when one under- or overflows)
VARIANTS_F32 = {"sin": 1, "cos": 1, "asin": 1, "acos": 1, "tanh": 1, "pow": 2}
VARIANTS_F64 = {"log": 1, "asin": 1, "acos": 1, "pow": 2, "atan2": 2}
# f32 functions computed through the f64 variant, rounded back
WIDENED_F32 = frozenset({"log", "atan2", "tan"})
LANES = {32: 8, 64: 4}  # AVX2: a ymm register of floats or doubles
# libm declarations that may be vectorised: no errno read by anyone, no other effect
SCALAR_ATTRIBUTES = ("nounwind", "willreturn", "memory(none)")


def scalar_name(op: str, bits: int) -> str:
    return op + ("f" if bits == 32 else "")


def arity(op: str) -> int:
    return 2 if op in ("pow", "atan2") else 1


def vector_name(op: str, bits: int) -> str:
    arity_ = arity(op)
    return f"_ZGVdN{LANES[bits]}{'v' * arity_}_{scalar_name(op, bits)}"


@functools.cache
def library() -> ctypes.CDLL | None:
    """libmvec, loaded once into the process (so the JIT resolves its symbols)."""
    name = ctypes.util.find_library("mvec") or "libmvec.so.1"
    try:
        return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return None


@functools.cache
def available(cpu_features: str) -> frozenset:
    """The (op, bits) pairs this host can vectorise: AVX2 and libmvec's symbol present
    (an f32 op of :data:`WIDENED_F32` needs the f64 one)."""
    lib = library()
    if lib is None or "+avx2" not in cpu_features.split(","):
        return frozenset()
    pairs = set()
    for bits, table in ((32, VARIANTS_F32), (64, VARIANTS_F64)):
        for op in table:
            if hasattr(lib, vector_name(op, bits)):
                pairs.add((op, bits))
    pairs |= {(op, 32) for op in WIDENED_F32 if hasattr(lib, vector_name(op, 64))}
    return frozenset(pairs)


def declare_scalar(module: ll.Module, op: str, bits: int) -> ll.Function:
    """libm's ``op`` for ``bits``-bit floats, declared with its vector variant."""
    existing = module.globals.get(scalar_name(op, bits))
    if existing is not None:
        return existing
    return _with_variants(module, op, bits, scalar_name(op, bits))


def declare_widened(module: ll.Module, op: str) -> ll.Function:
    """libm's f64 ``op`` with its vector variants, for an f32 function computed in f64.

    (A kernel that also calls the f64 ``op`` itself then vectorises that one too: for
    ``tan``, 3 ulp in f64. Naming a wrapper instead fails LLVM's check of the mapping.)
    """
    return declare_scalar(module, op, 64)


def _with_variants(module: ll.Module, op: str, bits: int, name: str) -> ll.Function:
    t = ll.FloatType() if bits == 32 else ll.DoubleType()
    n = arity(op)
    fn = ll.Function(module, ll.FunctionType(t, [t] * n), name)
    vector_t = ll.VectorType(t, LANES[bits])
    vector = ll.Function(module, ll.FunctionType(vector_t, [vector_t] * n), vector_name(op, bits))
    variants = [f"_ZGV_LLVM_N{LANES[bits]}{'v' * n}_{name}({vector.name})"]
    _keep(module, vector)
    if bits == 64:  # a loop of floats vectorises 8 wide: two 4-wide calls then
        double8 = _paired(module, vector, n)
        variants.append(f"_ZGV_LLVM_N8{'v' * n}_{name}({double8.name})")
        _keep(module, double8)
    mapping = ",".join(variants)
    # llvmlite's attribute set only knows enum attributes: these print as written
    for attribute in (*SCALAR_ATTRIBUTES, f'"vector-function-abi-variant"="{mapping}"'):
        set.add(fn.attributes, attribute)
    return fn


def _paired(module: ll.Module, half: ll.Function, n: int) -> ll.Function:
    """An 8-lane version of the 4-lane ``half``: each half of the lanes, then joined."""
    t = ll.VectorType(ll.DoubleType(), 8)
    fn = ll.Function(module, ll.FunctionType(t, [t] * n), f"ti_x8{half.name}")
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    b = ll.IRBuilder(fn.append_basic_block())
    undefined = ll.Constant(t, ll.Undefined)
    lows = [b.shuffle_vector(a, undefined, _lanes(range(4))) for a in fn.args]
    highs = [b.shuffle_vector(a, undefined, _lanes(range(4, 8))) for a in fn.args]
    first, second = b.call(half, lows), b.call(half, highs)
    b.ret(b.shuffle_vector(first, second, _lanes(range(8))))
    return fn


def _lanes(numbers) -> ll.Constant:
    numbers = list(numbers)
    return ll.Constant(ll.VectorType(ll.IntType(32), len(numbers)), numbers)


def _keep(module: ll.Module, fn: ll.Function) -> None:
    """Adds ``fn`` to ``@llvm.compiler.used`` (rebuilt: its array type grows)."""
    kept = getattr(module, "_ti_vector_functions", [])
    kept.append(fn)
    module._ti_vector_functions = kept


def finish(module: ll.Module) -> None:
    """Writes ``@llvm.compiler.used`` once the module has all its vector declarations."""
    kept = getattr(module, "_ti_vector_functions", [])
    if not kept:
        return
    ptr = ll.PointerType(ll.IntType(8))
    array_t = ll.ArrayType(ptr, len(kept))
    used = ll.GlobalVariable(module, array_t, "llvm.compiler.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ll.Constant(array_t, [fn.bitcast(ptr) for fn in kept])
