"""``taichi`` as ti_notebook in ``sys.modules``, and what both backends get alike.

:func:`install` gives the module an example's ``import taichi as ti`` finds:

- ``"taichi"``: the real Taichi;
- ``"ti_notebook"``: ``sys.modules["taichi"]`` is ti_notebook, and an import finder
  answers ``taichi.<name>`` (``taichi.math``, ``taichi.types``, ...) with whatever
  ti_notebook offers under that name (an attribute, else its submodule); a name it lacks
  fails as ``ModuleNotFoundError: No module named 'taichi.<name>'``. ``taichi.examples``
  is a package whose ``__path__`` is the wheel's examples folder, so
  ``from taichi.examples.patterns import taichi_logo`` works.

Both backends then get :func:`force_cpu_init`; Taichi's run also gets the headless
``ti.GUI`` stand-in (:func:`install_gui`), ti_notebook's keeps its own.

>>> import types
>>> fake = types.SimpleNamespace(cpu="x64", calls=[])
>>> fake.init = lambda arch=None, **options: fake.calls.append((arch, options))
>>> force_cpu_init(fake)
>>> fake.init(arch="cuda", debug=True)
>>> fake.calls
[('x64', {'debug': True, 'random_seed': 0})]
>>> fake.requested_archs
['cuda']
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

BACKENDS = ("taichi", "ti_notebook")
RANDOM_SEED = 0
ALIAS = "taichi"
EXAMPLES = f"{ALIAS}.examples"
_MISSING = object()


def _missing(fullname: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)


def resolve(target: types.ModuleType, fullname: str) -> Any:
    """What ``taichi.a.b`` means with ``target`` as taichi: attributes first, then modules.

    >>> import json
    >>> resolve(json, "taichi.decoder").__name__
    'json.decoder'
    >>> resolve(json, "taichi.no_such_thing")
    Traceback (most recent call last):
    ModuleNotFoundError: No module named 'taichi.no_such_thing'
    """
    current: Any = target
    for part in fullname.split(".")[1:]:
        if hasattr(current, part):
            current = getattr(current, part)
            continue
        if not isinstance(current, types.ModuleType) or not hasattr(current, "__path__"):
            raise _missing(fullname)
        try:
            current = importlib.import_module(f"{current.__name__}.{part}")
        except ModuleNotFoundError:
            raise _missing(fullname) from None
    return current


class _AliasLoader(importlib.abc.Loader):
    """Hands over an object that already exists, leaving its own ``__spec__`` alone."""

    def __init__(self, target: Any):
        self.target = target
        self.saved_spec = getattr(target, "__spec__", _MISSING)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.target

    def exec_module(self, module: Any) -> None:
        # the import system stamps the alias spec on the module; the real one goes back
        if self.saved_spec is not _MISSING:
            module.__spec__ = self.saved_spec


class AliasFinder(importlib.abc.MetaPathFinder):
    """Answers ``taichi.*`` imports from ``target``; ``taichi.examples`` from ``examples``."""

    def __init__(self, target: types.ModuleType, examples: Path):
        self.target = target
        self.examples = examples

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname == EXAMPLES:
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [str(self.examples)]
            return spec
        if fullname.startswith(EXAMPLES + "."):
            return None  # the path finder reads the examples folder through __path__
        if not fullname.startswith(ALIAS + "."):
            return None
        found = resolve(self.target, fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(found))


def install(backend: str, examples: Path) -> types.ModuleType:
    """Imports ``backend`` and makes ``import taichi`` give it; returns the module."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "taichi":
        return importlib.import_module("taichi")
    module = importlib.import_module(backend)
    sys.modules[ALIAS] = module
    sys.meta_path.insert(0, AliasFinder(module, examples))
    return module


def force_cpu_init(ti: Any) -> None:
    """``ti.init`` runs on the CPU with ``random_seed`` fixed, whatever the example asks.

    The requested arch is kept in ``ti.requested_archs`` (a GPU run is not what we time).
    """
    real_init = ti.init
    requested: list[Any] = []

    @functools.wraps(real_init)
    def init(arch: Any = None, *args: Any, **options: Any) -> Any:
        requested.append(arch)
        options["random_seed"] = RANDOM_SEED
        return real_init(ti.cpu, *args, **options)

    ti.init = init
    ti.requested_archs = requested


def install_gui(ti: Any, gui_class: type) -> None:
    """``ti.GUI`` (and Taichi's ``ti.ui.GUI``, which its ``tools.imshow`` reaches) is
    ``gui_class``: Taichi's run draws into the headless stand-in."""
    ti.GUI = gui_class
    ui = getattr(ti, "ui", None)
    for holder in (ui, getattr(ui, "gui", None)):
        if holder is not None and hasattr(holder, "GUI"):
            holder.GUI = gui_class
