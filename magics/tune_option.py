"""``%%kernel --tune OPTION=V1,V2,...``: the loop_config tuner on the cell's kernel.

The flag may repeat, one option each (``parallelize``, ``block_dim``, ``serialize``):

    %%kernel --tune block_dim=16,32,64,128 --tune parallelize=1,2,4
    x = ti.field(ti.f32, shape=1 << 20)
    def scale(k: ti.f32):
        for i in x:
            x[i] = x[i] * k

opens ``ti_notebook.widgets.tune`` on ``scale``. The tuned kernel is the cell's one
kernel whose arguments are all scalars (none at all included); they are passed as 0
(0.0 for floats), as the cell's compile does. A cell with no such kernel, or several,
is an error that says so; call ``tune(kernel, *args, ...)`` yourself then.

    >>> parse_tune("block_dim=16,32"), parse_tune("serialize=true,false")
    (('block_dim', [16, 32]), ('serialize', [True, False]))
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

import ti_notebook as ti

__all__ = ["parse_tune", "tune_cell"]

_BOOLS = {"true": True, "1": True, "on": True, "false": False, "0": False, "off": False}
TUNABLE = ("parallelize", "block_dim", "serialize")


def parse_tune(text: str) -> tuple[str, list]:
    """``OPTION=V1,V2`` → ``(option, values)``; argparse's ``type`` for ``--tune``."""
    name, equals, listed = text.partition("=")
    name = name.strip().replace("-", "_")
    if not equals or name not in TUNABLE:
        raise argparse.ArgumentTypeError(
            f"expected OPTION=V1,V2 with OPTION one of {', '.join(TUNABLE)}, got {text!r}"
        )
    values = []
    for item in (v.strip() for v in listed.split(",") if v.strip()):
        if name == "serialize":
            if item.lower() not in _BOOLS:
                raise argparse.ArgumentTypeError(f"serialize takes true or false, got {item!r}")
            values.append(_BOOLS[item.lower()])
            continue
        try:
            value = int(item)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{name} takes positive integers, got {item!r}")
        values.append(value)
    if not values:
        raise argparse.ArgumentTypeError(f"--tune {name}= lists no value")
    return name, values


def tune_cell(kernels: Mapping[str, ti.Kernel], options: Sequence[tuple[str, list]]):
    """Opens the tuner on the one all-scalar kernel among ``kernels`` (see the module)."""
    from ti_notebook.widgets import tune  # matplotlib and ipywidgets load only when tuning

    choices: dict[str, list] = {}
    for name, values in options:
        if name in choices:
            raise ti.errors.TiValueError(f"--tune {name}= is given twice: list its values once")
        choices[name] = values
    scalar = {
        name: kernel
        for name, kernel in kernels.items()
        if all(p.kind == "scalar" for p in kernel.parameters)
    }
    if len(scalar) != 1:
        found = ", ".join(scalar) or "none"
        raise ti.errors.TiValueError(
            f"--tune needs one kernel with scalar arguments only in the cell (found: {found})",
            hint="or call ti_notebook.widgets.tune(kernel, *args, block_dim=[...]) yourself",
        )
    kernel = next(iter(scalar.values()))
    args = [0.0 if p.dtype.is_float else 0 for p in kernel.parameters]
    return tune(kernel, *args, **choices)
