"""Computing a cache key only reads, and moving the cache's code left keys as they were.

The session finalises ``ti.root``'s pending tree in one named step before it keys a
compile (``session/compiling.py``); the keys themselves (``cache/keys.py``) and the
fingerprints they are made of (``cache/fingerprint.py``) place nothing. The pinned
digests below are what the keys were before the cache became one package: a change
to them is a change of the on-disk format (bump ``keys.FORMAT_VERSION``).
"""

from __future__ import annotations

import types

import pytest

import ti_notebook as ti
from ti_notebook.cache import keys
from ti_notebook.cache.fingerprint import fingerprint
from ti_notebook.frontend.recorder import Reads
from ti_notebook.session.compiling import finalise_pending_trees, request_for
from ti_notebook.session.specialisation import specialise

pytestmark = pytest.mark.cpu


@pytest.fixture
def session():
    ti.init(arch=ti.cpu, offline_cache=False)
    yield
    ti.reset()


def test_keying_a_kernel_that_reads_a_pending_field_does_not_finalise_its_tree(session):
    x = ti.field(ti.f32, shape=4)  # in ti.root's pending tree

    @ti.kernel
    def total(a: ti.template()) -> ti.f32:
        s = 0.0
        for i in a:
            s += a[i]
        return s

    chosen = specialise(total, (x,))
    request = request_for(total, chosen.params, chosen.templates)
    pre = keys.pre_key(request, {"format": keys.FORMAT_VERSION})
    held = keys.dependencies_hold([["<template>", "a", "field:?"]], total.func, {"a": x})
    assert x._tree is None, "computing a key finalised ti.root's pending tree"
    # without a plan a field has no print: such a key is never trusted
    assert (pre, held, fingerprint(x)) == (None, None, None)
    assert fingerprint(ti.root) is None and x._tree is None


def test_the_session_finalises_pending_trees_in_one_step_before_keying(session):
    x = ti.field(ti.i32, shape=3)
    assert x._tree is None
    finalise_pending_trees()
    assert x._tree is not None
    assert fingerprint(x).startswith("field:")

    y = ti.field(ti.i32, shape=2)  # a new pending tree: a kernel's compile finalises it

    @ti.kernel
    def read() -> ti.i32:
        return y[1]

    assert read() == 0 and y._tree is not None


def test_a_pending_snode_has_no_print_and_stays_pending(session):
    block = ti.root.dense(ti.i, 4)
    block.place(ti.field(ti.f32))
    assert fingerprint(block) is None
    assert block.builder.tree is None


def test_tracing_checks_values_only_with_the_fingerprint_the_cache_hands_in():
    class Box:
        pass

    plain, keyed = Reads({}), Reads({}, fingerprint)
    for reads in (plain, keyed):
        reads.python_result(Box(), None)  # what a Python helper run while compiling returned
    assert plain.refused is None
    assert keyed.refused == "'a function' returned an object with no fingerprint while compiling"


# -- the keys as they were before the move (same inputs, same digests) ------------------


def test_full_keys_and_prints_are_what_they_were():
    assert fingerprint(3) == "int:3"
    assert fingerprint({"a": [1, 2]}) == "dict:[(\"str:'a'\", \"list:['int:1', 'int:2']\")]"
    assert fingerprint(ti.f32) == "dtype:f32"
    assert fingerprint(ti.Vector([1, 2])) == (
        "matrix:int:ndarray:int64:(2,):"
        "0c730b69905c5ef7a4ca5269f72365400bde2dd2c04eaf9bbb3d1c4a265a0131"
    )
    assert keys.full_key("pre", [["<kernel>", "K", "int:3"]]) == FULL_KEY


def test_pre_keys_are_what_they_were():
    param = types.SimpleNamespace(
        name="a", kind="scalar", dtype=ti.f32, ndim=0, element_shape=(), compound=None
    )
    request = types.SimpleNamespace(
        template_values={"n": 4},
        params=[param],
        source=types.SimpleNamespace(text="def k(a):\n    return a\n"),
        name="k",
        return_type=ti.f32,
        options=types.SimpleNamespace(codegen_key=lambda: (True, "fast")),
        backend=types.SimpleNamespace(capabilities=types.SimpleNamespace(key=lambda: ["cpu"])),
    )
    target = {"format": 2, "ti_notebook": "0", "arch": "cpu"}
    assert keys.pre_key(request, target) == PRE_KEY


FULL_KEY = "a312ea94dbd93617b114a3fc60e10e9eb78b6cfeb521ca94d36274840da76220"
PRE_KEY = "f5e46ed932036debe3cc4cfa551eff59608502b9a937db9dc768b7102601b6a1"
