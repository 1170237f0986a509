"""Vectors and matrices inside kernels: constructors, element access, linear algebra.

A kernel-scope matrix is a :class:`~ti_notebook.frontend.values.Vector` of scalar
values with a ``shape`` of ``(n,)`` or ``(n, m)``: every operation unrolls into scalar
IR, so LLVM sees plain arithmetic it can vectorise across loop iterations.
"""

from __future__ import annotations

import ast
import dataclasses
import numbers

from ti_notebook.errors import TiIndexError, TiSyntaxError, TiTypeError, TiValueError
from ti_notebook.frontend.builder import is_constant
from ti_notebook.frontend.values import Slots, Vector
from ti_notebook.ir import nodes as ir
from ti_notebook.lang import matrix as lang_matrix
from ti_notebook.lang import types

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}
MAX_KERNEL_COMPONENTS = 256
METHODS = {
    "dot",
    "norm",
    "norm_sqr",
    "norm_inv",
    "normalized",
    "outer_product",
    "transpose",
    "trace",
    "cross",
    "sum",
    "max",
    "min",
    "cast",
}


_EPS_METHODS = {"norm", "norm_inv", "normalized"}


@dataclasses.dataclass
class BoundMethod:
    value: Vector
    name: str


def rows(value: Vector) -> list[list]:
    n, m = value.shape if len(value.shape) == 2 else (value.shape[0], 1)
    return [value.items[r * m : (r + 1) * m] for r in range(n)]


class MatricesMixin:
    # -- construction ----------------------------------------------------------------
    def build_matrix(self, node: ast.Call, is_vector: bool) -> Vector:
        if len(node.args) != 1:
            raise self.error(TiTypeError, node, "ti.Vector/ti.Matrix take one list of values")
        value = self.expr(node.args[0])
        kw = self.keywords(node)
        if isinstance(value, Vector):
            value = list(value.items) if len(value.shape) == 1 else rows(value)
        if not isinstance(value, (list, tuple)):
            raise self.error(TiTypeError, node, "ti.Vector/ti.Matrix take a list of values")
        if value and isinstance(value[0], (list, tuple, Vector)) and not is_vector:
            grid = [list(r.items) if isinstance(r, Vector) else list(r) for r in value]
            width = len(grid[0])
            if any(len(r) != width for r in grid):
                raise self.error(TiTypeError, node, "matrix rows must have the same length")
            result = Vector([x for r in grid for x in r], (len(grid), width))
        else:
            result = Vector(list(value))
        dtype = kw.get("dtype")
        if dtype is not None:
            result = self.map_vector(result, lambda v: self.builder.cast(v, dtype))
        return result

    def identity(self, node: ast.Call) -> Vector:
        dtype, n = (self.static_eval(a) for a in node.args)
        one, zero = (1.0, 0.0) if dtype.is_float else (1, 0)
        items = [
            self.builder.const(one if r == c else zero, dtype) for r in range(n) for c in range(n)
        ]
        return Vector(items, (n, n))

    def zero_like(self, node: ast.Call):
        (value,) = (self.expr(a) for a in node.args)
        if isinstance(value, Vector):
            return Vector(
                [self.builder.const(0, self.builder.value(v).dtype) for v in value], value.shape
            )
        return self.builder.const(0, self.builder.value(value).dtype)

    # -- element access ----------------------------------------------------------------
    def element_positions(self, shape: tuple[int, ...], node: ast.Subscript) -> int | list[int]:
        """The row-major item ``x[...]`` names in a value of ``shape``, or a matrix row's."""
        index = self.expr(node.slice)
        index = (index,) if isinstance(index, numbers.Integral) else index
        if not (isinstance(index, tuple) and all(isinstance(i, numbers.Integral) for i in index)):
            raise self.error(
                TiIndexError,
                node.slice,
                "a vector/matrix index must be compile-time integers",
                "use constants, or ti.static(range(n)) for a loop over components",
            )
        index = tuple(int(i) for i in index)
        row = len(shape) == 2 and len(index) == 1
        if len(index) != len(shape) and not row:
            raise self.error(
                TiIndexError, node, f"a value of shape {shape} takes {len(shape)} index(es)"
            )
        for i, extent in zip(index, shape, strict=False):
            if not 0 <= i < extent:
                raise self.error(
                    TiIndexError, node, f"index {index} out of range for shape {shape}"
                )
        if row:
            width = shape[1]
            return list(range(index[0] * width, (index[0] + 1) * width))
        flat = 0
        for i, extent in zip(index, shape, strict=True):
            flat = flat * extent + i
        return flat

    def matrix_element(self, value: Vector, node: ast.Subscript):
        found = self.element_positions(value.shape, node)
        if isinstance(found, list):
            return Vector([value.items[k] for k in found])
        return value.items[found]

    def select_slots(self, slots: Slots, node: ast.Subscript):
        """``target[...] = ...`` on a vector/matrix target: one slot, or a row's Slots."""
        found = self.element_positions(slots.shape, node)
        if isinstance(found, list):
            return Slots([slots.items[k] for k in found], (len(found),))
        return slots.items[found]

    def component_slot(self, slots: Slots, node: ast.Attribute):
        """``target.x = ...``: the slot of component x/y/z/w of a vector target."""
        k = _COMPONENTS.get(node.attr)
        if k is None or len(slots.shape) != 1:
            raise self.error(
                TiSyntaxError,
                node,
                f"cannot assign to '.{node.attr}' of a vector/matrix",
                "only vectors' .x/.y/.z/.w components can be assigned by name",
            )
        if k >= slots.shape[0]:
            raise self.error(TiSyntaxError, node, f"a {slots.shape[0]}-vector has no .{node.attr}")
        return slots.items[k]

    def matrix_attribute(self, value: Vector, node: ast.Attribute):
        if node.attr in _COMPONENTS and len(value.shape) == 1:
            k = _COMPONENTS[node.attr]
            if k >= len(value.items):
                raise self.error(TiSyntaxError, node, f"a {len(value)}-vector has no .{node.attr}")
            return value.items[k]
        if node.attr == "T":
            return self.call_method(BoundMethod(value, "transpose"), [], node)
        if node.attr == "n":
            return value.shape[0]
        if node.attr == "m":
            return value.shape[1] if len(value.shape) == 2 else 1
        if node.attr in METHODS:
            return BoundMethod(value, node.attr)
        raise self.error(TiSyntaxError, node, f"vectors and matrices have no '.{node.attr}'")

    def load_matrix(self, field, indices: list, node) -> Vector:
        self.check_component_count(field, node)
        pointers = self.matrix_pointers(field, indices, node)
        items = [self.builder.emit(ir.GlobalLoadStmt(ptr)) for ptr in pointers]
        return Vector(items, field.element_shape)

    def check_component_count(self, field, node) -> None:
        """Kernels unroll vector values per component, and LLVM's time grows faster than
        the component count (2,000 took minutes): a whole-element value of a huge vector
        field is refused with the usual remedy (one component at a time still works)."""
        count = len(field.components)
        if count > MAX_KERNEL_COMPONENTS:
            raise self.error(
                TiValueError,
                node,
                f"'{field.name}' has {count} components per element; kernels handle at "
                f"most {MAX_KERNEL_COMPONENTS} as one vector value",
                f"make the components a field dimension instead, e.g. "
                f"ti.field(ti.{field.dtype}, shape=(..., {count})), and loop over it",
            )

    def matrix_pointers(self, field, indices: list, node) -> list[ir.Stmt]:
        return [self.subscript_pointer(c, indices, node) for c in field.components]

    # -- operations ----------------------------------------------------------------------
    def matmul(self, a, b, node):
        if not (isinstance(a, Vector) and isinstance(b, Vector)):
            raise self.error(TiTypeError, node, "'@' needs two vectors/matrices")
        left = rows(a)
        right = rows(b)
        if len(left[0]) != len(right):
            raise self.error(TiTypeError, node, f"cannot multiply {a.shape} by {b.shape}")
        out = []
        for row in left:
            for c in range(len(right[0])):
                acc = None
                for k, x in enumerate(row):
                    term = self.builder.binary("mul", x, right[k][c])
                    acc = term if acc is None else self.builder.binary("add", acc, term)
                out.append(acc)
        shape = (len(left),) if len(b.shape) == 1 else (len(left), len(right[0]))
        return Vector(out, shape)

    def call_method(self, method: BoundMethod, args: list, node, keywords: dict | None = None):
        v, b, name = method.value, self.builder, method.name
        if name in _EPS_METHODS:
            (eps,) = self.method_arguments(name, args, keywords or {}, ("eps",), (0,), node)
            # Taichi's definitions: norm = sqrt(|v|^2 + eps), normalized = v / (norm + eps)
            squared = self.sum_items([b.binary("mul", x, x) for x in v])
            if name == "norm_inv":
                return b.binary("truediv", 1.0, b.unary("sqrt", b.binary("add", squared, eps)))
            norm = b.unary("sqrt", b.binary("add", squared, eps))
            if name == "norm":
                return norm
            inv = b.binary("truediv", 1.0, b.binary("add", norm, eps))
            return Vector([b.binary("mul", x, inv) for x in v], v.shape)
        if keywords:
            raise self.error(TiTypeError, node, f"{name}() takes no keyword arguments")
        if name == "dot":
            (w,) = args
            return self.sum_items([b.binary("mul", x, y) for x, y in zip(v, w, strict=True)])
        if name == "norm_sqr":
            return self.sum_items([b.binary("mul", x, x) for x in v])
        if name == "outer_product":
            (w,) = args
            return Vector([b.binary("mul", x, y) for x in v for y in w], (len(v), len(w)))
        if name == "transpose":
            grid = rows(v)
            return Vector(
                [grid[r][c] for c in range(len(grid[0])) for r in range(len(grid))],
                (len(grid[0]), len(grid)),
            )
        if name == "trace":
            grid = rows(v)
            return self.sum_items([grid[k][k] for k in range(len(grid))])
        if name == "cross":
            (w,) = args
            if len(v) == 2:
                return b.binary("sub", b.binary("mul", v[0], w[1]), b.binary("mul", v[1], w[0]))
            items = []
            for i1, i2 in ((1, 2), (2, 0), (0, 1)):
                items.append(
                    b.binary("sub", b.binary("mul", v[i1], w[i2]), b.binary("mul", v[i2], w[i1]))
                )
            return Vector(items)
        if name == "sum":
            return self.sum_items(list(v))
        if name in ("max", "min"):
            result = v.items[0]
            for x in v.items[1:]:
                result = b.binary(name, result, x)
            return result
        if name == "cast":
            (dtype,) = args
            cfg = self.config
            resolved = types.to_dtype(dtype, cfg.default_ip, cfg.default_fp)
            if resolved is None:
                raise self.error(TiTypeError, node, f"cast() needs a type, got {dtype!r}")
            return Vector([b.cast(x, resolved) for x in v], v.shape)
        raise self.error(TiSyntaxError, node, f"unknown method '{name}'")

    def method_arguments(self, name, args, keywords, names, defaults, node) -> list:
        """``args``/``keywords`` of a vector method bound to ``names`` (with defaults)."""
        unknown = sorted(set(keywords) - set(names))
        if unknown or len(args) > len(names):
            raise self.error(
                TiTypeError, node, f"{name}() takes ({', '.join(names)}), got {unknown or args}"
            )
        values = list(args) + list(defaults[len(args) :])
        for k, key in enumerate(names):
            if key in keywords:
                if k < len(args):
                    raise self.error(TiTypeError, node, f"{name}() got '{key}' twice")
                values[k] = keywords[key]
        return values

    def sum_items(self, items: list):
        total = items[0]
        for x in items[1:]:
            total = self.builder.binary("add", total, x)
        return total


def is_matrix_field(value) -> bool:
    return isinstance(value, lang_matrix.MatrixField)


def constructors() -> dict:
    return {
        lang_matrix.Vector: lambda t, node: t.build_matrix(node, True),
        lang_matrix.Matrix: lambda t, node: t.build_matrix(node, False),
        lang_matrix.Matrix.identity: lambda t, node: t.identity(node),
    }


_ = (is_constant, types)
