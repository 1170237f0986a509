"""ti.tools.VideoManager: PNG frames, a GIF made with Pillow, an MP4 through ffmpeg.

ffmpeg is not installed here: tests put a stand-in script named ``ffmpeg`` on PATH (it
records its arguments) or take every ``ffmpeg`` off PATH."""

import os
import stat
import warnings

import numpy as np
import pytest
from PIL import Image

import ti_notebook as ti
from ti_notebook.errors import TiRuntimeError, TiTypeError, TiValueError

pytestmark = pytest.mark.unit


@pytest.fixture
def no_ffmpeg(monkeypatch, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def fake_ffmpeg(monkeypatch, tmp_path):
    """An ``ffmpeg`` that writes its arguments to args.txt and makes the output file;
    it fails with status 3 when FAKE_FFMPEG_FAIL is set."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    script = folder / "ffmpeg"
    log = tmp_path / "args.txt"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > "{log}"\n'
        'if [ -n "$FAKE_FFMPEG_FAIL" ]; then echo "Unknown encoder libx264" >&2; exit 3; fi\n'
        'for last in "$@"; do :; done\n'
        'echo mp4 > "$last"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(folder))
    return log


def _frame(t, w=8, h=6):
    img = np.zeros((w, h, 3), np.float32)
    img[t % w, 0] = 1.0
    return img


def test_frames_are_numbered_pngs_written_with_imwrite(tmp_path):
    video = ti.tools.VideoManager(str(tmp_path / "out"), automatic_build=False)
    video.write_frames([_frame(t) for t in range(3)])
    frames = video.get_frame_directory()
    assert frames == os.path.join(str(tmp_path / "out"), "frames")
    assert sorted(os.listdir(frames)) == ["000000.png", "000001.png", "000002.png"]
    back = ti.tools.imread(os.path.join(frames, "000002.png"))
    assert back.shape == (8, 6, 3) and back[2, 0].tolist() == [255, 255, 255]
    assert int(back.sum()) == 3 * 255
    assert (video.width, video.height, video.frame_counter) == (8, 6, 3)


@pytest.mark.cpu
def test_a_field_can_be_a_frame(tmp_path):
    pixels = ti.field(ti.u8, shape=(4, 2, 3))
    pixels[3, 1, 2] = 77
    video = ti.tools.VideoManager(tmp_path, automatic_build=False)  # a Path is fine
    video.write_frame(pixels)
    back = ti.tools.imread(os.path.join(video.get_frame_directory(), "000000.png"))
    assert back[3, 1].tolist() == [0, 0, 77]


def test_odd_sizes_lose_a_column_or_row_with_a_warning(tmp_path):
    video = ti.tools.VideoManager(str(tmp_path), automatic_build=False)
    with pytest.warns(UserWarning) as record:
        video.write_frame(np.zeros((7, 5), np.uint8))
    assert [str(w.message) for w in record] == [
        "VideoManager: the width is odd; the last column is dropped",
        "VideoManager: the height is odd; the last row is dropped",
    ]
    assert ti.tools.imread(os.path.join(video.get_frame_directory(), "000000.png")).shape == (
        6,
        4,
        1,
    )


def test_the_post_processor_sees_each_frame(tmp_path):
    class Invert:
        def process(self, img):
            return 255 - img

    video = ti.tools.VideoManager(str(tmp_path), post_processor=Invert(), automatic_build=False)
    video.write_frame(np.full((2, 2), 5, np.uint8))
    back = ti.tools.imread(os.path.join(video.get_frame_directory(), "000000.png"))
    assert back[..., 0].tolist() == [[250, 250], [250, 250]]


def test_make_video_gif_only_needs_no_ffmpeg(tmp_path, no_ffmpeg):
    video = ti.tools.VideoManager(str(tmp_path), framerate=20, automatic_build=False)
    video.write_frames([_frame(t) for t in range(5)])
    video.make_video(mp4=False, gif=True)
    gif = os.path.join(str(tmp_path), "video.gif")
    assert video.get_output_filename(".gif") == gif
    with Image.open(gif) as img:
        assert img.n_frames == 5 and img.size == (8, 6)
        assert img.info["duration"] == 50  # 1000 ms / 20 frames a second
        img.seek(3)
        rows = np.asarray(img.convert("RGB"))
    assert rows[5, 3].tolist() == [255, 255, 255]  # frame 3 lit x = 3, y = 0: bottom row
    assert not os.path.exists(os.path.join(str(tmp_path), "video.mp4"))


def test_mp4_without_ffmpeg_says_so_and_where_the_frames_are(tmp_path, no_ffmpeg):
    video = ti.tools.VideoManager(str(tmp_path), automatic_build=False)
    video.write_frame(_frame(0))
    with pytest.raises(TiRuntimeError, match="needs ffmpeg, which is not on PATH") as info:
        video.make_video(gif=True, mp4=True)
    assert os.path.abspath(video.get_frame_directory()) in str(info.value)
    assert "mp4=False" in info.value.hint
    assert os.path.exists(os.path.join(str(tmp_path), "video.gif"))  # made before the error


def test_mp4_runs_ffmpeg_on_the_frames(tmp_path, fake_ffmpeg):
    video = ti.tools.VideoManager(
        str(tmp_path / "out dir"), video_filename="clip", framerate=30, automatic_build=False
    )
    video.write_frames([_frame(t) for t in range(2)])
    video.make_video(mp4=True, gif=False)
    args = fake_ffmpeg.read_text().splitlines()
    mp4 = os.path.join(str(tmp_path / "out dir"), "clip.mp4")
    pattern = os.path.join(video.get_frame_directory(), "%06d.png")
    assert args[args.index("-framerate") + 1] == "30"
    assert args[args.index("-i") + 1] == pattern  # one argument, space and all
    assert args[args.index("-s:v") + 1] == "8x6"
    assert args[args.index("-c:v") + 1] == "libx264" and args[-1] == mp4
    assert (tmp_path / "out dir" / "clip.mp4").read_text() == "mp4\n"
    assert not os.path.exists(os.path.join(str(tmp_path / "out dir"), "clip.gif"))


def test_a_failing_ffmpeg_is_a_runtime_error_with_its_message(tmp_path, fake_ffmpeg, monkeypatch):
    monkeypatch.setenv("FAKE_FFMPEG_FAIL", "1")
    video = ti.tools.VideoManager(str(tmp_path), automatic_build=False)
    video.write_frame(_frame(0))
    with pytest.raises(TiRuntimeError, match=r"ffmpeg failed \(exit status 3\)") as info:
        video.make_video(gif=False)
    assert "Unknown encoder libx264" in str(info.value)
    assert "frames are in" in info.value.hint


def test_automatic_build_without_ffmpeg_makes_the_gif_and_warns_once(tmp_path, no_ffmpeg):
    video = ti.tools.VideoManager(str(tmp_path))
    with pytest.warns(UserWarning, match="only the GIF") as record:
        for t in range(4):
            video.write_frame(_frame(t))
    assert len(record) == 1
    with Image.open(os.path.join(str(tmp_path), "video.gif")) as gif:
        assert gif.n_frames == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for t in range(4, 8):  # the next build, at frame 8, warns no more
            video.write_frame(_frame(t))
    with Image.open(os.path.join(str(tmp_path), "video.gif")) as gif:
        assert gif.n_frames == 8
    assert video.next_video_checkpoint == 16


def test_automatic_build_with_ffmpeg_makes_both(tmp_path, fake_ffmpeg):
    video = ti.tools.VideoManager(str(tmp_path))
    video.write_frames([_frame(t) for t in range(4)])
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("video")) == [
        "video.gif",
        "video.mp4",
    ]


def test_clean_frames_deletes_them_and_starts_numbering_again(tmp_path):
    video = ti.tools.VideoManager(str(tmp_path), automatic_build=False)
    video.write_frames([_frame(t) for t in range(3)])
    (tmp_path / "frames" / "mine.png").write_bytes(b"kept")  # not the manager's
    video.clean_frames()
    assert os.listdir(video.get_frame_directory()) == ["mine.png"]
    video.write_frame(_frame(0))
    assert sorted(os.listdir(video.get_frame_directory())) == ["000000.png", "mine.png"]


def test_the_video_filename_extension_is_ignored_with_a_warning(tmp_path):
    video = ti.tools.VideoManager(str(tmp_path), video_filename="clip.mp4")
    with pytest.warns(UserWarning, match=r"'.mp4' of video_filename is ignored"):
        assert video.get_output_filename(".gif") == os.path.join(str(tmp_path), "clip.gif")


def test_misuse_errors(tmp_path):
    with pytest.raises(TiTypeError, match="VideoManager: the file name None"):
        ti.tools.VideoManager(None)
    with pytest.raises(TiValueError, match="give both or neither"):
        ti.tools.VideoManager(str(tmp_path), width=64)
    with pytest.raises(TiValueError, match="framerate=0"):
        ti.tools.VideoManager(str(tmp_path), framerate=0)
    with pytest.raises(TiValueError, match="no process"):
        ti.tools.VideoManager(str(tmp_path), post_processor=lambda img: img)
    video = ti.tools.VideoManager(str(tmp_path), automatic_build=False)
    with pytest.raises(TiRuntimeError, match="no frames have been written"):
        video.make_video()
    with pytest.raises(TiValueError, match=r"shape \(4,\) is not an image"):
        video.write_frame(np.zeros(4))
