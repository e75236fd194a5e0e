"""Write MBPP's test problems (task ids 11–510) as three held-back sets in `accord eval jsonl`'s format.

Each problem becomes a stub in HumanEval's format: the reference's signature for the function its first
test calls, and its one-sentence description as the docstring. `mbpp_stated` states one example, its first
test as a doctest (`>>> call` and the value); `mbpp_unstated` states none; `mbpp_holdout` is every other
problem, stated as `mbpp_unstated` is, and run only against a release. The hidden tests are MBPP's
`test_list` (each call of the function made on `candidate`); `canonical_solution` is MBPP's reference with
its imports, constants and helpers moved into the function. Kept: problems with no `test_setup_code`,
whose reference passes their tests in Accord's sandbox and whose bare stub fails them. Sampled with
`random.Random(46)`: 150 stated from the problems whose first test compares one call with a literal, then
150 unstated from the rest; the holdout is what remains.

    python data/mbpp_stated/convert.py MBPP.jsonl data
"""

from __future__ import annotations

import ast
import json
import random
import sys
import textwrap
from pathlib import Path

from accord.evals.benchmarks.humaneval import passes_hidden_tests
from accord.nodes.requests import parse_request
from accord.state.artifacts import CodeArtifact

TEST_IDS = range(11, 511)
"""MBPP's own test split (the paper's: problems 11–510)."""
SIZE = 150


class _Candidate(ast.NodeTransformer):
    """Rename every call of the entry point in a test to ``candidate``."""

    def __init__(self, entry: str) -> None:
        self.entry = entry

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id="candidate", ctx=node.ctx) if node.id == self.entry else node


def entry_of(row: dict, module: ast.Module) -> ast.FunctionDef | None:
    """Return the reference's top-level function that the first test calls."""
    defined = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    called = [
        n.func.id
        for n in ast.walk(ast.parse(row["test_list"][0]))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    ]
    return next((defined[name] for name in called if name in defined), None)


def docstring(text: str, example: str = "") -> str:
    said = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'    """{said}{" " if said.endswith(chr(34)) else ""}{example}"""\n'


def stated_example(test: str, entry: str) -> str | None:
    """Return the first test as a doctest, when it compares one call of the entry point with a literal."""
    node = ast.parse(test).body[0]
    if not (
        isinstance(node, ast.Assert)
        and isinstance(node.test, ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Eq)
    ):
        return None
    call, expected = node.test.left, node.test.comparators[0]
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == entry):
        return None
    try:
        value = ast.literal_eval(expected)
    except ValueError:
        return None
    said = f"\n    >>> {ast.unparse(call)}\n    {value!r}\n    "
    return said.replace("\\", "\\\\")  # the docstring's text is the doctest's source, escapes and all


def problem(row: dict) -> tuple[dict, str | None] | None:
    """Return the problem as a stub and its stated example, or None for one that does not convert."""
    if row["test_setup_code"].strip():
        return None
    module = ast.parse(row["code"].replace("\r\n", "\n").expandtabs(4))
    entry = entry_of(row, module)
    if entry is None:
        return None
    rest = [n for n in module.body if n is not entry and not isinstance(n, ast.Expr)]
    body = "\n".join(ast.unparse(n) for n in (*rest, *entry.body))
    signature = f"def {entry.name}({ast.unparse(entry.args)}):\n"
    tests = [ast.unparse(_Candidate(entry.name).visit(ast.parse(t))) for t in row["test_list"]]
    imports = "    import math\n" if any("math." in t for t in tests) else ""
    return {
        "task_id": f"mbpp/{row['task_id']}",
        "prompt": signature + docstring(row["text"]),
        "entry_point": entry.name,
        "canonical_solution": textwrap.indent(body, "    ") + "\n",
        "test": "def check(candidate):\n" + imports + "".join(f"    {t}\n" for t in tests),
    }, stated_example(row["test_list"][0], entry.name)


def passes(task: dict, source: str) -> bool:
    return passes_hidden_tests(task, CodeArtifact(files={"solution.py": source}))[0]


def main(path: str, out: str) -> None:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    kept: list[tuple[dict, str | None]] = []
    for row in rows:
        if row["task_id"] not in TEST_IDS or (converted := problem(row)) is None:
            continue
        task = converted[0]
        if passes(task, task["prompt"] + task["canonical_solution"]) and not passes(
            task, task["prompt"] + "    pass\n"
        ):
            kept.append(converted)
    shuffled = random.Random(46).sample(kept, len(kept))
    stated = [t for t, e in shuffled if e is not None][:SIZE]
    chosen = {t["task_id"] for t in stated}
    unstated = [t for t, _ in shuffled if t["task_id"] not in chosen][:SIZE]
    chosen |= {t["task_id"] for t in unstated}
    holdout = [t for t, _ in shuffled if t["task_id"] not in chosen]
    examples = {t["task_id"]: e for t, e in kept}
    for task in stated:
        task["prompt"] = task["prompt"].removesuffix('"""\n') + examples[task["task_id"]] + '"""\n'
        assert len(parse_request(task["prompt"]).examples) == 1, task["task_id"]
    for name, tasks in (("mbpp_stated", stated), ("mbpp_unstated", unstated), ("mbpp_holdout", holdout)):
        ordered = sorted(tasks, key=lambda t: int(t["task_id"].split("/")[1]))
        lines = "".join(json.dumps(t) + "\n" for t in ordered)
        (Path(out) / name / f"{name}.jsonl").write_text(lines, encoding="utf-8")
        print(f"{name}: {len(ordered)}", file=sys.stderr)
    print(f"kept {len(kept)} of {len(TEST_IDS)} test problems", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
