"""The examples in the widgets' docstrings run and give what they show.

``tests/test_docstrings.py`` walks ``ti_notebook/`` only; the widgets live in the
top-level ``widgets/`` folder (installed as ``ti_notebook.widgets``), so they are
walked here."""

import doctest
import importlib
import pkgutil

import pytest

import ti_notebook.widgets

pytestmark = pytest.mark.cpu

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(ti_notebook.widgets.__path__, "ti_notebook.widgets.")
)


def test_the_widget_modules_are_found():
    assert {"ti_notebook.widgets.tuner", "ti_notebook.widgets.timeline_view"} <= set(MODULES)


@pytest.mark.parametrize("name", ["ti_notebook.widgets", *MODULES])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
