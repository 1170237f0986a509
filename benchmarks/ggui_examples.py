"""Run the ``ti.ui`` (GGUI) examples of the installed Taichi wheel on ti_notebook.

Each example is copied to a temporary folder with ``import taichi as ti`` (and
``taichi.math``, ``taichi.examples.patterns``) pointed at ti_notebook and Taichi's
``ti._lib.core.with_vulkan()`` read as False (no Vulkan here), then run in its
own process with ``TI_GUI_MAX_FRAMES`` frames (5 by default): an example that reaches
the end of its frame budget finishes (its ``while window.running`` loop ends, or one
more ``show()`` raises ``GUIFrameLimit``, which counts as finished). Prints one line per
example: ``finished``/``failed``/``timeout``, seconds, and the last line of the error.

    python benchmarks/ggui_examples.py [--frames 5] [--timeout 300] [name ...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = [
    "ggui_examples/fem128_ggui.py",
    "ggui_examples/fractal3d_ggui.py",
    "ggui_examples/mass_spring_3d_ggui.py",
    "ggui_examples/mass_spring_game_ggui.py",
    "ggui_examples/mpm128_ggui.py",
    "ggui_examples/mpm3d_ggui.py",
    "ggui_examples/stable_fluid_ggui.py",
    "algorithm/poisson_disk_sampling.py",
    "real_func/algorithm/poisson_disk_sampling.py",
    "rendering/cornell_box.py",
    "real_func/rendering/cornell_box.py",
    "rendering/simple_texture.py",
    "graph/texture_graph.py",
    "simulation/implicit_fem.py",
    "simulation/implicit_mass_spring.py",
    "autodiff/diff_sph/diff_sph.py",
    "rendering/taichi_ngp.py",
    "real_func/rendering/taichi_ngp.py",
]
REWRITES = [
    (r"^import taichi as ti$", "import ti_notebook as ti"),
    (r"^import taichi\.math as tm$", "import ti_notebook.math as tm"),
    (r"^from taichi\.math import", "from ti_notebook.math import"),
    (r"^from taichi\.examples\.patterns import", "from patterns import"),
    # Taichi's own library handle picks Vulkan when it has it; there is none here
    (r"ti\._lib\.core\.with_vulkan\(\)", "False"),
]
ROOT = Path(__file__).resolve().parents[1]


def examples_folder() -> Path:
    """The installed Taichi wheel's ``examples`` folder (found without importing Taichi)."""
    import importlib.util

    spec = importlib.util.find_spec("taichi")
    if spec is None or spec.origin is None:
        raise SystemExit("Taichi is not installed: its wheel holds the examples")
    return Path(spec.origin).parent / "examples"


def rewrite(source: str) -> str:
    """``source`` with its Taichi imports pointed at ti_notebook."""
    for pattern, replacement in REWRITES:
        source = re.sub(pattern, replacement, source, flags=re.MULTILINE)
    return source


# with --save: run the example through a wrapper that writes each window's frame to a PNG
# before it is shown, so the last one can be looked at
SAVING = """
import runpy, sys
PNG = sys.argv[2]
from ti_notebook.ui.ggui.window import Window
def wrap(cls):
    show = cls.show
    def saving_show(self, *args, **kwargs):
        if self.max_frames is None or self.frame < self.max_frames:
            self.save_image(PNG)
        return show(self, *args, **kwargs)
    cls.show = saving_show
wrap(Window)
sys.argv = sys.argv[1:2]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run(
    example: Path, frames: int, timeout: float, save: Path | None = None
) -> tuple[str, float, str]:
    """(outcome, seconds, last error line) of one example."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / example.name
        script.write_text(rewrite(example.read_text()))
        patterns = examples_folder() / "patterns.py"
        (Path(tmp) / "patterns.py").write_text(rewrite(patterns.read_text()))
        env = dict(os.environ, TI_GUI_MAX_FRAMES=str(frames), MPLBACKEND="Agg")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        started = time.perf_counter()
        try:
            command = [sys.executable, script.name]
            if save is not None:
                png = save.resolve() / (example.stem + ".png")
                command = [sys.executable, "-c", SAVING, script.name, str(png)]
            proc = subprocess.run(
                command,
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.perf_counter() - started, ""
        seconds = time.perf_counter() - started
        lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
        last = lines[-1] if lines else ""
        if proc.returncode == 0 or "GUIFrameLimit" in last:
            return "finished", seconds, ""
        return "failed", seconds, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="substrings of example paths (all if none)")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--save", type=Path, help="folder for each example's last frame (PNG)")
    args = parser.parse_args()
    folder = examples_folder()
    for rel in EXAMPLES:
        if args.names and not any(n in rel for n in args.names):
            continue
        outcome, seconds, error = run(folder / rel, args.frames, args.timeout, args.save)
        print(f"{outcome:9} {seconds:7.1f} s  {rel}  {error}", flush=True)


if __name__ == "__main__":
    main()
