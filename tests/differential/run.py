"""Runs units of the matrix on one backend and prints their results as JSON lines.

``python -m tests.differential.run --backend ti_notebook|taichi --group NAME`` runs every
unit of a group (``--group all``: every group), ``--units FILE`` the units a JSON file
lists instead (``[[group, mode, [[op, rhs], ...]], ...]``, as the harness passes them
after a crash). Each unit prints ``{"start": n}`` before its kernel compiles, so a crash
names its unit, then ``{"unit": n, "results": {key: [value, ...]}}``: one value per
operand pair of :func:`cases.pairs`, an int, a float as ``float.hex()``, ``null`` where
the model leaves it undefined (const mode skips those), or ``{"error": class}``.
Never import Taichi and ti_notebook in one process: each brings its own LLVM.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from tests.differential import cases
from tests.differential.cases import OPERANDS, TYPES, N
from tests.differential.model import out_kind, safe_divisor

NUMPY = {
    t: getattr(np, ("int" if t[0] == "i" else "uint" if t[0] == "u" else "float") + t[1:])
    for t in TYPES
}
RHS = "__rhs__"


def padded(t: str) -> list:
    """The operands of ``t`` repeated to length ``N``, so every field has one shape."""
    values = OPERANDS[t]
    return [values[k % len(values)] for k in range(N)]


def literal(x, t: str) -> str:
    """Source text of a constant of type ``t`` with value ``x``."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        text = "NAN" if math.isnan(x) else "INF" if x > 0 else "-INF"
    else:
        text = repr(x)
    return f"ti.{t}({text})"  # Taichi wants ti.u64(2**63), not ti.cast, beyond i32


def item_text(op: str, a: str, b: str, operands: dict[str, str]) -> str:
    """The expression of one item, its operands' texts given by name (``a``, ``b``, ``d``)."""
    template = {**cases.BINARY, **cases.UNARY, **cases.CAST}[op]
    return template.format(t=b, **operands)


class Session:
    """One backend's fields and kernels, for any number of units."""

    def __init__(self, backend: str) -> None:
        self.ti = importlib.import_module("taichi" if backend == "taichi" else "ti_notebook")
        if backend == "taichi":
            # IEEE floats: Taichi's fast math assumes no NaN or inf (LLVM's 'fast' flags),
            # which leaves those cases undefined; no offline cache: every kernel is new
            self.ti.init(arch=self.ti.cpu, fast_math=False, offline_cache=False)
        else:
            self.ti.init(arch=self.ti.cpu)
        self.dir = Path(tempfile.mkdtemp(prefix="ti_differential_"))
        self.count = 0
        ti = self.ti
        k = max(len(items) for g in cases.GROUPS for _, items in cases.units(g))
        self.ns = {"ti": ti, "N": N, "NAN": math.nan, "INF": math.inf}
        for t in TYPES:
            self.ns[f"X_{t}"] = ti.field(getattr(ti, t), shape=N)
            self.ns[f"D_{t}"] = ti.field(getattr(ti, t), shape=(N, N))
        for kind in ("i64", "u64", "f64"):
            self.ns[f"out_{kind}"] = ti.field(getattr(ti, kind), shape=(k, N, N))
        for t in TYPES:
            self.ns[f"X_{t}"].from_numpy(np.array(padded(t), dtype=NUMPY[t]))
        self.group = None

    def divisors(self, group: str, b: str) -> list[list]:
        xs, ys = padded(group), padded(b)
        return [[safe_divisor("//", group, b, x, y) for y in ys] for x in xs]

    def set_group(self, group: str) -> None:
        if self.group != group:
            for t in TYPES:
                d = np.array(self.divisors(group, t), dtype=NUMPY[t])
                self.ns[f"D_{t}"].from_numpy(d)
            self.group = group

    def kernel(self, lines: list[str], params: str = ""):
        self.count += 1
        name = f"unit_{self.count}"
        source = f"@ti.kernel\ndef {name}({params}):\n" + "".join(f"    {s}\n" for s in lines)
        path = self.dir / f"{name}.py"
        path.write_text(source)
        exec(compile(source, str(path), "exec", dont_inherit=True), self.ns)
        return self.ns[name]

    def run_unit(self, group: str, mode: str, items: list) -> dict:
        if any(op == os.environ.get("TI_DIFFERENTIAL_CRASH_OP") for op, _ in items):
            os.kill(os.getpid(), signal.SIGSEGV)  # the harness's own test: a crash
        self.set_group(group)
        getattr(self, f"_{mode}")(group, items)
        return {
            cases.key(mode, op, group, b): self.read(k, group, op, b, mode)
            for k, (op, b) in enumerate(items)
        }

    def _field(self, group: str, items: list) -> None:
        lines = ["for i, j in ti.ndrange(N, N):"]
        for k, (op, b) in enumerate(items):
            ops = {"a": f"X_{group}[i]", "b": f"X_{b}[j]" if b else "", "d": f"D_{b}[i, j]"}
            lines.append(
                f"    out_{out_kind(op, group, b)}[{k}, i, j] = " + item_text(op, group, b, ops)
            )
        self.kernel(lines)()

    def _arg(self, group: str, items: list) -> None:
        rhs = sorted({b for op, b in items if b and op in cases.BINARY}, key=TYPES.index)
        params = ", ".join(
            [f"i: ti.i32, j: ti.i32, a: ti.{group}"]
            + [f"b_{t}: ti.{t}, d_{t}: ti.{t}" for t in rhs]
        )
        lines = []
        for k, (op, b) in enumerate(items):
            ops = {"a": "a", "b": f"b_{b}", "d": f"d_{b}"}
            lines.append(
                f"out_{out_kind(op, group, b)}[{k}, i, j] = " + item_text(op, group, b, ops)
            )
        kernel = self.kernel(lines, params)
        binary = any(op in cases.BINARY for op, _ in items)
        xs = padded(group)
        for i in range(len(OPERANDS[group])):
            for j in range(N if binary else 1):
                args = [i, j, xs[i]]
                for t in rhs:
                    y = padded(t)[j]
                    args += [y, safe_divisor("//", group, t, xs[i], y)]
                kernel(*args)

    def _const(self, group: str, items: list) -> None:
        lines = []
        for k, (op, b) in enumerate(items):
            for i, j in cases.pairs(group, op, b, "const"):
                x = OPERANDS[group][i]
                y = OPERANDS[b][j] if cases.arity(op) == 2 else None
                if op in ("//", "%") and safe_divisor(op, group, b, x, y) != y:
                    continue
                ops = {"a": literal(x, group)}
                if y is not None:
                    ops["b"] = ops["d"] = literal(y, b)
                lines.append(
                    f"out_{out_kind(op, group, b)}[{k}, {i}, {j}] = " + item_text(op, group, b, ops)
                )
        self.kernel(lines)()

    def read(self, k: int, group: str, op: str, b: str, mode: str) -> list:
        values = self.ns[f"out_{out_kind(op, group, b)}"].to_numpy()[k]
        result = []
        for i, j in cases.pairs(group, op, b, mode):
            v = values[i, j]
            result.append(float(v).hex() if values.dtype.kind == "f" else int(v))
        if mode == "const":  # skipped statements left whatever was there: mark them
            for n, (i, j) in enumerate(cases.pairs(group, op, b, mode)):
                x, y = OPERANDS[group][i], OPERANDS[b][j] if cases.arity(op) == 2 else None
                if op in ("//", "%") and safe_divisor(op, group, b, x, y) != y:
                    result[n] = None
        return result

    def invalid(self, group: str, op: str, b: str) -> dict:
        ops = {"a": "a", "b": "b", "d": "b"}
        params = f"a: ti.{group}" + (f", b: ti.{b}" if b and op in cases.BINARY else "")
        try:
            kernel = self.kernel([f"v = {item_text(op, group, b, ops)}"], params)
            kernel(*([1] * (1 + params.count(","))))
        except Exception as error:  # the class is the result
            return {"error": type(error).__name__}
        return {"error": None}


def _narrow(session: Session, group: str, mode: str, items: list, results: dict) -> list:
    """Runs ``items`` one operator at a time into ``results``; returns the items of the
    operators that failed, to be run one at a time."""
    failed = []
    for op in dict.fromkeys(op for op, _ in items):
        mine = [item for item in items if item[0] == op]
        try:
            results.update(session.run_unit(group, mode, mine))
        except Exception:
            failed += mine
    return failed


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["ti_notebook", "taichi"], required=True)
    parser.add_argument("--group", default="all")
    parser.add_argument("--units", help="JSON file of [group, mode, items] units")
    args = parser.parse_args(argv)
    if args.units:
        units = json.loads(Path(args.units).read_text())
    else:
        groups = cases.GROUPS if args.group == "all" else [args.group]
        units = [[g, mode, items] for g in groups for mode, items in cases.units(g)]
        units += [[g, "invalid", cases.invalid_items(g)] for g in groups]
    warnings.simplefilter("ignore")  # precision warnings of the wide output fields
    session = Session(args.backend)
    for n, (group, mode, items) in enumerate(units):
        items = [tuple(item) for item in items]
        _emit({"start": n})
        if mode == "invalid":
            results = {
                cases.key(mode, op, group, b): [session.invalid(group, op, b)] for op, b in items
            }
            _emit({"unit": n, "results": results})
            continue
        try:
            t0 = time.perf_counter()
            results = session.run_unit(group, mode, items)
            print(n, mode, f"{time.perf_counter() - t0:.2f}", file=sys.stderr)
        except Exception:  # find the item that fails: one kernel per operator, then per item
            results = {}
            for op, b in _narrow(session, group, mode, items, results):
                try:
                    results.update(session.run_unit(group, mode, [(op, b)]))
                except Exception as error:
                    results[cases.key(mode, op, group, b)] = {
                        "error": type(error).__name__,
                        "message": str(error)[:300],
                    }
        _emit({"unit": n, "results": results})
    _emit({"done": True})


if __name__ == "__main__":
    main()
