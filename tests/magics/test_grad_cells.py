"""``%%kernel`` cells whose kernels are differentiated: the grad kernel's own summary line
(``kernel.grad``) when the cell ran it or with ``--grad``, ``--show`` of its stages, and
``kernel.grad.stages()`` from the notebook."""

import re

import pytest

pytestmark = pytest.mark.cpu

SETUP = (
    "import ti_notebook as ti\n"
    "ti.init(arch=ti.cpu, default_fp=ti.f64, offline_cache=False)\n"
    "x = ti.field(ti.f64, shape=8, needs_grad=True)\n"
    "w = ti.field(ti.f64, shape=(), needs_grad=True)\n"
    "loss = ti.field(ti.f64, shape=(), needs_grad=True)\n"
)
ENERGY = "def energy():\n    for i in x:\n        loss[None] += w[None] * x[i] ** 2\n"


def lines_of(cell, prefix):
    """The summaries starting with ``prefix``, each with its wrapped continuation lines."""
    found = []
    for line in cell.stdout.splitlines():
        if line.startswith(prefix):
            found.append(line)
        elif found and line.startswith("  ") and found[-1] is not None:
            found[-1] += "\n" + line
        elif found:
            found.append(None)
    return [text for text in found if text is not None]


def test_a_tape_in_the_cell_adds_the_grad_kernels_line(run):
    assert run(SETUP).error is None
    cell = run(
        "%%kernel\n" + ENERGY + "x.fill(1.0)\nw[None] = 3.0\n"
        "with ti.ad.Tape(loss=loss):\n    energy()\nprint('w.grad', w.grad[None])\n"
    )
    assert cell.error is None, cell.stderr
    assert "w.grad 8.0" in cell.stdout
    (line,) = lines_of(cell, "energy.grad: ")
    assert "make_adjoint" in line and "compiled in" in line
    # the primal's line stays the primal's: no autodiff pass in it
    (primal,) = lines_of(cell, "energy: ")
    assert "make_adjoint" not in primal


def test_without_a_tape_or_the_flag_there_is_no_grad_line(run):
    assert run(SETUP).error is None
    cell = run("%%kernel\n" + ENERGY)
    assert cell.error is None, cell.stderr
    assert lines_of(cell, "energy: ") and not lines_of(cell, "energy.grad")


def test_grad_flag_compiles_grad_kernels_and_show_shows_their_stages(run):
    assert run(SETUP).error is None
    cell = run(
        "%%kernel --grad --show ir_optimized --show report\n"
        + ENERGY
        + "def scaled(k: ti.f64, a: ti.types.ndarray(dtype=ti.f64, ndim=1)):\n"
        "    for i in x:\n"
        "        loss[None] += k * a[i] * x[i]\n"
    )
    assert cell.error is None, cell.stderr
    assert len(lines_of(cell, "energy.grad: ")) == 1
    (scaled,) = lines_of(cell, "scaled.grad: ")
    assert "make_adjoint" in scaled
    titles = [o.get("text/html", "") for o in cell.outputs]
    grad_ir = [t for t in titles if "energy.grad</b> &middot; ir_optimized" in t]
    assert len(grad_ir) == 1
    # the grad kernel's IR: w.grad gathered per thread (tls_acc), x.grad written
    assert "tls_acc" in grad_ir[0]
    reports = [o for o in cell.outputs if "energy.grad" in o.get("text/plain", "")]
    assert reports, "the grad kernel's report is shown too"


def test_grad_flag_names_a_grad_kernel_that_cannot_be_made(run):
    assert run(SETUP).error is None
    cell = run(
        "%%kernel --grad\n"
        "def looping():\n"
        "    for i in x:\n"
        "        v = x[i]\n"
        "        while v > 1.0:\n"
        "            v = v / 2.0\n"
        "        loss[None] += v\n"
    )
    assert cell.error is not None
    text = str(cell.error) + cell.stdout
    assert "while loop" in text and "looping" in text
    assert re.search(r"Cell In\[\d+\], line 5", text), text  # the while's own line
    # the process keeps working: the next cell runs
    assert run("%%kernel\n" + ENERGY).error is None


def test_parallelize_applies_to_the_grad_kernel(run):
    assert run(SETUP).error is None
    cell = run("%%kernel --grad --parallelize 2\n" + ENERGY)
    assert cell.error is None, cell.stderr
    assert (
        "[parallelize=2]" in lines_of(cell, "energy.grad: ")[0]
        or "[parallelize=2]" in cell.stdout.split("energy.grad: ")[1]
    )


def test_grad_stages_from_the_notebook(shell, run):
    assert run(SETUP).error is None
    assert run("%%kernel --quiet\n" + ENERGY).error is None
    cell = run("stages = energy.grad.stages()\nsorted(stages)")
    assert cell.error is None, cell.stderr
    stages = shell.user_ns["stages"]
    assert {"ir", "ir_optimized", "llvm", "asm", "report"} <= set(stages)
    assert "make_adjoint" in stages["report"]["passes"]
    assert shell.user_ns["energy"].grad.name == "energy_grad"
