"""How right the final answers were by what the cross-check showed: the kinds, the sums and the table."""

from __future__ import annotations

import json

from accord.evals import runner
from accord.evals.benchmarks import user_set
from accord.evals.configs.development import CONFIGURATIONS
from accord.evals.probes import cross_check
from accord.state.context import Context
from tests.conftest import fenced
from tests.scripted import ScriptedChatModel

TASK = {
    "task_id": "add/0",
    "prompt": 'def add(a, b):\n    """Return the sum of a and b."""\n',
    "entry_point": "add",
    "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n",
}
GOOD = fenced("def add(a, b):\n    return a + b\n")


def _folder(tmp_path, tester_cases: str, **scripts: ScriptedChatModel):
    """A result folder with ``single``'s and ``accountable``'s rows on one task stating no example (the
    team's models as scripted, or by default a Coder always right)."""
    tmp_path.mkdir(parents=True)
    (tmp_path / "set.jsonl").write_text(json.dumps(TASK) + "\n")
    functions = user_set(tmp_path / "set.jsonl")
    tasks = list(functions.tasks())
    out = tmp_path / "out"
    team = {
        "coder": ScriptedChatModel(script=[GOOD], repeat_last=True),
        "tester": ScriptedChatModel(script=[tester_cases], repeat_last=True),
        "reviewer": ScriptedChatModel(script=[{"decision": "approve", "issues": []}], repeat_last=True),
        **scripts,
    }
    runner.run(functions, CONFIGURATIONS["accountable"], tasks, out, Context(cross_samples=3), models=team)
    plain = {"coder": ScriptedChatModel(script=[GOOD], repeat_last=True)}
    runner.run(functions, CONFIGURATIONS["single"], tasks, out, Context(), models=plain)
    return out


def test_candidates_that_agree_on_answered_cases_are_told_from_ones_that_only_raise_alike(tmp_path):
    answered = cross_check.check(_folder(tmp_path / "a", "```python\nassert add(1, 2) == 3\n```"))
    assert [(t["kind"], t["right"], t["plain_right"]) for t in answered["tasks"]] == [("agreed", True, True)]
    raised = cross_check.check(_folder(tmp_path / "b", "```python\nassert add(1, 2, 3) == 6\n```"))
    assert [t["kind"] for t in raised["tasks"]] == ["alike only in raising"]
    assert raised["sum"]["alike only in raising"] == {"tasks": 1, "right": 1, "plain_right": 1}


def test_the_table_shows_each_kind_that_occurred_and_says_when_none_were_written(tmp_path):
    assert "has not run on this folder yet" in cross_check.table(tmp_path)
    summed = {k: {"tasks": 0, "right": 0, "plain_right": 0} for k in cross_check.KINDS}
    summed["agreed"] = {"tasks": 4, "right": 3, "plain_right": 3}
    (tmp_path / cross_check.FIGURES).write_text(json.dumps({"sum": summed}))
    table = cross_check.table(tmp_path)
    assert "| agreed | 4 | 3, 75.0% [30.1–95.4] | 3, 75.0% [30.1–95.4] |" in table
    assert "disputed" not in table


def test_a_dispute_the_planner_decided_is_a_kind_of_its_own(tmp_path):
    drawn = [fenced("def add(a, b):\n    return a - b\n"), fenced("def add(a, b):\n    return a * b\n"), GOOD]
    out = _folder(
        tmp_path / "a",
        "```python\nassert add(2, 3) == 5\n```",
        coder=ScriptedChatModel(script=[*drawn, GOOD], repeat_last=True),
        planner=ScriptedChatModel(script=['1: A "the sum"'], repeat_last=True),
    )
    # On add(2, 3) the four candidates return -1, 6, 5 and 5: no majority. The values are offered as
    # 5 (A), -1 (B) and 6 (C), and the Planner picks A.
    figures = cross_check.check(out)
    [decided] = figures["tasks"]
    assert (decided["kind"], decided["right"]) == ("disputed, decided", True)
    assert "| disputed, decided | 1 |" in _table(tmp_path, figures)


def _table(folder, figures) -> str:
    (folder / cross_check.FIGURES).write_text(json.dumps(figures))
    return cross_check.table(folder)
