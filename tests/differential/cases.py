"""The matrix: scalar types, operands, operators, and the kernels that compute them.

A *group* is one left-hand type (``"i8"`` ... ``"f64"``); it holds every binary operator
with every right-hand type, every unary operator and every cast from that type. A *unit*
is ``(mode, items)`` with ``items`` a list of ``(op, rhs type)``; the runner compiles one
kernel per unit, so the whole matrix costs a few hundred kernels. Modes:

- ``const``: the operands are literals in the kernel (a smaller operand set, see
  :data:`CONST_INDICES`), so constant folding is exercised;
- ``arg``: the operands are kernel arguments, one launch per operand pair;
- ``field``: the operands are field elements, one launch for all pairs.

Every result lands in ``out_i64`` / ``out_u64`` / ``out_f64`` at ``[item, i, j]``: a
result is stored in the widest field of its kind, so a wrong result type (no wrap-around
at 8 bits, f32 rounding of an f16 value) shows as a wrong value.

>>> OPERANDS["i8"][:3], len(GROUPS)
([0, 1, -1], 11)
"""

from __future__ import annotations

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "f32", "f64"]
TYPES = INTS + FLOATS
GROUPS = TYPES
MODES = ["const", "arg", "field"]

BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}
BITS.update({"f16": 16, "f32": 32, "f64": 64})
# (largest finite, smallest normal) of each float type
FLOAT_LIMITS = {
    "f16": (65504.0, 2.0**-14),
    "f32": (3.4028234663852886e38, 2.0**-126),
    "f64": (1.7976931348623157e308, 2.0**-1022),
}


def is_float(t: str) -> bool:
    """Whether ``t`` names a floating-point type: ``is_float("f16") -> True``."""
    return t.startswith("f")


def int_range(t: str) -> tuple[int, int]:
    """``(min, max)`` of integer type ``t``: ``int_range("u8") -> (0, 255)``."""
    bits = BITS[t]
    if t.startswith("u"):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _operands(t: str) -> list:
    if is_float(t):
        big, tiny = FLOAT_LIMITS[t]
        inf = float("inf")
        return [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 300.25, big, tiny, float("nan"), inf, -inf]
    low, high = int_range(t)
    if t.startswith("u"):
        # 2**(bits-1) is 2**63 for u64: the value that does not fit an i64
        return [0, 1, 2, 3, 7, 77, 2 ** (BITS[t] - 1), high]
    return [0, 1, -1, 3, -7, 77, low, high]


OPERANDS: dict[str, list] = {t: _operands(t) for t in TYPES}
N = max(len(v) for v in OPERANDS.values())
# the operand indices used in const mode (every literal is one statement)
CONST_INDICES = {t: [4, 6, 7] if not is_float(t) else [6, 8, 10] for t in TYPES}
# the right-hand types const mode pairs with each group besides its own (tracing every pair
# as literals would take minutes)
CONST_RHS = ["u64", "f32"]

# binary operators: name -> expression template ({a}, {b}); {d} is a divisor made safe
BINARY = {
    "+": "{a} + {b}",
    "-": "{a} - {b}",
    "*": "{a} * {b}",
    "/": "{a} / {b}",
    "//": "{a} // {d}",
    "%": "{a} % {d}",
    "**": "{a} ** {b}",
    "&": "{a} & {b}",
    "|": "{a} | {b}",
    "^": "{a} ^ {b}",
    "<<": "{a} << {b}",
    ">>": "{a} >> {b}",
    "<": "{a} < {b}",
    "<=": "{a} <= {b}",
    ">": "{a} > {b}",
    ">=": "{a} >= {b}",
    "==": "{a} == {b}",
    "!=": "{a} != {b}",
    "and": "{a} and {b}",
    "or": "{a} or {b}",
    "min": "ti.min({a}, {b})",
    "max": "ti.max({a}, {b})",
    "ti.pow": "ti.pow({a}, {b})",
    "ti.atan2": "ti.atan2({a}, {b})",
}
MATH1 = ["sqrt", "sin", "cos", "tan", "exp", "log", "floor", "ceil", "round", "abs"]
MATH1 += ["asin", "acos", "tanh"]  # Taichi 1.7 has no ti.atan (only ti.atan2)
UNARY = {"neg": "-{a}", "abs": "abs({a})", "~": "~{a}", "not": "not {a}"}
UNARY.update({f"ti.{f}": f"ti.{f}({{a}})" for f in MATH1})
CAST = {"cast": "ti.cast({a}, ti.{t})"}
# families: the units of one group, in this order (one kernel per mode and family)
FAMILIES = {
    "arith": ["+", "-", "*", "/", "//", "%", "**"],
    "bits": ["&", "|", "^", "<<", ">>"],
    "compare": ["<", "<=", ">", ">=", "==", "!="],
    "logic": ["and", "or", "min", "max", "ti.pow", "ti.atan2"],
    "unary": list(UNARY),
    "cast": ["cast"],
}
BITWISE = {"&", "|", "^", "<<", ">>", "~"}
# Taichi's operators that take integers only, and functions that take floats only
INTEGRAL_ONLY = BITWISE | {"and", "or", "not"}
REAL_ONLY = {"ti.floor", "ti.ceil", "ti.round", "ti.sin", "ti.cos", "ti.tan", "ti.asin",
             "ti.acos", "ti.tanh"}  # fmt: skip
OPS = [op for family in FAMILIES.values() for op in family]


def arity(op: str) -> int:
    """1 for unary operators and casts, 2 for binary ones: ``arity("+") -> 2``."""
    return 2 if op in BINARY else 1


def rhs_types(op: str, mode: str, group: str) -> list[str]:
    """The right-hand types (the target types of a cast) paired with ``op``; ``[""]`` for
    unary operators."""
    if op in UNARY:
        return [""]
    return [t for t in TYPES if mode != "const" or t in CONST_RHS or t == group]


def valid(op: str, a: str, b: str) -> bool:
    """Whether ``a op b`` compiles: bitwise and logical operators take integers only,
    floor, ceil and round floats only (Taichi's rules)."""
    if op in REAL_ONLY:
        return is_float(a)
    return not (op in INTEGRAL_ONLY and (is_float(a) or (b and is_float(b))))


def items(group: str, mode: str, ops: list[str]) -> list[tuple[str, str]]:
    """The ``(op, rhs type)`` items of ``ops`` for one group and mode, valid ones only."""
    return [(op, b) for op in ops for b in rhs_types(op, mode, group) if valid(op, group, b)]


def invalid_items(group: str) -> list[tuple[str, str]]:
    """The items that must be compile errors (checked one kernel each, in arg mode)."""
    return [(op, b) for op in OPS for b in rhs_types(op, "arg", group) if not valid(op, group, b)]


def units(group: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every unit of ``group``: one per mode and family."""
    every = [(mode, items(group, mode, ops)) for mode in MODES for ops in FAMILIES.values()]
    return [(mode, its) for mode, its in every if its]


def pairs(group: str, op: str, b: str, mode: str) -> list[tuple[int, int]]:
    """The operand index pairs ``(i, j)`` computed for one item (``j`` is 0 for unary)."""
    rows = CONST_INDICES[group] if mode == "const" else range(len(OPERANDS[group]))
    if arity(op) == 1:
        return [(i, 0) for i in rows]
    cols = CONST_INDICES[b] if mode == "const" else range(len(OPERANDS[b]))
    return [(i, j) for i in rows for j in cols]


def key(mode: str, op: str, a: str, b: str) -> str:
    """The results' key of one item: ``key("arg", "+", "i8", "u8") -> "arg|+|i8|u8"``."""
    return f"{mode}|{op}|{a}|{b}"
