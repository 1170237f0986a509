"""``ti.svd``, ``ti.polar_decompose``, ``ti.sym_eig``, ``ti.eig``, ``ti.solve``: small-matrix
linear algebra inside kernels and ti.funcs.

The frontend compiles a call of one of these functions (``frontend/decompositions.py``:
it checks the matrix's shape, then inlines the kernel-language implementation in
``lang/linalg_funcs.py``); called from Python they say so. ``dt`` is the float type to
work in: by default the matrix's own float type (``default_fp`` for an integer matrix).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def reconstructed() -> ti.f32:
    ...     A = ti.Matrix([[2.0, 1.0], [1.0, 3.0]])
    ...     R, P = ti.polar_decompose(A)
    ...     return (R @ P - A).norm()
    >>> reconstructed() < 1e-5
    True
    >>> ti.svd([[1.0]])
    Traceback (most recent call last):
    ...
    ti_notebook.errors.TiSyntaxError: ti.svd() can only be used inside a kernel or ti.func
"""

from __future__ import annotations

from ti_notebook.errors import TiSyntaxError


def _kernel_only(name: str) -> TiSyntaxError:
    return TiSyntaxError(
        f"ti.{name}() can only be used inside a kernel or ti.func",
        hint="call it in a @ti.kernel or @ti.func, on a ti.Matrix value",
    )


def svd(A, dt=None):
    """``U, S, V = ti.svd(A)``: ``A = U @ S @ V.transpose()`` for a 2x2 or 3x3 matrix;
    ``S`` is diagonal, ``|S|`` descending (only a 3x3's ``S[2, 2]`` may be negative: its
    ``U`` and ``V`` are rotations)."""
    raise _kernel_only("svd")


def polar_decompose(A, dt=None):
    """``R, P = ti.polar_decompose(A)``: ``A = R @ P`` for a 2x2 or 3x3 matrix, ``R``
    orthogonal, ``P`` symmetric."""
    raise _kernel_only("polar_decompose")


def sym_eig(A, dt=None):
    """``values, vectors = ti.sym_eig(A)`` of a symmetric 2x2 (values descending) or 3x3
    (ascending) matrix; the eigenvectors are ``vectors``' columns."""
    raise _kernel_only("sym_eig")


def eig(A, dt=None):
    """``values, vectors = ti.eig(A)`` of a real 2x2 matrix, complex as Taichi gives them:
    ``values`` rows ``[re, im]``, ``vectors`` a 4x2 matrix of columns ``[re0, im0, re1,
    im1]``."""
    raise _kernel_only("eig")


def solve(A, b, dt=None):
    """``x = ti.solve(A, b)``: ``A @ x = b`` for a 2x2 or 3x3 ``A``, by Gaussian
    elimination with partial pivoting."""
    raise _kernel_only("solve")
