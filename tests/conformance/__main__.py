"""``python -m tests.conformance``: run Taichi's examples with Taichi and ti_notebook.

    python -m tests.conformance                          # all; writes benchmarks/compat.md
    python -m tests.conformance --only mpm --only fem    # names containing mpm or fem
    python -m tests.conformance --backend ti_notebook --frames 2 --out -
    python -m tests.conformance --keep /tmp/compat-runs  # keep logs and .npz files

The table is printed and written to ``--out`` (``-``: printed only); the last frame of
each of ti_notebook's windows goes to ``--pictures`` (default: ``compat_frames/`` beside
``--out``, or the scratch folder with ``--out -``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

from tests.conformance import examples, report, runner
from tests.conformance.mapping import BACKENDS

DEFAULT_OUT = runner.REPO_ROOT / "benchmarks" / "compat.md"
PICTURES_DIR = "compat_frames"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.conformance", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--only", action="append", metavar="PATTERN",
        help="run only examples whose name (e.g. simulation/mpm88) contains PATTERN; repeatable",
    )  # fmt: skip
    parser.add_argument("--frames", type=int, help="GUI frames per run (default: per example)")
    parser.add_argument("--backend", choices=[*BACKENDS, "both"], default="both")
    parser.add_argument("--jobs", type=int, default=1, help="examples at a time (default 1)")
    parser.add_argument("--timeout", type=float, help="seconds per run (default: per example)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="markdown file, or - for none")
    parser.add_argument("--keep", type=Path, help="keep each run's log, result and .npz here")
    parser.add_argument(
        "--pictures", type=Path,
        help=f"folder for ti_notebook's last frames (default: {PICTURES_DIR}/ beside --out)",
    )  # fmt: skip
    return parser.parse_args(argv)


def _progress(total: int):
    def show(index: int, row: runner.Row) -> None:
        times = []
        for backend, run in row.runs.items():
            times.append(f"{backend} {report.millis(run.timing('median_frame_s'))} ms/frame")
        detail = "; ".join(part for part in (row.reason, ", ".join(times)) if part)
        print(f"[{index + 1}/{total}] {row.name}: {row.status} {detail}", flush=True)

    return show


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        root = examples.examples_dir()
    except examples.ExamplesNotFound as error:
        print(error, file=sys.stderr)
        return 2
    names = [name for name in examples.list_examples(root) if examples.matches(name, args.only)]
    if not names:
        print(f"no example matches {args.only}", file=sys.stderr)
        return 2
    backends = list(BACKENDS) if args.backend == "both" else [args.backend]
    pictures = args.pictures
    if pictures is None and args.out != "-":
        pictures = Path(args.out).parent / PICTURES_DIR
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ti_compat_") as scratch:
        workdir = args.keep or Path(scratch)
        rows = runner.run_all(
            root, names, backends, args.frames, args.timeout, workdir, args.jobs,
            progress=_progress(len(names)), keep_arrays=args.keep is not None,
            pictures=pictures,
        )  # fmt: skip
    command = shlex.join(["python", "-m", "tests.conformance", *(argv or sys.argv[1:])])
    text = report.markdown(rows, command, args.frames)
    print()
    print("\n".join(report.table_lines(rows)))
    print()
    print(report.summary_line(rows), f"({time.perf_counter() - started:.0f} s)")
    if args.out != "-":
        Path(args.out).write_text(text)
        print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
