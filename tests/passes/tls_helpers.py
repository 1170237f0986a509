"""What the thread-local-reduction tests share (imported by name: tests/ has no packages)."""

import numpy as np

import ti_notebook as ti

N = 100_003  # not a multiple of any chunk size: the last chunk is a partial one


def both(build):
    """``{True: build(), False: build()}``: pass on, pass off; ``build`` runs after init."""
    results = {}
    for flag in (True, False):
        ti.init(arch=ti.cpu, make_thread_local=flag)
        results[flag] = build()
    return results


def floats(n=N, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def ints(n=N, seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


def tls(kernel, *args):
    return kernel.stages(*args)["report"]["thread_local"]


def assert_fired(results, expected):
    """The pass rewrote exactly ``expected`` ((destination, op) pairs) when on, none off."""
    on = sorted((r["destination"], r["operation"]) for r in results[True][1])
    assert on == sorted(expected)
    assert results[False][1] == []
