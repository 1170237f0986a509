"""What a ``%%kernel`` line's options mean: flag types, example arguments, the arch.

>>> positive_int("4")
4
>>> asks_for_help("--show ir -h")
True
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

import ti_notebook as ti


def positive_int(text: str) -> int:
    """The value of ``--parallelize N`` / ``--block-dim N`` (argparse's type), e.g.
    ``positive_int("4") == 4``; anything else is a usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def compiles_now(kernel) -> bool:
    """Every parameter has an example value: the kernel compiles without a call."""
    return all(example(p) is not None for p in kernel.parameters)


def asks_for_help(line: str) -> bool:
    """``-h`` or ``--help`` among the magic line's words (``asks_for_help("-h")``)."""
    return any(token in ("-h", "--help") for token in line.split())


def example(param):
    """An argument value that selects ``param``'s specialisation, or None if none can."""
    if param.kind == "scalar":
        return 0.0 if param.dtype.is_float else 0
    if param.kind == "ndarray" and param.dtype is not None and param.ndim is not None:
        return np.zeros((1,) * param.ndim, dtype=param.dtype.np_dtype)
    return None


def configurer(args):
    """What the cell's options do to each of its kernels (``Kernel.configure``)."""
    options = {
        "parallelize": args.parallelize,
        "block_dim": args.block_dim,
        "offline_cache": False if args.no_cache else None,
    }
    if all(value is None for value in options.values()):
        return lambda kernel: kernel
    return lambda kernel: kernel.configure(**options)


def select_arch(arch: str | None) -> None:
    """Makes sure a session runs, on ``arch`` when one is asked for (warnings printed)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if not ti.is_initialized():
            ti.init(arch=arch)
        elif arch is not None:
            wanted = ti.resolve_arch(arch)  # cuda -> cpu without a device (warned once)
            if wanted != ti.current_arch():
                ti.init(arch=wanted, **ti.init_options())
                print(
                    f"ti.init(arch={wanted}): a new session; fields made before were freed",
                    file=sys.stderr,
                )
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    if arch == "cuda" and ti.current_arch() != "cuda" and not caught:
        # ti.init warns once per process; a cell asking for CUDA hears it every time
        print(
            "warning: --arch cuda: no CUDA device here, the cell runs on the CPU "
            "(ti.init(arch=ti.cuda, cuda_sim=True) runs CUDA code on the SIMT emulator)",
            file=sys.stderr,
        )
