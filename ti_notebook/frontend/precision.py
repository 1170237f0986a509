"""Taichi's "may lose precision" warning: a store that casts its value to a type that
cannot hold it exactly.

The rule, checked while the kernel is traced (so once per compile, never per launch):

- a float stored into an integer place (a field or ndarray element, a local, a typed
  ti.func parameter or return value) loses its fraction;
- a wider float stored into a narrower one (f64 into f32) loses digits, as Taichi warns;
- a Python float constant that is a whole number (``n = 2.0``) loses nothing and does
  not warn; neither do integer narrowing nor int to float (Taichi's type promotion
  keeps the place's type there, and index arithmetic would warn everywhere);
- but an accumulation (``+=``, ``ti.atomic_add``...) of a wider integer into a narrower
  one warns, as Taichi's "Atomic add may lose precision: i32 <- i64" does: ``s = 0``
  makes an i32, and summing an i64 field into it wraps.

The value is still cast (truncated toward zero), as Taichi does; ``ti.cast(value,
ti.i32)`` or ``int(value)`` says the cast is meant and silences the warning.

    >>> import warnings
    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> counts = ti.field(ti.i32, shape=4)
    >>> @ti.kernel
    ... def fill():
    ...     for i in counts:
    ...         counts[i] = 0.5 * i
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fill()
    >>> warning = caught[0].message
    >>> warning.kernel_name, warning.message.split(" (")[0], warning.hint[:30]
    ('fill', 'storing an f32 value into counts[i]', 'write ti.cast(value, ti.i32) o')
    >>> print(str(warning).splitlines()[-2])
                    ^^^^^^^
    >>> counts.to_numpy().tolist()
    [0, 0, 1, 1]
"""

from __future__ import annotations

import ast
import warnings

from ti_notebook.errors import SourcePos, TiPrecisionWarning
from ti_notebook.frontend.context import TraceContext
from ti_notebook.ir import nodes as ir
from ti_notebook.ir.types import DataType


def source_of(value) -> str | None:
    """The type name of a value that would lose precision in an integer place, or None
    for values that are exact everywhere (ints, bools, whole float constants)."""
    if isinstance(value, float):
        return None if value.is_integer() else "float"
    if isinstance(value, ir.Stmt) and value.dtype is not None and value.dtype.is_float:
        return str(value.dtype)
    return None


def is_lossy(value, target: DataType, accumulating: bool = False) -> bool:
    """True when casting ``value`` to ``target`` may lose precision (the rule above);
    ``accumulating``: the cast feeds an atomic update, where integer narrowing counts.

    >>> from ti_notebook.ir.types import f32, f64, i32, i64
    >>> is_lossy(0.5, i32), is_lossy(2.0, i32), is_lossy(3, i32), is_lossy(0.5, f32)
    (True, False, False, False)
    >>> is_lossy(ir.ConstStmt(1.5, f64), f32), is_lossy(ir.ConstStmt(1.5, f32), f64)
    (True, False)
    >>> is_lossy(ir.ConstStmt(7, i64), i32), is_lossy(ir.ConstStmt(7, i64), i32, True)
    (False, True)
    """
    if target is None or not hasattr(target, "is_float"):
        return False
    if isinstance(value, float):
        return not target.is_float and not value.is_integer()
    if not isinstance(value, ir.Stmt) or value.dtype is None:
        return False
    if value.dtype.is_float:
        return not target.is_float or value.dtype.bits > target.bits
    wider_integer = not target.is_float and value.dtype.bits > target.bits
    return accumulating and wider_integer and value.dtype.name != "u1"


def warn_if_lossy(
    ctx: TraceContext,
    value,
    target: DataType,
    place: str,
    node: ast.AST | SourcePos | None,
    accumulating: bool = False,
) -> None:
    """Warns (:class:`~ti_notebook.errors.TiPrecisionWarning`) when storing ``value``
    into ``place`` (words such as ``"counts[i] (an i32 field element)"``) of type
    ``target`` may lose precision; ``node`` is the value's code (or its position),
    where the caret goes; ``accumulating``: an atomic update (see :func:`is_lossy`).
    """
    if not is_lossy(value, target, accumulating):
        return
    source = "a float constant" if isinstance(value, float) else f"an {value.dtype} value"
    found = "float" if isinstance(value, float) else str(value.dtype)
    if isinstance(node, SourcePos):
        pos = node
    else:
        pos = ctx.pos(node) if node is not None else ctx.builder.pos
    if target.is_float:
        hint = f"write ti.cast(value, ti.{target}) to make the narrowing explicit"
    elif isinstance(value, ir.Stmt) and not value.dtype.is_float:
        hint = (
            f"give the place the value's type (an accumulator: s = ti.{value.dtype}(0)), "
            f"or write ti.cast(value, ti.{target}) if wrapping is meant"
        )
    else:
        hint = (
            f"write ti.cast(value, ti.{target}) or int(value) if truncating is meant, "
            "or give the place a float type"
        )
    key = (pos, place) if pos is not None else None
    if key in ctx.state.warned:  # a vector's components, an unrolled loop: one warning
        return
    ctx.state.warned.add(key)
    message = f"storing {source} into {place} may lose precision: {target} <- {found}"
    warning = TiPrecisionWarning(message, pos, hint)
    if pos is None:
        warnings.warn(warning, stacklevel=2)
        return
    # the kernel's own line, not ti_notebook's, so filters by module or line work
    warnings.warn_explicit(warning, TiPrecisionWarning, pos.filename, pos.lineno)


def place_words(slot, target_node: ast.AST | None, kind: str | None = None) -> str:
    """How the warning names a place: ``counts[i] (an i32 field element)``, ``the i32
    local 'n'``.

    >>> from ti_notebook.ir.types import i32
    >>> place_words(ir.AllocaStmt(i32, "n"), None)
    "the i32 local 'n'"
    """
    dtype = slot.dtype
    if kind is None:
        if isinstance(slot, ir.AllocaStmt):
            return f"the {dtype} local '{slot.name}'" if slot.name else f"an {dtype} local"
        kind = "ndarray element" if isinstance(slot, ir.ExternalPtrStmt) else "field element"
    text = ast.unparse(target_node) if target_node is not None else ""
    article = "an" if str(dtype)[0] in "if" else "a"  # an i32, an f32, a u8
    return f"{text} ({article} {dtype} {kind})" if text else f"{article} {dtype} {kind}"
