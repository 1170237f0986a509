"""``%%kernel --help``, ``-h``, ``%kernel?`` and ``%kernel`` alone print plain-text help;
each kernel's summary comes before the output of the statement that first names it."""

import pytest

pytestmark = pytest.mark.cpu

FILL = (
    "%%kernel\n"
    "x = ti.field(ti.f32, shape=8)\n"
    "def fill(v: ti.f32):\n"
    "    for i in x:\n"
    "        x[i] = v\n"
)


@pytest.mark.parametrize("flag", ["--help", "-h", "--show ir -h"])
def test_help_flags_print_the_help_and_run_nothing(shell, run, flag):
    cell = run(f"%%kernel {flag}\nran = True\n")
    assert cell.error is None, cell.stderr
    assert "ran" not in shell.user_ns
    text = cell.stdout
    assert text.startswith("%%kernel [--arch {cpu,cuda}]")
    assert "Runs the cell as Python" in text and "--parallelize N" in text
    assert "::" not in text and "``" not in text  # plain text, not reST


def test_line_magic_alone_prints_the_help(run):
    cell = run("%kernel")
    assert cell.error is None
    assert "Runs the cell as Python" in cell.stdout


@pytest.mark.parametrize("query", ["%kernel?", "%%kernel?"])
def test_question_mark_shows_the_plain_help(shell, query):
    info = shell.object_inspect_text(query.rstrip("?"))
    assert "Runs the cell as Python" in info
    assert "\n::\n" not in info and "``" not in info


def test_summary_comes_before_the_first_launch_output(run):
    cell = run(FILL + 'print("before")\nfill(2.0)\nprint("after", x[0])\n')
    lines = cell.stdout.splitlines()
    assert lines[0] == "before"
    assert lines[1].startswith("fill: ")
    assert lines[-1] == "after 2.0"


def test_a_kernel_never_named_in_the_cell_reports_when_the_cell_ends(run):
    cell = run(FILL + 'print("done")\n')
    assert cell.stdout.splitlines()[0] == "done"
    assert cell.stdout.splitlines()[1].startswith("fill: ")


def test_a_kernel_that_cannot_compile_yet_is_reported_by_its_call(run):
    cell = run(
        "%%kernel\n"
        "def bump(v: ti.f32):\n"
        "    for i in y:\n"
        "        y[i] += v\n"
        "y = ti.field(ti.f32, shape=4)\n"
        "bump(1.0)\n"
        "print(y[0])\n"
    )
    assert cell.error is None, cell.stderr
    lines = cell.stdout.splitlines()
    assert lines[0].startswith("bump: ") and lines[-1] == "1.0"
