"""Helpers of the cuda_sim tier (``conftest.py`` explains it): the GPU-like archs, a
session on each, and comparing results with the CPU's.

    >>> GpuArch("cuda_sim").is_sim
    True
    >>> assert_same({"x": [1.0, 2.0]}, {"x": np.array([1.0, 2.0])})
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import ti_notebook as ti

GPU_ARCHS = [
    pytest.param("cuda_sim", marks=pytest.mark.cuda_sim, id="cuda_sim"),
    pytest.param("cuda", marks=pytest.mark.cuda, id="cuda"),
]


class GpuArch:
    """One GPU-like arch of the parametrisation: ``init`` starts a session on it,
    ``against_cpu`` runs a build on the CPU and on it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.is_sim = name == "cuda_sim"

    def init(self, **options) -> None:
        """``ti.init`` on this arch with ``options``; fails if it fell back to the CPU."""
        ti.init(arch=ti.cuda, cuda_sim=self.is_sim, **options)
        assert ti.current_arch() == "cuda", f"{self.name} fell back to {ti.current_arch()}"

    def run(self, build: Callable, **options):
        """``build()``'s result in a fresh session on this arch."""
        self.init(**options)
        return build()

    def against_cpu(self, build: Callable, **options) -> tuple:
        """(``build()`` on the CPU, ``build()`` on this arch), each in a fresh session
        with ``options``; ``build`` makes its own fields and kernels."""
        ti.init(arch=ti.cpu, **options)
        expected = build()
        return expected, self.run(build, **options)

    def __repr__(self) -> str:
        return f"GpuArch({self.name!r})"


def assert_same(expected, actual, rtol: float = 0.0, atol: float = 0.0, path: str = "") -> None:
    """Compares nested results (dicts, tuples, lists, arrays, numbers): exactly by
    default, else within ``rtol``/``atol``; NaNs must sit in the same places."""
    where = path or "result"
    if isinstance(expected, dict):
        assert expected.keys() == actual.keys(), where
        for key in expected:
            assert_same(expected[key], actual[key], rtol, atol, f"{where}[{key!r}]")
        return
    if isinstance(expected, (tuple, list)) and not _is_number_sequence(expected):
        assert len(expected) == len(actual), where
        for k, (e, a) in enumerate(zip(expected, actual, strict=True)):
            assert_same(e, a, rtol, atol, f"{where}[{k}]")
        return
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.shape == a.shape, f"{where}: shape {a.shape}, expected {e.shape}"
    if rtol == 0.0 and atol == 0.0:
        np.testing.assert_array_equal(a, e, err_msg=where)
    else:
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=where)


def _is_number_sequence(value) -> bool:
    return all(isinstance(v, (int, float, bool, np.generic)) for v in value)


HELPER_KINDS = ("snapshot", "list_clear", "list")


def task_launches(kernel) -> list[dict] | None:
    """The launch table of ``kernel``'s CUDA code without the helper kernels of sparse
    loops (copying activity bits, building the list of active blocks), or None off
    CUDA."""
    if ti.current_arch() != "cuda":
        return None
    launches = kernel.stages()["report"].launches
    return [dict(x) for x in launches if x["kind"] not in HELPER_KINDS]
