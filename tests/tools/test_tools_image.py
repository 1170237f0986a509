"""ti.tools.imwrite / imread / imresize / imshow: orientation, pixel types, round trips."""

import numpy as np
import pytest
from PIL import Image

import ti_notebook as ti
from ti_notebook.errors import TiOSError, TiTypeError, TiValueError
from ti_notebook.tools import image as image_module
from ti_notebook.tools.image import to_image_bytes

pytestmark = pytest.mark.unit


def _file_rows(path):
    """The file's pixels as Pillow reads them: rows top to bottom."""
    with Image.open(path) as img:
        return np.asarray(img)


@pytest.mark.cpu
def test_pixel_x1_y0_of_a_vector_field_is_in_the_bottom_row(tmp_path):
    img = ti.Vector.field(3, ti.f32, shape=(4, 3))
    img[1, 0] = ti.Vector([1.0, 0.0, 0.0])
    img[3, 2] = ti.Vector([0.0, 0.0, 1.0])  # top-right
    path = tmp_path / "v.png"
    ti.tools.imwrite(img, str(path))
    rows = _file_rows(path)
    assert rows.shape == (3, 4, 3)  # height rows of width pixels
    assert rows[2, 1].tolist() == [255, 0, 0]  # the last row is y = 0
    assert rows[0, 3].tolist() == [0, 0, 255]
    assert int(rows.sum()) == 2 * 255


@pytest.mark.cpu
def test_a_scalar_field_is_a_greyscale_file(tmp_path):
    img = ti.field(ti.u8, shape=(3, 2))
    img[1, 0] = 200
    path = tmp_path / "g.png"
    ti.tools.imwrite(img, str(path))
    with Image.open(path) as file:
        assert file.mode == "L"
    assert _file_rows(path).tolist() == [[0, 0, 0], [0, 200, 0]]


@pytest.mark.cpu
def test_an_f64_field_round_trips_through_png(tmp_path):
    img = ti.field(ti.f64, shape=(5, 4, 3))
    values = np.random.default_rng(0).integers(0, 256, (5, 4, 3)) / 255.0
    img.from_numpy(values)
    ti.tools.imwrite(img, str(tmp_path / "f.png"))
    back = ti.tools.imread(str(tmp_path / "f.png"))
    # x * 255 truncated: 255 * (k / 255) may land just under k
    assert np.abs(back.astype(int) - np.round(values * 255)).max() <= 1


def test_imread_gives_x_y_with_y_up(tmp_path):
    rows = np.zeros((2, 3, 3), np.uint8)  # a file 3 wide, 2 high
    rows[0, 2] = (10, 20, 30)  # top-right pixel: x = 2, y = 1
    Image.fromarray(rows).save(tmp_path / "r.png")
    img = ti.tools.imread(str(tmp_path / "r.png"))
    assert img.shape == (3, 2, 3) and img.dtype == np.uint8
    assert img[2, 1].tolist() == [10, 20, 30]
    assert int(img.sum()) == 60


# BMP files have no alpha, as Taichi writes them (see the next test)
@pytest.mark.parametrize(
    "ext, shape",
    [
        ("png", (7, 5, 3)),
        ("png", (7, 5, 4)),
        ("png", (6, 9, 1)),
        ("bmp", (7, 5, 3)),
        ("bmp", (6, 9, 1)),
    ],
)
def test_byte_images_round_trip_exactly(tmp_path, ext, shape):
    img = np.random.default_rng(1).integers(0, 256, shape).astype(np.uint8)
    path = str(tmp_path / f"i.{ext}")
    ti.tools.imwrite(img, path)
    back = ti.tools.imread(path)
    channels = 3 if ext == "bmp" else shape[2]  # BMP files are 24-bit, grey too
    assert back.shape == shape[:2] + (channels,)
    assert (back == img).all()


def test_a_2d_array_reads_back_as_one_channel(tmp_path):
    img = np.arange(12, dtype=np.uint8).reshape(4, 3) * 20
    ti.tools.imwrite(img, str(tmp_path / "g.png"))
    assert (ti.tools.imread(str(tmp_path / "g.png"))[:, :, 0] == img).all()


def test_bmp_and_jpg_drop_alpha_and_jpg_is_close(tmp_path):
    rgba = np.zeros((16, 16, 4), np.uint8)
    rgba[..., 0] = 200
    rgba[..., 3] = 10
    ti.tools.imwrite(rgba, str(tmp_path / "a.bmp"))
    assert (ti.tools.imread(str(tmp_path / "a.bmp")) == rgba[..., :3]).all()
    smooth = np.add.outer(np.arange(16), np.arange(16)).astype(np.uint8)[:, :, None] * 8
    ti.tools.imwrite(np.repeat(smooth, 3, axis=2), str(tmp_path / "s.jpg"))
    back = ti.tools.imread(str(tmp_path / "s.jpg"))
    assert back.shape == (16, 16, 3)
    assert np.abs(back.astype(int) - smooth).mean() < 2  # quality 95
    ti.tools.imwrite(rgba, str(tmp_path / "a.JPEG"))  # the extension in any case
    assert ti.tools.imread(str(tmp_path / "a.JPEG")).shape == (16, 16, 3)


def test_float_pixels_are_clipped_and_scaled_by_255_truncated():
    img = np.array([[0.0, 0.5, 1.0, 2.0, -1.0, np.nan, 0.999]], np.float32).T  # (7, 1)
    assert to_image_bytes(img)[0, :, 0].tolist() == [0, 127, 255, 255, 0, 0, 254]
    assert to_image_bytes(img.astype(np.float16))[0, :, 0].tolist()[:4] == [0, 127, 255, 255]
    assert ti.tools.image.cook_image_to_bytes is to_image_bytes  # Taichi's name


@pytest.mark.parametrize(
    "dtype, values, expected",
    [
        (np.uint8, [0, 7, 255], [0, 7, 255]),
        # divided by max // 256 = 255 (Taichi's scale), the top values clamped to 255
        (np.uint16, [0, 254, 255, 25600, 65279, 65280, 65535], [0, 0, 1, 100, 255, 255, 255]),
        (np.uint32, [2**31, 2**32 - 1, 16777215 * 3], [128, 255, 3]),
        (np.uint64, [2**63, 2**64 - 1], [128, 255]),
    ],
)
def test_unsigned_pixels_are_scaled_to_bytes(dtype, values, expected):
    img = np.array([values], dtype).T
    assert to_image_bytes(img)[0, :, 0].tolist() == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.bool_, np.complex64])
def test_other_pixel_types_are_a_type_error_that_says_which_work(dtype, tmp_path):
    with pytest.raises(TiTypeError, match=f"pixels of type {np.dtype(dtype)} cannot") as info:
        ti.tools.imwrite(np.zeros((2, 2), dtype), str(tmp_path / "x.png"))
    assert "u8" in info.value.hint and "f32" in info.value.hint
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("shape", [(4,), (4, 4, 2), (4, 4, 5), (2, 2, 2, 3), (0, 4, 3)])
def test_shapes_that_are_not_images_are_errors(shape, tmp_path):
    with pytest.raises(TiValueError, match=r"ti.tools.imwrite: .*shape") as info:
        ti.tools.imwrite(np.zeros(shape, np.uint8), str(tmp_path / "x.png"))
    assert str(shape) in str(info.value)


def test_what_is_not_an_image_is_a_type_error(tmp_path):
    with pytest.raises(TiTypeError, match="expected a field, a vector field or a NumPy array"):
        ti.tools.imwrite([[0, 1], [1, 0]], str(tmp_path / "x.png"))


def test_file_errors(tmp_path):
    img = np.zeros((2, 2), np.uint8)
    with pytest.raises(TiValueError, match="image format of 'x.tiff'") as info:
        ti.tools.imwrite(img, "x.tiff")
    assert ".png, .jpg, .jpeg, .bmp" in info.value.hint
    with pytest.raises(TiOSError, match="cannot write") as info:
        ti.tools.imwrite(img, str(tmp_path / "no" / "x.png"))
    assert isinstance(info.value, OSError)
    with pytest.raises(TiOSError, match="cannot read"):
        ti.tools.imread(str(tmp_path / "missing.png"))
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(TiOSError, match="not an image file"):
        ti.tools.imread(str(tmp_path / "text.png"))
    with pytest.raises(TiValueError, match="channels=5"):
        ti.tools.imread(str(tmp_path / "text.png"), channels=5)


def test_imread_converts_to_the_channels_asked_for(tmp_path):
    red = np.zeros((2, 2, 3), np.uint8)
    red[..., 0] = 255
    ti.tools.imwrite(red, str(tmp_path / "red.png"))
    path = str(tmp_path / "red.png")
    # grey = (299 R + 587 G + 114 B) / 1000, rounded down: 76 for pure red
    assert ti.tools.imread(path, 1)[..., 0].tolist() == [[76, 76], [76, 76]]
    assert ti.tools.imread(path, 2)[0, 0].tolist() == [76, 255]
    assert ti.tools.imread(path, 4)[0, 0].tolist() == [255, 0, 0, 255]
    grey = np.full((2, 2), 9, np.uint8)
    ti.tools.imwrite(grey, str(tmp_path / "g.png"))
    assert ti.tools.imread(str(tmp_path / "g.png"), 3)[1, 1].tolist() == [9, 9, 9]


def test_imread_keeps_the_top_byte_of_16_bit_files(tmp_path):
    rows = np.array([[0, 256 * 7 + 200, 65535]], np.uint16)
    Image.fromarray(rows).save(tmp_path / "deep.png")
    img = ti.tools.imread(str(tmp_path / "deep.png"))
    assert img[:, 0, 0].tolist() == [0, 7, 255]


def _taichi_imresize(img, w, h):
    """Taichi 1.7's own formula (tools/image.py), for comparison."""
    u, v = img.shape[0] / w, img.shape[1] / h
    x = np.clip(np.arange(w) * u, 0, img.shape[0] - 1).astype(np.int32)
    y = np.clip(np.arange(h) * v, 0, img.shape[1] - 1).astype(np.int32)
    return img[tuple(np.meshgrid(x, y))].swapaxes(0, 1)


@pytest.mark.parametrize("size", [(3, 3), (10, 4), (2, 9), (17, 5)])
def test_imresize_samples_like_taichi(size):
    img = np.random.default_rng(2).random((7, 5, 3))
    out = ti.tools.imresize(img, *size)
    assert out.shape == size + (3,)
    assert (out == _taichi_imresize(img, *size)).all()


def test_imresize_hand_values_and_defaults():
    img = np.array([[1, 2], [3, 4]])
    assert ti.tools.imresize(img, 4).tolist() == [
        [1, 1, 2, 2],
        [1, 1, 2, 2],
        [3, 3, 4, 4],
        [3, 3, 4, 4],
    ]
    assert ti.tools.imresize(img, 2) is img  # already that size
    assert ti.tools.imresize(np.arange(8).reshape(4, 2), 2, 2).tolist() == [[0, 1], [4, 5]]


@pytest.mark.parametrize("w, h", [(1, 4), (4, 0), (2.5, 4), (4, "8"), (True, 4)])
def test_imresize_refuses_sizes_that_are_not_whole_numbers_of_two_or_more(w, h):
    with pytest.raises(TiValueError, match="is not a size of at least 2 pixels"):
        ti.tools.imresize(np.zeros((4, 4)), w, h)


def test_imshow_outside_ipython_warns_once_and_points_to_imwrite(monkeypatch):
    monkeypatch.setattr(image_module, "_warned_no_window", False)
    monkeypatch.setattr(image_module, "_ipython_shell", lambda: None)
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.warns(UserWarning, match=r"ti.tools.imshow\('first'\): .*no GUI window") as rec:
        ti.tools.imshow(img, "first")
    assert "ti.tools.imwrite" in str(rec[0].message)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ti.tools.imshow(img, "second")  # no second warning
    with pytest.raises(TiTypeError):  # misuse is still an error without a window
        ti.tools.imshow(np.zeros((4, 4), np.int32))


def test_imshow_in_ipython_displays_a_png_with_the_image(monkeypatch):
    import io

    import IPython.display

    shown = []
    monkeypatch.setattr(image_module, "_ipython_shell", lambda: object())
    monkeypatch.setattr(IPython.display, "display", shown.append)
    img = np.zeros((3, 2, 3), np.uint8)
    img[1, 0] = (0, 255, 0)
    ti.tools.imshow(img, "inline")
    (picture,) = shown
    assert isinstance(picture, IPython.display.Image) and picture.format == "png"
    with Image.open(io.BytesIO(picture.data)) as png:
        rows = np.asarray(png)
    assert rows.shape == (2, 3, 3) and rows[1, 1].tolist() == [0, 255, 0]


def test_the_gui_image_io_example_flow(tmp_path):
    pixel = np.random.default_rng(5).integers(0, 256, (64, 32, 3)).astype(np.uint8)
    for ext in ["bmp", "png", "jpg"]:
        fn = str(tmp_path / f"taichi-example-random-img.{ext}")
        ti.tools.imwrite(pixel, fn)
        pixel_r = ti.tools.imread(fn)
        assert pixel_r.shape == pixel.shape
        if ext != "jpg":
            assert (pixel_r == pixel).all()


def test_file_names_may_be_paths_and_nothing_else(tmp_path):
    img = np.full((2, 2), 3, np.uint8)
    ti.tools.imwrite(img, tmp_path / "p.png")
    assert ti.tools.imread(tmp_path / "p.png")[0, 0, 0] == 3
    with pytest.raises(TiTypeError, match="ti.tools.imwrite: the file name 42 is not a str"):
        ti.tools.imwrite(img, 42)
    with pytest.raises(TiTypeError, match="ti.tools.imread: the file name None"):
        ti.tools.imread(None)


def test_jpeg_keeps_full_resolution_colour(tmp_path):
    """As Taichi's writer at quality 95: no 4:2:0 chroma subsampling, so a noisy
    image's colours keep their spread (Pillow's default halves it to about 2/3)."""
    rng = np.random.default_rng(1)
    noise = rng.random((64, 64, 3)).astype(np.float32)
    path = str(tmp_path / "noise.jpg")
    ti.tools.imwrite(noise, path)
    back = ti.tools.imread(path).astype(np.float64)
    assert back.std() > 0.9 * (noise * 255).std()
