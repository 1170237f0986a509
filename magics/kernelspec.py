"""The Jupyter kernelspec "Python 3 (ti_notebook)": IPython with ``%load_ext ti_notebook`` done.

``python -m ti_notebook.install_kernel`` (``make setup``, and so ``make test`` and
``make lab``, runs it) installs it into this Python's environment (``sys.prefix``), where
a JupyterLab of the same environment finds it; ``--user`` or ``--prefix DIR`` install
elsewhere. The kernel is ``ipykernel`` that runs ``import ti_notebook`` first, which
registers ``%%kernel``: every notebook on it has the magic from the start, and a
notebook's own ``%load_ext ti_notebook`` (which the tutorials keep, for any kernel) stays
silent - IPython's ``--ext`` would have made it print "already loaded". The Launcher
tile shows the kernel's own logo (``ti`` on a teal square, drawn here).

    >>> spec = kernel_json()
    >>> spec["display_name"], spec["argv"][-1]
    ('Python 3 (ti_notebook)', '--IPKernelApp.exec_lines=import ti_notebook')
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

KERNEL_NAME = "ti_notebook"
DISPLAY_NAME = "Python 3 (ti_notebook)"


def kernel_json(python: str | None = None) -> dict:
    """The kernel.json contents; ``python`` defaults to this interpreter."""
    return {
        "argv": [
            python or sys.executable,
            "-m",
            "ipykernel_launcher",
            "-f",
            "{connection_file}",
            "--IPKernelApp.exec_lines=import ti_notebook",
        ],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "metadata": {"debugger": True},
    }


def install(user: bool = False, prefix: str | None = None, name: str = KERNEL_NAME) -> str:
    """Installs the kernelspec and returns the folder it went to.

    Without ``user`` or ``prefix`` it goes under ``sys.prefix`` (this environment).
    """
    from jupyter_client.kernelspec import KernelSpecManager

    if not user and prefix is None:
        prefix = sys.prefix
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / name
        folder.mkdir()
        (folder / "kernel.json").write_text(json.dumps(kernel_json(), indent=1) + "\n")
        write_logos(folder)
        return KernelSpecManager().install_kernel_spec(
            str(folder), name, user=user, prefix=None if user else prefix
        )


LOGO_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
<rect x="2" y="2" width="60" height="60" rx="12" fill="#00897b"/>
<text x="32" y="44" font-family="sans-serif" font-size="34" font-weight="bold"
 text-anchor="middle" fill="white">ti</text>
</svg>
"""


def write_logos(folder: Path) -> list[Path]:
    """logo-svg.svg, logo-32x32.png and logo-64x64.png (PNGs drawn with matplotlib's Agg;
    without matplotlib, the SVG only). Returns the files written."""
    svg = folder / "logo-svg.svg"
    svg.write_text(LOGO_SVG)
    written = [svg]
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib import patches
        from matplotlib import pyplot as plt
    except ImportError:
        return written
    for size in (32, 64):
        figure = plt.figure(figsize=(1, 1), dpi=size)
        axes = figure.add_axes((0, 0, 1, 1))
        axes.set_axis_off()
        axes.add_patch(
            patches.FancyBboxPatch(
                (0.05, 0.05), 0.9, 0.9, boxstyle="round,pad=0,rounding_size=0.18", color="#00897b"
            )
        )
        axes.text(0.5, 0.45, "ti", color="white", ha="center", va="center", fontsize=size * 0.42,
                  fontweight="bold", family="sans-serif")  # fmt: skip
        path = folder / f"logo-{size}x{size}.png"
        figure.savefig(path, transparent=True)
        plt.close(figure)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    """``python -m ti_notebook.install_kernel [--user | --prefix DIR] [--name NAME]``."""
    parser = argparse.ArgumentParser(
        prog="python -m ti_notebook.install_kernel",
        description=f'Installs the Jupyter kernel "{DISPLAY_NAME}" (IPython with '
        "%load_ext ti_notebook done).",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--prefix", help="install under PREFIX/share/jupyter/kernels")
    parser.add_argument("--name", default=KERNEL_NAME, help="kernelspec name (folder)")
    args = parser.parse_args(argv)
    path = install(user=args.user, prefix=args.prefix, name=args.name)
    print(f'Installed kernelspec "{DISPLAY_NAME}" ({args.name}) in {path}')
