"""Errors name the cell (``Cell In[N], line L``), never a file path - in the rendered
traceback and in the exception's own text (what Jupyter stores as ``evalue``)."""

import pytest

pytestmark = pytest.mark.cpu


def _message(cell) -> str:
    error = cell.error
    return str(getattr(error, "original", error))


@pytest.mark.parametrize(
    "code",
    [
        "%%kernel\ndef bad():\n    x = undefined_name\n",  # compile error in a %%kernel cell
        "@ti.kernel\ndef bad2():\n    y = undefined2\nbad2()",  # in a plain cell
        "v = ti.field(ti.f32, 4)\n@ti.kernel\ndef oob(k: ti.i32):\n    v[k] = 1\noob(9)",  # runtime
    ],
)
def test_error_text_names_the_cell(run, code):
    cell = run(code)
    assert cell.error is not None
    for text in (_message(cell), cell.stdout + cell.stderr):
        assert "Cell In[" in text, text
        assert 'File "' not in text and "ipykernel_" not in text and "<ipython-input" not in text


def test_a_func_from_another_cell_is_named_by_its_own_cell(run):
    run("w = ti.field(ti.f32, 4)\n@ti.func\ndef helper(i):\n    return w[i + 10]\n")
    cell = run("%%kernel\ndef uses():\n    for i in range(1):\n        w[0] = helper(i)\nuses()")
    text = _message(cell)
    assert "return w[i + 10]" in text and "Cell In[" in text and 'File "' not in text


def test_warnings_name_the_cell_too(run):
    cell = run(
        "import inspect, warnings\n"
        "here = inspect.currentframe().f_code.co_filename\n"
        "print(warnings.formatwarning('careful', RuntimeWarning, here, 3))"
    )
    assert cell.stdout.startswith("Cell In[") and "RuntimeWarning: careful" in cell.stdout
    assert "<ipython-input" not in cell.stdout and "ipykernel_" not in cell.stdout
