"""What the PTX tests share (imported by name: tests/ has no packages): compiling a kernel
for CUDA, running ptxas on the result, and cutting one kernel's text out of a PTX file."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

CAPABILITIES = ("sm_80", "sm_90")


def cuda_stages(kernel, *args, cc: str = "sm_80"):
    """The stages of ``kernel``'s specialisation for ``args``, compiled for CUDA ``cc``."""
    return kernel.stages(*args, arch="cuda", compute_capability=cc)


def ptxas(ptx: str, cc: str) -> subprocess.CompletedProcess:
    """ptxas run on ``ptx`` for ``cc`` (its output file discarded)."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as source:
        source.write(ptx)
        source.flush()
        command = [shutil.which("ptxas"), f"-arch={cc}", source.name, "-o", "/dev/null"]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)


def assert_ptxas_accepts(ptx: str, cc: str) -> None:
    result = ptxas(ptx, cc)
    assert result.returncode == 0, f"ptxas -arch={cc} refused the PTX:\n{result.stderr}"


def check_kernel(kernel, *args) -> dict:
    """Compiles ``kernel`` for each capability, checks the PTX with ptxas; returns the
    stages by capability."""
    stages = {}
    for cc in CAPABILITIES:
        stages[cc] = cuda_stages(kernel, *args, cc=cc)
        assert f".target {cc}" in stages[cc]["ptx"]
        assert_ptxas_accepts(stages[cc]["ptx"], cc)
    return stages


def entries(ptx: str) -> dict[str, str]:
    """Each ``.entry``'s name → its text (up to its closing brace)."""
    found = {}
    for match in re.finditer(r"\.entry (\w+)\(.*?\n\}", ptx, re.S):
        found[match.group(1)] = match.group(0)
    return found


def instructions(text: str, opcode: str) -> list[str]:
    """The lines of ``text`` whose instruction starts with ``opcode`` (``atom``, ``ld``...)."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith(opcode)]
