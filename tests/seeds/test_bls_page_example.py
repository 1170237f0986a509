"""The BLS example of the performance page, with the page's exact text.

The page (/work/shared/seeds/001_dccf38e4755dca17.txt, and 000 in its rendered form)
writes ``ti.block_local(a)`` on the line *before* ``for i, j in a:``; Taichi applies it to
the next loop. The text below is the page's code block; where the seed file is present
(beside the repository, as in CI) the test also checks it still matches it.
"""

import pathlib
import re

import pytest

import ti_notebook as ti

pytestmark = pytest.mark.cpu

SEED = pathlib.Path(__file__).resolve().parents[3] / "shared/seeds/001_dccf38e4755dca17.txt"


@pytest.mark.skipif(not SEED.exists(), reason="the seed documents are not beside this checkout")
def test_text_is_the_pages_code_block(bls_page):
    page = SEED.read_text(encoding="utf-8")
    blocks = re.findall(r"```python[^\n]*\n(.*?)```", page, flags=re.S)
    assert bls_page.text in blocks


def _run_page_example(capsys, bls_page):
    namespace = bls_page()
    a, foo = namespace["a"], namespace["foo"]
    # one active block away from the borders: (4..7) x (4..7); the stencil reads
    # a[i - 1, j] and a[i, j + 2], which reach the neighbouring (inactive, zero) blocks
    for i in range(4, 8):
        for j in range(4, 8):
            a[i, j] = 10 * i + j
    capsys.readouterr()
    foo()
    printed = capsys.readouterr().out.split("\n")
    return foo, sorted(line for line in printed if line)


def _expected() -> list[str]:
    def value(i, j):
        return float(10 * i + j) if 4 <= i < 8 and 4 <= j < 8 else 0.0

    lines = [
        f"{value(i - 1, j):.6f} {value(i, j + 2):.6f}" for i in range(4, 8) for j in range(4, 8)
    ]
    return sorted(lines)


def test_block_local_before_the_loop_is_accepted_and_applied(capsys, bls_page):
    foo, printed = _run_page_example(capsys, bls_page)
    assert printed == _expected()
    (entry,) = foo.stages()["report"]["block_local"]
    assert entry["field"] == "a"
    assert entry["buffer_shape"] == (5, 6)  # the page's 5x6 buffer
    assert entry["range_text"] == "[I - 1, I + 4) x [J, J + 6)"


def test_same_results_without_block_local(capsys, bls_page):
    ti.init(arch=ti.cpu, make_block_local=False)
    foo, printed = _run_page_example(capsys, bls_page)
    assert printed == _expected()
    assert foo.stages()["report"]["block_local"] == []


def test_block_local_as_the_loops_first_line_still_works(capsys):
    a = ti.field(ti.f32)
    ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def inside():
        for i, j in a:
            ti.block_local(a)
            total[None] += a[i, j + 1]

    a[4, 4], a[4, 5] = 1.0, 2.0
    inside()
    assert total[None] == 2.0
    assert len(inside.stages()["report"]["block_local"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        "ti.block_local(a)\n    for i in range(4):\n        a[i, 0] = 1",  # not a struct-for
        "ti.block_local(a)\n    a[0, 0] = 1",  # no loop follows
    ],
)
def test_block_local_without_a_struct_for_after_it_is_an_error(body, tmp_path):
    source = (
        "import ti_notebook as ti\n"
        "a = ti.field(ti.f32)\n"
        "ti.root.pointer(ti.ij, 8).dense(ti.ij, 4).place(a)\n"
        "@ti.kernel\n"
        f"def misplaced():\n    {body}\n"
    )
    path = tmp_path / "misplaced.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(ti.errors.TiSyntaxError) as info:
        namespace["misplaced"]()
    message = str(info.value)
    assert "ti.block_local() applies to a struct-for" in message
    assert "line 6" in message and "^^^" in message
