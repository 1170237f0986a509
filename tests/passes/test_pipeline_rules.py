"""The passes' ordering rules (passes/ordering.py) hold for every pipeline the compiler
runs, and a pipeline that breaks one is rejected with a message naming the rule."""

from __future__ import annotations

import importlib.util
import inspect

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.compiler.backends import BACKENDS
from ti_notebook.compiler.backends.cpu import CpuTarget
from ti_notebook.compiler.backends.cuda import CudaTarget
from ti_notebook.errors import PassOrderError
from ti_notebook.passes import ordering, pipeline

pytestmark = pytest.mark.cpu


def _names(passes) -> list[str]:
    return [name for name, _ in passes]


def _moved_before(names: list[str], step: str, anchor: str) -> list[str]:
    """``names`` with ``step`` moved to just before ``anchor``."""
    rest = [n for n in names if n != step]
    rest.insert(rest.index(anchor), step)
    return rest


@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_every_backend_runs_a_checked_pipeline_that_keeps_the_rules(name):
    target = BACKENDS[name][0]
    assert any(target.passes is p for p in pipeline.PIPELINES.values())
    ordering.check(_names(target.passes), target.__name__)


def test_every_rule_names_steps_some_pipeline_runs_and_applies_somewhere():
    steps = {n for passes in pipeline.PIPELINES.values() for n in _names(passes)}
    ordering.check_names(steps)
    for rule in ordering.RULES:
        pairs = [p for passes in pipeline.PIPELINES.values() for p in rule.pairs(_names(passes))]
        assert pairs, f"the rule '{rule}' holds between no two steps of any pipeline"
        assert rule.why and not rule.why.endswith(".")


@pytest.mark.parametrize("rule", ordering.RULES, ids=str)
def test_breaking_each_rule_is_rejected_naming_a_rule_and_its_reason(rule):
    """Each pair the rule orders, in each pipeline, broken by moving the later step to
    just before the earlier one."""
    for title, passes in pipeline.PIPELINES.items():
        for first, second in rule.pairs(_names(passes)):
            names = _moved_before(_names(passes), second, first)
            with pytest.raises(PassOrderError) as raised:
                ordering.check(names, "reordered")
            message = str(raised.value)
            broken = [r for r in ordering.RULES if f"'{r}'" in message]
            assert len(broken) == 1 and broken[0].why in message, (title, message)
            # checked against this rule alone, it is this rule and this pair
            with pytest.raises(PassOrderError) as alone:
                ordering.check(names, "reordered", [rule])
            assert str(alone.value) == (
                f"reordered runs {second!r} before {first!r}, but the rule '{rule}' says "
                f"why not: {rule.why}"
            )


def test_a_sparse_lowering_before_the_bounds_proofs_is_rejected():
    names = _moved_before(_names(pipeline.PASSES), "lower_sparse", "prove_bounds")
    with pytest.raises(PassOrderError) as raised:
        pipeline.check_order({"the CPU's": tuple((n, None) for n in names)})
    assert str(raised.value) == (
        "the CPU's runs 'lower_sparse' before 'prove_bounds', but the rule 'prove_bounds "
        "before lower_sparse' says why not: an index must be checked before it sets or "
        "reads a sparse cell's bit"
    )
    assert isinstance(raised.value, AssertionError)


def test_a_repeated_step_is_rejected():
    names = [*_names(pipeline.PASSES), "offload"]
    with pytest.raises(PassOrderError, match="lists 'offload' twice"):
        ordering.check(names, "doubled")


def test_a_misspelt_rule_is_rejected():
    rule = ordering.Rule("offload", "prove_bound", "a reason")
    with pytest.raises(PassOrderError, match="names 'prove_bound', which no pipeline runs"):
        ordering.check_names(_names(pipeline.PASSES), [rule])


def test_the_pipeline_module_checks_its_order_when_imported(tmp_path):
    source = inspect.getsource(pipeline)
    line = '    ("prove_bounds", prove_bounds.run),\n'
    assert source.count(line) == 1
    swapped = source.replace(line, "").replace(
        '    ("lower_access", lower_access.run),\n',
        '    ("lower_access", lower_access.run),\n' + line,
    )
    path = tmp_path / "reordered_pipeline.py"
    path.write_text(swapped)
    spec = importlib.util.spec_from_file_location("reordered_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(PassOrderError, match="runs 'lower_sparse' before 'prove_bounds'"):
        spec.loader.exec_module(module)


@pytest.fixture
def compiled_pipelines(monkeypatch):
    """The step names of every pipeline the driver runs while the test compiles."""
    seen: list[list[str]] = []
    real_run = pipeline.run

    def recording(kernel, options, capabilities, passes=pipeline.PASSES):
        seen.append(_names(passes))
        return real_run(kernel, options, capabilities, passes)

    monkeypatch.setattr(pipeline, "run", recording)
    return seen


_OPTIONS = [
    {},
    {"advanced_optimization": False},
    {"make_thread_local": False},
    {"check_bounds": True},
    {"debug": True},
    {"kernel_profiler": True},
]


@pytest.mark.parametrize("options", _OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_plain_grad_and_dual_kernels_run_pipelines_that_keep_the_rules(compiled_pipelines, options):
    ti.init(arch=ti.cpu, default_fp=ti.f64, offline_cache=False, **options)
    x = ti.field(ti.f64, shape=8, needs_grad=True, needs_dual=True)
    y = ti.field(ti.f64, shape=(), needs_grad=True, needs_dual=True)
    x.from_numpy(np.arange(8.0))

    @ti.kernel
    def square_sum():
        for i in x:
            y[None] += x[i] ** 2

    square_sum()
    y.grad[None] = 1.0
    square_sum.grad()
    with ti.ad.FwdMode(loss=y, param=x, seed=[1.0] * 8):
        square_sum()
    square_sum.stages(arch="cuda")
    square_sum.grad.stages(arch="cuda")
    assert x.grad.to_numpy().tolist() == (2 * np.arange(8.0)).tolist()
    assert y.dual[None] == 2 * np.arange(8.0).sum()

    # the plain, grad and dual kernels for the CPU, the plain and grad ones for CUDA
    cpu, cuda = _names(CpuTarget.passes), _names(CudaTarget.passes)
    assert compiled_pipelines.count(cpu) == 3 and compiled_pipelines.count(cuda) == 2
    assert len(compiled_pipelines) == 5  # no option adds or drops a step
    for names in compiled_pipelines:
        ordering.check(names, "compiled")
