"""ti.graph: recorded dispatches with symbolic arguments, run in order."""

import numpy as np
import pytest

import ti_notebook as ti
from ti_notebook.errors import TiNotImplementedError, TiTypeError, TiValueError

pytestmark = pytest.mark.cpu

vec2 = ti.types.vector(2, ti.f32)


def _kernels():
    @ti.kernel
    def init(x: ti.types.ndarray(dtype=vec2, ndim=1), base: ti.f32):
        for i in x:
            x[i] = ti.Vector([base + i, 2 * i])

    @ti.kernel
    def step(x: ti.types.ndarray(dtype=vec2, ndim=1), dt: ti.f32):
        for i in x:
            x[i] += ti.Vector([dt, -dt])

    return init, step


def test_graph_runs_dispatches_in_order_with_its_arguments():
    init, step = _kernels()
    x_sym = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "x", dtype=vec2, ndim=1)
    base = ti.graph.Arg(ti.graph.ArgKind.SCALAR, "base", ti.f32)
    builder = ti.graph.GraphBuilder()
    builder.dispatch(init, x_sym, base)
    seq = builder.create_sequential()
    for _ in range(3):
        seq.dispatch(step, x_sym, 0.5)  # a constant argument is kept as given
    builder.append(seq)
    graph = builder.compile()
    x = ti.Vector.ndarray(2, ti.f32, shape=4)
    graph.run({"x": x, "base": 10.0})
    expected = np.stack([10 + np.arange(4) + 1.5, 2 * np.arange(4) - 1.5], axis=-1)
    np.testing.assert_allclose(x.to_numpy(), expected)
    graph.run({"x": x, "base": 0.0})  # runs again from the start
    np.testing.assert_allclose(x.to_numpy()[:, 0], np.arange(4) + 1.5)


def test_graph_checks_its_arguments():
    init, _step = _kernels()
    x_sym = ti.graph.Arg(ti.graph.ArgKind.NDARRAY, "x", dtype=vec2, ndim=1)
    builder = ti.graph.GraphBuilder()
    builder.dispatch(init, x_sym, 1.0)
    graph = builder.compile()
    with pytest.raises(TiValueError, match=r"no value for argument\(s\) \['x'\]"):
        graph.run({})
    with pytest.raises(TiValueError, match="declared as an ndarray of f32 with ndim=1"):
        graph.run({"x": ti.ndarray(ti.f32, 4)})
    with pytest.raises(TiTypeError, match="must be a ti.ndarray"):
        graph.run({"x": 3})
    with pytest.raises(TiTypeError, match="takes 2 argument"):
        builder.dispatch(init, x_sym)
    with pytest.raises(TiTypeError, match="is not a @ti.kernel"):
        builder.dispatch(print, x_sym)


def test_textures_are_refused():
    with pytest.raises(TiNotImplementedError, match="textures"):
        ti.graph.Arg(ti.graph.ArgKind.TEXTURE, "tex", ndim=2)
