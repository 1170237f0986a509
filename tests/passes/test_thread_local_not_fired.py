"""make_thread_local leaves alone what it must (plain reads and writes, mixed
operations, used old values, serial loops), real atomics stay exact under contention,
and the IR stages show the rewrite. The patterns it rewrites: ``test_thread_local.py``.
"""

import re

import numpy as np
import pytest
from tls_helpers import N, assert_fired, both, ints, tls

import ti_notebook as ti

pytestmark = pytest.mark.cpu


# -- does not fire -------------------------------------------------------------------------


def test_destination_also_read_in_the_loop():
    def build():
        x = ti.field(ti.i32, shape=N)
        flag = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        x.fill(1)

        @ti.kernel
        def k():
            for i in x:
                s[None] += x[i]
                if s[None] >= 0:  # always true: only ever grows from 0
                    flag[i] = 1

        k()
        return (s[None], int(flag.to_numpy().sum())), tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    assert results[True][0] == results[False][0] == (N, N)


def test_destination_also_written_plainly():
    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        x.fill(1)

        @ti.kernel
        def k():
            for i in x:
                if i == -1:  # never true, but the store is in the task
                    s[None] = 0
                s[None] += x[i]

        k()
        return s[None], tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    assert results[True][0] == results[False][0] == N


def test_different_operations_on_one_destination():
    data = ints(seed=13)

    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        other = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def k():
            for i in x:
                if i == 0:
                    s[None] += 5000
                ti.atomic_max(s[None], x[i])
                other[None] += 1

        k()
        return (s[None], other[None]), tls(k)

    results = both(build)
    # s mixes add and max: left alone; other still fires.
    assert_fired(results, [("other[None]", "add")])
    for (s_value, other_value), _ in results.values():
        # The +5000 and the max race: any order gives one of these.
        assert s_value in (5000 + max(0, int(data.max())), max(5000, int(data.max())))
        assert other_value == N


def test_atomic_return_value_used():
    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())

        @ti.kernel
        def tickets():
            for i in x:
                old = ti.atomic_add(s[None], 1)
                x[i] = old

        tickets()
        return (s[None], np.sort(x.to_numpy())), tls(tickets)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    for (count, seen), _ in results.values():
        assert count == N
        np.testing.assert_array_equal(seen, np.arange(N))  # every ticket handed out once


def test_serialized_loop():
    data = ints(seed=17)

    def build():
        x = ti.field(ti.i32, shape=N)
        s = ti.field(ti.i32, shape=())
        x.from_numpy(data)

        @ti.kernel
        def k(n: ti.i32):
            ti.loop_config(serialize=True)
            for i in range(n):
                s[None] += x[i]

        k(N)
        return s[None], tls(k, N)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    assert results[True][0] == results[False][0] == int(data.sum())


def test_bitwise_atomics_are_not_reduced():
    def build():
        x = ti.field(ti.i32, shape=64)
        s = ti.field(ti.i32, shape=())

        @ti.kernel
        def k():
            for i in x:
                ti.atomic_or(s[None], 1 << (i % 31))

        k()
        return s[None], tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    assert results[True][0] == results[False][0] == (1 << 31) - 1


def test_kernel_local_also_read_in_the_loop():
    def build():
        x = ti.field(ti.i32, shape=N)
        seen = ti.field(ti.i32, shape=N)
        x.fill(2)

        @ti.kernel
        def k() -> ti.i32:
            acc = 0
            for i in x:
                acc += x[i]
                seen[i] = acc  # a plain read of acc: each iteration must see the global
            return acc

        return (k(), int(seen.to_numpy().min())), tls(k)

    results = both(build)
    assert results[True][1] == results[False][1] == []
    for (total, smallest), _ in results.values():
        assert total == 2 * N and smallest >= 2


# -- real atomics under contention ---------------------------------------------------------


def test_float_atomics_under_contention():
    """8M threads' worth of atomics on three 0-D f32 fields, pass off: the atomics run."""
    n = 8 * 1024 * 1024
    rng = np.random.default_rng(21)
    data = rng.standard_normal(n).astype(np.float32)
    small_ints = rng.integers(0, 4, n).astype(np.float32)  # sum < 2**24: exact in f32
    ti.init(arch=ti.cpu, make_thread_local=False)
    x = ti.field(ti.f32, shape=n)
    y = ti.field(ti.f32, shape=n)
    s = ti.field(ti.f32, shape=())
    exact = ti.field(ti.f32, shape=())
    hi = ti.field(ti.f32, shape=())
    lo = ti.field(ti.f32, shape=())
    x.from_numpy(data)
    y.from_numpy(small_ints)

    @ti.kernel
    def hammer():
        for i in x:
            s[None] += x[i]
            exact[None] += y[i]
            ti.atomic_max(hi[None], x[i])
            ti.atomic_min(lo[None], x[i])

    hi[None], lo[None] = -np.inf, np.inf
    hammer()
    assert tls(hammer) == []
    assert "atomic_max" in hammer.stages()["ir_optimized"]
    assert hi[None] == data.max() and lo[None] == data.min()
    assert exact[None] == small_ints.sum(dtype=np.float64)
    assert s[None] == pytest.approx(float(data.sum(dtype=np.float64)), abs=n * 1e-4)


# -- the IR shows the rewrite --------------------------------------------------------------


def strip_ids(text):
    return re.sub(r"\$\d+", "$", text)


def _sections(text):
    """``{"prologue": [...], "body": [...], "epilogue": [...]}`` lines of a one-task IR."""
    sections, current = {}, None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("prologue:", "body:", "epilogue:"):
            current = stripped[:-1]
            sections[current] = []
        elif current is not None:
            sections[current].append(stripped)
    return sections


@pytest.mark.parametrize("op", ["add", "max"])
def test_ir_stages_show_the_rewrite(op):
    def build():
        x = ti.field(ti.f32, shape=1024)
        s = ti.field(ti.f32, shape=())

        if op == "add":

            @ti.kernel
            def k():
                for i in x:
                    s[None] += x[i]
        else:

            @ti.kernel
            def k():
                for i in x:
                    ti.atomic_max(s[None], x[i])

        return k.stages()

    stages = both(build)
    on, off = _sections(stages[True]["ir_optimized"]), _sections(stages[False]["ir_optimized"])
    atomic = f"atomic_{op}"
    # On: an accumulator set to the identity in the prologue, plain updates in the body,
    # and one atomic per chunk in the epilogue.
    assert any("alloca tls_acc" in line for line in on["prologue"])
    identity = "0.0" if op == "add" else "-inf"
    assert any(line.endswith(f"const {identity}") for line in on["prologue"])
    assert not any(atomic in line for line in on["body"])
    assert any(f"= {op} " in line for line in on["body"])  # acc = op(acc, x[i])
    assert any(line.startswith("$") and "localstore" in line for line in on["body"])
    assert sum(atomic in line for line in on["epilogue"]) == 1
    assert sum("atomic_" in line for line in on["epilogue"]) == 1
    # Off: the atomic stays in the body, no accumulator, nothing in the epilogue.
    assert "tls_acc" not in stages[False]["ir_optimized"]
    assert sum(atomic in line for line in off["body"]) == 1
    assert not off.get("epilogue")
    # The unoptimized IR is the same both ways: the rewrite happens in the passes.
    assert strip_ids(stages[True]["ir"]) == strip_ids(stages[False]["ir"])
    assert stages[True]["report"]["thread_local"] == [
        {"destination": "s[None]", "operation": op, "task": 0}
    ]
