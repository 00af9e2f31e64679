"""docs/architecture.md stays short and its module table stays true.

The table is each module's docstring's first paragraph, so a module says what it is for in one
place (its own file) and the page cannot drift from the code: a new, renamed, removed or
re-described module changes the table, and this test fails until it is regenerated with
`python3 tests/test_architecture_doc.py --write`.
"""

from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
START = "<!-- module table: generated, do not edit -->"
END = "<!-- end of module table -->"
MAX_LINES = 300


def module_table() -> str:
    """The Markdown table of every module of `checker/`, in path order."""
    rows = ["| module | what it is for |", "|---|---|"]
    for folder, dirs, files in sorted(os.walk(os.path.join(ROOT, "checker"))):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    doc = ast.get_docstring(ast.parse(handle.read(), path)) or ""
                first = " ".join(doc.split("\n\n")[0].split()).replace("|", "\\|")
                rows.append(f"| `{os.path.relpath(path, ROOT)}` | {first} |")
    return "\n".join(rows)


def written_table(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def test_every_module_says_what_it_is_for():
    missing = [line for line in module_table().splitlines()[2:] if line.endswith("|  |")]
    assert not missing, "modules without a docstring:\n" + "\n".join(missing)


def test_the_module_table_is_current():
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    assert written_table(text) == module_table(), "docs/architecture.md's module table is stale: run python3 tests/test_architecture_doc.py --write"


def test_the_page_is_short():
    with open(DOC, encoding="utf-8") as handle:
        lines = handle.read().count("\n")
    assert lines < MAX_LINES, f"docs/architecture.md has {lines} lines (at most {MAX_LINES}): the why and the picture, the rest in the modules' docstrings"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    head, rest = text.split(START, 1)
    with open(DOC, "w", encoding="utf-8") as handle:
        handle.write(f"{head}{START}\n{module_table()}\n{END}{rest.split(END, 1)[1]}")
