"""Expressions thousands of terms long, each compiled in its own process (a recursion
that ran out of stack would take the process with it): a left-nested chain such as
``x[0] + x[1] + ... + x[1999]`` compiles and gives the right value; deeper nesting of
another shape is a TiSyntaxError at its line, and the process goes on working.
"""

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.robustness

RUNNER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import ti_notebook as ti

    ti.init(arch=ti.cpu)
    n, expression = int(sys.argv[2]), sys.argv[3]
    x = ti.field(ti.i64, shape=n)
    x.from_numpy(np.arange(n, dtype=np.int64))
    with open(sys.argv[1], "w") as f:
        f.write(
            "import ti_notebook as ti\\n"
            "@ti.kernel\\n"
            "def k() -> ti.i64:\\n"
            "    a = ti.i64(3)\\n"
            f"    return {expression}\\n"
        )
    import importlib.util

    spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    module.x = x
    spec.loader.exec_module(module)
    try:
        result = {"value": module.k()}
    except Exception as exc:
        pos = getattr(exc, "pos", None)
        result = {"error": type(exc).__name__, "message": str(exc),
                  "line": getattr(pos, "lineno", None)}

    @ti.kernel
    def after() -> ti.i32:
        return 41 + 1

    result["after"] = after()  # the process still compiles and runs kernels
    print(json.dumps(result))
    """
)


def _run(tmp_path, n: int, expression: str) -> dict:
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    run = subprocess.run(
        [sys.executable, str(runner), str(tmp_path / "gen.py"), str(n), expression],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"ended with {run.returncode}\n{run.stderr[-3000:]}"
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["after"] == 42
    return result


@pytest.mark.parametrize("n", [600, 2000])
def test_left_nested_chain_of_field_reads_compiles_and_sums(tmp_path, n):
    result = _run(tmp_path, n, " + ".join(f"x[{i}]" for i in range(n)))
    assert result == {"value": n * (n - 1) // 2, "after": 42}


@pytest.mark.parametrize("n", [600, 2000])
def test_left_nested_chain_of_one_local_compiles(tmp_path, n):
    result = _run(tmp_path, n, " + ".join("a" for _ in range(n)))
    assert result == {"value": 3 * n, "after": 42}


def test_mixed_operators_chain(tmp_path):
    n = 2000
    result = _run(tmp_path, n, " - ".join(f"x[{i}] * 2" for i in range(n)))
    assert result["value"] == -2 * (n * (n - 1) // 2)  # 0*2 - 1*2 - 2*2 - ...


@pytest.mark.parametrize(
    "expression",
    [
        " ** ".join("a" for _ in range(1000)),  # right-nested: Python groups ** that way
        "-" * 1000 + "a",
        "a if a else " * 1000 + "a",
    ],
    ids=["power_chain", "unary_chain", "conditional_chain"],
)
def test_other_deep_nesting_is_a_syntax_error_at_the_line(tmp_path, expression):
    result = _run(tmp_path, 1, expression)
    assert result["error"] == "TiSyntaxError"
    assert "nests too deeply" in result["message"] and "split it" in result["message"]
    assert result["line"] == 5  # the return statement of the generated kernel
