"""The 4x4 (and 2x2) transformation matrices of ``ti.math``, as Taichi's ``mathimpl``.

Homogeneous matrices of ``default_fp``: ``translate``, ``scale``, rotations by an axis
and an angle, by yaw/pitch/roll, by angles around x/y/z (``rotation3d``); and the 2x2
``rotation2d``. Each is a ``ti.pyfunc``, usable in kernels and from Python:

    >>> import ti_notebook as ti
    >>> ti.init(arch=ti.cpu)
    >>> (translate(1, 2, 3) @ ti.math.vec4(0, 0, 0, 1)).tolist()
    [1.0, 2.0, 3.0, 1.0]
    >>> [round(x, 6) for x in (rotation2d(ti.math.pi / 2) @ ti.math.vec2(1, 0)).tolist()]
    [0.0, 1.0]
"""

from __future__ import annotations

from ti_notebook.lang import ops
from ti_notebook.lang.func import pyfunc
from ti_notebook.math.glsl import mat2, mat4, normalize

__all__ = [
    "rot_by_axis",
    "rot_yaw_pitch_roll",
    "rotation2d",
    "rotation3d",
    "scale",
    "translate",
]


@pyfunc
def translate(dx, dy, dz):
    """The 4x4 matrix that moves a point by ``(dx, dy, dz)``."""
    return mat4(
        [
            [1.0, 0.0, 0.0, dx],
            [0.0, 1.0, 0.0, dy],
            [0.0, 0.0, 1.0, dz],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@pyfunc
def scale(sx, sy, sz):
    """The 4x4 matrix that scales by ``(sx, sy, sz)``."""
    return mat4(
        [
            [sx, 0.0, 0.0, 0.0],
            [0.0, sy, 0.0, 0.0],
            [0.0, 0.0, sz, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@pyfunc
def rot_by_axis(axis, ang):
    """The 4x4 rotation by ``ang`` radians around ``axis`` (normalised here), laid out
    as Taichi's."""
    c = ops.cos(ang)
    s = ops.sin(ang)
    axis = normalize(axis)
    temp = (1 - c) * axis
    return mat4(
        [
            [
                c + temp[0] * axis[0],
                temp[0] * axis[1] + s * axis[2],
                temp[0] * axis[2] - s * axis[1],
                0.0,
            ],
            [
                temp[1] * axis[0] - s * axis[2],
                c + temp[1] * axis[1],
                temp[1] * axis[2] + s * axis[0],
                0.0,
            ],
            [
                temp[2] * axis[0] + s * axis[1],
                temp[2] * axis[1] - s * axis[0],
                c + temp[2] * axis[2],
                0.0,
            ],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@pyfunc
def rot_yaw_pitch_roll(yaw, pitch, roll):
    """The 4x4 rotation by yaw, pitch and roll (radians), as Taichi's."""
    ch = ops.cos(yaw)
    sh = ops.sin(yaw)
    cp = ops.cos(pitch)
    sp = ops.sin(pitch)
    cb = ops.cos(roll)
    sb = ops.sin(roll)
    return mat4(
        [
            [ch * cb + sh * sp * sb, sb * cp, -sh * cb + ch * sp * sb, 0.0],
            [-ch * sb + sh * sp * cb, cb * cp, sb * sh + ch * sp * cb, 0.0],
            [sh * cp, -sp, ch * cp, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


@pyfunc
def rotation2d(ang):
    """The 2x2 rotation by ``ang`` radians, counter-clockwise."""
    ca = ops.cos(ang)
    sa = ops.sin(ang)
    return mat2([[ca, -sa], [sa, ca]])


@pyfunc
def rotation3d(ang_x, ang_y, ang_z):
    """The 4x4 rotation by angles (radians) around x, y and z, as Taichi's:
    ``rot_yaw_pitch_roll(ang_z, ang_x, ang_y)``."""
    return rot_yaw_pitch_roll(ang_z, ang_x, ang_y)
