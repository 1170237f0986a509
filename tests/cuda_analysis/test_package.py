"""The CUDA analysis package leaves ``ti.gpu`` and ``ti.cuda`` alone.

Importing a subpackage sets it as an attribute of its parent: a package named
``ti_notebook/gpu/`` (or ``cuda/``) would replace the arch constant ``ti.gpu`` with a
module as soon as anything imported it, and ``ti.init(arch=ti.gpu)`` would fail. Hence
the name ``ti_notebook.cuda_analysis``.
"""

import importlib
import pkgutil

import pytest

import ti_notebook as ti
from ti_notebook.session import config

pytestmark = pytest.mark.unit


def test_importing_the_analysis_keeps_the_arch_constants():
    importlib.import_module("ti_notebook.cuda_analysis")
    importlib.import_module("ti_notebook.widgets.occupancy_view")
    assert ti.gpu is config.gpu and ti.cuda is config.cuda
    assert isinstance(ti.gpu, str) and isinstance(ti.cuda, str)


def test_no_module_of_the_package_is_named_like_an_arch():
    archs = {"cpu", "cuda", "gpu", "x64", "arm64", "metal", "opengl", "vulkan"}
    modules = {info.name for info in pkgutil.iter_modules(ti.__path__)}
    assert archs <= set(dir(ti)) and modules & archs == set()
