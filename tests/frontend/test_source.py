"""Reading a function's source without ``inspect``'s tokenizer agrees with inspect."""

import inspect
import textwrap

import pytest

from ti_notebook.frontend import source as source_module

pytestmark = pytest.mark.unit

CASES = {
    "plain": """
        def f(a):
            return a + 1
        """,
    "decorated, comment at column 0 inside": """
        @staticmethod
        def f(a):
            b = a
        # a comment at column 0 in the body
            return b
        """,
    "black-style header": """
        def f(
            a,
            b,
        ) -> int:
            return a + b
        """,
    "string at column 0": '''
        def f():
            s = """
        text
        """
            return s
        ''',
    "followed by other code": """
        def f():
            return 1

        # trailing comment
        x = 2
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_reader_agrees_with_inspect(name, tmp_path):
    path = tmp_path / "mod.py"
    text = textwrap.dedent(CASES[name])
    path.write_text(text)
    namespace: dict = {}
    exec(compile(text, str(path), "exec"), namespace)  # noqa: S102 - the test's own code
    func = namespace["f"]
    func = getattr(func, "__func__", func)
    expected = inspect.getsourcelines(func)
    fast = source_module._fast_source_lines(func)
    assert fast is None or fast == expected  # None: falls back to inspect
    got = source_module.FunctionSource.of(func)
    assert got.first_lineno == expected[1]
    assert got.text == textwrap.dedent("".join(expected[0]))
