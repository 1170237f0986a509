"""``ti.tools.PLYWriter``: point clouds and meshes as PLY files, binary or ASCII, as in Taichi.

A writer holds ``num_vertices`` vertices and ``num_faces`` faces of one kind (``"tri"``
or ``"quad"``). Each vertex or face property is a *channel*: a name, a PLY type and one
value per vertex (or face). Positions ``x y z`` are required; faces list their vertex
indices (a ``uchar`` count and ``int`` indices, the ``vertex_indices`` list that PLY
readers expect):

    >>> import os, tempfile
    >>> import numpy as np
    >>> import ti_notebook as ti
    >>> writer = ti.tools.PLYWriter(num_vertices=3, num_faces=1)
    >>> writer.add_vertex_pos(np.array([0.0, 1, 0]), np.array([0.0, 0, 1]), np.zeros(3))
    >>> writer.add_faces(np.array([0, 1, 2]))
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "triangle.ply")
    >>> writer.export_ascii(path)
    >>> with open(path) as file:
    ...     print(file.read())
    ply
    format ascii 1.0
    comment created by ti.tools.PLYWriter
    element vertex 3
    property float x
    property float y
    property float z
    element face 1
    property list uchar int vertex_indices
    end_header
    0.0 0.0 0.0
    1.0 0.0 0.0
    0.0 1.0 0.0
    3 0 1 2
    <BLANKLINE>
    >>> tmp.cleanup()

Binary files are little-endian on every machine (``format binary_little_endian``).
A channel with a type name PLY does not know is skipped with a warning, as Taichi does.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ti_notebook.errors import TiOSError, TiTypeError, TiValueError
from ti_notebook.tools.paths import file_path

# PLY's type names -> the little-endian NumPy types their values are stored as
PLY_TYPES = {
    "char": np.dtype("<i1"),
    "uchar": np.dtype("<u1"),
    "short": np.dtype("<i2"),
    "ushort": np.dtype("<u2"),
    "int": np.dtype("<i4"),
    "uint": np.dtype("<u4"),
    "float": np.dtype("<f4"),
    "double": np.dtype("<f8"),
}
FACE_TYPES = {"tri": 3, "quad": 4}
PLURALS = {"vertex": "vertices", "face": "faces"}

__all__ = ["PLYWriter"]


def _values(data: Any, caller: str) -> np.ndarray:
    """``data`` (an array, a list or a field) as a NumPy array of numbers."""
    to_numpy = getattr(data, "to_numpy", None)
    array = to_numpy() if callable(to_numpy) else np.asarray(data)
    if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TiTypeError(
            f"PLYWriter.{caller}: the values are of type {array.dtype}, not numbers",
            hint="pass a NumPy array of numbers, one per vertex or face",
        )
    return array


class _Channels:
    """The properties of one PLY element (``vertex`` or ``face``): names, types, values."""

    def __init__(self, element: str, count: int) -> None:
        self.element = element
        self.count = count
        self.keys: list[str] = []
        self.types: list[str] = []
        self.data: list[np.ndarray] = []

    def add(self, key: str, data_type: str, data: Any, caller: str) -> None:
        if data_type not in PLY_TYPES:
            warnings.warn(
                f"PLYWriter.{caller}: unknown PLY type {data_type!r} for the {self.element} "
                f"channel {key!r}, so the channel is skipped; the types are "
                f"{', '.join(PLY_TYPES)}",
                stacklevel=3,
            )
            return
        array = _values(data, caller)
        if array.ndim == 1 and array.size == self.count:
            columns = {key: array}
        elif array.ndim == 2 and array.shape[0] == self.count:
            columns = {f"{key}_{i + 1}": array[:, i] for i in range(array.shape[1])}
        else:
            raise TiValueError(
                f"PLYWriter.{caller}: the {self.element} channel {key!r} has values of shape "
                f"{array.shape}, but the writer has {self.count} {PLURALS[self.element]}",
                hint=f"pass {self.count} values, or a ({self.count}, k) array for k channels "
                f"named {key}_1 .. {key}_k",
            )
        for name, column in columns.items():
            if name in self.keys:
                warnings.warn(
                    f"PLYWriter.{caller}: the {self.element} channel {name!r} is added twice; "
                    "PLY readers may keep only one of them",
                    stacklevel=3,
                )
            self.keys.append(name)
            self.types.append(data_type)
            self.data.append(column.astype(PLY_TYPES[data_type]))

    def header_lines(self) -> list[str]:
        return [f"property {t} {k}" for t, k in zip(self.types, self.keys, strict=True)]

    def columns(self) -> list[tuple[str, np.ndarray]]:
        """(name, values) pairs, named by position: PLY allows repeated property names."""
        return [(f"c{i}", values) for i, values in enumerate(self.data)]


class PLYWriter:
    """Collects vertex and face channels and writes them as a ``.ply`` file.

    ``PLYWriter(num_vertices, num_faces=0, face_type="tri", comment=...)``; ``face_type``
    is ``"tri"`` (3 vertices a face) or ``"quad"`` (4). See the module's docstring for
    an example.
    """

    def __init__(
        self,
        num_vertices: int,
        num_faces: int = 0,
        face_type: str = "tri",
        comment: str = "created by ti.tools.PLYWriter",
    ) -> None:
        if isinstance(num_vertices, bool) or not isinstance(num_vertices, int | np.integer):
            raise TiTypeError(f"PLYWriter: num_vertices={num_vertices!r} is not a whole number")
        if num_vertices <= 0:
            raise TiValueError(
                f"PLYWriter: num_vertices={num_vertices}, but a PLY file needs at least one",
                hint="pass the number of points or mesh vertices, e.g. PLYWriter(100)",
            )
        if isinstance(num_faces, bool) or not isinstance(num_faces, int | np.integer):
            raise TiTypeError(f"PLYWriter: num_faces={num_faces!r} is not a whole number")
        if num_faces < 0:
            raise TiValueError(f"PLYWriter: num_faces={num_faces} is negative")
        if face_type not in FACE_TYPES:
            raise TiValueError(
                f"PLYWriter: face_type={face_type!r} is not a kind of face",
                hint='pass face_type="tri" (triangles) or "quad" (quadrilaterals)',
            )
        if "\n" in comment:
            raise TiValueError("PLYWriter: the comment must be one line")
        self.num_vertices = int(num_vertices)
        self.num_faces = int(num_faces)
        self.face_type = face_type
        self.comment = comment
        self.ply_supported_types = list(PLY_TYPES)
        self._vertices = _Channels("vertex", self.num_vertices)
        self._faces = _Channels("face", self.num_faces)
        # -1 marks faces not given yet; export refuses them
        self.face_indices = np.full((self.num_faces, FACE_TYPES[face_type]), -1, np.int32)

    # Taichi's attribute names, read by some user code
    vertex_channels = property(lambda self: self._vertices.keys)
    vertex_data_type = property(lambda self: self._vertices.types)
    vertex_data = property(lambda self: self._vertices.data)
    num_vertex_channels = property(lambda self: len(self._vertices.keys))
    face_channels = property(lambda self: self._faces.keys)
    face_data_type = property(lambda self: self._faces.types)
    face_data = property(lambda self: self._faces.data)
    num_face_channels = property(lambda self: len(self._faces.keys))

    def add_vertex_channel(self, key: str, data_type: str, data: Any) -> None:
        """Adds a vertex property ``key`` of PLY type ``data_type`` (``char uchar short
        ushort int uint float double``): ``num_vertices`` values, or a ``(num_vertices,
        k)`` array for ``k`` properties named ``key_1`` .. ``key_k``."""
        self._vertices.add(key, data_type, data, "add_vertex_channel")

    def add_vertex_pos(self, x: Any, y: Any, z: Any) -> None:
        """The vertices' positions (required), three arrays of ``num_vertices`` values."""
        for key, data in (("x", x), ("y", y), ("z", z)):
            self._vertices.add(key, "float", data, "add_vertex_pos")

    def add_vertex_normal(self, nx: Any, ny: Any, nz: Any) -> None:
        """Normals at the vertices: properties ``nx ny nz``."""
        for key, data in (("nx", nx), ("ny", ny), ("nz", nz)):
            self._vertices.add(key, "float", data, "add_vertex_normal")

    def add_vertex_vel(self, vx: Any, vy: Any, vz: Any) -> None:
        """Velocities at the vertices: properties ``vx vy vz``."""
        for key, data in (("vx", vx), ("vy", vy), ("vz", vz)):
            self._vertices.add(key, "float", data, "add_vertex_vel")

    def add_vertex_color(self, r: Any, g: Any, b: Any) -> None:
        """Colours at the vertices, floats in [0, 1]: properties ``red green blue``."""
        for key, data in (("red", r), ("green", g), ("blue", b)):
            self._vertices.add(key, "float", data, "add_vertex_color")

    def add_vertex_alpha(self, alpha: Any) -> None:
        """The colours' opacity, floats in [0, 1]: property ``Alpha``."""
        self._vertices.add("Alpha", "float", alpha, "add_vertex_alpha")

    def add_vertex_rgba(self, r: Any, g: Any, b: Any, a: Any) -> None:
        """:meth:`add_vertex_color` and :meth:`add_vertex_alpha` in one call."""
        for key, data in (("red", r), ("green", g), ("blue", b), ("Alpha", a)):
            self._vertices.add(key, "float", data, "add_vertex_rgba")

    def add_vertex_id(self) -> None:
        """Property ``id``: each vertex's index."""
        self._vertices.add("id", "int", np.arange(self.num_vertices), "add_vertex_id")

    def add_vertex_piece(self, piece: Any) -> None:
        """Property ``piece``: a group number per vertex (int)."""
        self._vertices.add("piece", "int", piece, "add_vertex_piece")

    def add_faces(self, indices: Any) -> None:
        """The faces' vertex indices: ``num_faces * 3`` (tri) or ``* 4`` (quad) of them,
        flat or shaped ``(num_faces, 3 or 4)``."""
        per_face = FACE_TYPES[self.face_type]
        array = _values(indices, "add_faces")
        if array.size != per_face * self.num_faces:
            raise TiValueError(
                f"PLYWriter.add_faces: {array.size} vertex indices for {self.num_faces} "
                f"{self.face_type} faces, which need {per_face * self.num_faces}",
                hint=f"pass {per_face} indices a face (face_type={self.face_type!r})",
            )
        self.face_indices = array.reshape(self.num_faces, per_face).astype(np.int32)

    def add_face_channel(self, key: str, data_type: str, data: Any) -> None:
        """Adds a face property, like :meth:`add_vertex_channel` (``num_faces`` values)."""
        self._faces.add(key, data_type, data, "add_face_channel")

    def add_face_id(self) -> None:
        """Property ``id``: each face's index."""
        self._faces.add("id", "int", np.arange(self.num_faces), "add_face_id")

    def add_face_piece(self, piece: Any) -> None:
        """Property ``piece``: a group number per face (int)."""
        self._faces.add("piece", "int", piece, "add_face_piece")

    def sanity_check(self) -> None:
        """Raises ``TiValueError`` when the positions are missing or a face index is not
        one of the vertices."""
        missing = [k for k in ("x", "y", "z") if k not in self._vertices.keys]
        if missing:
            raise TiValueError(
                f"PLYWriter: the vertex positions ({', '.join(missing)}) are missing",
                hint="call writer.add_vertex_pos(x, y, z) before exporting",
            )
        bad = np.nonzero(
            ((self.face_indices < 0) | (self.face_indices >= self.num_vertices)).any(axis=1)
        )[0]
        if bad.size:
            face = int(bad[0])
            raise TiValueError(
                f"PLYWriter: face {face} has vertex indices {self.face_indices[face].tolist()}, "
                f"not all in 0..{self.num_vertices - 1}",
                hint="call writer.add_faces(indices) with indices of existing vertices",
            )

    def _header(self, ply_format: str) -> str:
        lines = ["ply", f"format {ply_format} 1.0", f"comment {self.comment}"]
        lines += [f"element vertex {self.num_vertices}", *self._vertices.header_lines()]
        if self.num_faces:
            lines += [f"element face {self.num_faces}", "property list uchar int vertex_indices"]
            lines += self._faces.header_lines()
        return "\n".join([*lines, "end_header"]) + "\n"

    def _write(self, path: str, content: bytes) -> None:
        path = file_path(path, "PLYWriter.export")
        try:
            with open(path, "wb") as file:
                file.write(content)
        except OSError as error:
            raise TiOSError(
                f"PLYWriter: cannot write {path!r}: {error.strerror or error}",
                hint="check that the folder exists and is writable",
            ) from error

    def _records(self, channels: _Channels, prefix: list[tuple[str, np.ndarray]]) -> bytes:
        """One packed little-endian record per element, the columns in header order."""
        columns = prefix + channels.columns()
        dtype = np.dtype([(name, values.dtype, values.shape[1:]) for name, values in columns])
        records = np.empty(channels.count, dtype)
        for name, values in columns:
            records[name] = values
        return records.tobytes()

    def export(self, path: str) -> None:
        """Writes a binary (little-endian) PLY file to ``path``."""
        self.sanity_check()
        content = self._header("binary_little_endian").encode()
        content += self._records(self._vertices, [])
        if self.num_faces:
            count = np.full(self.num_faces, self.face_indices.shape[1], np.uint8)
            indices = [("n", count), ("indices", self.face_indices.astype("<i4"))]
            content += self._records(self._faces, indices)
        self._write(path, content)

    def export_ascii(self, path: str) -> None:
        """Writes an ASCII PLY file to ``path``: one line per vertex, then per face."""
        self.sanity_check()
        # str() of a NumPy scalar is the shortest text that reads back to the same value
        columns = [[str(v) for v in values] for values in self._vertices.data]
        lines = [" ".join(row) for row in zip(*columns, strict=True)]
        face_columns = [[str(v) for v in values] for values in self._faces.data]
        extras = list(zip(*face_columns, strict=True)) if face_columns else [()] * self.num_faces
        per_face = str(self.face_indices.shape[1])
        for face, extra in zip(self.face_indices.tolist(), extras, strict=True):
            lines.append(" ".join([per_face, *map(str, face), *extra]))
        self._write(path, (self._header("ascii") + "\n".join(lines) + "\n").encode())

    @staticmethod
    def _frame_path(series_num: int, path: str) -> str:
        path = file_path(path, "PLYWriter.export_frame")
        if isinstance(series_num, bool) or not isinstance(series_num, int | np.integer):
            raise TiTypeError(
                f"PLYWriter.export_frame: the frame number {series_num!r} is not a whole number"
            )
        return f"{path.removesuffix('.ply')}_{series_num:06d}.ply"

    def export_frame(self, series_num: int, path: str) -> str:
        """Writes frame ``series_num`` of a series, binary: ``prefix.ply`` becomes
        ``prefix_000012.ply``; returns that path."""
        real_path = self._frame_path(series_num, path)
        self.export(real_path)
        return real_path

    def export_frame_ascii(self, series_num: int, path: str) -> str:
        """:meth:`export_frame`, as an ASCII file."""
        real_path = self._frame_path(series_num, path)
        self.export_ascii(real_path)
        return real_path
