"""Template specialisations are keyed soundly (issue 11): never by the bare ``id()`` of an
object that can die, lists and tuples by value, unhashable values rejected clearly.

A kernel keeps one compiled specialisation per template value. Keyed by ``id(field)``, a
new field that reuses a dead field's id ran the dead field's code and wrote into memory
that no longer belonged to it; here every new field gets the right answer, dead ones are
let go (no leak), and the offline cache is on as in every test (its hits used to be where
dead fields' ids came back).
"""

from __future__ import annotations

import gc
import math
import weakref

import pytest

import ti_notebook as ti
from ti_notebook.errors import TiTypeError
from ti_notebook.session import compiling as compiling_module

pytestmark = pytest.mark.cpu


@pytest.fixture
def compiles(monkeypatch):
    """How many times a kernel specialisation was compiled (or loaded) so far."""
    count = []
    real = compiling_module.compile_cached

    def counting(request):
        count.append(request.name)
        return real(request)

    monkeypatch.setattr(compiling_module, "compile_cached", counting)
    return count


@ti.kernel
def _fill_with(a: ti.template(), v: ti.i32):
    for i in a:
        a[i] = v + i


def _fresh_field_result(n: int, v: int):
    f = ti.field(ti.i32, shape=n)
    _fill_with(f, v)
    return weakref.ref(f), f.to_numpy().tolist()


def test_new_fields_never_run_a_dead_fields_code():
    # a new field often takes a dead one's id(): 24 rounds of four sizes see it happen
    for round_ in range(24):
        n = 3 + round_ % 4
        _ref, values = _fresh_field_result(n, round_)
        gc.collect()
        assert values == [round_ + i for i in range(n)], round_


def test_a_dead_template_field_is_let_go():
    ref, values = _fresh_field_result(5, 1)
    gc.collect()
    assert values == [1, 2, 3, 4, 5]
    assert ref() is None, "the kernel's specialisation keeps a dead field alive"


def test_live_field_reuses_its_specialisation(compiles):
    f = ti.field(ti.i32, shape=4)
    _fill_with(f, 1)
    _fill_with(f, 2)
    assert compiles == ["_fill_with"]
    assert f.to_numpy().tolist() == [2, 3, 4, 5]


def test_tuple_of_fields_keyed_by_the_fields(compiles):
    a, b = ti.field(ti.i32, shape=3), ti.field(ti.i32, shape=3)

    @ti.kernel
    def both(pair: ti.template(), v: ti.i32):
        first, second = ti.static(pair[0], pair[1])
        for i in first:
            first[i] = v
            second[i] = v * 2

    both((a, b), 3)
    both((a, b), 4)  # a new tuple with the same fields: the same specialisation
    assert len(compiles) == 1
    both((b, a), 5)  # other fields in the slots: another one
    assert len(compiles) == 2
    assert a.to_numpy().tolist() == [10] * 3
    assert b.to_numpy().tolist() == [5] * 3


def test_lists_are_keyed_by_value(compiles):
    @ti.kernel
    def weighted(ws: ti.template()) -> ti.i32:
        total = 0
        for k in ti.static(range(len(ws))):
            total += ws[k] * (k + 1)
        return total

    assert weighted([1, 2]) == 5
    assert weighted([1, 2]) == 5
    assert len(compiles) == 1
    assert weighted([1, 3]) == 7
    assert weighted((1, 2)) == 5  # a tuple is not the same template value as a list
    assert len(compiles) == 3


def test_zero_and_negative_zero_are_different_specialisations():
    @ti.kernel
    def sign(z: ti.template()) -> ti.f32:
        return ti.static(math.copysign(1.0, z))

    assert sign(0.0) == 1.0
    assert sign(-0.0) == -1.0


def test_dict_template_is_a_clear_error():
    @ti.kernel
    def reads(d: ti.template()) -> ti.i32:
        return 1

    with pytest.raises(TiTypeError) as info:
        reads({"a": 1})
    message = str(info.value)
    assert "'d'" in message and "'reads'" in message and "dict" in message


def test_list_holding_a_dict_is_a_clear_error():
    @ti.kernel
    def reads(items: ti.template()) -> ti.i32:
        return 1

    with pytest.raises(TiTypeError, match="'items'"):
        reads([1, {"a": 1}])


class _Settings:
    def __init__(self, k: int) -> None:
        self.k = k


def test_objects_are_keyed_by_identity_and_let_go(compiles):
    @ti.kernel
    def times(s: ti.template(), a: ti.i32) -> ti.i32:
        return a * s.k

    first, second = _Settings(2), _Settings(3)
    assert times(first, 5) == 10
    assert times(second, 5) == 15
    assert times(first, 1) == 2
    assert len(compiles) == 2
    ref = weakref.ref(first)
    del first
    gc.collect()
    assert ref() is None, "a specialisation keeps its dead template object alive"


def test_callables_are_part_of_the_key():
    @ti.kernel
    def apply(fn: ti.template()) -> ti.i32:
        return ti.static(fn(10))

    def make(c):
        return lambda v: v + c

    assert apply(make(1)) == 11
    assert apply(make(2)) == 12
    assert apply(lambda v: v * 3) == 30

    @ti.func
    def double(v):
        return v * 2

    @ti.func
    def triple(v):
        return v * 3

    @ti.kernel
    def call(f: ti.template(), a: ti.i32) -> ti.i32:
        return f(a)

    assert call(double, 4) == 8
    assert call(triple, 4) == 12
