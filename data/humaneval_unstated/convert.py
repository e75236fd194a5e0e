"""Write HumanEval with its stated examples removed, in `accord eval jsonl`'s format: a dev set for
tasks that, like a user's one-line intent, state no example.

Every problem's prompt loses, from its entry point's docstring, the lines that state an example: each
example section (from a heading such as "Example:", "For example:" or "Example 2:" to the specification
it gives way to), each doctest and each line stating a call's result (`f(x) == y`, `f(x) ➞ y`). Kept: the
problems whose stripped docstring still has text and states no example Accord's intake reads, whose
reference solution passes their tests in Accord's sandbox and whose bare stub fails them. `unstated/N` is
`HumanEval/N` without its examples.

    python data/humaneval_unstated/convert.py > data/humaneval_unstated/humaneval_unstated.jsonl
"""

from __future__ import annotations

import ast
import json
import re
import sys
from typing import Any

from accord.evals.benchmarks.humaneval import passes_hidden_tests, problems
from accord.nodes.requests import parse_examples
from accord.state.artifacts import CodeArtifact

HEADING = re.compile(r"^(for )?(an )?(examples?( \d+)?|\[input/output\] samples)( usage)?\s*[:.]?\s*$",
                     re.IGNORECASE)
GIVEN = re.compile(r"^for \w+ = .*(output|result|return)", re.IGNORECASE)
PROSE = re.compile(r"[A-Z][^=\[\]()]*")
"""A sentence of the specification, which ends an example section it follows at the heading's depth."""
STATED = re.compile(r"==|=>|->|➞|^[)\]}]")
"""What an example's line under a heading shows: a result (``==``, an arrow) or the end of a call."""


def _docstring(prompt: str, entry_point: str) -> ast.Expr:
    function = next(n for n in ast.walk(ast.parse(prompt))
                    if isinstance(n, ast.FunctionDef) and n.name == entry_point)
    return next(n for n in function.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                and isinstance(n.value.value, str))


def _states(text: str, entry_point: str) -> bool:
    """Whether a line states a call's result: ``f(x) == y``, ``f(x) ➞ y`` (not a definition, ``f(1) = 3``)."""
    return f"{entry_point}(" in text and bool(STATED.search(text))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def strip_examples(prompt: str, entry_point: str) -> str:
    """Return ``prompt`` with the example lines of ``entry_point``'s docstring removed.

    An example heading opens a section that ends at a line indented no deeper than the heading that
    states no result and follows a blank line ("Constraints:") or reads as a sentence. Outside one, a
    doctest (its ``>>>`` line and the output under it), a line stating a call's result and a
    "For x = ..." line go. Runs of blank lines left behind become one.
    """
    node = _docstring(prompt, entry_point)
    lines = prompt.splitlines(keepends=True)
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[operator]
    kept: list[str] = []
    heading: int | None = None  # the open section's heading indentation
    in_doctest = blank_before = False
    for number, line in enumerate(lines):
        text = line.strip().strip('"').strip()
        if not first <= number <= last or number == first or (number == last and not text):
            kept.append(line)
            continue
        if heading is not None and text and _indent(line) <= heading and (blank_before or PROSE.fullmatch(text)) \
                and not STATED.search(text) and f"{entry_point}(" not in text and not text.startswith(">>>"):
            heading = None
        blank_before = not text
        if HEADING.match(text):
            heading = _indent(line)
        in_doctest = text.startswith(">>>") or (in_doctest and bool(text))
        example = heading is not None or in_doctest or GIVEN.match(text) or _states(text, entry_point)
        if not example:
            kept.append(line)
        elif number == last:  # the closing quotes share the example's line
            kept.append(line[: _indent(line)] + line.rstrip()[-3:] + "\n")
    return "".join(line for before, line in zip(["x", *kept], kept, strict=False)
                   if line.strip() or before.strip())


def docstring_of(prompt: str, entry_point: str) -> str:
    return str(_docstring(prompt, entry_point).value.value)  # type: ignore[attr-defined]


def converted(problem: dict[str, Any]) -> dict[str, Any] | None:
    """Return the problem without its examples, or None when it cannot be kept."""
    entry = problem["entry_point"]
    prompt = strip_examples(problem["prompt"], entry)
    docstring = docstring_of(prompt, entry)
    if not docstring.strip() or parse_examples(docstring, entry) \
            or any(_states(line, entry) for line in docstring.splitlines()):
        return None
    task = {"task_id": problem["task_id"].replace("HumanEval/", "unstated/"), "prompt": prompt,
            "entry_point": entry, "canonical_solution": problem["canonical_solution"], "test": problem["test"]}
    solution = CodeArtifact(files={"solution.py": prompt + problem["canonical_solution"]})
    stub = CodeArtifact(files={"solution.py": prompt + "    pass\n"})
    if not passes_hidden_tests(task, solution)[0] or passes_hidden_tests(task, stub)[0]:
        return None
    return task


def main() -> None:
    kept = 0
    for problem in problems().values():
        if (task := converted(problem)) is not None:
            print(json.dumps(task))
            kept += 1
    print(f"kept {kept} of {len(problems())}", file=sys.stderr)


if __name__ == "__main__":
    main()
