"""Random expressions: the grad kernel against central finite differences (f64).

Each case builds a random expression tree over two inputs from the differentiable
operations, writes it as a ti.func's source, and compares the Tape's gradient with
finite differences at points where every operation is smooth.
"""

from __future__ import annotations

import linecache
import random

import numpy as np
import pytest

import ti_notebook as ti
from tests.autodiff.fd import assert_close, numeric_gradient

pytestmark = pytest.mark.cpu

# operations that are smooth on their whole domain (bounded where they are not)
UNARY = [
    "ti.sin({})",
    "ti.cos({})",
    "ti.tanh({})",
    "ti.exp(0.2 * {})",
    "ti.atan2({}, 1.5)",
    "ti.sqrt({} * {} + 1.0)",
    "ti.log({} * {} + 2.0)",
    "(-{})",
    "ti.asin(0.4 * ti.tanh({}))",
]
BINARY = [
    "({} + {})",
    "({} - {})",
    "({} * {})",
    "({} / ({} * {} + 1.5))",
    "ti.atan2({}, {} * {} + 2.0)",
    "ti.pow({} * {} + 1.0, {} * 0.3)",
    "({} ** 2 + {})",
]


def _expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(["a", "b", "0.7", "a * b"])
    if rng.random() < 0.45:
        template = rng.choice(UNARY)
        inner = _expression(rng, depth - 1)
        return template.format(*[inner] * template.count("{}"))
    template = rng.choice(BINARY)
    parts = [_expression(rng, depth - 1) for _ in range(2)]
    slots = template.count("{}")
    return template.format(*(parts + [parts[1]] * (slots - 2)))


@pytest.mark.parametrize("seed", range(12))
def test_random_expressions(seed, tmp_path):
    ti.init(arch=ti.cpu, default_fp=ti.f64)
    rng = random.Random(seed)
    body = _expression(rng, 4)
    source = f"import ti_notebook as ti\n\n@ti.func\ndef expr(a, b):\n    return {body}\n"
    path = tmp_path / f"fuzz_{seed}.py"
    path.write_text(source)
    scope: dict = {"__name__": f"fuzz_{seed}"}
    linecache.checkcache(str(path))
    exec(compile(source, str(path), "exec"), scope)
    expr = scope["expr"]
    x = ti.field(ti.f64, shape=4, needs_grad=True)
    y = ti.field(ti.f64, shape=4, needs_grad=True)
    loss = ti.field(ti.f64, shape=(), needs_grad=True)

    @ti.kernel
    def compute():
        for i in x:
            loss[None] += expr(x[i], y[i])

    points = np.random.default_rng(seed).uniform(-1.0, 1.0, (2, 4))
    x.from_numpy(points[0])
    y.from_numpy(points[1])
    with ti.ad.Tape(loss=loss):
        compute()

    def loss_of(v):
        x.from_numpy(v[0])
        y.from_numpy(v[1])
        loss[None] = 0.0
        compute()
        return loss[None]

    want = numeric_gradient(loss_of, points)
    got = np.stack([x.grad.to_numpy(), y.grad.to_numpy()])
    assert_close(got, want, rtol=1e-5, atol=1e-6), body
