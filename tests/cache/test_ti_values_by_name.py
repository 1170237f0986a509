"""A name that holds one of ti_notebook's own values (``op = ti.atomic_sub``) is part of
the cache key like any other: the compiler digest covers those functions' code, not
which of them a closure or global holds. (Found by tests/cuda_sim/test_sim_atomics.py: every
atomic op ran as the first one compiled.)"""

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu


def _run(atomic) -> int:
    cell = ti.field(ti.i32, shape=())

    @ti.kernel
    def apply():
        for i in range(10):
            atomic(cell[None], i)

    cell[None] = 100
    apply()
    return cell[None]


def test_a_closure_holding_another_ti_function_compiles_anew(tmp_path):
    results = {}
    for op in (ti.atomic_add, ti.atomic_sub, ti.atomic_max, ti.atomic_add):
        ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))
        results.setdefault(op.__name__, []).append(_run(op))
    assert results == {"atomic_add": [145, 145], "atomic_sub": [55], "atomic_max": [100]}
