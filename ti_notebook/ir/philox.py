"""The random numbers' definition: Philox-4x32-10 under a key mixed with SplitMix64.

Generated code (``codegen/rng.py``) computes exactly these functions, and this Python
form is the reference the tests compare it with; how a kernel's stream, launch,
iteration, site and count become the key and counter is ``runtime/random_streams.py``'s
part. The key of one launch is ``mix64(stream ^ mix64(launch))``, the counter
``(iteration, site, count, 0)``. Philox-4x32-10 (Salmon et al., SC'11, the generator of
cuRAND and JAX) passes BigCrush for any key and counter, so distinct inputs give
independent-looking numbers.

    >>> [hex(w) for w in philox4x32((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
    ...                             (0xA4093822, 0x299F31D0))]
    ['0xd16cfe09', '0x94fdcceb', '0x5001e420', '0x24126ea1']
    >>> uniform_f32(block(stream=1, launch=0, iteration=0, site=0)) < 1.0
    True
"""

from __future__ import annotations

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57  # round multipliers
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85  # key schedule (Weyl) increments
PHILOX_ROUNDS = 10
MIX_M1, MIX_M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64's finaliser


def mix64(x: int) -> int:
    """SplitMix64's finaliser: a bijection of 64-bit words with full avalanche.

    >>> hex(mix64(0)), hex(mix64(1))
    ('0x0', '0x5692161d100b05e5')
    """
    x &= MASK64
    x = ((x ^ (x >> 30)) * MIX_M1) & MASK64
    x = ((x ^ (x >> 27)) * MIX_M2) & MASK64
    return x ^ (x >> 31)


def philox4x32(counter: tuple[int, ...], key: tuple[int, int]) -> tuple[int, ...]:
    """Philox-4x32-10 of a 4-word counter under a 2-word key (Random123's reference)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_ in range(PHILOX_ROUNDS):
        if round_:
            k0, k1 = (k0 + PHILOX_W0) & MASK32, (k1 + PHILOX_W1) & MASK32
        p0, p1 = PHILOX_M0 * c0, PHILOX_M1 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
    return c0, c1, c2, c3


def launch_key(stream: int, launch: int) -> tuple[int, int]:
    """The Philox key of one launch of a stream, as two 32-bit words (low, high)."""
    key = mix64(stream ^ mix64(launch))
    return key & MASK32, key >> 32


def block(stream: int, launch: int, iteration: int, site: int, count: int = 0) -> tuple:
    """The four words one ``ti.random``/``ti.randn`` call draws (see the module text)."""
    counter = (iteration & MASK32, site & MASK32, count & MASK32, 0)
    return philox4x32(counter, launch_key(stream, launch))


def uniform_f32(words: tuple) -> float:
    """``ti.random(ti.f32)`` from a block: the top 24 bits of word 0, in [0, 1)."""
    return (words[0] >> 8) * 2.0**-24


def uniform_f64(words: tuple) -> float:
    """``ti.random(ti.f64)`` from a block: the top 53 bits of words 1:0, in [0, 1)."""
    return ((words[1] << 32 | words[0]) >> 11) * 2.0**-53
