"""Application tasks: subtask by subtask into app.py, pytest tests, sandboxed runs, one-file fixes."""

from __future__ import annotations

from accord.nodes.coding.writing import fix_one_file, merged
from accord.nodes.development import debugger
from accord.nodes.development.roles import SPECS
from accord.nodes.requests import parse_request
from accord.state import context as context_module
from accord.state.artifacts import CaseResult, CodeArtifact, TestReport
from accord.state.context import Context
from accord.state.graph_state import code_versions, dump
from accord.state.stage import StageCall
from tests.conftest import APPROVE, CHANGES, fenced
from tests.scripted import ScriptedChatModel

TASK = "Build a command-line counter: add numbers and show the total."
PLAN = {
    "features": [
        {"title": "Add numbers", "function": "add(n)", "acceptance_criteria": ["add(2) then total() == 2"]},
        {"title": "Show the total", "function": "total()", "acceptance_criteria": ["total() starts at 0"]},
    ]
}
"""The Planner's model lists the features; the plan is those, then the command-line interface main()."""
STEP1_SOURCE = "_items = []\n\ndef add(n):\n    _items.append(n)\n"
STEP1 = fenced(STEP1_SOURCE)
# Each subtask answers only what is new; code merges it into app.py by name.
STEP2_SOURCE = "def total():\n    return sum(_items)\n"
STEP2 = fenced(STEP2_SOURCE)
TESTS_SOURCE = "from app import *\n\ndef test_add():\n    add(2)\n    assert total() == 2\n"
TESTS = fenced(TESTS_SOURCE)
"""The test the Coder is asked for first: one test per planned function, as a fenced block."""
TEST_TOTAL_SOURCE = "def test_total():\n    before = total()\n    add(3)\n    assert total() == before + 3\n"
TEST_TOTAL = fenced(TEST_TOTAL_SOURCE)
WRONG_TESTS = fenced("from app import *\n\ndef test_add():\n    add(2)\n    assert total() == 3\n")
BUILT = [STEP1, STEP2, TESTS, TEST_TOTAL]
"""The Coder's answers for a first round that goes right."""
BREAK = fenced("def total():\n    return 0\n")
"""A revision that breaks total()."""
USES_ITEMS = fenced("def add(n):\n    _items.append(n)\n")
"""A first subtask that uses data it never defines."""
NO_TESTS = fenced("from app import *\n\nimport json\n")
"""A test module without a test in it."""


def test_application_is_built_subtask_by_subtask_and_tested(scripted):
    run = scripted(planner=[PLAN], coder=BUILT, reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    code = values["code"]
    assert set(code["files"]) == {"app.py", "test_app.py"}
    assert code["entry_points"] == ["app.py"] and code["test_files"] == ["test_app.py"]
    app = code["files"]["app.py"]
    assert "def add(n)" in app and "def total()" in app and app.rstrip().endswith("main()")
    static = {"static check: names defined in app.py", "static check: names defined in test_app.py"}
    tests = {"test_app.py::test_add", "test_app.py::test_total"}
    assert {c["name"] for c in values["test_report"]["cases"]} == tests | static
    integration = values["review"]["integration"]["cases"]
    session = "session: add 1, total, quit"  # the interface's commands, played in the sandbox
    assert {c["name"] for c in integration} == tests | {"smoke: python app.py", session, *static}
    # the interface is written from the plan: a command per feature, nothing kept in a file
    assert "result = add(int(words[0]))" in app and "result = total()" in app and "items = []" in app
    assert "save_items" not in app
    # the second subtask's call sees the code the first one wrote
    prompts = run.models["coder"].prompts
    assert "_items.append(n)" in prompts[1] and "(empty)" in prompts[0]
    # each test is asked for one function, shown alone with its acceptance criteria
    assert "Here is `add` from app.py" in prompts[2] and "def total" not in prompts[2]
    assert "add(2) then total() == 2" in prompts[2] and "def test_total(tmp_path):" in prompts[3]
    runs = [e["detail"] for e in values["ledger"] if e["kind"] == "sandbox" and e["stage"] == "implementing"]
    assert runs == ["test of add: 1/1 passed", "test of total: 1/1 passed"]


def test_a_test_that_disagrees_with_the_code_is_sampled_again(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, WRONG_TESTS, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    assert "assert total() == 2" in values["code"]["files"]["test_app.py"]
    retry = next(e for e in values["ledger"] if e["kind"] == "retry")
    assert "test of add disagrees with the code" in retry["detail"] and "assert 2 == 3" in retry["detail"]
    assert run.models["coder"].prompts[3] == run.models["coder"].prompts[2]  # a new sample, same question


def test_a_test_left_with_the_outlines_placeholders_is_sampled_again(scripted):
    outline = fenced("def test_total(tmp_path):\n    assert total(...) == ...\n")
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, TESTS, outline, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    assert "before + 3" in values["code"]["files"]["test_app.py"]
    retry = next(e for e in values["ledger"] if e["kind"] == "retry")
    assert retry["detail"] == "test of total: `...` left in it"


def test_a_function_no_test_agrees_with_stays_untested_and_recorded(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, *[WRONG_TESTS] * 3, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    tests = values["code"]["files"]["test_app.py"]
    assert "def test_add" not in tests and "def test_total" in tests
    assert any(
        e["kind"] == "error" and e["detail"] == "no test of add agreed with the code"
        for e in values["ledger"]
    )
    assert values["status"] == "completed"


def test_debugger_replaces_the_wrong_file(scripted):
    run = scripted(
        planner=[PLAN],
        coder=[*BUILT, BREAK],
        reviewer=[CHANGES, APPROVE],
        debugger=[fenced("def total():\n    return sum(_items)\n")],
    )
    values = run(TASK)
    assert values["status"] == "completed"
    assert "return sum(_items)" in values["code"]["files"]["app.py"]
    assert "assert 0 == 2" in run.models["debugger"].prompts[0]


def test_a_fix_that_does_not_parse_is_a_violation(scripted):
    bad = fenced("def total(:\n    return sum(_items)\n")
    run = scripted(
        planner=[PLAN], coder=[*BUILT, BREAK], debugger=[bad] * 3, reviewer=[CHANGES, APPROVE, APPROVE]
    )
    values = run(TASK, max_rounds=2)
    debugging = [v for v in values["verdicts"] if v["stage"] == "debugging"]
    assert debugging[0]["outcome"] == "fail" and "does not parse" in debugging[0]["evidence"]
    assert any(v["phase"] == "output" and v["role"] == "debugger" for v in values["violations"])


def test_a_command_that_crashes_in_the_scripted_session_blocks_approval(scripted):
    # add(2), which the test uses, works; add(1), which the session types, crashes
    crash = fenced("_items = []\n\ndef add(n):\n    _items.append(n if n != 1 else 1 / 0)\n")
    run = scripted(planner=[PLAN], coder=[crash, STEP2, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK, max_rounds=1)
    review = next(v for v in values["verdicts"] if v["stage"] == "reviewing")
    assert review["outcome"] == "exhausted" and "session: add 1, total, quit" in review["evidence"]
    assert values["status"] == "failed"


def test_the_interface_is_written_from_the_plan_and_tests_never_shadow_the_app(scripted):
    # a subtask that also writes its own main(): the interface written from the plan replaces it
    with_main = fenced(STEP2_SOURCE + "\ndef main():\n    print(total())\n")
    shadowing = fenced("def total():\n    return 2\n\n" + TEST_TOTAL_SOURCE)
    run = scripted(planner=[PLAN], coder=[STEP1, with_main, TESTS, shadowing], reviewer=[APPROVE])
    values = run(TASK)
    app = values["code"]["files"]["app.py"]
    assert "print(total())" not in app and "if command == 'add':" in app and app.count("def main") == 1
    assert any(e["kind"] == "action" and "interface" in e["detail"] for e in values["ledger"])
    tests = values["code"]["files"]["test_app.py"]
    assert tests.startswith("from app import *") and "return 2" not in tests and "def test_total" in tests
    assert values["status"] == "completed"


def test_unparsable_piece_is_retried_alone_with_the_error(scripted):
    run = scripted(
        planner=[PLAN],
        coder=[STEP1, fenced("def total(:\n    pass\n"), STEP2, TESTS, TEST_TOTAL],
        reviewer=[APPROVE],
    )
    values = run(TASK)
    assert values["status"] == "completed"
    assert run.models["coder"].calls == 5  # only the broken subtask was asked again
    assert "does not parse: line 1: invalid syntax: `def total(:`" in run.models["coder"].prompts[2]
    retries = [e for e in values["ledger"] if e["kind"] == "retry" and e["stage"] == "implementing"]
    assert len(retries) == 1 and "app.py" in retries[0]["detail"]


def test_a_piece_that_never_parses_fails_the_duty(scripted):
    broken = fenced("def total(:\n    pass\n")
    run = scripted(planner=[PLAN], coder=[STEP1, broken, broken, broken] * 3, reviewer=[APPROVE])
    values = run(TASK, max_output_retries=0)
    assert values["status"] == "failed" and "no valid code after 3 attempts" in values["reason"]


def test_a_step_that_reads_a_global_nothing_defines_is_asked_again_with_the_name(scripted):
    run = scripted(planner=[PLAN], coder=[USES_ITEMS, *BUILT], reviewer=[APPROVE])
    values = run(TASK)
    assert "`add` uses `_items`, which nothing defines" in run.models["coder"].prompts[1]
    assert "_items = []" in values["code"]["files"]["app.py"]
    assert values["status"] == "completed"


def test_an_undefined_global_no_step_defines_is_asked_for_before_testing(scripted):
    missing = fenced("_items = []\n")
    run = scripted(
        planner=[PLAN],
        coder=[*[USES_ITEMS] * 3, *[STEP2] * 3, missing, TESTS, TEST_TOTAL],
        reviewer=[APPROVE],
    )
    values = run(TASK)
    assert "`_items` is used in add(), total() but never defined" in run.models["coder"].prompts[6]
    assert values["code"]["files"]["app.py"].startswith("_items = []")
    assert values["status"] == "completed"


def test_an_undefined_name_is_failing_evidence_for_the_debugger(scripted):
    typo = fenced("def total():\n    return sum(_itemz)\n")
    run = scripted(
        planner=[PLAN], coder=[*BUILT, typo], reviewer=[CHANGES, APPROVE], debugger=[fenced(STEP2_SOURCE)]
    )
    values = run(TASK)
    report = next(v for v in values["verdicts"] if v["stage"] == "testing" and v["round"] == 2)
    assert report["outcome"] == "tests_failed"
    # the failing step is written again from its own prompt, told the name
    assert "The current `total` is wrong: `total` uses `_itemz`" in run.models["debugger"].prompts[0]
    assert values["status"] == "completed"


def test_an_answer_without_a_test_is_sampled_again(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, STEP2, NO_TESTS, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    assert any(e["kind"] == "retry" and "no test_add with an assert" in e["detail"] for e in values["ledger"])
    assert "def test_add" in values["code"]["files"]["test_app.py"]
    assert values["status"] == "completed"


def test_each_subtask_writes_the_function_the_plan_names(scripted):
    wrong_name = fenced("_items = []\n\ndef plus(n):\n    _items.append(n)\n")
    run = scripted(planner=[PLAN], coder=[wrong_name, *BUILT], reviewer=[APPROVE])
    values = run(TASK)
    assert "as the function `add(n)`" in run.models["coder"].prompts[0]
    assert "function: total()" in run.models["coder"].prompts[0]  # the plan view shows every signature
    assert "the code does not define `add`" in run.models["coder"].prompts[1]
    assert values["status"] == "completed"


def test_an_empty_reply_is_retried_within_the_piece(scripted):
    run = scripted(planner=[PLAN], coder=[STEP1, "  ", STEP2, TESTS, TEST_TOTAL], reviewer=[APPROVE])
    values = run(TASK)
    retries = [e for e in values["ledger"] if e["kind"] == "retry"]
    assert len(retries) == 1 and "the reply holds no piece" in retries[0]["detail"]
    assert not values["violations"] and values["status"] == "completed"


def test_a_plan_without_features_is_retried_with_the_reason(scripted):
    storage_only = {
        "features": [
            {
                "title": "Keep the list in a file",
                "function": "save_list(items, path)",
                "acceptance_criteria": [],
            }
        ]
    }
    run = scripted(planner=[storage_only, PLAN], coder=BUILT, reviewer=[APPROVE])
    values = run(TASK)
    assert "no feature left" in run.models["planner"].prompts[1]
    retried = [e for e in values["ledger"] if e["role"] == "planner" and e["kind"] == "retry"]
    assert len(retried) == 1 and "no feature left" in retried[0]["detail"]
    assert [s["function"] for s in values["plan"]["subtasks"]] == ["add(n)", "total()", "main()"]
    assert values["status"] == "completed"


def test_a_request_to_keep_data_gets_storage_steps_before_the_features(scripted):
    save = {"title": "Save", "function": "save_items(path, items)", "acceptance_criteria": []}
    with_storage = {"features": [*PLAN["features"], save]}
    run = scripted(planner=[with_storage], coder=["stop here"] * 3)
    values = run(TASK + " Keep the numbers in a file between runs.", max_output_retries=0)
    functions = [s["function"] for s in values["plan"]["subtasks"]]
    # the model's own storage feature is dropped: the storage steps cover it
    assert functions == ["load_items(path)", "save_items(path, items)", "add(n)", "total()", "main()"]


def test_tests_the_model_cannot_write_are_left_to_the_debugger(scripted):
    run = scripted(
        planner=[PLAN],
        coder=[STEP1, STEP2, *[NO_TESTS] * 6],
        debugger=[TESTS, TEST_TOTAL],
        reviewer=[APPROVE],
    )
    values = run(TASK, max_rounds=1)
    assert "test_app.py" not in code_versions(values)[0]  # the Coder handed over no test
    testing = next(v for v in values["verdicts"] if v["stage"] == "testing")
    assert testing["outcome"] == "tests_failed"
    # with no test to fix against, the Debugger's first fix is writing the tests
    assert "Here is `add` from app.py" in run.models["debugger"].prompts[0]
    assert "def test_add" in values["code"]["files"]["test_app.py"] and values["status"] == "completed"


def test_a_one_file_fix_may_write_the_test_file_the_app_lacks():
    model = ScriptedChatModel(script=[TESTS])
    call = StageCall(
        stage="implementing",
        role="coder",
        round=2,
        context=Context(),
        models={"coder": model},
        spec=SPECS["coder"],
    )
    app = CodeArtifact(files={"app.py": STEP1_SOURCE + STEP2_SOURCE}, entry_points=("app.py",))
    fixed = fix_one_file(call, "system", "prompt", app)
    assert fixed.test_files == ("test_app.py",) and "def test_add" in fixed.files["test_app.py"]


def test_a_fix_that_mixes_code_and_its_test_puts_each_in_its_file():
    fix = fenced(
        "import json\n\ndef total():\n    return sum(_items) + 0\n\n\n"
        "def test_total(tmp_path):\n    assert total() == 0\n"
    )
    call = StageCall(
        stage="debugging",
        role="debugger",
        round=2,
        context=Context(),
        models={"debugger": ScriptedChatModel(script=[fix])},
        spec=SPECS["debugger"],
    )
    app = CodeArtifact(files={"app.py": STEP1_SOURCE + STEP2_SOURCE}, entry_points=("app.py",))
    fixed = fix_one_file(call, "system", "prompt", app)
    assert "sum(_items) + 0" in fixed.files["app.py"] and "def test_total" not in fixed.files["app.py"]
    assert "def test_total" in fixed.files["test_app.py"] and fixed.test_files == ("test_app.py",)


def test_the_debugger_fixes_failing_evidence_before_writing_missing_tests(scripted):
    broken = fenced("_items = [\n")
    # _items is never defined, so no test can agree with the code: none is written
    run = scripted(
        planner=[PLAN],
        coder=[*[USES_ITEMS] * 3, *[STEP2] * 3, *[broken] * 3, *[TESTS] * 3, *[TEST_TOTAL] * 3],
        debugger=[STEP1, TESTS, TEST_TOTAL],
        reviewer=[APPROVE],
    )
    values = run(TASK)
    assert any(e["kind"] == "error" and "missing definitions" in e["detail"] for e in values["ledger"])
    prompts = run.models["debugger"].prompts
    assert "`add` uses `_items`, which nothing defines" in prompts[0] and "Here is" not in prompts[0]
    assert "Here is `add` from app.py" in prompts[1]
    assert values["status"] == "completed"


def test_the_interface_loads_and_saves_the_items_when_the_plan_keeps_them():
    from accord.nodes.coding.application import with_interface
    from accord.nodes.development.planner import INTERFACE, STORAGE
    from accord.state.artifacts import Plan, Subtask

    add = Subtask(
        title="Add", description="Add", function="add_task(items, text)", acceptance_criteria=("x",)
    )
    app = CodeArtifact(
        files={"app.py": "def add_task(items, text):\n    return [*items, text]\n"}, entry_points=("app.py",)
    )
    stored = with_interface(Plan(subtasks=(*STORAGE, add, INTERFACE)), app).files["app.py"]
    assert "items = load_items('items.json')" in stored and "save_items('items.json', items)" in stored
    assert "result = add_task(items, words[0])" in stored and "except EOFError" in stored
    kept_nowhere = with_interface(Plan(subtasks=(add, INTERFACE)), app).files["app.py"]
    assert "items = []" in kept_nowhere and "save_items" not in kept_nowhere


KEEP = fenced(STEP2_SOURCE)
"""A revision that hands the code back unchanged: the Coder's answer that it disagrees."""
OTHER = {
    "decision": "request_changes",
    "issues": [{"severity": "major", "location": "app.py:add", "description": "add() ignores zero"}],
}


def test_a_review_repeated_against_code_the_coder_kept_is_disputed_not_blocking(scripted):
    run = scripted(planner=[PLAN], coder=[*BUILT, KEEP], reviewer=[CHANGES, CHANGES])
    values = run(TASK, max_rounds=3)
    assert values["status"] == "completed"
    reviews = [v for v in values["verdicts"] if v["stage"] == "reviewing"]
    assert [v["outcome"] for v in reviews] == ["changes", "pass"]
    assert "; approved on the executed evidence; disputed by the Coder: [major]" in reviews[1]["evidence"]


def test_a_dispute_needs_the_same_issues_and_the_same_code(scripted):
    # a new issue about kept code is another round's work
    run = scripted(planner=[PLAN], coder=[*BUILT, KEEP, KEEP], reviewer=[CHANGES, OTHER, APPROVE])
    values = run(TASK, max_rounds=3)
    outcomes = [v["outcome"] for v in values["verdicts"] if v["stage"] == "reviewing"]
    assert outcomes == ["changes", "changes", "pass"]
    # the same issue about changed code stands: the Coder changed it, so it did not dispute it
    run = scripted(
        planner=[PLAN],
        coder=[*BUILT, BREAK, fenced(STEP2_SOURCE)],
        reviewer=[CHANGES] * 3,
        debugger=[fenced(STEP2_SOURCE)],
    )
    values = run(TASK, max_rounds=2)
    assert values["status"] == "failed"
    assert all(v["outcome"] != "pass" for v in values["verdicts"] if v["stage"] == "reviewing")


def test_a_step_copying_the_conventions_example_or_saving_the_file_merges_only_its_feature(scripted):
    keeps = {
        "features": [
            {"title": "Add", "function": "add_item(items, text)", "acceptance_criteria": ["adds the text"]}
        ]
    }
    step = fenced(
        "def add_item(items, text):\n    items.append({'text': text})\n"
        "    save_items(path, items)\n    return items\n\n\n"
        "def set_priority(items, index, priority):\n"
        "    items[index]['priority'] = priority\n    return items\n"
    )
    load = fenced(
        "import json\n\ndef load_items(path):\n    try:\n        with open(path) as f:\n"
        "            return json.load(f)\n    except FileNotFoundError:\n        return []\n"
    )
    save = fenced(
        "import json\n\ndef save_items(path, items):\n    with open(path, 'w') as f:\n"
        "        json.dump(items, f)\n"
    )
    tests = [
        fenced("def test_load_items(tmp_path):\n    assert load_items(tmp_path / 'items.json') == []\n"),
        fenced(
            "def test_save_items(tmp_path):\n    save_items(tmp_path / 'items.json', [1])\n"
            "    assert load_items(tmp_path / 'items.json') == [1]\n"
        ),
        fenced("def test_add_item(tmp_path):\n    assert add_item([], 'a') == [{'text': 'a'}]\n"),
    ]
    run = scripted(planner=[keeps], coder=[load, save, step, *tests], reviewer=[APPROVE])
    values = run("Build a to-do list: add items, and keep them in a file between runs.")
    assert values["status"] == "completed"
    app = values["code"]["files"]["app.py"]
    assert "set_priority" not in app and "\n    save_items(path, items)" not in app
    assert "items.append({'text': text})" in app and "save_items('items.json', items)" in app
    # with the call gone, the add works through the interface: its effect check passed at once
    effects = [e for e in values["ledger"] if e["kind"] == "sandbox" and "effects of add_item" in e["detail"]]
    assert [e["outcome"] for e in effects] == ["passed"]


def test_a_features_item_picking_parameter_is_called_index_in_the_plan(scripted):
    picks = {
        "features": [
            {"title": "Add", "function": "add_task(items, text)", "acceptance_criteria": ["adds"]},
            {
                "title": "Done",
                "function": "mark_task_as_done(items, task_id)",
                "acceptance_criteria": ["marks"],
            },
            {"title": "Move", "function": "move(items, from_pos, to_pos)", "acceptance_criteria": ["moves"]},
        ]
    }
    run = scripted(planner=[picks], coder=["stop here"] * 3)
    values = run(TASK, max_output_retries=0)
    functions = [s["function"] for s in values["plan"]["subtasks"]]
    # the interface passes an index; two pickers are left as named, since one name cannot serve both
    assert functions == [
        "add_task(items, text)",
        "mark_task_as_done(items, index)",
        "move(items, from_pos, to_pos)",
        "main()",
    ]


def test_criteria_that_copy_the_planners_instructions_are_left_out_of_the_plan(scripted):
    copied = {
        "features": [
            {
                "title": "Add",
                "function": "add_task(items, text)",
                "acceptance_criteria": [
                    "no input()",
                    "print() or file access inside it (the data file is already "
                    "handled by load_items(path) and save_items(path, items))",
                    "add_task([], 'a') gives [{'text': 'a'}]",
                ],
            },
            {
                "title": "Mark Task as Done",
                "function": "mark_task(items, index)",
                "acceptance_criteria": ["an empty list gives 0"],
            },
        ]
    }
    run = scripted(planner=[copied], coder=["stop here"] * 3)
    values = run(TASK, max_output_retries=0)
    criteria = [s["acceptance_criteria"] for s in values["plan"]["subtasks"]]
    # the split sentence would tell the Coder to print and touch the file; a feature left with nothing of
    # its own is stated by its title
    assert criteria[:2] == [["add_task([], 'a') gives [{'text': 'a'}]"], ["Mark Task as Done"]]


def test_an_application_fix_that_repeats_the_code_is_drawn_again_sampled():
    broken = merged(merged(None, "app.py", STEP1_SOURCE), "app.py", "def total():\n    return 0\n")
    model = ScriptedChatModel(script=[BREAK, fenced(STEP2_SOURCE)])
    call = StageCall(
        stage="debugging",
        role="debugger",
        round=1,
        context=Context(),
        models={"debugger": model},
        spec=SPECS["debugger"],
    )
    failing = TestReport(
        ending="failed",
        cases=(CaseResult(name="test_app.py::test_add", passed=False, message="assert 0 == 2"),),
    )
    update = debugger.fix(
        {"task": dump(parse_request(TASK)), "code": dump(broken), "test_report": dump(failing)}, call
    )
    assert "return sum(_items)" in update["code"]["files"]["app.py"]
    assert model.calls == 2 and model.prompts[1] == model.prompts[0]  # the same question, sampled
    assert any("repeats a version already tried" in e.detail for e in call.ledger if e.kind == "retry")


def test_an_idle_review_leaves_the_decision_to_the_integration_run(scripted, monkeypatch):
    # The Reviewer's model is measured to repair nothing: no review call, the executed checks decide.
    monkeypatch.setitem(context_module.IDLE_DUTIES, "ScriptedChatModel", frozenset({"reviewer.review"}))
    run = scripted(planner=[PLAN], coder=BUILT, reviewer=[CHANGES])
    values = run(TASK)
    assert values["status"] == "completed" and run.models["reviewer"].prompts == []
    idle = [e for e in values["ledger"] if e["role"] == "reviewer" and e["outcome"] == "idle"]
    assert idle and "ScriptedChatModel" in idle[0]["detail"]
    # every_duty turns it back on: the same script's review now asks for changes.
    run = scripted(planner=[PLAN], coder=BUILT, reviewer=[CHANGES])
    values = run(TASK, every_duty=True, max_rounds=1)
    assert values["status"] == "failed" and len(run.models["reviewer"].prompts) == 1


def test_an_idle_review_of_failing_code_sends_the_failures_back_without_a_call(scripted, monkeypatch):
    monkeypatch.setitem(context_module.IDLE_DUTIES, "ScriptedChatModel", frozenset({"reviewer.review"}))
    # The session's add(1) crashes; the review's model, were it asked, would approve.
    crash = fenced("_items = []\n\ndef add(n):\n    _items.append(n if n != 1 else 1 / 0)\n")
    fixed = fenced("def add(n):\n    _items.append(n)\n")
    run = scripted(planner=[PLAN], coder=[crash, STEP2, TESTS, TEST_TOTAL, fixed], reviewer=[APPROVE])
    values = run(TASK, max_rounds=2)
    reviews = [v for v in values["verdicts"] if v["stage"] == "reviewing"]
    assert [r["outcome"] for r in reviews] == ["changes", "pass"] and run.models["reviewer"].prompts == []
    # The Coder's revision was shown the session's failure.
    assert "session: add 1, total, quit" in run.models["coder"].prompts[4]
