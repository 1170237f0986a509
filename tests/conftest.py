"""Shared pytest setup: a fresh CPU session per test, and skips for missing hardware.

Markers are the test authors' choice (see ``[tool.pytest.ini_options]`` in
pyproject.toml); nothing here adds a tier marker to a test that has none.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import tempfile

import pytest

from tests import ptx_shadow

# Every run compiles afresh: the offline cache goes to a directory of this run only
# (tests/cache checks the cache itself, in directories of its own).
_RUN_CACHE = tempfile.mkdtemp(prefix="ti_notebook_test_cache_")
os.environ["TI_OFFLINE_CACHE_FILE_PATH"] = _RUN_CACHE
atexit.register(shutil.rmtree, _RUN_CACHE, ignore_errors=True)


def _import(name: str):
    """The module, or None while the package is still missing it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@pytest.fixture(autouse=True)
def _ti_session():
    """Runs each test in its own ``ti.init(arch=ti.cpu)`` session and resets it after.

    A test that needs other options calls ``ti.init`` again itself, which starts over.
    """
    ti = _import("ti_notebook")
    if ti is not None and hasattr(ti, "init") and hasattr(ti, "cpu"):
        ti.init(arch=ti.cpu)
    yield
    if ti is not None and hasattr(ti, "reset"):
        ti.reset()


# The PTX shadow tier (tests/ptx_shadow.py): TI_PTX_SHADOW=1 turns it on, 0 off; unset,
# it is on in CI (the CI variable set) when ptxas is on PATH.
_SHADOW = ptx_shadow.Shadow() if ptx_shadow.enabled() and shutil.which("ptxas") else None


@pytest.fixture(autouse=True, scope="session")
def _ptx_shadow():
    """Compiles every kernel the tests compile for the CPU for CUDA too (when on)."""
    if _SHADOW is None:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        _SHADOW.install(patch)
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Fails a test whose kernels the PTX shadow tier could not compile or ptxas refused."""
    result = yield
    failures = _SHADOW.take_failures() if _SHADOW is not None else []
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
    return result


def pytest_terminal_summary(terminalreporter) -> None:
    if _SHADOW is not None:
        terminalreporter.write_line(_SHADOW.summary())


def _cuda_available() -> bool:
    devices = _import("ti_notebook.runtime.devices")
    check = getattr(devices, "cuda_available", None)
    return bool(check and check())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skips ``cuda`` tests without a CUDA device and ``needs_ptxas`` tests without ptxas.

    Markers are read with ``get_closest_marker``, not ``item.keywords``: keywords also
    hold folder and test names, so a ``tests/cuda/`` folder would match by name.
    """
    cuda_items = [item for item in items if item.get_closest_marker("cuda")]
    if cuda_items and not _cuda_available():
        devices = _import("ti_notebook.runtime.devices")
        reason = getattr(devices, "cuda_unavailable_reason", lambda: None)()
        skip = pytest.mark.skip(reason=reason or "no CUDA device (the driver reports none)")
        for item in cuda_items:
            item.add_marker(skip)
    if shutil.which("ptxas") is None:
        skip = pytest.mark.skip(reason="ptxas is not on PATH")
        for item in items:
            if item.get_closest_marker("needs_ptxas"):
                item.add_marker(skip)


# The BLS example of Taichi's performance page, verbatim (tests/seeds checks it against
# the seed document); the seed test and the BLS widget's tests run it.
BLS_PAGE_TEXT = """\
a = ti.field(ti.f32)
b = ti.field(ti.f32)
# `a` has a block size of 4x4
ti.root.pointer(ti.ij, 32).dense(ti.ij, 4).place(a)

@ti.kernel
def foo():
  # Taichi will cache `a` into the CUDA shared memory
  ti.block_local(a)
  for i, j in a:
    print(a[i - 1, j], a[i, j + 2])
"""


@pytest.fixture
def bls_page(tmp_path):
    """``bls_page()`` runs :data:`BLS_PAGE_TEXT` from a real file (so the kernel's source
    can be read back, as from any module) in the session current at the call, and
    returns its namespace (``a``, ``b``, ``foo``); ``bls_page.text`` is the page's code."""

    def run() -> dict:
        path = tmp_path / "performance_page.py"
        path.write_text(BLS_PAGE_TEXT)
        namespace = {"ti": importlib.import_module("ti_notebook")}
        exec(compile(BLS_PAGE_TEXT, str(path), "exec"), namespace)
        return namespace

    run.text = BLS_PAGE_TEXT
    return run


@pytest.fixture
def serialised_visit_order():
    """``record(x, before=None)``: runs a serialised struct-for over ``x`` storing 1, 2,
    3... into the cells it visits (after calling ``before()``, e.g. a kernel activating
    sparse cells) and returns (the visited cells in visit order, that kernel)."""
    ti = importlib.import_module("ti_notebook")
    np = importlib.import_module("numpy")

    def record(x, before=None):
        counter = ti.field(ti.i32, shape=())

        @ti.kernel
        def number():
            ti.loop_config(serialize=True)
            for index in ti.grouped(x):
                counter[None] += 1
                x[index] = counter[None]

        if before is not None:
            before()
        number()
        values = x.to_numpy()
        cells = np.argwhere(values > 0)
        return cells[np.argsort(values[tuple(cells.T)])], number

    return record
