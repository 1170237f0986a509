"""Matrix-free Krylov solvers: the matrix is a kernel that computes ``A x``.

``LinearOperator(matvec)`` wraps a kernel ``matvec(x, Ax)`` over fields;
``MatrixFreeCG`` (symmetric positive definite) and ``MatrixFreeBICGSTAB`` (any
non-singular operator) solve ``A x = b`` in place in ``x``, with ti_notebook kernels
for every vector operation, so they run on every backend. Both take Taichi 1.7's
arguments and return whether they converged (``‖r‖ < tol``).

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> n = 8
    >>> b, x = ti.field(ti.f64, shape=n), ti.field(ti.f64, shape=n)
    >>> @ti.kernel
    ... def laplace(v: ti.template(), out: ti.template()):
    ...     for i in v:
    ...         out[i] = 2.0 * v[i]
    ...         if i > 0:
    ...             out[i] -= v[i - 1]
    ...         if i < n - 1:
    ...             out[i] -= v[i + 1]
    >>> b.fill(1.0)
    >>> ti.linalg.MatrixFreeCG(ti.linalg.LinearOperator(laplace), b, x, tol=1e-10)
    True
    >>> round(x[0], 6), round(x[3], 6)
    (4.0, 10.0)
"""

from __future__ import annotations

from math import sqrt

from ti_notebook.errors import TiRuntimeError, TiTypeError
from ti_notebook.lang import types
from ti_notebook.lang.data_oriented import data_oriented
from ti_notebook.lang.field import field
from ti_notebook.lang.ndarray import template
from ti_notebook.lang.ops import grouped
from ti_notebook.lang.snode import FieldsBuilder, axes
from ti_notebook.session.kernel import kernel

__all__ = ["LinearOperator", "MatrixFreeBICGSTAB", "MatrixFreeCG"]


@data_oriented
class LinearOperator:
    """``A`` given by a kernel ``matvec_kernel(x, Ax)`` that writes ``A x`` into ``Ax``.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def double(x: ti.template(), Ax: ti.template()):
    ...     for i in x:
    ...         Ax[i] = 2 * x[i]
    >>> x, y = ti.field(ti.f32, shape=3), ti.field(ti.f32, shape=3)
    >>> x.fill(1)
    >>> ti.linalg.LinearOperator(double).matvec(x, y)
    >>> y.to_numpy().tolist()
    [2.0, 2.0, 2.0]
    """

    def __init__(self, matvec_kernel) -> None:
        self._matvec = matvec_kernel

    def matvec(self, x, Ax) -> None:
        """``Ax = A x``; the two must have one shape."""
        if x.shape != Ax.shape:
            raise TiRuntimeError(
                f"LinearOperator.matvec: dimension mismatch x.shape{x.shape} != Ax.shape{Ax.shape}"
            )
        self._matvec(x, Ax)


def _setup(name: str, b, x, vectors: int, scalars: int):
    """Checks ``b`` and ``x``; allocates work fields shaped like them (two trees, which
    the caller destroys)."""
    if b.dtype is not x.dtype:
        raise TiTypeError(f"{name}: dtype mismatch b.dtype({b.dtype}) != x.dtype({x.dtype})")
    if b.dtype not in (types.f32, types.f64):
        raise TiTypeError(f"{name}: b and x must be f32 or f64 fields, got {b.dtype}")
    if b.shape != x.shape:
        raise TiRuntimeError(f"{name}: dimension mismatch b.shape{b.shape} != x.shape{x.shape}")
    if not 1 <= len(b.shape) <= 3:
        raise TiRuntimeError(f"{name}: takes 1-D, 2-D or 3-D fields; b is {len(b.shape)}-D")
    dtype = b.dtype
    work = [field(dtype) for _ in range(vectors)]
    fb = FieldsBuilder()
    fb.dense(axes(*range(len(b.shape))), b.shape).place(*work)
    scalar = [field(dtype) for _ in range(scalars)]
    sb = FieldsBuilder()
    sb.place(*scalar)
    return dtype, work, scalar, (fb.finalize(), sb.finalize())


@kernel
def _reduce_f32(p: template(), q: template()) -> types.f32:
    result = types.f32(0.0)
    for idx in grouped(p):
        result += p[idx] * q[idx]
    return result


@kernel
def _reduce_f64(p: template(), q: template()) -> types.f64:
    result = types.f64(0.0)
    for idx in grouped(p):
        result += p[idx] * q[idx]
    return result


def _reduce_kernel(dtype):
    """The dot product of two fields of ``dtype``, summed in ``dtype``."""
    return _reduce_f64 if dtype is types.f64 else _reduce_f32


def MatrixFreeCG(
    A: LinearOperator, b, x, tol: float = 1e-6, maxiter: int = 5000, quiet: bool = True
) -> bool:
    """Conjugate gradient for ``A x = b``, ``x`` the initial guess and the result.

    Args:
        A: a :class:`LinearOperator` (symmetric positive definite).
        b: the right-hand side field.
        x: the initial guess; holds the solution afterwards.
        tol: converged when ``‖r‖ < tol``.
        maxiter: the most iterations.
        quiet: False prints the residual of each iteration.

    Returns whether it converged (see the module's example).
    """
    dtype, (p, r, Ap, Ax), (alpha, beta), trees = _setup("MatrixFreeCG", b, x, 4, 2)
    reduce = _reduce_kernel(dtype)

    @kernel
    def init():
        for idx in grouped(x):
            r[idx] = b[idx] - Ax[idx]
            p[idx] = 0.0
            Ap[idx] = 0.0

    @kernel
    def update_x():
        for idx in grouped(x):
            x[idx] += alpha[None] * p[idx]

    @kernel
    def update_r():
        for idx in grouped(r):
            r[idx] -= alpha[None] * Ap[idx]

    @kernel
    def update_p():
        for idx in grouped(p):
            p[idx] = r[idx] + beta[None] * p[idx]

    try:
        A._matvec(x, Ax)
        init()
        initial_rTr = reduce(r, r)
        if not quiet:
            print(f">>> Initial residual = {initial_rTr:e}")
        old_rTr = new_rTr = initial_rTr
        update_p()
        if sqrt(initial_rTr) >= tol:  # nothing to do when the guess is good enough
            for i in range(maxiter):
                A._matvec(p, Ap)
                alpha[None] = old_rTr / reduce(p, Ap)
                update_x()
                update_r()
                new_rTr = reduce(r, r)
                if sqrt(new_rTr) < tol:
                    if not quiet:
                        print(">>> Conjugate Gradient method converged.")
                        print(f">>> #iterations {i}")
                    break
                beta[None] = new_rTr / old_rTr
                update_p()
                old_rTr = new_rTr
                if not quiet:
                    print(f">>> Iter = {i + 1:4}, Residual = {sqrt(new_rTr):e}")
        # Taichi compares the squared residual here (the loop compares its root)
        succeeded = new_rTr < tol
        if not succeeded and not quiet:
            print(
                f">>> Conjugate Gradient method failed to converge in {maxiter} iterations: "
                f"Residual = {sqrt(new_rTr):e}"
            )
        return succeeded
    finally:
        for tree in trees:
            tree.destroy()


def MatrixFreeBICGSTAB(
    A: LinearOperator, b, x, tol: float = 1e-6, maxiter: int = 5000, quiet: bool = True
) -> bool:
    """BiCGSTAB for ``A x = b`` (any non-singular ``A``); arguments as
    :func:`MatrixFreeCG`. Returns whether it converged.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> b, x = ti.field(ti.f64, shape=4), ti.field(ti.f64, shape=4)
    >>> @ti.kernel
    ... def shift(v: ti.template(), out: ti.template()):
    ...     for i in v:
    ...         out[i] = 3.0 * v[i] + v[(i + 1) % 4]
    >>> b.fill(4.0)
    >>> ti.linalg.MatrixFreeBICGSTAB(ti.linalg.LinearOperator(shift), b, x, tol=1e-10)
    True
    >>> x.to_numpy().round(6).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    dtype, vectors, scalars, trees = _setup("MatrixFreeBICGSTAB", b, x, 10, 5)
    p, p_hat, r, r_tld, s, s_hat, t, Ap, Ax, Ashat = vectors
    alpha, beta, omega, rho, rho_1 = scalars
    reduce = _reduce_kernel(dtype)

    @kernel
    def init():
        for idx in grouped(x):
            r[idx] = b[idx] - Ax[idx]
            r_tld[idx] = b[idx]
            p[idx] = 0.0
            Ap[idx] = 0.0
            Ashat[idx] = 0.0
        rho[None] = 0.0
        rho_1[None] = 1.0
        alpha[None] = 1.0
        beta[None] = 1.0
        omega[None] = 1.0

    @kernel
    def copy(orig: template(), dest: template()):
        for idx in grouped(orig):
            dest[idx] = orig[idx]

    @kernel
    def update_p():
        for idx in grouped(p):
            p[idx] = r[idx] + beta[None] * (p[idx] - omega[None] * Ap[idx])

    @kernel
    def update_s():
        for idx in grouped(s):
            s[idx] = r[idx] - alpha[None] * Ap[idx]

    @kernel
    def update_x():
        for idx in grouped(x):
            x[idx] += alpha[None] * p_hat[idx] + omega[None] * s_hat[idx]

    @kernel
    def update_r():
        for idx in grouped(r):
            r[idx] = s[idx] - omega[None] * t[idx]

    try:
        succeeded = True
        A._matvec(x, Ax)
        init()
        rTr = reduce(r, r)
        if not quiet:
            print(f">>> Initial residual = {rTr:e}")
        if sqrt(rTr) >= tol:
            for i in range(maxiter):
                rho[None] = reduce(r, r_tld)
                if rho[None] == 0.0:
                    if not quiet:
                        print(">>> BICGSTAB failed because r@r_tld = 0.")
                    succeeded = False
                    break
                if i == 0:
                    copy(r, p)
                else:
                    beta[None] = (rho[None] / rho_1[None]) * (alpha[None] / omega[None])
                    update_p()
                copy(p, p_hat)
                A._matvec(p, Ap)
                alpha[None] = rho[None] / reduce(r_tld, Ap)
                update_s()
                copy(s, s_hat)
                A._matvec(s_hat, Ashat)
                copy(Ashat, t)
                omega_upper, omega_lower = reduce(t, s), reduce(t, t)
                omega[None] = omega_upper / (omega_lower if omega_lower != 0.0 else 1e-16)
                update_x()
                update_r()
                rTr = reduce(r, r)
                if not quiet:
                    print(f">>> Iter = {i + 1:4}, Residual = {sqrt(rTr):e}")
                if sqrt(rTr) < tol:
                    if not quiet:
                        print(f">>> BICGSTAB method converged at #iterations {i}")
                    break
                rho_1[None] = rho[None]
        if rTr >= tol:
            if not quiet:
                print(
                    f">>> BICGSTAB failed to converge in {maxiter} iterations: "
                    f"Residual = {sqrt(rTr):e}"
                )
            succeeded = False
        return succeeded
    finally:
        for tree in trees:
            tree.destroy()
