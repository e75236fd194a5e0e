"""Application tasks: subtask by subtask into app.py, pytest tests, sandboxed runs, one-file fixes."""

from __future__ import annotations

from tests.conftest import APPROVE

TASK = "Build a command-line counter: add numbers and show the total."
PLAN = {"subtasks": [
    {"title": "Add numbers", "description": "add(n)", "acceptance_criteria": ["add(2) then total() == 2"]},
    {"title": "Show the total", "description": "total()", "acceptance_criteria": ["total() starts at 0"]},
]}
STEP1 = {"code": "_items = []\n\ndef add(n):\n    _items.append(n)\n"}
STEP2 = {"code": "_items = []\n\ndef add(n):\n    _items.append(n)\n\n"
                 "def total():\n    return sum(_items)\n\n"
                 "if __name__ == '__main__':\n    print(total())\n"}
TESTS = {"code": "from app import *\n\ndef test_add():\n    add(2)\n    assert total() == 2\n"}
WRONG_TESTS = {"code": "from app import *\n\ndef test_add():\n    add(2)\n    assert total() == 3\n"}
FIXED_TESTS = {"path": "test_app.py", "code": TESTS["code"]}


def test_application_is_built_subtask_by_subtask_and_tested(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, TESTS], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    code = values["code"]
    assert set(code["files"]) == {"app.py", "test_app.py"}
    assert code["entry_points"] == ["app.py"] and code["test_files"] == ["test_app.py"]
    assert [c["name"] for c in values["test_report"]["cases"]] == ["test_app::test_add"]
    integration = values["review"]["integration"]["cases"]
    assert {c["name"] for c in integration} == {"test_app::test_add", "smoke: python app.py"}
    # the second subtask's call sees the code the first one wrote
    assert "_items.append(n)" in run.models["coder"].prompts[1]
    assert "(empty)" in run.models["coder"].prompts[0]


def test_debugger_replaces_the_wrong_file(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, WRONG_TESTS], debugger=[FIXED_TESTS],
                   reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    assert "assert total() == 2" in values["code"]["files"]["test_app.py"]
    assert values["code"]["files"]["app.py"] == STEP2["code"]
    assert "assert 2 == 3" in run.models["debugger"].prompts[0]


def test_fix_naming_an_unknown_file_is_a_violation(scripted):
    bad = {"path": "elsewhere.py", "code": "x = 1\n"}
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, WRONG_TESTS], debugger=[bad] * 3,
                   reviewer=[APPROVE] * 5)
    values = run(TASK, max_rounds=1)
    debugging = [v for v in values["verdicts"] if v["stage"] == "debugging"]
    assert debugging[0]["outcome"] == "fail" and "path" in debugging[0]["evidence"]
    assert any(v["phase"] == "output" and v["role"] == "debugger" for v in values["violations"])


def test_crashing_entry_point_blocks_approval(scripted):
    crash = {"code": STEP2["code"].replace("print(total())", "raise SystemExit(total() / 0)")}
    run = scripted(planner=[PLAN], coder=[STEP1, crash, TESTS], reviewer=[APPROVE])
    values = run(TASK, max_rounds=1)
    review = next(v for v in values["verdicts"] if v["stage"] == "reviewing")
    assert review["outcome"] == "exhausted" and "smoke: python app.py" in review["evidence"]
    assert values["status"] == "failed"
