"""The package's imports point one way (DESIGN.md section 2), with no cycle.

Every module's imports are read from its source (``ast``), those inside functions and
``if TYPE_CHECKING:`` blocks included: an import deferred into a function still ties the
modules together, it only hides the cycle until a call runs it. The rules:

- no import cycle between modules, anywhere (``benchmarks/`` and ``tests/`` included),
  nor between packages (:data:`PACKAGE_CYCLE_EXCEPT` may name exceptions: none now);
- ``runtime`` runs what a backend made: it imports none of ``lang``, ``session``,
  ``frontend``, ``compiler`` and ``codegen`` (what generated code and its launcher agree
  on, the launch ABI and the device table, lives in ``ir``), and ``codegen`` imports no
  ``runtime``; ``ir``, ``plan``, ``passes`` and ``codegen`` import no ``lang`` (nor the
  layers above them), so a second backend reuses them without the user's objects;
- ``session -> cache, compiler -> frontend``: the session (kernels, specialisation,
  config) drives the compiler through the offline cache (``cache``: it keys the user's
  objects and calls the compiler's driver; nothing below the session imports it), and it
  uses none of the packages built on kernels (``ui``, ``linalg``, ``measure``,
  ``tools``); ``lang`` holds the user's
  objects, read by the frontend and the session only: it imports none of ``session``,
  ``compiler``, ``frontend``, ``passes``, ``codegen`` nor the packages above;
- nothing inside the package imports its public face (``ti_notebook/__init__.py``);
- the notebook layer (``magics``, ``widgets``, ``kernels``) imports only the public API,
  :data:`PUBLIC`, and modules of its own package; besides, :data:`NOTEBOOK_FACES` lets
  one notebook package use another's face (its ``__init__``, never its modules), one way.

The public face registers the ``%%kernel`` magic (IPython's extension protocol looks
for ``ti_notebook.load_ipython_extension``), so it imports ``ti_notebook.magics``, which
uses the public face: that one edge, :data:`EXTENSION_HOOK`, is left out of the cycle
check, and it must stay the only import from the face into the notebook layer.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "ti_notebook"
# The public API the notebook layer may use: the package's face, its error classes, the
# face of the CUDA analysis (occupancy, ptxas resources, access patterns) and the kernel
# poller that lets widget messages in while a cell runs (ti.GUI's view and the tuner).
PUBLIC = frozenset(
    {"ti_notebook", "ti_notebook.errors", "ti_notebook.cuda_analysis", "ti_notebook.ui.kernel_poll"}
)
NOTEBOOK_LAYER = ("ti_notebook.magics", "ti_notebook.widgets", "ti_notebook.kernels")
EXTENSION_HOOK = ("ti_notebook", "ti_notebook.magics")
# notebook package -> the other notebook packages' faces it may import: ``%%kernel
# --tune`` opens ``ti_notebook.widgets.tune`` (DESIGN.md section 6)
NOTEBOOK_FACES = {"ti_notebook.magics": {"ti_notebook.widgets"}}
# package -> the packages it must not import (DESIGN.md section 2)
ABOVE_SESSION = {"ui", "linalg", "measure", "tools"}  # packages built on kernels
FORBIDDEN = {
    "session": ABOVE_SESSION,
    # the offline cache sits between the session, which drives compiles through it, and
    # the compiler's driver it calls; it reads the user's objects (lang) to key them
    "cache": {"session", "passes", "runtime", *ABOVE_SESSION},
    "compiler": {"session", "cache", "lang", *ABOVE_SESSION},
    "frontend": {"session", "cache", "compiler", *ABOVE_SESSION},
    "lang": {"session", "cache", "compiler", "frontend", "passes", "codegen", "cuda_analysis"}
    | ABOVE_SESSION,
    "runtime": {"lang", "session", "cache", "frontend", "compiler", "codegen"},
    "ir": {
        "lang",
        "session",
        "cache",
        "frontend",
        "compiler",
        "passes",
        "codegen",
        "runtime",
        "plan",
    },  # fmt: skip
    "plan": {"lang", "session", "cache", "frontend", "compiler", "passes", "codegen", "runtime"},
    "passes": {"lang", "session", "cache", "frontend", "compiler", "codegen", "runtime"},
    "codegen": {"lang", "session", "cache", "frontend", "compiler", "passes", "runtime"},
    # the CUDA analysis reads PTX text and numbers: the compiler and widgets both use it;
    # of the IR package it reads the device table only (EXCEPT)
    "cuda_analysis": {
        "lang",
        "frontend",
        "compiler",
        "passes",
        "codegen",
        "runtime",
        "plan",
        "ir",
    },  # fmt: skip
    # ti.tools reads fields through their public to_numpy(), from Python scope
    "tools": {"frontend", "compiler", "passes", "codegen", "runtime", "plan", "ir"},
}
# package -> modules of a forbidden package it may import all the same
EXCEPT = {
    "cuda_analysis": {"ti_notebook.ir.devices"},
}


def package_folders() -> dict[str, Path]:
    """Dotted package name → folder, ``ti_notebook`` and its ``package-dir`` mappings."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {PACKAGE: ROOT / PACKAGE}
    folders.update({name: ROOT / path for name, path in setuptools["package-dir"].items()})
    return folders


def module_files() -> dict[str, Path]:
    """Every module of the installed distribution, by dotted name."""
    modules = {}
    for package, folder in package_folders().items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports, wherever in the file the import is."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the module pkg.mod; ``from mod import name``
            # imports mod itself
            targets = [f"{module}.{a.name}" for a in node.names] + [module]
            targets = [t for t in targets[:-1] if t in known] or [module]
        else:
            continue
        for target in targets:
            while target and target not in known:  # an attribute of a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), plus
    modules that import themselves."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> str | None:
    """The subpackage of ``ti_notebook`` a module belongs to (None: a top-level module)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or module in NOTEBOOK_LAYER else None


def in_notebook_layer(module: str) -> str | None:
    return next((p for p in NOTEBOOK_LAYER if module == p or module.startswith(p + ".")), None)


GRAPH = import_graph()


def test_the_scan_sees_the_whole_package():
    assert "ti_notebook.compiler.driver" in GRAPH and "ti_notebook.magics.kernel_magic" in GRAPH
    # ``from package import module`` is an edge to the module, not to the package
    assert "ti_notebook.cache.policy" in GRAPH["ti_notebook.cache.compile"]
    # an import inside a function counts (magics/__init__.py imports the magic there)
    assert "ti_notebook.magics.kernel_magic" in GRAPH["ti_notebook.magics"]


def test_cycles_are_found_also_through_imports_inside_functions(tmp_path):
    (tmp_path / "a.py").write_text("import ti_notebook.b\n")
    (tmp_path / "b.py").write_text("def late():\n    from ti_notebook import a\n")
    known = {"ti_notebook.a", "ti_notebook.b"}
    graph = {
        f"ti_notebook.{n}": imports_of(f"ti_notebook.{n}", tmp_path / f"{n}.py", known)
        for n in "ab"
    }
    assert cycles(graph) == [["ti_notebook.a", "ti_notebook.b"]]


def test_no_import_cycle():
    graph = {name: set(targets) for name, targets in GRAPH.items()}
    graph[EXTENSION_HOOK[0]].discard(EXTENSION_HOOK[1])
    assert cycles(graph) == []


# package -> package imports left out of the package cycle check: none (the kernel
# profiler records in runtime/, and measure/profile_rows.py rates its rows)
PACKAGE_CYCLE_EXCEPT: set[tuple[str, str]] = set()


def test_no_import_cycle_between_packages():
    packages: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        source = layer(module)
        for target in targets:
            if source and layer(target) not in (None, source):
                packages.setdefault(source, set()).add(layer(target))
    for source, target in PACKAGE_CYCLE_EXCEPT:
        assert target in packages.get(source, ()), f"{source} -> {target} is gone: drop it"
        packages[source].discard(target)
    assert cycles(packages) == []


def test_the_public_face_imports_only_the_extension_hook_from_the_notebook_layer():
    reached = {t for t in GRAPH[PACKAGE] if in_notebook_layer(t)}
    assert reached == {EXTENSION_HOOK[1]}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_upper_ones(package):
    wrong = [
        f"{module} imports {target}"
        for module, targets in sorted(GRAPH.items())
        if layer(module) == package
        for target in sorted(targets)
        if layer(target) in FORBIDDEN[package] and target not in EXCEPT.get(package, ())
    ]
    assert wrong == []


def test_nothing_inside_the_package_imports_its_public_face():
    wrong = [
        module
        for module, targets in sorted(GRAPH.items())
        if PACKAGE in targets and not in_notebook_layer(module)
    ]
    assert wrong == []


def test_the_notebook_layer_uses_only_the_public_api():
    wrong = []
    for module, targets in sorted(GRAPH.items()):
        own = in_notebook_layer(module)
        if own is None:
            continue
        for target in sorted(targets):
            if target in NOTEBOOK_FACES.get(own, ()):
                continue
            if target not in PUBLIC and in_notebook_layer(target) != own:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_the_notebook_faces_allowed_are_used_one_way():
    for own, faces in NOTEBOOK_FACES.items():
        for face in faces:
            back = [
                f"{module} imports {target}"
                for module, targets in sorted(GRAPH.items())
                if in_notebook_layer(module) == face
                for target in sorted(targets)
                if in_notebook_layer(target) == own
            ]
            assert back == []


def helper_graph(*folders: str) -> dict[str, set[str]]:
    """The import graph of the modules under ``folders`` (outside the package), named
    from the repository root as ``python -m`` and ``tests.<folder>`` imports name them."""
    files = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return {name: imports_of(name, path, set(files)) for name, path in files.items()}


def test_no_import_cycle_in_the_benchmarks_and_the_tests():
    graph = helper_graph("benchmarks", "tests")
    # the scan sees relative imports and tests.<folder> ones
    assert "benchmarks.workloads.patterns_ti" in graph["benchmarks.workloads.ti_peer"]
    assert "tests.conformance.settings" in graph["tests.conformance.runner"]
    assert cycles(graph) == []
