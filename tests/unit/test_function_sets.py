"""Function tasks beyond HumanEval's own loader: the plain one-call baseline a harness would run, and a
user's own JSONL set through the same runner and oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.cli import main
from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS, user_set
from accord.evals.benchmarks.humaneval import passes_hidden_tests, problems, read_tasks
from accord.evals.configs.development import CONFIGURATIONS
from accord.nodes.requests import parse_request
from accord.state.artifacts import CodeArtifact
from accord.state.context import Context
from tests.conftest import fenced
from tests.scripted import ScriptedChatModel

ZERO = problems()["HumanEval/0"]
CHECK_SET = Path(__file__).resolve().parents[2] / "data" / "functions40" / "functions40.jsonl"
BODY = ZERO["canonical_solution"]
ADD = {
    "id": "add/1",
    "prompt": 'def add(a, b):\n    """Return a + b.\n    >>> add(1, 2)\n    3\n    """\n',
    "test": "def check(candidate):\n    assert candidate(2, 2) == 4\n    assert candidate(-1, 1) == 0\n",
    "entry_point": "add",
}


def single(tmp_path: Path, reply: str) -> tuple[dict[str, Any], ScriptedChatModel]:
    coder = ScriptedChatModel(script=[reply], repeat_last=True)
    tasks = runner.select(BENCHMARKS["humaneval"].tasks(), ["HumanEval/0"])
    [row] = runner.run(
        BENCHMARKS["humaneval"], CONFIGURATIONS["single"], tasks, tmp_path, Context(), models={"coder": coder}
    )
    return row, coder


def test_single_asks_as_a_harness_does_the_stub_verbatim_and_no_system_prompt(tmp_path):
    row, coder = single(tmp_path, fenced("def has_close_elements(numbers, threshold):\n" + BODY))
    assert row["passed"] and coder.calls == 1
    [prompt] = coder.prompts
    assert prompt.startswith(
        "human: Please provide a self-contained Python script that solves the "
        "following problem in a markdown code block:"
    )
    assert ZERO["prompt"].strip() in prompt
    assert "system:" not in prompt and "coder" not in prompt.lower()  # no role identity, no Accord rules


def test_single_takes_a_body_alone_as_the_stubs_completion(tmp_path):
    row, _ = single(tmp_path, BODY)
    assert row["passed"] and row["status"] == "completed"


def test_single_repairs_and_retries_nothing_code_that_does_not_parse_fails_the_hidden_tests(tmp_path):
    row, coder = single(tmp_path, fenced("def has_close_elements(numbers, threshold):\n    return (\n"))
    assert coder.calls == 1 and row["status"] == "completed" and not row["passed"]
    assert "SyntaxError" in row["detail"]


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_a_users_set_runs_through_the_runner_and_its_hidden_tests_score(tmp_path):
    wrong = {**ADD, "id": "add/2", "test": "def check(candidate):\n    assert candidate(2, 2) == 5\n"}
    bench = user_set(write(tmp_path / "mine.jsonl", [ADD, "", wrong]))
    assert bench.name == "mine" and [t.id for t in bench.tasks()] == ["add/1", "add/2"]
    assert bench.tasks()[0].prompt == ADD["prompt"]  # the agents see the stub, never the test
    coder = ScriptedChatModel(script=[fenced("def add(a, b):\n    return a + b\n")], repeat_last=True)
    rows = runner.run(
        bench, CONFIGURATIONS["single"], bench.tasks(), tmp_path / "out", Context(), models={"coder": coder}
    )
    assert {r["id"]: r["passed"] for r in rows} == {"add/1": True, "add/2": False}
    assert {r["thread"] for r in rows} == {"mine/single/add/1", "mine/single/add/2"}
    assert "assert candidate" not in "\n".join(coder.prompts)


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (["{not json"], r"mine.jsonl:1: not JSON"),
        ([ADD, ["a list"]], r"mine.jsonl:2: a task is a JSON object, not list"),
        ([{k: v for k, v in ADD.items() if k != "test"}], r"mine.jsonl:1: missing test"),
        ([{**ADD, "id": ""}], r"mine.jsonl:1: missing id"),
        ([ADD, ADD], r"mine.jsonl:2: the id 'add/1' is already used"),
        (["", " "], r"holds no task"),
    ],
)
def test_a_bad_task_file_is_refused_with_its_line(tmp_path, lines, error):
    with pytest.raises(ValueError, match=error):
        read_tasks(write(tmp_path / "mine.jsonl", lines))


def test_the_cli_refuses_a_bad_task_file_before_anything_runs(tmp_path, capsys):
    assert main(["eval", "jsonl", "--file", str(tmp_path / "absent.jsonl")]) == 2
    assert "no task file at" in capsys.readouterr().err
    assert main(["eval", "jsonl"]) == 2
    assert "needs --file" in capsys.readouterr().err
    bad = write(tmp_path / "bad.jsonl", [{"id": "x", "prompt": "def f(): pass"}])
    assert main(["eval", "jsonl", "--file", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "bad.jsonl:1: missing test, entry_point" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing ran, nothing written


def test_the_check_set_states_one_example_a_task_and_its_hidden_tests_tell_right_from_wrong():
    tasks = user_set(CHECK_SET).problems()
    assert len(tasks) == 40
    for task_id, task in tasks.items():
        stated = [line.strip() for line in task["prompt"].splitlines() if line.strip().startswith(">>>")]
        assert len(stated) == 1, task_id
        call = stated[0].removeprefix(">>> ").replace(task["entry_point"] + "(", "candidate(", 1)
        assert f"assert {call} == " in task["test"], task_id  # the stated example is one hidden test
        right = CodeArtifact(files={"solution.py": task["prompt"] + task["canonical_solution"]})
        stub = CodeArtifact(files={"solution.py": task["prompt"] + "    pass\n"})
        assert passes_hidden_tests(task, right) == (True, ""), task_id
        assert not passes_hidden_tests(task, stub)[0], task_id


def test_odex_tasks_are_stubs_with_their_intent_and_their_tests_tell_right_from_wrong():
    tasks = user_set(Path(__file__).resolve().parents[2] / "data" / "odex" / "odex.jsonl").problems()
    assert len(tasks) == 208
    for task_id, task in list(tasks.items())[::10]:  # a tenth of them: each check runs the sandbox twice
        assert task["prompt"].count('"""') == 2 and task["prompt"].startswith(f"def {task['entry_point']}(")
        right = CodeArtifact(files={"solution.py": task["prompt"] + task["canonical_solution"]})
        stub = CodeArtifact(files={"solution.py": task["prompt"] + "    pass\n"})
        assert passes_hidden_tests(task, right) == (True, ""), task_id
        assert not passes_hidden_tests(task, stub)[0], task_id


def test_humaneval_without_its_examples_keeps_each_problem_but_states_no_example():
    unstated = user_set(
        Path(__file__).resolve().parents[2] / "data" / "humaneval_unstated" / "humaneval_unstated.jsonl"
    ).problems()
    originals = problems()
    assert len(unstated) == len(originals) == 164
    stated_before = 0
    for task_id, task in unstated.items():
        original = originals[task_id.replace("unstated/", "HumanEval/")]
        assert parse_request(task["prompt"]).examples == () and ">>>" not in task["prompt"], task_id
        stated_before += bool(parse_request(original["prompt"]).examples)
        lines = original["prompt"].splitlines()
        assert all(line in lines for line in task["prompt"].splitlines()), task_id  # removed, none added
        assert (task["test"], task["entry_point"]) == (original["test"], original["entry_point"])
    assert stated_before >= 100  # HumanEval's own prompts state examples intake reads
    for task_id, task in list(unstated.items())[::20]:  # the stripped stubs still tell right from wrong
        right = CodeArtifact(files={"solution.py": task["prompt"] + task["canonical_solution"]})
        stub = CodeArtifact(files={"solution.py": task["prompt"] + "    pass\n"})
        assert passes_hidden_tests(task, right) == (True, ""), task_id
        assert not passes_hidden_tests(task, stub)[0], task_id


@pytest.mark.parametrize("name, stated", [("mbpp_stated", 1), ("mbpp_unstated", 0), ("mbpp_holdout", 0)])
def test_mbpp_sets_state_what_they_say_and_their_tests_tell_right_from_wrong(name: str, stated: int):
    root = Path(__file__).resolve().parents[2] / "data" / name
    tasks = user_set(root / f"{name}.jsonl").problems()
    for task_id, task in tasks.items():
        assert task["prompt"].startswith(f"def {task['entry_point']}("), task_id
        examples = parse_request(task["prompt"]).examples
        assert len(examples) == stated, task_id
        if stated:  # the stated example is MBPP's first test, on the same call
            call = examples[0].call.replace(task["entry_point"] + "(", "candidate(", 1)
            assert task["test"].splitlines()[1].startswith(f"    assert {call} == "), task_id
    for task_id, task in list(tasks.items())[::25]:  # a few: each check runs the sandbox twice
        right = CodeArtifact(files={"solution.py": task["prompt"] + task["canonical_solution"]})
        stub = CodeArtifact(files={"solution.py": task["prompt"] + "    pass\n"})
        assert passes_hidden_tests(task, right) == (True, ""), task_id
        assert not passes_hidden_tests(task, stub)[0], task_id
