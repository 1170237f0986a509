"""``ti_notebook.cuda_analysis.access_patterns``: sectors and lines per warp access, bank conflicts.

Every expected value below is counted by hand from the rule in the module's docstring:
a 32-byte sector, a 128-byte line, 32 banks of 4-byte words, broadcast of one word.
"""

from __future__ import annotations

import pytest

from ti_notebook.cuda_analysis import global_access, lane_addresses, shared_access
from ti_notebook.errors import TiValueError

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("what", "kwargs", "sectors", "lines"),
    [
        ("SoA f32: consecutive", {"stride": 4}, 4, 1),
        ("AoS xyz f32: stride 12 B", {"stride": 12}, 12, 3),
        ("every other f32", {"stride": 8}, 8, 2),
        ("AoS of 4 f32, one member", {"stride": 16}, 16, 4),
        ("one f32 per sector", {"stride": 32}, 32, 8),
        ("one f32 per line", {"stride": 128}, 32, 32),
        ("same address for all lanes", {"stride": 0}, 1, 1),
        ("SoA f64", {"stride": 8, "element_bytes": 8}, 8, 2),
        ("float4 per lane", {"stride": 16, "element_bytes": 16}, 16, 4),
        ("f32 starting mid-sector", {"base": 16, "stride": 4}, 5, 2),
        ("f32 starting mid-line", {"base": 64, "stride": 4}, 4, 2),
        ("reversed lanes", {"base": 124, "stride": -4}, 4, 1),
        ("half a warp active", {"stride": 4, "lanes": 16}, 2, 1),
        ("u8 per lane", {"stride": 1, "element_bytes": 1}, 1, 1),
    ],
)
def test_sectors_and_lines(what, kwargs, sectors, lines):
    access = global_access(**kwargs)
    assert (access.sectors, access.lines) == (sectors, lines), what


def test_efficiency_is_bytes_used_over_bytes_moved():
    soa, aos = global_access(stride=4), global_access(stride=12)
    assert (soa.bytes_used, soa.bytes_moved, soa.efficiency) == (128, 128, 1.0)
    assert (aos.bytes_used, aos.bytes_moved) == (128, 384)
    assert aos.efficiency == pytest.approx(1 / 3) and aos.ideal_sectors == 4
    broadcast = global_access(stride=0)
    assert broadcast.bytes_used == 4 and broadcast.efficiency == 4 / 32


def test_explicit_addresses_equal_the_affine_form():
    addresses = lane_addresses(base=256, stride=12)
    assert addresses[:3] == (256, 268, 280) and len(addresses) == 32
    assert global_access(addresses) == global_access(base=256, stride=12)
    scattered = [lane * 4096 for lane in range(32)]  # a gather: one sector per lane
    assert global_access(scattered).sectors == 32


TILE_ROW = 32 * 4  # a 32 x 32 f32 tile: one row is 128 bytes


@pytest.mark.parametrize(
    ("what", "kwargs", "degree"),
    [
        ("row of a 32 x 32 f32 tile", {"stride": 4}, 1),
        ("column of a 32 x 32 f32 tile", {"stride": TILE_ROW}, 32),
        ("column of the tile padded to 33 columns", {"stride": TILE_ROW + 4}, 1),
        ("column of a 32 x 16 tile", {"stride": 16 * 4}, 16),
        ("every other f32", {"stride": 8}, 2),
        ("stride 3 words (odd: conflict-free)", {"stride": 12}, 1),
        ("all lanes read one word (broadcast)", {"stride": 0}, 1),
        ("consecutive f64 (two half-warp phases)", {"stride": 8, "element_bytes": 8}, 1),
        ("f64 column of a 32 x 32 tile", {"stride": 32 * 8, "element_bytes": 8}, 16),
        ("consecutive float4 (four phases)", {"stride": 16, "element_bytes": 16}, 1),
        ("bytes: four lanes share a word", {"stride": 1, "element_bytes": 1}, 1),
    ],
)
def test_bank_conflict_degree(what, kwargs, degree):
    assert shared_access(**kwargs).degree == degree, what


def test_broadcast_within_a_conflict():
    # lanes 0-15 read word 0, lanes 16-31 read word 32: the same bank, two words
    addresses = [0] * 16 + [128] * 16
    access = shared_access(addresses)
    assert access.degree == 2 and access.wavefronts == 2 and not access.conflict_free


def test_wavefronts_and_phases():
    column = shared_access(stride=TILE_ROW)
    assert (column.phases, column.wavefronts) == (1, 32)
    f64 = shared_access(stride=8, element_bytes=8)
    assert (f64.phases, f64.wavefronts, f64.conflict_free) == (2, 2, True)
    f64_column = shared_access(stride=32 * 8, element_bytes=8)  # two words per lane
    assert (f64_column.phases, f64_column.wavefronts) == (2, 32)
    float4 = shared_access(stride=16, element_bytes=16)
    assert (float4.phases, float4.wavefronts) == (4, 4)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: global_access(element_bytes=3), "1, 2, 4, 8 or 16"),
        (lambda: global_access([0] * 33), "33 addresses"),
        (lambda: global_access([]), "0 addresses"),
        (lambda: shared_access([0, 4], stride=4), "not both"),
        (lambda: global_access([-4, 0]), ">= 0"),
        (lambda: lane_addresses(lanes=0), "1 .. 32"),
    ],
)
def test_bad_descriptions_are_errors(call, words):
    with pytest.raises(TiValueError, match=words.replace(".", r"\.")):
        call()
