"""A launch's argument packer, generated for one kernel's parameter slots.

Checking and packing arguments one converter call at a time costs ~0.7 µs per array;
a small kernel's whole launch is a few µs, so the checks dominate it. For each compiled
kernel this module writes one function that tests every argument's common case in a
single expression (exact ``float``/``int`` in range; an exact ``numpy.ndarray`` of the
right dtype and dimensions, C-contiguous, writable if the kernel writes it) and returns
the words to pack. Anything else goes to ``checked``, the converters that accept the
other forms (NumPy scalars, ``ti.ndarray``) and raise the errors with their hints.

    >>> import numpy as np
    >>> from ti_notebook.ir import types as T
    >>> slots = [("float", T.f32, 0, False), ("ndarray", T.f32, 1, True)]
    >>> pack = make_packer(slots, checked=lambda args: "the long way", data=lambda a: 42)
    >>> pack((0.5, np.zeros(3, np.float32)))
    [0, 0.5, 42, 3]
    >>> pack((1, np.zeros(3, np.float32)))
    'the long way'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ti_notebook.ir import types as T


def make_packer(
    slots: Sequence[tuple[str, T.DataType | None, int, bool]],
    checked: Callable[[tuple], list],
    data: Callable[[np.ndarray], int],
) -> Callable[[tuple], list]:
    """``pack(args) -> [0, word, ...]`` for slots of (kind, dtype, ndim, written)."""
    names = [f"a{k}" for k in range(len(slots))]
    scope: dict = {"ndarray": np.ndarray, "checked": checked, "data": data}
    tests, words = [], ["0"]
    for k, (kind, dtype, ndim, written) in enumerate(slots):
        a = names[k]
        if kind == "ndarray":
            scope[f"d{k}"] = dtype.np_dtype
            test = (
                f"type({a}) is ndarray and {a}.dtype == d{k} and {a}.ndim == {ndim}"
                f" and {a}.flags.c_contiguous"
            )
            tests.append(test + (f" and {a}.flags.writeable" if written else ""))
            words += [f"data({a})", f"*{a}.shape"]
        elif kind == "float":
            tests.append(f"type({a}) is float")
            words.append(a)
        else:
            low, high = dtype.int_range() if dtype is not None else (-(1 << 63), (1 << 64) - 1)
            tests.append(f"type({a}) is int and {low} <= {a} <= {high}")
            words.append(a)
    unpack = f"    {', '.join(names)}, = args\n" if names else ""
    condition = " and ".join(f"({t})" for t in tests) or "True"
    source = (
        "def pack(args):\n"
        f"    if len(args) != {len(slots)}:\n"
        "        return checked(args)\n"
        f"{unpack}"
        f"    if not ({condition}):\n"
        "        return checked(args)\n"
        f"    return [{', '.join(words)}]\n"
    )
    exec(compile(source, "<ti_notebook arg packer>", "exec"), scope)  # noqa: S102
    return scope["pack"]
