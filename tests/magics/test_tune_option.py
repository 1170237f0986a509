"""``%%kernel --tune OPTION=V1,V2``: opens the loop_config tuner on the cell's kernel."""

import pytest

import ti_notebook as ti
from ti_notebook.widgets import Tuner

pytestmark = pytest.mark.cpu

CELL = """%%kernel {flags}
x = ti.field(ti.f32, shape=256)
def tuned_scale(k: ti.f32):
    for i in x:
        x[i] = x[i] * k + 1.0
"""


def test_tune_opens_the_tuner_on_the_cells_kernel(run, shell):
    cell = run(CELL.format(flags="--quiet --tune block_dim=16,32 --tune parallelize=1,2"))
    assert cell.result.success, cell.stderr
    tuner = cell.result.result
    assert isinstance(tuner, Tuner)
    assert tuner.kernel is shell.user_ns["tuned_scale"]
    assert tuner.choices == {"parallelize": [1, 2], "block_dim": [16, 32]}
    assert tuner.args == (0.0,)
    assert [dict(r.options) for r in tuner.results] == [{"parallelize": 1, "block_dim": 16}]
    # what IPython shows of the cell's value: the live widget and a static SVG
    bundle, _metadata = shell.display_formatter.format(tuner)
    assert "application/vnd.jupyter.widget-view+json" in bundle and "image/svg+xml" in bundle
    assert bundle["text/plain"].startswith("<Tuner tuned_scale")
    tuner.close()
    assert shell.user_ns["tuned_scale"].configuration == {}


def test_a_cell_without_one_scalar_kernel_is_a_clear_error(run):
    cell = run(
        "%%kernel --tune block_dim=8\n"
        "def with_template(f: ti.template()):\n"
        "    for i in f:\n"
        "        f[i] = 0\n"
    )
    assert type(cell.error).__name__ == "TiValueError"
    assert isinstance(cell.error.original, ti.errors.TiValueError)
    assert "one kernel with scalar arguments only in the cell (found: none)" in cell.stdout


@pytest.mark.parametrize(
    "flag, message",
    [
        ("--tune block_dim=0", "positive integers"),
        ("--tune grid=4", "OPTION=V1,V2"),
        ("--tune serialize=maybe", "true or false"),
    ],
)
def test_bad_tune_values_are_usage_errors(run, flag, message):
    cell = run(CELL.format(flags=flag))
    assert not cell.result.success
    assert message in cell.stderr + cell.stdout + str(cell.error)


def test_serialize_values_are_parsed(run):
    cell = run(CELL.format(flags="--quiet --tune serialize=false,true"))
    assert cell.result.success, cell.stderr
    assert cell.result.result.choices == {"serialize": [False, True]}


def test_the_module_examples_run():
    import doctest

    from ti_notebook.magics import tune_option

    result = doctest.testmod(tune_option)
    assert result.failed == 0 and result.attempted > 0
