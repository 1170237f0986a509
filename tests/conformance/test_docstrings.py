"""The examples in the conformance runner's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tests.conformance

# the runner's modules, without its command line (``__main__``) and the tests beside them
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(tests.conformance.__path__, "tests.conformance.")
    if not info.name.rpartition(".")[2].startswith(("__main__", "test_", "conftest"))
)


@pytest.mark.unit
@pytest.mark.parametrize("name", ["tests.conformance", *MODULES])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
