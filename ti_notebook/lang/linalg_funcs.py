"""Small-matrix decompositions written in the kernel language (``ti.func``\\ s).

``ti.svd``, ``ti.polar_decompose``, ``ti.sym_eig``, ``ti.eig`` and ``ti.solve`` check
their arguments where the kernel calls them (``frontend/decompositions.py``), cast the
matrix to the working float type ``dt`` and inline one of these functions. They follow
Taichi 1.7's conventions (``taichi/_funcs.py``):

- ``polar2(A, dt)`` -> ``(R, P)``, ``A = R @ P``, ``R`` orthogonal (a reflection when
  ``det(A) < 0``), ``P`` symmetric positive semi-definite; ``polar3`` is ``U @ V.T,
  V @ S @ V.T`` from the SVD, so ``R`` is a rotation.
- ``svd2(A, dt)`` -> ``(U, S, V)``, ``A = U @ S @ V.T``, ``S`` diagonal with
  ``S[0, 0] >= S[1, 1] >= 0``, ``V`` a rotation; ``svd3`` makes ``U`` and ``V``
  rotations and sorts ``|S|`` descending, so only ``S[2, 2]`` may be negative.
- ``sym_eig2`` gives the eigenvalues of a symmetric matrix descending, ``sym_eig3``
  ascending (Taichi's orders), eigenvectors as the columns of an orthonormal matrix.
- ``eig2`` gives a real 2x2 matrix's eigenvalues as rows ``[re, im]`` of a 2x2 matrix and
  its eigenvectors as the columns of a 4x2 matrix ``[re0, im0, re1, im1]``.

The 3x3 SVD and symmetric eigensolver are cyclic Jacobi rotations (exact ones, a fixed
number of sweeps: quadratic convergence reaches the float type's precision), the SVD
then a Givens QR of ``A @ V`` for ``U`` and the signed singular values, as in McAdams et
al., "Computing the SVD of 3x3 matrices with minimal branching" (the algorithm behind
Taichi's), then a 2x2 SVD of R's lower corner, which keeps small singular values
accurate when A is ill-conditioned. Where Taichi's 2x2 code divides by zero (a diagonal
input to ``sym_eig``) these pick the other column of the rank-one matrix instead.

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> @ti.kernel
    ... def largest() -> ti.f32:
    ...     U, S, V = ti.svd(ti.Matrix([[3.0, 0.0], [4.0, 5.0]]))
    ...     return S[0, 0] * S[1, 1]  # |det|
    >>> round(largest(), 4)
    15.0
"""

from __future__ import annotations

from ti_notebook.lang import ops
from ti_notebook.lang.func import func
from ti_notebook.lang.matrix import Matrix, Vector
from ti_notebook.lang.ndarray import template
from ti_notebook.lang.types import DataType

# A rotation is skipped when the off-diagonal entry is this small against the diagonal:
# far below either float type's precision, and it keeps theta**2 finite in f32.
NEGLIGIBLE = 1e-18
SWEEPS_F32, SWEEPS_F64 = 4, 6  # Jacobi sweeps over the three pairs


def jacobi_sweeps(dt: DataType) -> int:
    """How many Jacobi sweeps reach ``dt``'s precision (run while compiling).

    >>> from ti_notebook.lang.types import f64
    >>> jacobi_sweeps(f64)
    6
    """
    return SWEEPS_F32 if dt.bits <= 32 else SWEEPS_F64


# The 2x2 SVD leaves the symmetric factor as it is when its off-diagonal entry is below
# this fraction of its diagonal, as Taichi's does below 1e-5 (absolute): rotating by
# the angle of such an entry moves the singular values by no more than it, but its
# rounding (c * c != 1/2 for a 45-degree turn) puts ulp-sized noise into U @ V.T and
# det(S), which MPM's stress multiplies by the stiffness (an F near I made C 500x
# larger than Taichi's). Relative, so a scaled matrix is decomposed the same way.
SKIP_ROTATION_F32, SKIP_ROTATION_F64 = 1e-5, 1e-12


def skip_rotation_below(dt: DataType) -> float:
    """The relative size of an off-diagonal entry the 2x2 SVD treats as zero.

    >>> from ti_notebook.lang.types import f32
    >>> skip_rotation_below(f32)
    1e-05
    """
    return SKIP_ROTATION_F32 if dt.bits <= 32 else SKIP_ROTATION_F64


# -- 2x2 -----------------------------------------------------------------------------------
@func
def polar2(A, dt):
    det = A[0, 0] * A[1, 1] - A[1, 0] * A[0, 1]
    # B is A's rotation (det >= 0) or reflection (det < 0) part, scaled; it is zero only
    # when A is, and then (I, A) is the decomposition
    B = Matrix([[A[0, 0] + A[1, 1], A[0, 1] - A[1, 0]], [A[1, 0] - A[0, 1], A[1, 1] + A[0, 0]]])
    if det < 0:
        B = Matrix([[A[0, 0] - A[1, 1], A[0, 1] + A[1, 0]], [A[1, 0] + A[0, 1], A[1, 1] - A[0, 0]]])
    det_b = ops.abs(B[0, 0] * B[1, 1] - B[1, 0] * B[0, 1])
    R = Matrix.identity(dt, 2)
    P = A
    if det_b > 0:
        k = ops.cast(1.0, dt) / ops.sqrt(det_b)
        R = B * k
        P = (A.transpose() @ A + ops.abs(det) * Matrix.identity(dt, 2)) * k
    return R, P


@func
def svd2(A, dt):
    R, S = polar2(A, dt)
    c = ops.cast(1.0, dt)
    s = ops.cast(0.0, dt)
    s1 = S[0, 0]
    s2 = S[1, 1]
    size = ops.max(ops.abs(S[0, 0]), ops.abs(S[1, 1]))
    if ops.abs(S[0, 1]) > skip_rotation_below(dt) * size:  # S = V diag(s1, s2) V.T
        tau = ops.cast(0.5, dt) * (S[0, 0] - S[1, 1])
        w = ops.sqrt(tau * tau + S[0, 1] * S[0, 1])
        denominator = tau - w  # the larger in magnitude: no cancellation
        if tau > 0:
            denominator = tau + w
        t = S[0, 1] / denominator
        c = 1 / ops.sqrt(t * t + 1)
        s = -t * c
        s1 = c * c * S[0, 0] - 2 * c * s * S[0, 1] + s * s * S[1, 1]
        s2 = s * s * S[0, 0] + 2 * c * s * S[0, 1] + c * c * S[1, 1]
    V = Matrix([[c, s], [-s, c]], dt)
    if s1 < s2:
        s1, s2 = s2, s1
        V = Matrix([[-s, c], [-c, -s]], dt)
    return R @ V, Matrix([[s1, 0], [0, s2]], dt), V


@func
def _eigenvector2(M, dt):
    """A unit vector spanning the columns of the rank <= 1 matrix ``M`` ((1, 0) if
    ``M`` is zero): the larger column, so a zero column does not divide by zero."""
    v = Vector([M[0, 0], M[1, 0]], dt)
    if M[0, 1] * M[0, 1] + M[1, 1] * M[1, 1] > v.norm_sqr():
        v = Vector([M[0, 1], M[1, 1]], dt)
    length = v.norm()
    result = Vector([1.0, 0.0], dt)
    if length > 0:
        result = v / length
    return result


@func
def sym_eig2(A, dt):
    tr = A[0, 0] + A[1, 1]
    half_diff = ops.cast(0.5, dt) * (A[0, 0] - A[1, 1])
    root = ops.sqrt(half_diff * half_diff + A[0, 1] * A[1, 0])  # >= 0 for symmetric A
    lambda1 = ops.cast(0.5, dt) * tr + root
    lambda2 = ops.cast(0.5, dt) * tr - root
    v1 = _eigenvector2(A - lambda2 * Matrix.identity(dt, 2), dt)
    return Vector([lambda1, lambda2], dt), Matrix([[v1[0], -v1[1]], [v1[1], v1[0]]], dt)


@func
def eig2(A, dt):
    tr = A[0, 0] + A[1, 1]
    det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    gap = tr * tr - 4 * det
    values = Matrix.zero(dt, 2, 2)
    vectors = Matrix.zero(dt, 4, 2)
    if gap >= 0:  # a repeated eigenvalue too: _eigenvector2 finds a nonzero column
        root = ops.sqrt(gap)
        lambda1 = ops.cast(0.5, dt) * (tr + root)
        lambda2 = ops.cast(0.5, dt) * (tr - root)
        v1 = _eigenvector2(A - lambda2 * Matrix.identity(dt, 2), dt)
        v2 = _eigenvector2(A - lambda1 * Matrix.identity(dt, 2), dt)
        values = Matrix([[lambda1, 0], [lambda2, 0]], dt)
        vectors = Matrix([[v1[0], v2[0]], [0, 0], [v1[1], v2[1]], [0, 0]], dt)
    else:  # a conjugate pair re +- i*im; A - conj(lambda) I's first column is lambda's vector
        re = ops.cast(0.5, dt) * tr
        im = ops.cast(0.5, dt) * ops.sqrt(-gap)
        values = Matrix([[re, im], [re, -im]], dt)
        v1 = Vector([A[0, 0] - re, im, A[1, 0], 0], dt)
        v2 = Vector([A[0, 0] - re, -im, A[1, 0], 0], dt)
        vectors = Matrix.cols([v1.normalized(), v2.normalized()])
    return values, vectors


# -- 3x3 ---------------------------------------------------------------------------------------
@func
def _jacobi_rotation(S, V, p: template(), q: template(), r: template(), dt):
    """One Jacobi rotation in the (p, q) plane (``r`` the third axis) zeroing ``S[p, q]``
    of the symmetric ``S``, applied to ``S`` and accumulated into ``V``."""
    apq = S[p, q]
    if ops.abs(apq) > NEGLIGIBLE * (ops.abs(S[p, p]) + ops.abs(S[q, q])):
        theta = (S[q, q] - S[p, p]) / (2 * apq)
        root = ops.sqrt(theta * theta + 1)
        denominator = theta - root  # the larger in magnitude: no cancellation
        if theta >= 0:
            denominator = theta + root
        t = 1 / denominator
        c = 1 / ops.sqrt(t * t + 1)
        s = t * c
        arp = S[r, p]
        arq = S[r, q]
        S[p, p] = S[p, p] - t * apq
        S[q, q] = S[q, q] + t * apq
        S[p, q] = ops.cast(0.0, dt)
        S[q, p] = ops.cast(0.0, dt)
        S[r, p] = c * arp - s * arq
        S[p, r] = S[r, p]
        S[r, q] = s * arp + c * arq
        S[q, r] = S[r, q]
        for k in ops.static(range(3)):
            vkp = V[k, p]
            V[k, p] = c * vkp - s * V[k, q]
            V[k, q] = s * vkp + c * V[k, q]
    return S, V


@func
def _jacobi_eigen3(S, dt):
    """``S`` (symmetric) diagonalised: ``(D, V)`` with ``S = V @ D @ V.T``, V a rotation."""
    V = Matrix.identity(dt, 3)
    sweep = 0
    while sweep < jacobi_sweeps(dt):
        S, V = _jacobi_rotation(S, V, 0, 1, 2, dt)
        S, V = _jacobi_rotation(S, V, 0, 2, 1, dt)
        S, V = _jacobi_rotation(S, V, 1, 2, 0, dt)
        sweep += 1
    return S, V


@func
def _swap_columns(values, V, i: template(), j: template(), descending: template()):
    """Orders ``values[i]``/``values[j]``, swapping V's columns with them; one column is
    negated so V stays a rotation."""
    out_of_order = values[j] < values[i]
    if ops.static(descending):
        out_of_order = values[j] > values[i]
    if out_of_order:
        values[i], values[j] = values[j], values[i]
        for k in ops.static(range(3)):
            V[k, i], V[k, j] = -V[k, j], V[k, i]
    return values, V


@func
def _sorted3(values, V, descending: template()):
    values, V = _swap_columns(values, V, 0, 1, descending)
    values, V = _swap_columns(values, V, 0, 2, descending)
    values, V = _swap_columns(values, V, 1, 2, descending)
    return values, V


@func
def sym_eig3(A, dt):
    D, V = _jacobi_eigen3(A, dt)
    values, V = _sorted3(Vector([D[0, 0], D[1, 1], D[2, 2]], dt), V, False)
    return values, V


@func
def _givens(B, U, p: template(), q: template(), dt):
    """Zeros ``B[q, p]`` by a rotation of rows p and q, with ``r = B[p, p] >= 0``; the
    rotation's transpose is accumulated into ``U``."""
    a = B[p, p]
    b = B[q, p]
    r = ops.sqrt(a * a + b * b)
    if r > 0:
        c = a / r
        s = b / r
        for k in ops.static(range(3)):
            bpk = B[p, k]
            B[p, k] = c * bpk + s * B[q, k]
            B[q, k] = -s * bpk + c * B[q, k]
            upk = U[k, p]
            U[k, p] = c * upk + s * U[k, q]
            U[k, q] = -s * upk + c * U[k, q]
        B[q, p] = ops.cast(0.0, dt)
    return B, U


@func
def svd3(A, dt):
    D, V = _jacobi_eigen3(A.transpose() @ A, dt)
    squares, V = _sorted3(Vector([D[0, 0], D[1, 1], D[2, 2]], dt), V, True)
    B = A @ V  # columns U[:, k] * sigma_k, up to rounding: its QR gives U and sigma
    U = Matrix.identity(dt, 3)
    B, U = _givens(B, U, 0, 1, dt)
    B, U = _givens(B, U, 0, 2, dt)
    B, U = _givens(B, U, 1, 2, dt)
    # When sigma_2 and sigma_3 are below sqrt(eps) * sigma_1, A.T @ A cannot tell their
    # vectors apart and B[1, 2] stays: a 2x2 SVD of that corner finishes the job.
    U2, S2, V2 = svd2(Matrix([[B[1, 1], B[1, 2]], [B[2, 1], B[2, 2]]]), dt)
    if U2.determinant() < 0:  # keep U a rotation: the sign goes to sigma_3
        U2[0, 1] = -U2[0, 1]
        U2[1, 1] = -U2[1, 1]
        S2[1, 1] = -S2[1, 1]
    for k in ops.static(range(3)):
        u1, u2 = U[k, 1], U[k, 2]
        U[k, 1] = u1 * U2[0, 0] + u2 * U2[1, 0]
        U[k, 2] = u1 * U2[0, 1] + u2 * U2[1, 1]
        v1, v2 = V[k, 1], V[k, 2]
        V[k, 1] = v1 * V2[0, 0] + v2 * V2[1, 0]
        V[k, 2] = v1 * V2[0, 1] + v2 * V2[1, 1]
    return U, Matrix([[B[0, 0], 0, 0], [0, S2[0, 0], 0], [0, 0, S2[1, 1]]], dt), V


@func
def polar3(A, dt):
    U, S, V = svd3(A, dt)
    return U @ V.transpose(), V @ S @ V.transpose()


# -- linear systems ----------------------------------------------------------------------------
@func
def solve(A, b, dt):
    """``x`` with ``A @ x = b``: Gaussian elimination with partial pivoting."""
    n = ops.static(A.n)  # a compile-time name
    Ab = Matrix.zero(dt, n, n + 1)
    for i in ops.static(range(n)):
        for j in ops.static(range(n)):
            Ab[i, j] = A[i, j]
        Ab[i, n] = b[i]
    for i in ops.static(range(n)):
        for j in ops.static(range(i + 1, n)):  # the largest pivot ends in row i
            if ops.abs(Ab[j, i]) > ops.abs(Ab[i, i]):
                for col in ops.static(range(n + 1)):
                    Ab[i, col], Ab[j, col] = Ab[j, col], Ab[i, col]
        assert Ab[i, i] != 0, "the matrix is singular in ti.solve"
        for j in ops.static(range(i + 1, n)):
            scale = Ab[j, i] / Ab[i, i]
            for col in ops.static(range(i, n + 1)):
                Ab[j, col] -= scale * Ab[i, col]
    x = Vector.zero(dt, n)
    for i in ops.static(range(n - 1, -1, -1)):
        total = Ab[i, n]
        for k in ops.static(range(i + 1, n)):
            total -= Ab[i, k] * x[k]
        x[i] = total / Ab[i, i]
    return x
