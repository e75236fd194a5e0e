"""How the Tester's cases would have judged the plain call's answers: the sums and the table."""

from __future__ import annotations

import json

from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS
from accord.evals.configs.development import CONFIGURATIONS
from accord.evals.probes import tester as tester_check
from accord.state.context import Context
from tests.scripted import ScriptedChatModel
from tests.unit.test_evals import PLAN, SOLVED, WRONG


def _task(right: bool, cases: int, passed: int, tester: int = 500, single: int = 300) -> dict[str, object]:
    return {
        "id": "t",
        "right": right,
        "cases": cases,
        "passed": passed,
        "tester_tokens": tester,
        "single_tokens": single,
    }


def test_sums_tell_false_alarms_from_caught_answers_and_skip_tasks_without_cases():
    tasks = [
        _task(True, 4, 4),
        _task(True, 4, 2),
        _task(True, 5, 1),
        _task(False, 4, 0),
        _task(False, 2, 2),
        _task(True, 0, 0, tester=0, single=100),
    ]
    s = tester_check.summed(tasks)
    assert (s["tasks"], s["with_cases"], s["right"], s["wrong"]) == (6, 5, 3, 2)
    assert (s["right_failing"], s["wrong_failing"]) == (2, 1)
    assert s["right_share"] == 0.5 and s["wrong_share"] == 0.5
    assert s["tester_tokens"] == 500 and s["single_tokens"] == 300


def test_the_table_reads_the_figures_and_says_when_none_were_written(tmp_path):
    assert "has not run on this folder yet" in tester_check.table(tmp_path)
    tasks = [_task(True, 4, 3), _task(True, 4, 4), _task(False, 4, 1)]
    (tmp_path / tester_check.FIGURES).write_text(json.dumps({"sum": tester_check.summed(tasks)}))
    table = tester_check.table(tmp_path)
    row = "| 3 of 3 | 1 / 2, 50.0% [9.5–90.5] | 1 / 1, 100.0% [20.7–100.0] | 88% / 25% | 500 / 300 |"
    assert row in table


def _folder(tmp_path, plain_code: str, tester_cases: str):
    """A result folder with ``single``'s and ``accountable``'s rows on HumanEval/0, scripted models."""

    humaneval = BENCHMARKS["humaneval"]
    tasks = runner.select(humaneval.tasks(), ("HumanEval/0",))
    scripts = {
        "planner": [PLAN],
        "coder": [SOLVED],
        "tester": [tester_cases],
        "debugger": [SOLVED],
        "reviewer": [{"decision": "approve", "issues": []}],
    }
    team = {role: ScriptedChatModel(script=s, repeat_last=True) for role, s in scripts.items()}
    runner.run(
        humaneval, CONFIGURATIONS["accountable"], tasks, tmp_path, Context(first_attempt=False), models=team
    )
    plain = {"coder": ScriptedChatModel(script=[plain_code], repeat_last=True)}
    runner.run(humaneval, CONFIGURATIONS["single"], tasks, tmp_path, Context(), models=plain)
    return tmp_path


def test_check_runs_the_plain_answer_on_the_teams_cases_and_tells_a_false_alarm(tmp_path):
    right = (
        "```python\nassert has_close_elements([1.0, 2.0], 0.5) == False\n"
        "assert has_close_elements([1.0, 1.1], 0.5) == True\n```"
    )
    s = tester_check.check(_folder(tmp_path / "a", SOLVED, right))["sum"]
    assert (s["with_cases"], s["right"], s["right_failing"], s["right_share"]) == (1, 1, 0, 1.0)

    wrong_case = "```python\nassert has_close_elements([1.0, 1.1], 0.5) == False\n```"
    s = tester_check.check(_folder(tmp_path / "b", SOLVED, wrong_case))["sum"]
    assert (s["right"], s["right_failing"], s["right_share"]) == (1, 1, 0.0)

    s = tester_check.check(_folder(tmp_path / "c", WRONG, right))["sum"]
    assert (s["wrong"], s["wrong_failing"], s["wrong_share"]) == (1, 1, 0.5)
