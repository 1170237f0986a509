"""The examples in the ``make compat`` harness's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import benchmarks.compat

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(benchmarks.compat.__path__, "benchmarks.compat.")
    if not info.name.endswith("__main__")
)


@pytest.mark.unit
@pytest.mark.parametrize("name", ["benchmarks.compat", *MODULES])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
