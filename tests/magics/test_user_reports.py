"""What a user saw with ``%%kernel``: help with an empty body, a report to read, the
layout of vector/matrix/struct fields, the annotate view's indentation, legend and cell."""

import re

import pytest

pytestmark = pytest.mark.cpu

FILL = """%%kernel --quiet {flags}
x = ti.field(ti.f32, shape=64)
def fill(v: ti.f32):
    for i in x:
        if v > 0:
            x[i] += v
"""


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_with_an_empty_cell_body_prints_the_help(run, flag):
    cell = run(f"%%kernel {flag}\n")
    assert cell.result.success, cell.stdout + cell.stderr
    assert "cell body is empty" not in cell.stdout + cell.stderr
    assert "--show STAGE" in cell.stdout and "--parallelize" in cell.stdout


def test_an_empty_cell_without_help_is_still_a_usage_error(run):
    cell = run("%%kernel --quiet\n")
    assert not cell.result.success


def test_show_report_is_tables_to_read(run):
    cell = run(FILL.format(flags="--show report"))
    assert cell.result.success, cell.stderr
    (bundle,) = cell.outputs
    text, page = bundle["text/plain"], bundle["text/html"]
    assert not re.search(r"\d\.\d{9,}", text + page)  # no 1.1346999826855608e-05
    assert "e-0" not in text
    for pass_name in ("offload", "prove_bounds", "eliminate_dead_code"):
        assert f">{pass_name}<" in page  # a table cell each
        assert pass_name in text
    assert "<table" in page and "changed?" in page and "time (ms)" in page
    assert "struct-for over x" in text and "[0, 64)" in text and "bytes/iter" in text
    assert "bounds checks:" in text
    assert "--show report-json" in page  # the raw data is one flag away


def test_show_report_json_keeps_the_raw_report(run):
    cell = run(FILL.format(flags="--show report-json"))
    (bundle,) = cell.outputs
    assert '"pass_records"' in bundle["text/plain"]


@pytest.mark.parametrize(
    ("declaration", "components"),
    [
        ("ti.Vector.field(3, ti.f32, shape=16)", ["v[0]", "v[1]", "v[2]"]),
        ("ti.Matrix.field(2, 2, ti.f32, shape=16)", ["v[0]", "v[1]", "v[2]", "v[3]"]),
        ("ti.Struct.field({'a': ti.f32, 'b': ti.i32}, shape=16)", ["v.a", "v.b"]),
    ],
)
def test_show_layout_of_vector_matrix_and_struct_fields(run, declaration, components):
    body = "v[i] = v[i]" if "Struct" not in declaration else "v[i].a = v[i].b"
    cell = run(
        f"%%kernel --quiet --show layout\nv = {declaration}\n"
        f"def touch():\n    for i in v:\n        {body}\n"
    )
    assert cell.result.success, cell.stderr
    assert "no layout to show" not in cell.stderr
    (bundle,) = cell.outputs
    assert "application/vnd.jupyter.widget-view+json" in bundle
    svg = bundle["image/svg+xml"]
    for name in components:  # the byte strip names every component
        assert name in svg, name


def test_annotate_keeps_indentation_left_aligned_with_a_legend(run):
    cell = run(FILL.format(flags="--show annotate"))
    (bundle,) = cell.outputs
    page = bundle["text/html"]
    assert "            x[i] += v</td>" in page  # twelve leading spaces kept
    assert "white-space:pre" in page and "text-align:left" in page
    assert "shade:" in page and "bounds check" in page  # the legend
    assert "text-align:right;white-space:pre" not in page


def test_annotate_names_the_cell_that_ran_it_even_from_the_cache(run, shell):
    first = run(FILL.format(flags="--show annotate"))
    run("1 + 1")
    again = run(FILL.format(flags="--show annotate"))  # same kernel: its stages are cached
    first_number = re.search(r"Cell In\[(\d+)\]", first.outputs[0]["text/plain"]).group(1)
    again_number = re.search(r"Cell In\[(\d+)\]", again.outputs[0]["text/plain"]).group(1)
    assert int(again_number) == int(first_number) + 2
    assert f"Cell In[{again_number}]" in again.outputs[0]["text/html"]
