"""Which examples are skipped, and why, decided from the source before anything runs.

Categories: a source rule's (:data:`RULES`, none at present), ``optional dependency`` (an import
that is not installed: opencv, cairo, ...; or a program such as ffmpeg), and
``setting`` (the table in :mod:`.settings` says so). A setting's ``not_skipped``
overrides the source rule, with its reason. Autodiff examples (``needs_grad``,
``ti.ad.Tape``, ``kernel.grad``) and GGUI examples (``ti.ui.Window``) are not skipped:
they run with ti_notebook's autodiff and ``ti.ui`` (and a headless stand-in for GGUI in
Taichi's run).

>>> detect("x = ti.field(float, shape=4, needs_grad=True)") is None
True
>>> detect("window = ti.ui.Window('w', (8, 8))") is None
True
>>> detect("import cv2_that_is_not_installed").category
'optional dependency'
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import sys
from dataclasses import dataclass

from tests.conformance.settings import Setting

# import name -> what `pip install` wants, for the reason text
PIP_NAMES = {"cv2": "opencv-python", "cairo": "pycairo", "PIL": "pillow", "skimage": "scikit-image"}
# where an example reaches these, our run does not follow (besides the backends)
IGNORED_IMPORTS = {"taichi", "ti_notebook"}
# programs an example runs through Taichi's tools: (what in the source, which program)
EXTERNAL_PROGRAMS = ((re.compile(r"\.make_video\("), "ffmpeg"),)


@dataclass(frozen=True)
class Skip:
    """One skipped example: ``category`` for the summary, ``reason`` for the table."""

    category: str
    reason: str


@dataclass(frozen=True)
class _Rule:
    category: str
    pattern: re.Pattern


# source patterns that skip an example, with their category (none at present: ti.linalg
# runs since ti_notebook has sparse matrices and solvers)
RULES: tuple[_Rule, ...] = ()


def _line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def _source_rule(source: str) -> Skip | None:
    for rule in RULES:
        match = rule.pattern.search(source)
        if match is None:
            continue
        where = _line_of(source, match.start())
        return Skip(rule.category, f"{rule.category}: {match.group(0)} (line {where})")
    return None


def imported_modules(source: str) -> list[str]:
    """Top-level names of every absolute import in ``source``, in order, once each."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # the run reports it, with its line
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found = [node.module]
        else:
            continue
        for name in found:
            top = name.split(".")[0]
            if top not in names:
                names.append(top)
    return names


def missing_dependencies(source: str) -> list[str]:
    """The imported top-level modules this interpreter cannot find."""
    missing = []
    for name in imported_modules(source):
        if name in IGNORED_IMPORTS or name in sys.stdlib_module_names:
            continue
        if importlib.util.find_spec(name) is None:
            missing.append(name)
    return missing


def missing_programs(source: str) -> list[str]:
    """Programs the example needs on PATH (``ffmpeg`` for videos) that are not there."""
    return [
        program
        for pattern, program in EXTERNAL_PROGRAMS
        if pattern.search(source) and shutil.which(program) is None
    ]


def detect(source: str, setting: Setting | None = None) -> Skip | None:
    """Why the example with ``source`` is skipped, or None when it runs."""
    setting = setting or Setting()
    if setting.skip:
        return Skip("setting", setting.skip)
    if not setting.not_skipped:
        found = _source_rule(source)
        if found is not None:
            return found
    missing = missing_dependencies(source)
    if missing:
        wanted = ", ".join(f"{name} ({PIP_NAMES.get(name, name)})" for name in missing)
        return Skip("optional dependency", f"needs {wanted}: not installed")
    programs = missing_programs(source)
    if programs:
        return Skip("optional dependency", f"needs {', '.join(programs)} on PATH")
    return None
