"""The Jupyter kernelspec "Python 3 (ti_notebook)": IPython with ``%load_ext ti_notebook`` done.

``python -m ti_notebook.install_kernel`` (``make lab`` runs it) installs it into this
Python's environment (``sys.prefix``), where a JupyterLab of the same environment finds
it; ``--user`` or ``--prefix DIR`` install elsewhere. The kernel is ``ipykernel`` started
with ``--ext ti_notebook``, so every notebook on it has ``%%kernel`` from the start.

    >>> spec = kernel_json()
    >>> spec["display_name"], spec["argv"][-2:]
    ('Python 3 (ti_notebook)', ['--ext', 'ti_notebook'])
"""

from __future__ import annotations

import argparse
import json
import shutil
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
            "--ext",
            "ti_notebook",
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
        _copy_logos(folder)
        return KernelSpecManager().install_kernel_spec(
            str(folder), name, user=user, prefix=None if user else prefix
        )


def _copy_logos(folder: Path) -> None:
    try:
        from ipykernel.kernelspec import RESOURCES
    except ImportError:  # logos are optional
        return
    for logo in Path(RESOURCES).glob("logo-*"):
        shutil.copy(logo, folder / logo.name)


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
