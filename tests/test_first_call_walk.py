"""The README kernel's first call walks the packages only the way the layering allows.

``tests/test_layering.py`` checks imports; a call can still cross the layering through
an object handed down (the plan calling a method of the user's SNode). This traces the
first call of the README's ``fill`` (``tests/first_call_trace.py``) in a fresh process,
as a user makes it (no compile listeners, no PTX shadow compiling the kernel again), and
finds no call into a package its caller may not import. Callables a caller hands down
on purpose (a ``ti.watch_compiles`` listener's pass wrappers, a backend's clock) would
show here too; none is on this path.
"""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.cpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = """
import json, sys
from tests.first_call_trace import package_of, trace
from tests.test_layering import FORBIDDEN
files, hops = trace(sys.argv[1])
against = sorted(
    (caller, callee)
    for caller, callee in hops
    if package_of(callee) in FORBIDDEN.get(package_of(caller), ())
)
print(json.dumps({"against": against, "packages": sorted({package_of(f) for f in files})}))
"""


def test_the_first_call_makes_no_call_against_the_layering():
    env = {k: v for k, v in os.environ.items() if k != "TI_PTX_SHADOW"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ROOT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["against"] == []
    assert {"session", "compiler", "frontend", "passes", "codegen", "runtime"} <= set(
        found["packages"]
    )
