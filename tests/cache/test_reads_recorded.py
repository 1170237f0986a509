"""In one process: what tracing reads is recorded, and what it cannot follow is not cached.

``tests/cache/test_cache_dependencies.py`` checks the same across processes; here a kernel
is re-decorated (as re-running a notebook cell does) after a value changed, and kernels
that read something the cache cannot follow run correctly, uncached.
"""

from __future__ import annotations

import enum
import types

import pytest

import ti_notebook as ti
from ti_notebook.cache.fingerprint import fingerprint

pytestmark = pytest.mark.cpu


@pytest.fixture(autouse=True)
def _own_cache(tmp_path):
    ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=str(tmp_path))


def _status(kernel) -> str:
    return kernel.stages()["report"]["cache"]


class _Params:
    scale = 1

    class Grid:
        n = 3


class _Mode(enum.Enum):
    FAST = 1
    SLOW = 2


_cfg = types.ModuleType("_cfg")
_cfg.params = _Params
MODE = _Mode.FAST


def _scaled(a):
    @ti.kernel
    def scaled(v: ti.i32) -> ti.i32:
        return v * _cfg.params.scale + _cfg.params.Grid.n

    return scaled(a), scaled


def test_redecorated_kernel_sees_a_changed_attribute_chain(monkeypatch):
    value, first = _scaled(10)
    assert (value, _status(first)) == (13, "miss")
    assert _scaled(10)[1] is not first and _status(_scaled(10)[1]) == "hit"
    monkeypatch.setattr(_Params.Grid, "n", 5)
    value, again = _scaled(10)
    assert (value, _status(again)) == (15, "miss")
    monkeypatch.setattr(_Params, "scale", 2)
    assert _scaled(10)[0] == 25


def _with_mode():
    @ti.kernel
    def pick() -> ti.i32:
        return ti.static(MODE.value * 10)

    return pick


def test_enum_members_are_fingerprinted(monkeypatch):
    assert _with_mode()() == 10
    monkeypatch.setattr(__import__(__name__), "MODE", _Mode.SLOW)
    kernel = _with_mode()
    assert (kernel(), _status(kernel)) == (20, "miss")


def _fact(n):
    return 1 if n <= 1 else n * _fact(n - 1)


def test_a_recursive_helper_is_cached():
    def make():
        @ti.kernel
        def count() -> ti.i32:
            total = 0
            for _ in range(_fact(3)):
                total += 1
            return total

        return count

    first, second = make(), make()
    assert (first(), _status(first)) == (6, "miss")
    assert (second(), _status(second)) == (6, "hit")


class _Box:
    def __init__(self, v: int) -> None:
        self.v = v


def _make_box():
    return _Box(4)


def _double(namespace):
    return namespace.Grid.n * 2


@pytest.mark.parametrize("case", ["object from a helper", "namespace into a helper"])
def test_reads_the_cache_cannot_follow_run_uncached(case):
    if case == "object from a helper":

        @ti.kernel
        def kernel() -> ti.i32:
            return ti.static(_make_box().v)

        expected = 4
    else:

        @ti.kernel
        def kernel() -> ti.i32:
            return ti.static(_double(_Params))

        expected = 6
    assert kernel() == expected
    assert _status(kernel) == "uncacheable"


def test_helper_fingerprint_covers_code_names_closure_defaults_and_globals():
    scope = {"A": 1, "B": 1}
    exec("def pick(n=2):\n    return A * n", scope)  # noqa: S102 - a stand-in user module
    prints = {fingerprint(scope["pick"])}
    scope["A"] = 5  # a global it reads
    prints.add(fingerprint(scope["pick"]))
    scope["pick"].__defaults__ = (3,)  # a default
    prints.add(fingerprint(scope["pick"]))
    exec("def pick(n=3):\n    return B * n", scope)  # the same bytecode, another name
    prints.add(fingerprint(scope["pick"]))
    assert len(prints) == 4
    exec("def outer(c):\n    def inner():\n        return c\n    return inner", scope)
    assert fingerprint(scope["outer"](1)) != fingerprint(scope["outer"](2))  # closures
    assert fingerprint(types.SimpleNamespace(n=object())) == "namespace"  # paths cover it


def test_helper_reads_by_string_are_followed_or_refused():
    cfg = types.SimpleNamespace(N=1)
    scope = {"cfg": cfg}
    exec("def by_getattr():\n    return getattr(cfg, 'N')", scope)  # noqa: S102
    before = fingerprint(scope["by_getattr"])
    cfg.N = 2
    assert fingerprint(scope["by_getattr"]) != before
    exec("def by_globals():\n    return globals()['cfg'].N", scope)  # noqa: S102
    assert fingerprint(scope["by_globals"]) is None


def test_an_attribute_set_on_a_field_object_is_recorded():
    x = ti.field(ti.i32, shape=4)

    def make():
        @ti.kernel
        def k() -> ti.i32:
            return x.user_scale * x.shape[0]

        return k

    x.user_scale = 1
    assert make()() == 4
    x.user_scale = 2
    kernel = make()
    assert (kernel(), _status(kernel)) == (8, "miss")


def _adder(c):
    @ti.func
    def add(v):
        return v + c

    return add


def test_two_funcs_from_one_factory_in_one_kernel_are_not_cached():
    # Both are named '_adder.<locals>.add': a warm start could check one closure only.
    first, second = _adder(1), _adder(1)

    @ti.kernel
    def both(a: ti.i32) -> ti.i32:
        return first(a) + second(a)

    assert both(3) == 8
    assert _status(both) == "uncacheable"
