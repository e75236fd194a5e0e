"""``accord eval judge``: a solution file judged against one task by the evals' own judge, and a result
folder's rows judged again from the code they keep."""

from __future__ import annotations

import json
from pathlib import Path

from accord.cli import main
from accord.evals import runner
from accord.evals.benchmarks import user_set
from accord.evals.benchmarks.humaneval import problems
from accord.evals.configs.development import CONFIGURATIONS
from accord.state.context import Context
from tests.conftest import fenced
from tests.scripted import ScriptedChatModel

ADD = {
    "id": "add/1",
    "prompt": 'def add(a, b):\n    """Return a + b.\n    >>> add(1, 2)\n    3\n    """\n',
    "test": "def check(candidate):\n    assert candidate(2, 2) == 4\n    assert candidate(-1, 1) == 0\n",
    "entry_point": "add",
}
RIGHT, WRONG = "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a * b\n"


def task_file(where: Path) -> Path:
    path = where / "mine.jsonl"
    lines = [ADD, {**ADD, "id": "add/2", "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_solution_is_judged_against_a_users_task(tmp_path, capsys):
    tasks = task_file(tmp_path)
    (tmp_path / "right.py").write_text(RIGHT)
    (tmp_path / "wrong.py").write_text(WRONG)
    judge = ["eval", "judge", "--file", str(tasks), "--id", "add/1", "--solution"]
    assert main([*judge, str(tmp_path / "right.py")]) == 0
    assert capsys.readouterr().out.strip() == "pass"
    assert main([*judge, str(tmp_path / "wrong.py")]) == 1
    assert capsys.readouterr().out.startswith("fail: AssertionError")


def test_a_solution_is_judged_against_a_built_in_set(tmp_path, capsys):
    zero = problems()["HumanEval/0"]
    (tmp_path / "s.py").write_text(zero["prompt"] + zero["canonical_solution"])
    assert (
        main(["eval", "judge", "humaneval", "--id", "HumanEval/0", "--solution", str(tmp_path / "s.py")]) == 0
    )
    (tmp_path / "forged.py").write_text("import sys\nsys.exit(0)\n")
    assert (
        main(["eval", "judge", "humaneval", "--id", "HumanEval/0", "--solution", str(tmp_path / "forged.py")])
        == 1
    )
    assert "SystemExit: 0" in capsys.readouterr().out


def test_bad_judge_input_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "s.py").write_text(RIGHT)
    assert (
        main(["eval", "judge", "humaneval", "--id", "HumanEval/999", "--solution", str(tmp_path / "s.py")])
        == 2
    )
    assert "humaneval has no task 'HumanEval/999'" in capsys.readouterr().err
    assert main(["eval", "judge", "nosuchset", "--id", "x", "--solution", str(tmp_path / "s.py")]) == 2
    assert (
        main(["eval", "judge", "humaneval", "--id", "HumanEval/0", "--solution", str(tmp_path / "no.py")])
        == 2
    )
    assert main(["eval", "judge", "humaneval"]) == 2


def test_a_folders_verdicts_are_reproduced_from_the_code_its_rows_keep(tmp_path, capsys):
    tasks = task_file(tmp_path)
    bench = user_set(tasks)
    coder = ScriptedChatModel(script=[fenced(RIGHT)], repeat_last=True)
    out = tmp_path / "out"
    rows = runner.run(bench, CONFIGURATIONS["single"], bench.tasks(), out, Context(), models={"coder": coder})
    assert {r["id"]: r["passed"] for r in rows} == {"add/1": True, "add/2": True}
    assert all(r["judge"] == "completion record" and runner.unpacked(r["code"])["files"] for r in rows)
    assert main(["eval", "judge", "--rows", str(out), "--file", str(tasks)]) == 0
    assert capsys.readouterr().out.strip() == "2 of 2 verdicts reproduced"
    # A row whose verdict its code does not give is named.
    lines = (out / runner.RESULTS).read_text().splitlines()
    tampered = [json.loads(line) for line in lines]
    tampered[0]["passed"] = False
    (out / runner.RESULTS).write_text("".join(json.dumps(r) + "\n" for r in tampered))
    assert main(["eval", "judge", "--rows", str(out), "--file", str(tasks)]) == 1
    said = capsys.readouterr().out
    assert "single add/1: the row says False, now True" in said and "1 of 2 verdicts reproduced" in said
