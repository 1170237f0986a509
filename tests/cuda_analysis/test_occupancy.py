"""The occupancy port (``ti_notebook.cuda_analysis.occupancy``) gives ``cuda_occupancy.h``'s
values.

``HEADER_VALUES`` and ``HEADER_BEST_BLOCK`` were produced once by compiling
``tests/cuda_analysis/occupancy_reference.cpp`` against CUDA 13.0's ``include/cuda_occupancy.h``
(``g++ -std=c++11 -I/usr/local/cuda/include``), feeding it the device table of
``ti_notebook/cuda_analysis/devices.py`` and the inputs below, and copying what it printed. The
last test compiles the same program now (skipped without g++ or the header) and compares
a few hundred random cases.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from ti_notebook.cuda_analysis import DEVICES, best_block_size, device_limits, theoretical_occupancy
from ti_notebook.cuda_analysis.occupancy import RESOURCES
from ti_notebook.errors import TiValueError

pytestmark = pytest.mark.unit

NO_BOUND = 2**31 - 1  # the header's INT_MAX: the resource sets no bound

# (arch, registers, static shared, dynamic shared, block size, carveout, opt-in, barriers)
#   -> (active blocks, warps limit, registers limit, shared limit, blocks limit,
#       barriers limit, registers allocated per block, shared bytes allocated per block)
HEADER_VALUES = [
    (("sm_80", 32, 0, 0, 128, None, True, 1), (16, 16, 16, 164, 32, NO_BOUND, 4096, 1024)),
    (("sm_80", 64, 0, 0, 256, None, True, 1), (4, 8, 4, 164, 32, NO_BOUND, 16384, 1024)),
    (("sm_80", 255, 0, 0, 256, None, True, 1), (1, 8, 1, 164, 32, NO_BOUND, 65536, 1024)),
    (("sm_80", 16, 0, 0, 32, None, True, 1), (32, 64, 128, 164, 32, NO_BOUND, 512, 1024)),
    (("sm_80", 16, 0, 0, 1024, None, True, 1), (2, 2, 4, 164, 32, NO_BOUND, 16384, 1024)),
    (("sm_80", 40, 0, 0, 96, None, True, 1), (16, 21, 16, 164, 32, NO_BOUND, 3840, 1024)),
    (("sm_80", 32, 12288, 0, 256, None, True, 1), (8, 8, 8, 12, 32, NO_BOUND, 8192, 13312)),
    (("sm_80", 32, 40000, 0, 128, None, True, 1), (4, 16, 16, 4, 32, NO_BOUND, 4096, 41088)),
    (("sm_80", 32, 0, 60000, 128, None, True, 1), (2, 16, 16, 2, 32, NO_BOUND, 4096, 61056)),
    (("sm_80", 32, 0, 60000, 128, None, False, 1), (0, 16, 16, 0, 32, NO_BOUND, 4096, 61056)),
    (("sm_80", 32, 8192, 0, 128, 25, True, 1), (7, 16, 16, 7, 32, NO_BOUND, 4096, 9216)),
    (("sm_80", 200, 0, 0, 320, None, True, 1), (0, 6, 0, 164, 32, NO_BOUND, 64000, 1024)),
    (("sm_80", 32, 0, 0, 1056, None, True, 1), (0, 0, 1, 164, 32, NO_BOUND, 33792, 1024)),
    (("sm_80", 33, 0, 0, 100, None, True, 1), (12, 16, 12, 164, 32, NO_BOUND, 5120, 1024)),
    (("sm_80", 16, 0, 0, 64, None, True, 5), (32, 32, 64, 164, 32, NO_BOUND, 1024, 1024)),
    (("sm_80", 0, 0, 0, 64, None, True, 1), (32, 32, NO_BOUND, 164, 32, NO_BOUND, 0, 1024)),
    (("sm_80", 24, 2048, 4096, 192, 50, True, 1), (10, 10, 14, 14, 32, NO_BOUND, 4608, 7168)),
    (("sm_80", 16, 0, 0, 64, None, True, 16), (32, 32, 64, 164, 32, NO_BOUND, 1024, 1024)),
    (("sm_80", 128, 45000, 100000, 512, None, True, 2), (1, 4, 1, 1, 32, NO_BOUND, 65536, 146048)),
    (("sm_86", 32, 0, 0, 128, None, True, 1), (12, 12, 16, 100, 16, NO_BOUND, 4096, 1024)),
    (("sm_86", 64, 0, 0, 256, None, True, 1), (4, 6, 4, 100, 16, NO_BOUND, 16384, 1024)),
    (("sm_86", 255, 0, 0, 256, None, True, 1), (1, 6, 1, 100, 16, NO_BOUND, 65536, 1024)),
    (("sm_86", 16, 0, 0, 32, None, True, 1), (16, 48, 128, 100, 16, NO_BOUND, 512, 1024)),
    (("sm_86", 16, 0, 0, 1024, None, True, 1), (1, 1, 4, 100, 16, NO_BOUND, 16384, 1024)),
    (("sm_86", 40, 0, 0, 96, None, True, 1), (16, 16, 16, 100, 16, NO_BOUND, 3840, 1024)),
    (("sm_86", 32, 12288, 0, 256, None, True, 1), (6, 6, 8, 7, 16, NO_BOUND, 8192, 13312)),
    (("sm_86", 32, 40000, 0, 128, None, True, 1), (2, 12, 16, 2, 16, NO_BOUND, 4096, 41088)),
    (("sm_86", 32, 0, 60000, 128, None, True, 1), (1, 12, 16, 1, 16, NO_BOUND, 4096, 61056)),
    (("sm_86", 32, 0, 60000, 128, None, False, 1), (0, 12, 16, 0, 16, NO_BOUND, 4096, 61056)),
    (("sm_86", 32, 8192, 0, 128, 25, True, 1), (3, 12, 16, 3, 16, NO_BOUND, 4096, 9216)),
    (("sm_86", 200, 0, 0, 320, None, True, 1), (0, 4, 0, 100, 16, NO_BOUND, 64000, 1024)),
    (("sm_86", 32, 0, 0, 1056, None, True, 1), (0, 0, 1, 100, 16, NO_BOUND, 33792, 1024)),
    (("sm_86", 33, 0, 0, 100, None, True, 1), (12, 12, 12, 100, 16, NO_BOUND, 5120, 1024)),
    (("sm_86", 16, 0, 0, 64, None, True, 5), (16, 24, 64, 100, 16, NO_BOUND, 1024, 1024)),
    (("sm_86", 0, 0, 0, 64, None, True, 1), (16, 24, NO_BOUND, 100, 16, NO_BOUND, 0, 1024)),
    (("sm_86", 24, 2048, 4096, 192, 50, True, 1), (8, 8, 14, 9, 16, NO_BOUND, 4608, 7168)),
    (("sm_86", 16, 0, 0, 64, None, True, 16), (16, 24, 64, 100, 16, NO_BOUND, 1024, 1024)),
    (("sm_86", 128, 45000, 100000, 512, None, True, 2), (0, 3, 1, 0, 16, NO_BOUND, 65536, 146048)),
    (("sm_89", 32, 0, 0, 128, None, True, 1), (12, 12, 16, 100, 24, NO_BOUND, 4096, 1024)),
    (("sm_89", 64, 0, 0, 256, None, True, 1), (4, 6, 4, 100, 24, NO_BOUND, 16384, 1024)),
    (("sm_89", 255, 0, 0, 256, None, True, 1), (1, 6, 1, 100, 24, NO_BOUND, 65536, 1024)),
    (("sm_89", 16, 0, 0, 32, None, True, 1), (24, 48, 128, 100, 24, NO_BOUND, 512, 1024)),
    (("sm_89", 16, 0, 0, 1024, None, True, 1), (1, 1, 4, 100, 24, NO_BOUND, 16384, 1024)),
    (("sm_89", 40, 0, 0, 96, None, True, 1), (16, 16, 16, 100, 24, NO_BOUND, 3840, 1024)),
    (("sm_89", 32, 12288, 0, 256, None, True, 1), (6, 6, 8, 7, 24, NO_BOUND, 8192, 13312)),
    (("sm_89", 32, 40000, 0, 128, None, True, 1), (2, 12, 16, 2, 24, NO_BOUND, 4096, 41088)),
    (("sm_89", 32, 0, 60000, 128, None, True, 1), (1, 12, 16, 1, 24, NO_BOUND, 4096, 61056)),
    (("sm_89", 32, 0, 60000, 128, None, False, 1), (0, 12, 16, 0, 24, NO_BOUND, 4096, 61056)),
    (("sm_89", 32, 8192, 0, 128, 25, True, 1), (3, 12, 16, 3, 24, NO_BOUND, 4096, 9216)),
    (("sm_89", 200, 0, 0, 320, None, True, 1), (0, 4, 0, 100, 24, NO_BOUND, 64000, 1024)),
    (("sm_89", 32, 0, 0, 1056, None, True, 1), (0, 0, 1, 100, 24, NO_BOUND, 33792, 1024)),
    (("sm_89", 33, 0, 0, 100, None, True, 1), (12, 12, 12, 100, 24, NO_BOUND, 5120, 1024)),
    (("sm_89", 16, 0, 0, 64, None, True, 5), (24, 24, 64, 100, 24, NO_BOUND, 1024, 1024)),
    (("sm_89", 0, 0, 0, 64, None, True, 1), (24, 24, NO_BOUND, 100, 24, NO_BOUND, 0, 1024)),
    (("sm_89", 24, 2048, 4096, 192, 50, True, 1), (8, 8, 14, 9, 24, NO_BOUND, 4608, 7168)),
    (("sm_89", 16, 0, 0, 64, None, True, 16), (24, 24, 64, 100, 24, NO_BOUND, 1024, 1024)),
    (("sm_89", 128, 45000, 100000, 512, None, True, 2), (0, 3, 1, 0, 24, NO_BOUND, 65536, 146048)),
    (("sm_90", 32, 0, 0, 128, None, True, 1), (16, 16, 16, 228, 32, 64, 4096, 1024)),
    (("sm_90", 64, 0, 0, 256, None, True, 1), (4, 8, 4, 228, 32, 64, 16384, 1024)),
    (("sm_90", 255, 0, 0, 256, None, True, 1), (1, 8, 1, 228, 32, 64, 65536, 1024)),
    (("sm_90", 16, 0, 0, 32, None, True, 1), (32, 64, 128, 228, 32, 64, 512, 1024)),
    (("sm_90", 16, 0, 0, 1024, None, True, 1), (2, 2, 4, 228, 32, 64, 16384, 1024)),
    (("sm_90", 40, 0, 0, 96, None, True, 1), (16, 21, 16, 228, 32, 64, 3840, 1024)),
    (("sm_90", 32, 12288, 0, 256, None, True, 1), (8, 8, 8, 17, 32, 64, 8192, 13312)),
    (("sm_90", 32, 40000, 0, 128, None, True, 1), (5, 16, 16, 5, 32, 64, 4096, 41088)),
    (("sm_90", 32, 0, 60000, 128, None, True, 1), (3, 16, 16, 3, 32, 64, 4096, 61056)),
    (("sm_90", 32, 0, 60000, 128, None, False, 1), (0, 16, 16, 0, 32, 64, 4096, 61056)),
    (("sm_90", 32, 8192, 0, 128, 25, True, 1), (7, 16, 16, 7, 32, 64, 4096, 9216)),
    (("sm_90", 200, 0, 0, 320, None, True, 1), (0, 6, 0, 228, 32, 64, 64000, 1024)),
    (("sm_90", 32, 0, 0, 1056, None, True, 1), (0, 0, 1, 228, 32, 64, 33792, 1024)),
    (("sm_90", 33, 0, 0, 100, None, True, 1), (12, 16, 12, 228, 32, 64, 5120, 1024)),
    (("sm_90", 16, 0, 0, 64, None, True, 5), (12, 32, 64, 228, 32, 12, 1024, 1024)),
    (("sm_90", 0, 0, 0, 64, None, True, 1), (32, 32, NO_BOUND, 228, 32, 64, 0, 1024)),
    (("sm_90", 24, 2048, 4096, 192, 50, True, 1), (10, 10, 14, 18, 32, 64, 4608, 7168)),
    (("sm_90", 16, 0, 0, 64, None, True, 16), (4, 32, 64, 228, 32, 4, 1024, 1024)),
    (("sm_90", 128, 45000, 100000, 512, None, True, 2), (1, 4, 1, 1, 32, 32, 65536, 146048)),
]

# (arch, registers, static shared, dynamic shared) -> (best block size, min grid size)
HEADER_BEST_BLOCK = [
    (("sm_80", 32, 0, 0), (1024, 216)),
    (("sm_80", 40, 0, 0), (768, 216)),
    (("sm_80", 64, 0, 0), (1024, 108)),
    (("sm_80", 128, 0, 0), (512, 108)),
    (("sm_80", 255, 0, 0), (256, 108)),
    (("sm_80", 32, 16384, 0), (1024, 216)),
    (("sm_80", 72, 0, 30000), (896, 108)),
    (("sm_80", 0, 0, 0), (1024, 216)),
    (("sm_90", 32, 0, 0), (1024, 264)),
    (("sm_90", 40, 0, 0), (768, 264)),
    (("sm_90", 64, 0, 0), (1024, 132)),
    (("sm_90", 128, 0, 0), (512, 132)),
    (("sm_90", 255, 0, 0), (256, 132)),
    (("sm_90", 32, 16384, 0), (1024, 264)),
    (("sm_90", 72, 0, 30000), (896, 132)),
    (("sm_90", 0, 0, 0), (1024, 264)),
]


def _run(arch, regs, static, dynamic, block, carveout, opt_in, barriers):
    return theoretical_occupancy(
        arch,
        block_size=block,
        registers=regs,
        shared_bytes=static,
        dynamic_shared_bytes=dynamic,
        carveout=carveout,
        shared_opt_in=opt_in,
        barriers=barriers,
    )


def _as_header(result) -> tuple[int, ...]:
    limits = [
        NO_BOUND if result.block_limits[r] is None else result.block_limits[r] for r in RESOURCES
    ]
    return (
        result.active_blocks,
        *limits,
        result.registers_per_block,
        result.shared_bytes_per_block,
    )


def test_the_known_cases_cover_every_arch_and_every_limit():
    for arch in DEVICES:
        assert sum(case[0] == arch for case, _ in HEADER_VALUES) >= 10
    limiting = {_run(*case).limiting for case, _ in HEADER_VALUES}
    assert limiting == set(RESOURCES)


@pytest.mark.parametrize(("case", "expected"), HEADER_VALUES, ids=lambda v: str(v))
def test_matches_the_header(case, expected):
    result = _run(*case)
    assert _as_header(result) == expected
    assert result.active_warps == expected[0] * -(-case[4] // 32)


@pytest.mark.parametrize(("case", "expected"), HEADER_BEST_BLOCK, ids=lambda v: str(v))
def test_best_block_size_matches_the_header(case, expected):
    arch, regs, static, dynamic = case
    found = best_block_size(arch, registers=regs, shared_bytes=static, dynamic_shared_bytes=dynamic)
    assert found == expected


def test_the_limiting_resource_is_named():
    def limited_by(*case):
        return _run(*case).limited_by

    assert limited_by("sm_90", 32, 0, 0, 128, None, True, 1) == ("warps", "registers")
    assert limited_by("sm_90", 64, 0, 0, 256, None, True, 1) == ("registers",)
    assert limited_by("sm_80", 32, 40000, 0, 128, None, True, 1) == ("shared memory",)
    assert limited_by("sm_90", 16, 0, 0, 32, None, True, 1) == ("blocks",)
    assert limited_by("sm_90", 16, 0, 0, 64, None, True, 5) == ("barriers",)
    # sm_80 has no barrier bound in the header: the same kernel runs 32 blocks there
    assert _run("sm_80", 16, 0, 0, 64, None, True, 5).active_blocks == 32
    # 200 registers x 10 warps fit 64 K, but the hardware check rounds to 12 warps
    result = _run("sm_90", 200, 0, 0, 320, None, True, 1)
    assert not result.fits and result.limited_by == ("registers",)
    assert result.explain().endswith(
        "cannot launch: 76800 registers per block (12 warps of 6400: the hardware counts "
        "warps in fours) exceed the 65536 a block may use"
    )


def test_occupancy_fraction_and_explanation():
    result = theoretical_occupancy("sm_90", block_size=256, registers=64)
    assert (result.active_blocks, result.active_warps, result.max_warps) == (4, 32, 64)
    assert result.occupancy == 0.5 and result.active_threads == 1024
    assert result.explain().endswith("4 blocks = 32 of 64 warps per SM (50%), limited by registers")
    # 48 warps is the whole of an sm_86 SM
    assert theoretical_occupancy("sm_86", block_size=768, registers=32).occupancy == 1.0


def test_shared_memory_beyond_48k_needs_the_opt_in():
    kwargs = {"block_size": 128, "registers": 32, "dynamic_shared_bytes": 60_000}
    assert theoretical_occupancy("sm_90", **kwargs).active_blocks == 3
    refused = theoretical_occupancy("sm_90", shared_opt_in=False, **kwargs)
    assert refused.active_blocks == 0 and refused.limited_by == ("shared memory",)
    assert refused.explain().endswith(
        "cannot launch: 60000 B of shared memory per block exceed the 49152 B a block may "
        "have (232448 B with the opt-in)"
    )
    too_much = theoretical_occupancy("sm_80", block_size=128, registers=32, shared_bytes=170_000)
    assert too_much.shared_bytes_limit == 163 * 1024
    assert too_much.explain().endswith("exceed the 166912 B a block may have")


def test_a_smaller_carveout_lowers_the_shared_memory_bound():
    kwargs = {"block_size": 128, "registers": 32, "shared_bytes": 8192}
    default = theoretical_occupancy("sm_90", **kwargs)
    quarter = theoretical_occupancy("sm_90", carveout=25, **kwargs)
    assert default.shared_bytes_per_sm == 228 * 1024 and default.active_blocks == 16
    # 25 % of 228 KB is 57 KB, which the SM rounds up to its 64 KB configuration
    assert quarter.shared_bytes_per_sm == 64 * 1024 and quarter.active_blocks == 7
    # a preference too small for one block gives way to the smallest that fits one
    tiny = theoretical_occupancy("sm_90", carveout=0, **kwargs)
    assert tiny.shared_bytes_per_sm == 16 * 1024 and tiny.active_blocks == 1


def test_device_table():
    a100, h100 = device_limits("sm_80"), device_limits(90)
    assert (a100.sm_count, h100.sm_count) == (108, 132)
    for d in (a100, h100):
        assert (d.max_threads_per_sm, d.max_blocks_per_sm, d.registers_per_sm) == (2048, 32, 65536)
        assert d.max_registers_per_thread == 255 and d.max_threads_per_block == 1024
    assert a100.shared_bytes_per_sm == 164 * 1024 and h100.shared_bytes_per_sm == 228 * 1024
    assert h100.shared_bytes_per_block_optin == 227 * 1024
    assert (
        device_limits((8, 6)).max_warps_per_sm == 48
        and device_limits("8.9").max_blocks_per_sm == 24
    )
    assert h100.max_resident_threads == 132 * 2048


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"block_size": 0, "registers": 32}, "block_size"),
        ({"block_size": 128, "registers": 256}, "registers"),
        ({"block_size": 128, "registers": 32, "shared_bytes": -1}, "shared_bytes"),
        ({"block_size": 128, "registers": 32, "barriers": 17}, "barriers"),
        ({"block_size": 128, "registers": 32, "carveout": 101}, "carveout"),
    ],
)
def test_bad_inputs_are_errors_that_say_what_to_do(kwargs, words):
    with pytest.raises(TiValueError) as error:
        theoretical_occupancy("sm_90", **kwargs)
    assert words in str(error.value) and "hint:" in str(error.value)


def test_unknown_arch_is_an_error():
    with pytest.raises(TiValueError, match="sm_70"):
        device_limits("sm_70")
    with pytest.raises(TiValueError, match="compute capability"):
        device_limits("volta")


# ---- against the header itself, compiled now ---------------------------------------

REFERENCE = Path(__file__).with_name("occupancy_reference.cpp")


def _toolkit_include() -> Path | None:
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    ptxas = shutil.which("ptxas")
    if ptxas:
        roots.append(str(Path(ptxas).resolve().parent.parent))
    roots += ["/usr/local/cuda", *sorted(glob.glob("/usr/local/cuda-*"), reverse=True)]
    for root in filter(None, roots):
        if (Path(root) / "include" / "cuda_occupancy.h").is_file():
            return Path(root) / "include"
    return None


@pytest.fixture(scope="module")
def header_program(tmp_path_factory) -> Path:
    include = _toolkit_include()
    if shutil.which("g++") is None or include is None:
        pytest.skip("needs g++ and the CUDA toolkit's include/cuda_occupancy.h")
    program = tmp_path_factory.mktemp("occupancy") / "reference"
    command = ["g++", "-std=c++11", "-O1", f"-I{include}", str(REFERENCE), "-o", str(program)]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    return program


def _random_cases(count: int, seed: int = 2024):
    rng = random.Random(seed)
    for _ in range(count):
        yield (
            rng.choice(sorted(DEVICES)),
            rng.choice([rng.randint(0, 255), rng.choice([16, 32, 40, 64, 128, 168, 255])]),
            rng.choice([0, rng.randint(0, 49152), rng.randint(0, 4096)]),
            rng.choice([0, rng.randint(0, 240_000), rng.randint(0, 60_000)]),
            rng.choice([rng.randint(1, 1100), 32 * rng.randint(1, 32)]),
            rng.choice([None, None, rng.randint(0, 100)]),
            rng.choice([True, False]),
            rng.choice([0, 1, 1, rng.randint(0, 16)]),
        )


def test_random_cases_match_the_compiled_header(header_program):
    cases = list(_random_cases(400))
    lines = []
    for arch, regs, static, dynamic, block, carveout, opt_in, barriers in cases:
        d = DEVICES[arch]
        device = [
            *d.compute_capability,
            d.max_threads_per_block,
            d.max_threads_per_sm,
            d.registers_per_block,
            d.registers_per_sm,
            d.warp_size,
            d.shared_bytes_per_block,
            d.shared_bytes_per_sm,
            d.sm_count,
            d.shared_bytes_per_block_optin,
            d.reserved_shared_bytes_per_block,
        ]
        launch = [regs, static, dynamic, block, -1 if carveout is None else carveout]
        lines.append(" ".join(map(str, [*device, *launch, int(opt_in), barriers])))
    done = subprocess.run(
        [str(header_program)], input="\n".join(lines) + "\n", capture_output=True, text=True
    )
    outputs = done.stdout.splitlines()
    assert len(outputs) == len(cases)
    fits = 0
    for case, output in zip(cases, outputs, strict=True):
        status, *values = map(int, output.split())
        assert status == 0, case
        result = _run(*case)
        assert _as_header(result) == tuple(values[:8]), case
        arch, regs, static, dynamic, _block, carveout, opt_in, barriers = case
        best = best_block_size(
            arch,
            registers=regs,
            shared_bytes=static,
            dynamic_shared_bytes=dynamic,
            barriers=barriers,
            carveout=carveout,
            shared_opt_in=opt_in,
        )
        assert best == tuple(values[9:11]), case
        # the header's limiting-factor bits (0x01 warps ... 0x10 barriers) agree unless
        # the barrier bound undercut the others (the header keeps their bits then)
        bits = {name for n, name in enumerate(RESOURCES) if values[8] >> n & 1}
        if "barriers" not in bits:
            assert set(result.limited_by) == bits, case
        fits += result.fits
    assert 0 < fits < len(cases)  # both kinds were drawn
