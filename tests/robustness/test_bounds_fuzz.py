"""Random index expressions against the bounds checks: an access the compiler proves or
hoists must never let an out-of-range index through (a crash or silent corruption), and
an in-range kernel must never raise. One subprocess runs all cases of a seed, printing
each verdict as it goes, so a crash names the case that caused it."""

import random
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.robustness
SEEDS = [11, 12]

# (kernel text of one index, the same in Python)
INDEX_FORMS = [
    ("{v} + {k}", lambda i, k, m: i + k),
    ("{v} - {k}", lambda i, k, m: i - k),
    ("{k} - {v}", lambda i, k, m: k - i),
    ("{v} * 2 + {k}", lambda i, k, m: i * 2 + k),
    ("({v} + {k}) % {m}", lambda i, k, m: (i + k) % m),
    ("min({v} + {k}, {m})", lambda i, k, m: min(i + k, m)),
    ("max({v} - {k}, 0)", lambda i, k, m: max(i - k, 0)),
    ("({v} & {m})", lambda i, k, m: i & m),
    ("{v} // 2 + {k}", lambda i, k, m: i // 2 + k),
]


def _axis(rng: random.Random, n: int, name: str):
    """One axis: loop bounds, the index text and whether every index is in [0, n)."""
    lo = rng.randint(-3, 5)
    hi = rng.randint(lo, n + 5)
    text, fn = rng.choice(INDEX_FORMS)
    k, m = rng.randint(-6, 8), rng.randint(1, n + 4)
    index = text.format(v=name, k=k, m=m)
    fits = all(0 <= fn(i, k, m) < n for i in range(lo, hi))
    return lo, hi, index, fits


def _case(rng: random.Random, c: int) -> tuple[str, str]:
    """Source of case ``c`` (a field, a kernel, its call) and the expected verdict."""
    two_d = rng.random() < 0.4
    runtime_bounds = rng.random() < 0.5
    through_func = rng.random() < 0.25
    n, m = rng.randint(4, 24), rng.randint(4, 24)
    lo, hi, index, fits = _axis(rng, n, "i")
    shape, params, loop, call = f"{n}", "a: ti.i32, b: ti.i32", f"range({lo}, {hi})", f"{lo}, {hi}"
    if runtime_bounds:
        loop = "range(a, b)"
    if two_d:
        lo2, hi2, index2, fits2 = _axis(rng, m, "j")
        shape = f"({n}, {m})"
        params += ", c: ti.i32, d: ti.i32"
        call += f", {lo2}, {hi2}"
        bounds = "(a, b), (c, d)" if runtime_bounds else f"({lo}, {hi}), ({lo2}, {hi2})"
        loop = f"ti.ndrange({bounds})"
        index, fits = f"{index}, {index2}", fits and fits2 and hi2 > lo2
        target = "i, j"
    else:
        target = "i"
    fits = fits or hi <= lo  # an empty loop touches nothing
    if two_d:
        fits = fits or hi <= lo or hi2 <= lo2
    access = f"bump{c}(x{c}, {index})" if through_func else f"x{c}[{index}] += 1"
    helper = ""
    if through_func:
        helper = f"@ti.func\ndef bump{c}(f: ti.template(), i, j=0):\n" + (
            "    f[i, j] += 1\n" if two_d else "    f[i] += 1\n"
        )
    source = (
        textwrap.dedent(
            f"""
        x{c} = ti.field(ti.i32, shape={shape})
        """
        )
        + helper
        + textwrap.dedent(
            f"""
        @ti.kernel
        def k{c}({params}):
            for {target} in {loop}:
                {access}

        try:
            k{c}({call})
            got = "ok"
        except IndexError:
            got = "oob"
        print({c}, got, flush=True)
        """
        )
    )
    return source, "ok" if fits else "oob"


@pytest.mark.parametrize("seed", SEEDS)
def test_random_indices_never_escape_the_checks(seed, tmp_path):
    rng = random.Random(seed)
    cases = [_case(rng, c) for c in range(60)]
    program = "import ti_notebook as ti\nti.init(arch=ti.cpu, offline_cache=False)\n"
    program += "\n".join(source for source, _ in cases)
    path = tmp_path / "fuzz.py"
    path.write_text(program)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    verdicts = dict(line.split() for line in run.stdout.splitlines() if line.strip())
    assert run.returncode == 0, f"case {len(verdicts)} ended the process\n{run.stderr[-2000:]}"
    expected = {str(c): verdict for c, (_, verdict) in enumerate(cases)}
    wrong = {c: (verdicts.get(c), want) for c, want in expected.items() if verdicts.get(c) != want}
    assert not wrong, {c: (got, want, cases[int(c)][0]) for c, (got, want) in wrong.items()}
