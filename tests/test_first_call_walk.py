"""The README kernel's first call walks the packages only the way the layering allows.

``tests/test_layering.py`` checks imports; a call can still cross the layering through
an object handed down (the plan calling a method of the user's SNode). This traces the
first call of the README's ``fill`` (``tests/first_call_trace.py``) and finds no call
into a package its caller may not import.
"""

import os

import pytest

from tests.first_call_trace import package_of, trace
from tests.test_layering import FORBIDDEN

pytestmark = pytest.mark.cpu


def test_the_first_call_makes_no_call_against_the_layering():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files, hops = trace(root)
    against = sorted(
        (caller, callee)
        for caller, callee in hops
        if package_of(callee) in FORBIDDEN.get(package_of(caller), ())
    )
    assert against == []
    assert {"session", "compiler", "frontend", "passes", "codegen", "runtime"} <= {
        package_of(f) for f in files
    }
