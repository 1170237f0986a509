"""Where Taichi's examples are, and their names, found without importing taichi.

Importing taichi starts its runtime (and, on some machines, probes GPU drivers), so
the parent process only asks the import system where the package would be:

>>> relative_name("algorithm/laplace.py")
'algorithm/laplace'
>>> matches("simulation/mpm88", ["mpm", "fem"])
True
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLES_PACKAGE = "examples"  # taichi/examples, shipped in the wheel


class ExamplesNotFound(RuntimeError):
    """taichi is not installed (``pip install -e '.[bench]'`` installs taichi==1.7.4)."""


def taichi_package_dir() -> Path:
    """The installed taichi package's folder, found by ``find_spec`` (no import).

    >>> taichi_package_dir().name  # doctest: +SKIP
    'taichi'
    """
    spec = importlib.util.find_spec("taichi")
    if spec is None or not spec.submodule_search_locations:
        raise ExamplesNotFound(
            "taichi is not installed: `make compat` needs the [bench] extra "
            "(pip install -e '.[bench]' installs taichi==1.7.4)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def examples_dir() -> Path:
    """``<site-packages>/taichi/examples``."""
    folder = taichi_package_dir() / EXAMPLES_PACKAGE
    if not folder.is_dir():
        raise ExamplesNotFound(f"the taichi wheel has no examples folder at {folder}")
    return folder


def relative_name(path: str | Path) -> str:
    """An example's name in tables and settings: its path under examples/, no ``.py``."""
    return Path(path).with_suffix("").as_posix()


def list_examples(root: Path) -> list[str]:
    """Every example file under ``root`` (all folders), as sorted relative names."""
    names = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if "__pycache__" in relative.parts or relative.name == "__init__.py":
            continue
        names.append(relative_name(relative))
    return sorted(names)


def matches(name: str, patterns: list[str] | None) -> bool:
    """Whether ``name`` contains one of ``patterns`` (all names when there are none)."""
    return not patterns or any(pattern in name for pattern in patterns)


def source_path(root: Path, name: str) -> Path:
    """The file of the example called ``name``."""
    return root / f"{name}.py"
