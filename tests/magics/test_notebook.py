"""A small notebook run by nbclient on the installed "Python 3 (ti_notebook)" kernelspec."""

import json
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = pytest.mark.cpu

CELLS = [
    # The kernelspec loaded the extension: %%kernel and `ti` exist without any import,
    # and a notebook's own %load_ext (the tutorials keep it) prints nothing.
    "%load_ext ti_notebook\nti.init(arch=ti.cpu, offline_cache=False)",
    "%%kernel\n"
    "x = ti.field(ti.i32, shape=4)\n"
    "def fill(v: ti.i32):\n"
    "    for i in x:\n"
    "        x[i] = v + i\n"
    "    print('filled with', v)\n",
    "fill(5)\nx.to_numpy().tolist()",
    "%%kernel\ndef broken(v: ti.i32):\n    x[0] = v + 'a'\n",
    "%%kernel --show ir --quiet\ndef fixed(v: ti.i32):\n    x[0] = v\n",
    "fixed(9)\nx[0]",
]


def test_kernelspec_is_installed(kernelspec):
    spec = json.loads((kernelspec / "kernel.json").read_text())
    assert spec["display_name"] == "Python 3 (ti_notebook)"
    assert spec["argv"][:3] == [sys.executable, "-m", "ipykernel_launcher"]
    assert spec["argv"][-1] == "--IPKernelApp.exec_lines=import ti_notebook"
    logos = sorted(path.name for path in kernelspec.glob("logo-*"))
    assert logos == ["logo-32x32.png", "logo-64x64.png", "logo-svg.svg"]
    assert "<text" in (kernelspec / "logo-svg.svg").read_text()  # ours, not Python's
    from jupyter_client.kernelspec import KernelSpecManager

    found = KernelSpecManager().get_kernel_spec("ti_notebook")
    assert found.display_name == "Python 3 (ti_notebook)"


def test_notebook_runs_on_the_kernelspec(kernelspec, tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.cells[3].metadata["tags"] = ["raises-exception"]
    path = tmp_path / "demo.ipynb"
    nbformat.write(nb, path)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="ti_notebook", timeout=60, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [cell.outputs for cell in nb.cells]

    assert outputs[0] == []  # silent: no "already loaded"
    (summary,) = outputs[1]
    assert summary["name"] == "stdout" and summary["text"].startswith("fill: compiled in")

    printed, value = outputs[2]
    assert printed["text"] == "filled with 5\n"  # the kernel's print, in its own cell
    assert value["data"]["text/plain"] == "[5, 6, 7, 8]"

    (error,) = outputs[3]
    assert error["output_type"] == "error"
    assert error["ename"] == "TiTypeError"
    text = "\n".join(error["traceback"])
    assert "Cell In[4], line 3, column 12, in broken" in text
    assert "^" in text and "frontend" not in text

    (shown,) = outputs[4]
    assert shown["output_type"] == "display_data"
    assert "<span style=" in shown["data"]["text/html"]
    assert "globalstore" in shown["data"]["text/plain"]

    (result,) = outputs[5]
    assert result["data"]["text/plain"] == "9"
