"""A kernel's own loop and cache defaults (``Kernel.configure``), and the compiled code
of the configurations it left, kept for going back to them.

A tuner goes back and forth between settings: the compiled code of each configuration
left waits in a :class:`Stash` (the last :data:`STASHED_CONFIGURATIONS`, least recently
used dropped first), and coming back to one runs its code again with no compile and no
cache load, as long as the session that compiled it is still the current one.

    >>> stash = Stash()
    >>> stash.put(("block_dim", 16), Held(generation=3, compiled={"key": "code"}, last=None))
    >>> stash.take(("block_dim", 16), generation=4) is None  # another session compiled it
    True
    >>> loop_defaults("fill", parallelize=2, block_dim=None, serialize=False)
    {'parallelize': 2, 'serialize': False}
"""

from __future__ import annotations

import dataclasses

from ti_notebook.errors import TiValueError

# configurations whose compiled code a kernel keeps aside for configure() to bring
# back; older ones are dropped
STASHED_CONFIGURATIONS = 64


@dataclasses.dataclass
class Held:
    """One configuration's compiled code, set aside."""

    generation: int  # the session generation it was compiled in
    compiled: dict  # specialisation key -> Compiled
    last: object  # the Compiled the kernel ran last (None: none)


class Stash:
    """The configurations a kernel left, most recently left last."""

    def __init__(self) -> None:
        self._held: dict[tuple, Held] = {}

    def put(self, configuration: tuple, held: Held) -> None:
        self._held.pop(configuration, None)  # re-inserted last: the most recently used
        self._held[configuration] = held
        while len(self._held) > STASHED_CONFIGURATIONS:
            del self._held[next(iter(self._held))]

    def take(self, configuration: tuple, generation: int) -> Held | None:
        """The code held for ``configuration`` if compiled in session ``generation``
        (it leaves the stash either way)."""
        held = self._held.pop(configuration, None)
        return held if held is not None and held.generation == generation else None

    def compiled_sets(self) -> list[dict]:
        """Every held configuration's specialisations (key -> Compiled)."""
        return [held.compiled for held in self._held.values()]

    def clear(self) -> None:
        self._held.clear()


def loop_defaults(
    kernel: str, parallelize: int | None, block_dim: int | None, serialize: bool | None
) -> dict:
    """``configure``'s loop keywords, checked: the ones given (not None)."""
    loop = {}
    for name, value in (("block_dim", block_dim), ("parallelize", parallelize)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TiValueError(
                f"kernel '{kernel}': {name} must be a positive integer, got {value!r}"
            )
        loop[name] = value
    if serialize is not None:
        loop["serialize"] = bool(serialize)
    return loop
