"""Exact arithmetic: the result type and value each case must have.

Integers follow Taichi's documented semantics on exact Python integers: results wrap
around in the result type, ``//`` and ``%`` floor (Python's rules), ``/`` is true
division in f32, ``>>`` is arithmetic on signed types. Floats are computed by NumPy in the
result type. :func:`expected` returns :data:`UNDEFINED` where the result is undefined
(shifts by a negative count or by the width or more, integer division by zero and
``min // -1``, an integer raised to a negative integer, float-to-int casts of NaN or of
values out of range, ``min``/``max`` with NaN): those cases are not compared.

>>> expected("+", "i8", "i8", 127, 1), expected("//", "i32", "i32", -7, 2)
(-128, -4)
>>> expected("<<", "i8", "i8", 1, 8) is UNDEFINED
True
"""

from __future__ import annotations

import math

import numpy as np

from tests.differential.cases import BITS, FLOATS, int_range, is_float

UNDEFINED = object()
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
MANTISSA = {"f16": 11, "f32": 24, "f64": 53}
COMPARE = {"<", "<=", ">", ">=", "==", "!="}
# float results that must be exact; the rest (transcendental functions) get ULPS
EXACT_FLOAT = {"+", "-", "*", "/", "//", "%", "min", "max", "neg", "abs", "ti.abs"}
EXACT_FLOAT |= {"ti.sqrt", "ti.floor", "ti.ceil", "ti.round", "cast"}
ULPS = {"f16": 1, "f32": 4, "f64": 4}


def promoted(a: str, b: str) -> str:
    """Taichi's implicit type of ``a op b``: a float beats an integer, the wider type
    wins, unsigned wins at equal width: ``promoted("i32", "u32") -> "u32"``."""
    if is_float(a) or is_float(b):
        floats = [t for t in (a, b) if is_float(t)]
        return max(floats, key=BITS.__getitem__)
    if BITS[a] != BITS[b]:
        return max(a, b, key=BITS.__getitem__)
    return a if a.startswith("u") else b


def result_type(op: str, a: str, b: str) -> str:
    """The type of ``op`` applied to types ``a`` (and ``b``); ``b`` is the target of a cast."""
    if op == "cast":
        return b
    if op in COMPARE or op == "not":
        return "i32"
    if op in ("neg", "abs", "~", "ti.abs"):
        return a
    if op.startswith("ti.") and op not in ("ti.pow", "ti.atan2"):
        return a if is_float(a) else "f32"  # math on integers is math on f32
    if op in ("<<", ">>") or (op in ("**", "ti.pow") and not is_float(b)):
        return a
    if op in ("/", "ti.atan2"):  # an integer operand counts as f32 (default_fp)
        return promoted(a if is_float(a) else "f32", b if is_float(b) else "f32")
    return promoted(a, b)


def wrap(x: int, t: str) -> int:
    """``x`` modulo the width of integer type ``t``, in ``t``'s range."""
    bits = BITS[t]
    x &= (1 << bits) - 1
    return x - (1 << bits) if not t.startswith("u") and x >> (bits - 1) else x


def int_to_float(x: int, t: str) -> float:
    """``x`` rounded to nearest-even in float type ``t`` (inf beyond its range), exactly:
    NumPy's conversions of 64-bit integers round twice."""
    p, sign, m = MANTISSA[t], -1 if x < 0 else 1, abs(x)
    extra = m.bit_length() - p
    if extra > 0:
        q, r = divmod(m, 1 << extra)
        half = 1 << (extra - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << extra
    value = float(m) if m < 2**1024 else math.inf
    return sign * float(NP[t](value))  # values this large overflow to inf in t


def convert(x, src: str, dst: str):
    """Operand ``x`` of type ``src`` as the value of type ``dst`` (C conversion rules), or
    UNDEFINED for a float that does not fit integer type ``dst``."""
    if is_float(dst):
        if is_float(src):
            return float(NP[dst](x))
        return int_to_float(x, dst)
    if is_float(src):
        if math.isnan(x) or math.isinf(x):
            return UNDEFINED
        low, high = int_range(dst)
        return math.trunc(x) if low <= math.trunc(x) <= high else UNDEFINED
    return wrap(x, dst)


def _round_half_away(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return math.copysign(float(t), x) if t == 0 else float(t)


_NP1 = {"sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp}
_NP1.update({"log": np.log, "floor": np.floor, "ceil": np.ceil, "abs": np.abs})
_NP1.update({"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "tanh": np.tanh})


def _pow(x: float, y: float) -> float:
    """C99's pow (IEEE special cases: ``pow(-inf, 0.5)`` is inf), in double precision."""
    try:
        return math.pow(x, y)
    except ValueError:  # a negative base to a non-integral power
        return math.nan
    except OverflowError:
        odd = y == math.floor(y) and math.fmod(y, 2.0) != 0
        return -math.inf if x < 0 and odd else math.inf


def _float_binary(op: str, x, y):
    with np.errstate(all="ignore"):
        if op in ("+", "-", "*", "/"):
            return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](x, y)
        if op in ("//", "%"):  # Taichi's definitions: floor(x / y), x - y * floor(x / y)
            q = np.floor(x / y)
            return q if op == "//" else x - y * q
        if op in ("**", "ti.pow"):
            return _pow(float(x), float(y))
        if op == "ti.atan2":
            return np.arctan2(x, y)
        if math.isnan(x) or math.isnan(y):
            return UNDEFINED  # min/max with NaN: implementation-defined
        return (min if op == "min" else max)(x, y)


def _int_binary(op: str, x: int, y: int, t: str):
    if op in ("//", "%"):
        low = int_range(t)[0]
        if y == 0 or (low < 0 and x == low and y == -1):
            return UNDEFINED  # traps on the CPU
        return wrap(x // y if op == "//" else x % y, t)
    if op in ("**", "ti.pow"):
        return UNDEFINED if y < 0 else wrap(pow(x, y, 1 << BITS[t]), t)
    ops = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}
    ops.update({"min": min(x, y), "max": max(x, y)})
    return wrap(ops[op], t)


def _undefined_float(op: str, rt: str, x, y) -> bool:
    """Float cases Taichi leaves undefined (a zero or negative base of ``**`` to a
    non-positive or non-integral power), and ``%`` whose quotient is beyond the type's
    precision (``x - y * floor(x / y)`` is then rounding noise)."""
    if op in ("**", "ti.pow"):
        return (x == 0 and not y > 0) or (x < 0 and math.isfinite(y) and y != math.floor(y))
    if op == "%" and y not in (0, 0.0) and not math.isinf(y) and not math.isnan(x):
        return abs(x / y) >= 2.0 ** MANTISSA[rt] if not math.isinf(x) else False
    return False


def expected(op: str, a: str, b: str, x, y=None):
    """The exact result of ``x op y`` for operands of types ``a`` and ``b`` (a Python int
    or float), or UNDEFINED where it is not defined."""
    rt = result_type(op, a, b)
    float_case = y is not None and is_float(rt) and op in ("**", "ti.pow", "%")
    if float_case and _undefined_float(op, rt, float(x), float(y)):
        return UNDEFINED
    if op == "cast":
        return convert(x, a, b)
    if op in ("<<", ">>"):
        if y < 0 or y >= BITS[a]:
            return UNDEFINED
        return wrap(x << y, a) if op == "<<" else x >> y
    if op == "not":
        return int(not x)
    if op in ("and", "or"):  # Python's rules: the value of the operand that decides
        cx, cy = convert(x, a, rt), convert(y, b, rt)
        return (cy if cx else cx) if op == "and" else (cx if cx else cy)
    if op in COMPARE:
        common = promoted(a, b)
        cx, cy = convert(x, a, common), convert(y, b, common)
        return int(
            {
                "<": cx < cy,
                "<=": cx <= cy,
                ">": cx > cy,
                ">=": cx >= cy,
                "==": cx == cy,
                "!=": cx != cy,
            }[op]
        )
    if op in ("neg", "abs", "ti.abs", "~") and not is_float(a):
        return wrap({"neg": -x, "abs": abs(x), "ti.abs": abs(x), "~": ~x}[op], a)
    if arity_of(op) == 1:
        v = NP[rt](convert(x, a, rt))
        if op == "neg":
            return float(-v)
        if op == "ti.round":
            return float(NP[rt](_round_half_away(float(v))))
        with np.errstate(all="ignore"):
            return float(_NP1[op.removeprefix("ti.")](v))
    if op in ("**", "ti.pow") and not is_float(b):
        if not is_float(a):
            return _int_binary(op, x, y, rt)
        # an integral exponent: repeated multiplication, so its parity decides the sign,
        # and nan ** 0 is 1 (C99's pow, and Taichi's repeated squaring)
        magnitude = _pow(abs(x), float(y))
        if y < 0:  # the reciprocal of the positive power (Taichi's): 0 where it overflows
            power = _pow(abs(x), float(-y))
            magnitude = 1.0 / power if power else math.inf
        negative = math.copysign(1.0, x) < 0 and y % 2 == 1
        with np.errstate(all="ignore"):
            return float(NP[rt](-magnitude if negative else magnitude))
    if rt in FLOATS:
        cx, cy = convert(x, a, rt), convert(y, b, rt)
        r = _float_binary(op, NP[rt](cx), NP[rt](cy))
        return r if r is UNDEFINED else float(NP[rt](r))
    return _int_binary(op, convert(x, a, rt), convert(y, b, rt), rt)


def arity_of(op: str) -> int:
    """1 for unary operators (casts included), else 2."""
    from tests.differential.cases import arity

    return 1 if op == "cast" else arity(op)


def out_kind(op: str, a: str, b: str) -> str:
    """The output field a result of this item is stored in: ``i64``, ``u64`` or ``f64``."""
    rt = result_type(op, a, b)
    return "f64" if is_float(rt) else "u64" if rt == "u64" else "i64"


def safe_divisor(op: str, a: str, b: str, x, y):
    """The divisor the kernel uses for ``x // y`` and ``x % y``: ``y``, or 1 where integer
    division would trap (that case's result is UNDEFINED and not compared)."""
    if is_float(a) or is_float(b):
        return y
    rt = promoted(a, b)
    low = int_range(rt)[0]
    if y == 0 or (low < 0 and wrap(x, rt) == low and wrap(y, rt) == -1):
        return 1
    return y


def agrees(op: str, rt: str, actual, want, scale: int = 1) -> bool:
    """Whether an actual result matches the wanted one: integers exactly; floats exactly
    (NaN matches NaN, -0.0 matches 0.0) or within ``scale`` times ULPS for transcendental
    functions."""
    if want is UNDEFINED:
        return True
    if not isinstance(actual, float) or not isinstance(want, float):
        return actual == want and type(actual) is type(want)
    if math.isnan(want) or math.isnan(actual):
        return math.isnan(want) and math.isnan(actual)
    if actual == want:
        return True
    if op in EXACT_FLOAT or math.isinf(want) or math.isinf(actual):
        return False
    return abs(actual - want) <= scale * ULPS[rt] * float(np.spacing(NP[rt](abs(want))))
