"""Which of the package's files and packages the README kernel's first call runs, and
how many calls cross from one package into another.

    python -m tests.first_call_trace            # this tree
    python -m tests.first_call_trace /tmp/old   # another checkout (its ti_notebook first)

A hop is a distinct (caller file, callee file) pair in different packages of
``ti_notebook``, seen by ``sys.setprofile`` during the first call (tracing, the passes,
code generation, loading and the launch). Hops count files, so a package split into
finer modules shows more of them for the same walk; the package pairs (which packages
call which) and the calls against the layering (a package calling one that
``tests/test_layering.py`` forbids it to import, as a method call on an object handed
down can) say how the packages are walked.
"""

# no `from __future__ import annotations`: the kernel below is made inside a function,
# where ti_notebook could not resolve a string annotation naming its local `ti`
import collections
import os
import sys

from tests.test_layering import FORBIDDEN


def trace(root: str) -> tuple[set[str], set[tuple[str, str]]]:
    """(files run, cross-package hops) of the first call, paths relative to the package."""
    sys.path.insert(0, root)
    import ti_notebook as ti

    package = os.path.join(os.path.abspath(root), "ti_notebook") + os.sep
    if not ti.__file__.startswith(package):
        raise SystemExit(f"imported {ti.__file__}, not the tree at {root}")
    ti.init(arch=ti.cpu, offline_cache=False)
    x = ti.field(ti.f32, shape=1024)

    @ti.kernel
    def fill(v: ti.f32):
        for i in x:
            x[i] = v * i

    files, hops = set(), set()

    def relative(frame) -> str | None:
        name = frame.f_code.co_filename
        return name[len(package) :] if name.startswith(package) else None

    def record(frame, event, arg):
        if event != "call" or (callee := relative(frame)) is None:
            return
        files.add(callee)
        caller_frame = frame.f_back
        while caller_frame is not None and relative(caller_frame) is None:
            caller_frame = caller_frame.f_back
        if caller_frame is not None:
            caller = relative(caller_frame)
            if package_of(caller) != package_of(callee):
                hops.add((caller, callee))

    sys.setprofile(record)
    try:
        fill(2.0)
    finally:
        sys.setprofile(None)
    return files, hops


def package_of(path: str) -> str:
    return path.split(os.sep)[0] if os.sep in path else "(top level)"


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(__file__))
    files, hops = trace(root or ".")
    packages = sorted({package_of(f) for f in files})
    print(f"{len(files)} files in {len(packages)} packages, {len(hops)} hops between packages")
    print("packages:", ", ".join(packages))
    pairs = collections.Counter((package_of(a), package_of(b)) for a, b in hops)
    against = {pair for pair in pairs if pair[1] in FORBIDDEN.get(pair[0], ())}
    print(f"{len(pairs)} package pairs, {len(against)} of them against the layering")
    for (a, b), n in pairs.most_common():
        print(f"  {n:3d}  {a} -> {b}" + ("   (against the layering)" if (a, b) in against else ""))


if __name__ == "__main__":
    main()
