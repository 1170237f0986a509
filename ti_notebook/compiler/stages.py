"""``kernel.stages()``: every stage's text of one compiled kernel, and its report.

Keys are ``ast``, ``ir``, ``ir_optimized``, ``annotate`` (the optimised IR statements
per source line, as JSON: ``compiler/line_map.py``), ``llvm``, ``llvm_optimized``, the backend's
own stages (``asm`` on the CPU; ``ptx`` and ``resources``, ptxas's figures and the
occupancy per block_dim, on CUDA) and ``report``. A backend stage is made when first read:
assembling costs as much as a small compile, and most callers never look.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def add(a: ti.i32, b: ti.i32) -> ti.i32:
    ...     return a + b
    >>> stages = add.stages(1, 2)
    >>> sorted(stages)
    ['annotate', 'asm', 'ast', 'ir', 'ir_optimized', 'llvm', 'llvm_optimized', 'report']
    >>> "ret" in stages["asm"]
    True
"""

from __future__ import annotations


class Stages(dict):
    """Stage name → text, plus ``report``; the backend's stages are made on demand."""

    def __init__(self, backend, llvm_optimized: str, **stages) -> None:
        super().__init__(stages, llvm_optimized=llvm_optimized)
        self._backend = backend
        for name in backend.stage_names:
            self[name] = None

    def __getitem__(self, key):
        value = dict.__getitem__(self, key)
        if value is None and key in self._backend.stage_names:
            optimized = dict.__getitem__(self, "llvm_optimized")
            value = self[key] = self._backend.target_stage(key, optimized, self)
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default  # noqa: SIM401 - self.get recurses

    def items(self):
        return [(k, self[k]) for k in self]

    def values(self):
        return [self[k] for k in self]
