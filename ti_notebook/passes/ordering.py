"""The order the passes must keep, as data: each rule names earlier and later steps and why.

``passes/pipeline.py`` assembles its pipelines (the CPU's, and the one where each task
is a kernel) and checks each against :data:`RULES` when it is imported, so a pipeline
that breaks a rule never compiles a kernel: :func:`check` raises
:class:`~ti_notebook.errors.PassOrderError` naming the rule and its reason.

A rule holds between the steps it names that are in the pipeline (the CUDA pipeline has
no ``privatize_scatter``, the CPU's no ``spill_between_tasks``). :data:`EVERY_OTHER` on
one side stands for every step of the pipeline not named in the rule (nor in its
``exempt``): "first" and "last" rules.

    >>> check(("typecheck", "offload", "make_thread_local"), "example")
    >>> check(("typecheck", "make_thread_local", "offload"), "example")
    Traceback (most recent call last):
    ...
    ti_notebook.errors.PassOrderError: example runs 'make_thread_local' before 'offload', ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from ti_notebook.errors import PassOrderError

EVERY_OTHER = "*"  # on one side of a rule: every step the rule does not name


def _names(side: str | tuple[str, ...]) -> tuple[str, ...]:
    return (side,) if isinstance(side, str) else tuple(side)


@dataclasses.dataclass(frozen=True)
class Rule:
    """Every step of ``earlier`` runs before every step of ``later``, because ``why``.

    >>> print(Rule("demote_atomics", "promote_accumulators", "a reason"))
    demote_atomics before promote_accumulators
    """

    earlier: tuple[str, ...]
    later: tuple[str, ...]
    why: str
    exempt: tuple[str, ...] = ()  # steps EVERY_OTHER leaves out

    def __init__(self, earlier, later, why: str, exempt=()) -> None:
        object.__setattr__(self, "earlier", _names(earlier))
        object.__setattr__(self, "later", _names(later))
        object.__setattr__(self, "why", why)
        object.__setattr__(self, "exempt", _names(exempt))

    def __str__(self) -> str:
        def side(names: tuple[str, ...]) -> str:
            if names == (EVERY_OTHER,):
                but = f" but {', '.join(self.exempt)}" if self.exempt else ""
                return f"every other step{but}"
            return ", ".join(names)

        return f"{side(self.earlier)} before {side(self.later)}"

    def pairs(self, names: Sequence[str]) -> Iterator[tuple[str, str]]:
        """The (earlier, later) pairs this rule asks of a pipeline of ``names``."""
        named = {*self.earlier, *self.later, *self.exempt}
        others = tuple(n for n in names if n not in named)

        def present(side: tuple[str, ...]) -> tuple[str, ...]:
            return others if side == (EVERY_OTHER,) else tuple(n for n in side if n in names)

        for first in present(self.earlier):
            for second in present(self.later):
                yield first, second


# The passes that work on tasks (a task's body, prologue and epilogue, and its entry in
# the report): before offload there are none, and they would quietly do nothing.
_ON_TASKS = (
    "make_thread_local",
    "demote_atomics",
    "privatize_scatter",
    "promote_accumulators",
    "interchange_loops",
    "memory_traffic",
)

RULES: tuple[Rule, ...] = (
    Rule(
        "typecheck",
        EVERY_OTHER,
        "it checks the types the frontend gave, which every later pass and codegen rely "
        "on: a frontend bug shows as a clear internal error rather than bad code",
    ),
    Rule(
        ("make_adjoint", "make_dual"),
        EVERY_OTHER,
        "autodiff writes the grad (or dual) kernel from the traced IR, so every pass after "
        "it optimises and lowers that kernel as it does any kernel",
        exempt="typecheck",
    ),
    Rule(
        "make_block_local",
        "offload",
        "it rewrites a struct-for that asks for ti.block_local into a loop over blocks, "
        "which offload then makes a task; after offload the struct-for's body is the "
        "task's and the ti.block_local marker would reach codegen",
    ),
    Rule("offload", _ON_TASKS, "they work on tasks, which offload makes"),
    Rule(
        "demote_atomics",
        "promote_accumulators",
        "a demoted += is a load and a store, which promote_accumulators can keep in a local",
    ),
    Rule(
        ("make_block_local", "make_thread_local", "demote_atomics", "privatize_scatter"),
        "memory_traffic",
        "they decide where an access goes (block-local buffers, thread-local "
        "accumulators, demoted atomics, private scatter copies), and so which accesses "
        "stay global and count as traffic",
    ),
    Rule(
        "memory_traffic",
        "lower_access",
        "lower_access turns field[I] into a tree base plus an offset, and so forgets "
        "which field (and element type) an access was",
    ),
    Rule("offload", "prove_bounds", "checks move into task prologues"),
    Rule(
        "interchange_loops",
        "prove_bounds",
        "prove_bounds reads the strip index's range that interchange_loops leaves on the "
        "task's loop; the other way round, a column walk of an ndarray is not interchanged",
    ),
    Rule(
        "prove_bounds",
        "lower_sparse",
        "an index must be checked before it sets or reads a sparse cell's bit",
    ),
    Rule(
        "prove_bounds",
        "if_convert",
        "a branch whose loads keep a check stays a branch",
    ),
    Rule(
        "prove_bounds",
        "lower_access",
        "every index lower_access sees is proven or checked in range, so each access "
        "takes the fastest form there is",
    ),
    Rule(
        "if_convert",
        "lower_access",
        "if_convert reads the fields' shapes from the accesses",
    ),
    Rule(
        "lower_sparse",
        "lower_access",
        "lower_sparse adds what a sparse node needs (activation, bit tests) around field "
        "accesses, which lower_access then turns into addresses",
    ),
    Rule(
        EVERY_OTHER,
        "lower_struct_for",
        "last of the lowering: the passes before it read a struct-for's indices as "
        "LoopIndex; only the clean-up and the analyses of the final IR follow it",
        exempt=("spill_between_tasks", "eliminate_dead_code", "typecheck_final", "warp_accesses"),
    ),
    Rule(
        ("lower_sparse", "lower_access", "lower_struct_for"),
        "spill_between_tasks",
        "values that cross tasks are spilled once the lowering is done, on the IR codegen "
        "receives: no lowering after it can add a read of another task's value",
    ),
    Rule(
        "spill_between_tasks",
        "eliminate_dead_code",
        "the values it recomputes where they are read leave their first computations "
        "unused; removing them leaves a serial task that only computed them empty, and it "
        "goes (no one-thread kernel launch)",
    ),
    Rule(
        EVERY_OTHER,
        "typecheck_final",
        "it checks the types of the IR codegen receives, after every pass that rewrites it",
        exempt="warp_accesses",
    ),
    Rule(
        EVERY_OTHER,
        "warp_accesses",
        "an analysis of the final IR: it reads each access's address arithmetic as codegen "
        "emits it",
    ),
)


def check(names: Sequence[str], pipeline: str, rules: Sequence[Rule] = RULES) -> None:
    """Raises :class:`~ti_notebook.errors.PassOrderError` when the steps ``names`` (in
    order; ``pipeline`` names them in the message) break one of ``rules`` or repeat a
    name (see the module's example)."""
    names = tuple(names)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise PassOrderError(
            f"{pipeline} lists {', '.join(map(repr, repeated))} twice: the ordering rules "
            "and the pass records name each step once"
        )
    position = {name: k for k, name in enumerate(names)}
    for rule in rules:
        for first, second in rule.pairs(names):
            if position[first] > position[second]:
                raise PassOrderError(
                    f"{pipeline} runs {second!r} before {first!r}, but the rule "
                    f"'{rule}' says why not: {rule.why}"
                )


def check_names(steps: Sequence[str], rules: Sequence[Rule] = RULES) -> None:
    """Raises :class:`~ti_notebook.errors.PassOrderError` when a rule names a step that
    none of ``steps`` (every pipeline's, together) is: a misspelt rule would hold nothing.

    >>> check_names(["offload", "prove_bounds"], [Rule("offload", "prove_bound", "")])
    Traceback (most recent call last):
    ...
    ti_notebook.errors.PassOrderError: the rule 'offload before prove_bound' names 'prove_bound'...
    """
    for rule in rules:
        for name in (*rule.earlier, *rule.later, *rule.exempt):
            if name != EVERY_OTHER and name not in steps:
                raise PassOrderError(f"the rule '{rule}' names {name!r}, which no pipeline runs")
