"""The magics modules' docstring examples, and the summary/stage formatting on its own."""

import doctest
import importlib

import pytest

from ti_notebook.magics import report

MODULES = [
    "ti_notebook.magics",
    "ti_notebook.magics.annotate_view",
    "ti_notebook.magics.cell",
    "ti_notebook.magics.cell_errors",
    "ti_notebook.magics.cell_options",
    "ti_notebook.magics.compile_watch",
    "ti_notebook.magics.kernelspec",
    "ti_notebook.magics.layout_option",
    "ti_notebook.magics.profile",
    "ti_notebook.magics.report",
    "ti_notebook.magics.report_view",
]


@pytest.mark.cpu
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
    assert tried > 0


@pytest.mark.unit
def test_task_text():
    assert report.task_text({"kind": "serial", "loop_config": {}}) == "serial"
    task = {"kind": "range_for", "loop_config": {"parallelize": 4, "block_dim": 64}}
    assert report.task_text(task) == "range-for [block_dim=64, parallelize=4]"


@pytest.mark.unit
def test_summary_line_for_a_cache_hit_and_no_passes():
    line = report.summary_line("k", {"compile_time_s": 0.002, "cache": "hit", "tasks": []})
    assert line == "k: loaded in 2.0 ms (cache hit) | tasks: none | passes: none"


@pytest.mark.unit
def test_stage_bundle_escapes_and_highlights():
    bundle = report.stage_bundle("<k>", "llvm", "define void @f() {\n  ret void\n}\n")
    assert "&lt;k&gt;" in bundle["text/html"]
    assert "<span style=" in bundle["text/html"]
    assert bundle["text/plain"].startswith("--- <k> · llvm ---\ndefine void @f()")


@pytest.mark.unit
def test_ir_lexer_marks_values_and_types():
    tokens = list(report.IrLexer().get_tokens("$3 : f32 = add $1, $2\n"))
    kinds = {text: str(kind) for kind, text in tokens}
    assert kinds["$3"] == "Token.Name.Variable"
    assert kinds["f32"] == "Token.Keyword.Type"
