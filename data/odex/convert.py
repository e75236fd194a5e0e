"""Convert ODEX's English test set (zorazrw/odex, data/en_test.jsonl) into `accord eval jsonl`'s format.

Kept: the problems that import no library (ODEX's `library` is empty), whose reference solution passes
their tests in Accord's sandbox and whose bare stub fails them. Each becomes a stub whose docstring is the
problem's intent, in HumanEval's format (`task_id`, `prompt`, `entry_point`, `canonical_solution`, `test`).

    python data/odex/convert.py /path/to/en_test.jsonl > data/odex/odex.jsonl
"""

from __future__ import annotations

import json
import sys

from accord.evals.benchmarks.humaneval import passes_hidden_tests
from accord.state.artifacts import CodeArtifact


def stub(row: dict) -> str:
    signature = row["prompt"].splitlines()[0]
    intent = " ".join(row["intent"].split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'{signature}\n    """{intent}{" " if intent.endswith(chr(34)) else ""}"""\n'


def body(row: dict) -> str:
    head = row["prompt"].split("\n", 1)[1]
    return (head + row["canonical_solution"] + row["suffix"]).replace("\t", "    ").rstrip() + "\n"


def passes(problem: dict, source: str) -> bool:
    return passes_hidden_tests(problem, CodeArtifact(files={"solution.py": source}))[0]


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    kept = 0
    for number, row in enumerate(rows):
        if row["library"]:
            continue
        problem = {"task_id": f"odex/{number}", "prompt": stub(row), "entry_point": row["entry_point"],
                   "canonical_solution": body(row), "test": row["test_start"] + "".join(row["test"])}
        reference = problem["prompt"] + problem["canonical_solution"]
        if passes(problem, reference) and not passes(problem, problem["prompt"] + "    pass\n"):
            print(json.dumps(problem))
            kept += 1
    print(f"kept {kept} of {len(rows)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
