"""ti.tools.PLYWriter: files an independent PLY reader parses back, binary and ASCII."""

import warnings

import numpy as np
import pytest
from ply_reader import read_ply

import ti_notebook as ti
from ti_notebook.errors import TiOSError, TiTypeError, TiValueError

pytestmark = pytest.mark.unit

ALLOWED = "char, uchar, short, ushort, int, uint, float, double"


def _quad_grid():
    """The 4 x 5 grid of Taichi's export_mesh example: 20 vertices, 12 quads."""
    x = np.zeros(20)
    y = np.array(list(np.arange(0, 4)) * 5, dtype=np.float64)
    z = np.repeat(np.arange(5), 4).astype(np.float64)
    indices = np.array([0, 1, 5, 4] * 12) + np.repeat(
        np.array(list(np.arange(0, 3)) * 4) + 4 * np.repeat(np.arange(4), 3), 4
    )
    return x, y, z, indices


def _mesh_writer():
    rng = np.random.default_rng(3)
    x, y, z, indices = _quad_grid()
    writer = ti.tools.PLYWriter(num_vertices=20, num_faces=12, face_type="quad")
    writer.add_vertex_pos(x, y, z)
    writer.add_faces(indices)
    vdata = rng.random(20)
    writer.add_vertex_channel("vdata1", "double", vdata)
    writer.add_vertex_rgba(rng.random(20), rng.random(20), rng.random(20), rng.random(20))
    writer.add_vertex_normal(np.ones(20), np.zeros(20), np.zeros(20))
    writer.add_vertex_vel(np.full(20, 0.5), np.zeros(20), -np.ones(20))
    writer.add_vertex_id()
    writer.add_vertex_piece(np.ones(20))  # floats, stored as int
    writer.add_vertex_channel("uv", "ushort", np.arange(40).reshape(20, 2))
    writer.add_face_id()
    writer.add_face_piece(np.full(12, 2.0))
    writer.add_face_channel("label", "char", -np.arange(12))
    return writer, vdata, indices


VERTEX_PROPERTIES = [
    ("x", "float"),
    ("y", "float"),
    ("z", "float"),
    ("vdata1", "double"),
    ("red", "float"),
    ("green", "float"),
    ("blue", "float"),
    ("Alpha", "float"),
    ("nx", "float"),
    ("ny", "float"),
    ("nz", "float"),
    ("vx", "float"),
    ("vy", "float"),
    ("vz", "float"),
    ("id", "int"),
    ("piece", "int"),
    ("uv_1", "ushort"),
    ("uv_2", "ushort"),
]


@pytest.mark.parametrize("ascii_file", [False, True], ids=["binary", "ascii"])
def test_a_mesh_reads_back_with_every_channel(tmp_path, ascii_file):
    writer, vdata, indices = _mesh_writer()
    path = tmp_path / "mesh.ply"
    (writer.export_ascii if ascii_file else writer.export)(str(path))
    header, data = read_ply(path)
    assert header["format"] == ("ascii" if ascii_file else "binary_little_endian")
    assert header["comments"] == ["created by ti.tools.PLYWriter"]
    vertex, face = header["elements"]
    assert vertex == ("vertex", 20, VERTEX_PROPERTIES)
    assert face == (
        "face",
        12,
        [
            ("vertex_indices", ("list", "uchar", "int")),
            ("id", "int"),
            ("piece", "int"),
            ("label", "char"),
        ],
    )
    x, y, z, _ = _quad_grid()
    v = data["vertex"]
    assert v["x"] == x.tolist() and v["y"] == y.tolist() and v["z"] == z.tolist()
    # doubles keep every bit; floats read back as the float32 value
    assert v["vdata1"] == vdata.tolist()
    assert v["vx"] == [0.5] * 20 and v["vz"] == [-1.0] * 20 and v["nx"] == [1.0] * 20
    assert v["id"] == list(range(20)) and v["piece"] == [1] * 20
    assert v["uv_1"] == list(range(0, 40, 2)) and v["uv_2"] == list(range(1, 40, 2))
    f = data["face"]
    assert f["vertex_indices"] == indices.reshape(12, 4).tolist()
    assert f["vertex_indices"][:2] == [[0, 1, 5, 4], [1, 2, 6, 5]]
    assert f["id"] == list(range(12)) and f["piece"] == [2] * 12
    assert f["label"] == [-i for i in range(12)]


def test_float_channels_read_back_as_float32_in_both_formats(tmp_path):
    values = np.array([0.1, 1 / 3, 1e-7, -2.5e6])
    writer = ti.tools.PLYWriter(4)
    writer.add_vertex_pos(values, values, values)
    writer.export(str(tmp_path / "b.ply"))
    writer.export_ascii(str(tmp_path / "a.ply"))
    expected = values.astype(np.float32).tolist()
    for name in ("a.ply", "b.ply"):
        _, data = read_ply(tmp_path / name)
        assert np.float32(data["vertex"]["x"]).tolist() == expected


def test_the_ascii_file_text(tmp_path):
    writer = ti.tools.PLYWriter(2, num_faces=0, comment="two points")
    writer.add_vertex_pos(np.array([0, 1.5]), np.array([2, 3]), np.array([-1, 0.25]))
    writer.add_vertex_channel("w", "uchar", np.array([7, 255]))
    writer.export_ascii(str(tmp_path / "p.ply"))
    assert (tmp_path / "p.ply").read_text().splitlines() == [
        "ply",
        "format ascii 1.0",
        "comment two points",
        "element vertex 2",
        "property float x",
        "property float y",
        "property float z",
        "property uchar w",
        "end_header",
        "0.0 2.0 -1.0 7",
        "1.5 3.0 0.25 255",
    ]
    # one record of 3 floats and a byte per vertex, no face element
    writer.export(str(tmp_path / "p_bin.ply"))
    raw = (tmp_path / "p_bin.ply").read_bytes()
    body = raw[raw.index(b"end_header\n") + 11 :]
    assert len(body) == 2 * 13
    assert b"element face" not in raw


@pytest.mark.cpu
def test_channels_accept_fields_and_lists(tmp_path):
    pos = ti.Vector.field(3, ti.f32, shape=4)
    pos.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    writer = ti.tools.PLYWriter(4)
    writer.add_vertex_channel("p", "float", pos)  # (4, 3): p_1, p_2, p_3
    writer.add_vertex_pos([0, 1, 2, 3], [0, 0, 0, 0], [1, 1, 1, 1])
    writer.export(str(tmp_path / "f.ply"))
    _, data = read_ply(tmp_path / "f.ply")
    assert data["vertex"]["p_2"] == [1.0, 4.0, 7.0, 10.0]
    assert data["vertex"]["x"] == [0.0, 1.0, 2.0, 3.0]


def test_frames_are_numbered_with_six_digits(tmp_path):
    writer = ti.tools.PLYWriter(1)
    writer.add_vertex_pos([0.0], [0.0], [0.0])
    assert writer.export_frame(3, str(tmp_path / "series.ply")) == str(
        tmp_path / "series_000003.ply"
    )
    writer.export_frame_ascii(12, str(tmp_path / "text"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["series_000003.ply", "text_000012.ply"]
    assert read_ply(tmp_path / "text_000012.ply")[0]["format"] == "ascii"
    assert read_ply(tmp_path / "series_000003.ply")[0]["format"] == "binary_little_endian"


def test_tri_faces(tmp_path):
    writer = ti.tools.PLYWriter(num_vertices=4, num_faces=2)
    writer.add_vertex_pos(np.arange(4.0), np.zeros(4), np.zeros(4))
    writer.add_faces(np.array([[0, 1, 2], [1, 2, 3]]))
    writer.export(str(tmp_path / "t.ply"))
    _, data = read_ply(tmp_path / "t.ply")
    assert data["face"]["vertex_indices"] == [[0, 1, 2], [1, 2, 3]]


def test_unknown_type_names_warn_with_the_allowed_ones_and_skip_the_channel(tmp_path):
    # Taichi skips such a channel with a message, and its export_mesh example relies on it
    writer = ti.tools.PLYWriter(num_vertices=3, num_faces=1)
    with pytest.warns(UserWarning, match="unknown PLY type 'float32'") as record:
        writer.add_vertex_channel("w", "float32", np.zeros(3))
    assert ALLOWED in str(record[0].message)
    with pytest.warns(UserWarning, match="face channel 'foo_key'"):
        writer.add_face_channel("foo_key", "foo_data_type", np.zeros(1))
    assert writer.vertex_channels == [] and writer.face_channels == []


def test_a_key_added_twice_warns():
    writer = ti.tools.PLYWriter(2)
    writer.add_vertex_id()
    with pytest.warns(UserWarning, match="'id' is added twice"):
        writer.add_vertex_id()
    assert writer.num_vertex_channels == 2


@pytest.mark.parametrize(
    "data, shape",
    [(np.zeros(4), r"\(4,\)"), (np.zeros((2, 3)), r"\(2, 3\)"), (np.zeros((3, 1, 1)), "")],
)
def test_a_channel_of_the_wrong_length_is_an_error(data, shape):
    writer = ti.tools.PLYWriter(3)
    with pytest.raises(TiValueError, match=f"'w' has values of shape {shape}") as info:
        writer.add_vertex_channel("w", "float", data)
    assert "but the writer has 3 vertices" in str(info.value)
    assert "pass 3 values" in str(info.value)


def test_channel_length_errors_name_the_method():
    writer = ti.tools.PLYWriter(3, num_faces=2)
    with pytest.raises(TiValueError, match="add_vertex_pos: the vertex channel 'y'"):
        writer.add_vertex_pos(np.zeros(3), np.zeros(2), np.zeros(3))
    with pytest.raises(TiValueError, match="add_face_piece: the face channel 'piece'"):
        writer.add_face_piece(np.zeros(3))
    with pytest.raises(TiTypeError, match="not numbers"):
        writer.add_vertex_channel("s", "int", np.array(["a", "b", "c"]))


def test_face_errors(tmp_path):
    writer = ti.tools.PLYWriter(4, num_faces=2, face_type="quad")
    with pytest.raises(TiValueError, match="7 vertex indices for 2 quad faces, which need 8"):
        writer.add_faces(np.arange(7))
    writer.add_vertex_pos(np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(TiValueError, match=r"face 0 has vertex indices \[-1, -1, -1, -1\]"):
        writer.export(str(tmp_path / "never.ply"))  # faces never given
    writer.add_faces(np.array([0, 1, 2, 3, 1, 2, 3, 4]))
    with pytest.raises(TiValueError, match=r"face 1 .* not all in 0..3") as info:
        writer.export_ascii(str(tmp_path / "never.ply"))
    assert "add_faces" in info.value.hint


def test_export_without_positions_says_to_add_them(tmp_path):
    writer = ti.tools.PLYWriter(2)
    writer.add_vertex_channel("x", "float", np.zeros(2))
    with pytest.raises(TiValueError, match=r"positions \(y, z\) are missing") as info:
        writer.export(str(tmp_path / "never.ply"))
    assert "add_vertex_pos" in str(info.value)


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((0,), TiValueError, "at least one"),
        ((-3,), TiValueError, "at least one"),
        ((2.5,), TiTypeError, "not a whole number"),
        ((3, -1), TiValueError, "num_faces=-1 is negative"),
        ((3, 1, "hex"), TiValueError, "face_type='hex'"),
        ((3, 0, "tri", "two\nlines"), TiValueError, "one line"),
    ],
)
def test_constructor_errors(args, error, message):
    with pytest.raises(error, match=message):
        ti.tools.PLYWriter(*args)


def test_an_unwritable_path_is_a_ti_os_error(tmp_path):
    writer = ti.tools.PLYWriter(1)
    writer.add_vertex_pos([0.0], [0.0], [0.0])
    with pytest.raises(TiOSError, match="cannot write"):
        writer.export(str(tmp_path / "missing" / "x.ply"))


def test_the_export_mesh_example_flow_runs_quietly_but_for_its_bad_type(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer, _, _ = _mesh_writer()
        writer.add_face_channel("foo_key", "foo_data_type", np.zeros(12))
        writer.export_frame(0, str(tmp_path / "example.ply"))
    assert [str(w.message).split(":")[0] for w in caught] == ["PLYWriter.add_face_channel"]


def test_paths_and_frame_numbers(tmp_path):
    writer = ti.tools.PLYWriter(1)
    writer.add_vertex_pos([0.0], [0.0], [0.0])
    writer.export(tmp_path / "p.ply")
    writer.export_frame_ascii(np.int64(2), tmp_path / "s.ply")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.ply", "s_000002.ply"]
    with pytest.raises(TiTypeError, match="frame number 1.5 is not a whole number"):
        writer.export_frame(1.5, str(tmp_path / "s.ply"))
    with pytest.raises(TiTypeError, match="PLYWriter.export: the file name 7"):
        writer.export(7)
