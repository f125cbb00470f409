"""python/README.md: its `python` blocks run, in order, in one namespace, from the
repository's root, and print what their comments marked `# ->` say."""

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_examples_run_and_print_what_they_say():
    text = (ROOT / "python" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 6
    namespace = {}
    checked = 0
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            for statement in re.split(r"\n(?=\S)", block):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    exec(compile(statement, "python/README.md", "exec"), namespace)
                # `print(...)  # -> WANT`: the output starts with WANT (`...` ends a prefix).
                said = re.match(r"print\(.*# -> (.+)$", statement.strip().splitlines()[0])
                if said:
                    want = said.group(1).split("...")[0].rstrip()
                    assert out.getvalue().startswith(want), (statement, out.getvalue())
                    checked += 1
    finally:
        os.chdir(here)
    assert checked == text.count("# -> ")
