"""An error names its kernel once: ``Kernel 'f': ...``, never ``Kernel 'f': kernel 'f':``
(messages made before the position was known already start with the kernel's name)."""

import pytest

import ti_notebook as ti
from ti_notebook.errors import SourcePos, TiTypeError, headline

pytestmark = pytest.mark.cpu


def _named_once(text: str, name: str) -> None:
    first = text.splitlines()[0]
    assert first.lower().count(f"kernel '{name}'") == 1, first
    assert first.lower().startswith(f"kernel '{name}'")


def test_missing_annotation_names_the_kernel_once():
    @ti.kernel
    def missing_annot(x) -> ti.i32:
        return 1

    with pytest.raises(TiTypeError) as info:
        missing_annot(1)
    text = str(info.value)
    _named_once(text, "missing_annot")
    assert "parameter 'x' has no type annotation" in text
    assert "line" in text and "^" in text and "hint: annotate it" in text


def test_siblings_unsupported_annotation_wrong_count_and_keyword():
    @ti.kernel
    def odd_annot(x: "not a type"):  # noqa: F722
        pass

    @ti.kernel
    def takes_one(x: ti.i32):
        pass

    with pytest.raises(TiTypeError) as info:
        odd_annot(1)
    _named_once(str(info.value), "odd_annot")
    with pytest.raises(TiTypeError) as info:
        takes_one(1, 2)
    _named_once(str(info.value), "takes_one")
    with pytest.raises(TiTypeError) as info:
        takes_one(y=2)
    _named_once(str(info.value), "takes_one")


def test_headline_keeps_other_kernels_and_plain_messages():
    pos = SourcePos("a.py", 1, 0, 1, "x", "f")
    assert str(TiTypeError("kernel 'g' is not callable here", pos)).startswith(
        "Kernel 'f': kernel 'g' is not callable here"
    )
    assert headline("f", "kernel 'f' takes 1 argument(s)") == "kernel 'f' takes 1 argument(s)"


def test_a_cell_names_the_kernel_once_too():
    """The magic's short form of an error goes through the same headline."""
    from ti_notebook.errors import TiTypeError
    from ti_notebook.magics.cell_errors import ti_error_lines

    error = TiTypeError("kernel 'k': parameter 'x' has no type annotation", hint="annotate it")
    error.kernel_name = "k"
    lines = ti_error_lines(error, lambda filename: filename)
    assert lines[0] == "TiTypeError: kernel 'k': parameter 'x' has no type annotation"
    assert lines[-1] == "hint: annotate it"
