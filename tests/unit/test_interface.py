"""The command-line interface written from a plan, and the scripted sessions that check an application."""

from __future__ import annotations

import pytest

from accord.nodes.coding.app_tests import patches
from accord.nodes.coding.application import behaves, defines, merged_piece, with_interface
from accord.nodes.development.planner import INTERFACE, STORAGE
from accord.nodes.development.roles import SPECS
from accord.nodes.interface import commands, play, session
from accord.runtime import sandbox
from accord.state.artifacts import CodeArtifact, Plan, Subtask
from accord.state.context import Context
from accord.state.stage import StageCall
from tests.conftest import fenced
from tests.scripted import ScriptedChatModel

FEATURES = {
    "Add a task": "add_task(items, text)",
    "Mark a task done": "mark_done(items, number)",
    "Remove a task": "remove_task(items, task_id)",
    "List the tasks": "list_tasks(items)",
}
PLAN = Plan(
    subtasks=(
        *STORAGE,
        *(Subtask(title=t, description=t, function=f, acceptance_criteria=(t,)) for t, f in FEATURES.items()),
        INTERFACE,
    )
)
STORE = """import json, os

def load_items(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)

def save_items(path, items):
    with open(path, 'w') as f:
        json.dump(items, f)
"""
FEATURES_CODE = """
def add_task(items, text):
    items.append({'text': text, 'done': False})
    return items

def mark_done(items, number):
    items[number]['done'] = True
    return items

def remove_task(items, task_id):
    del items[task_id]
    return items

def list_tasks(items):
    return items
"""
LIMITS = sandbox.Limits(timeout_s=20)


def app(source: str, plan: Plan = PLAN) -> CodeArtifact:
    return with_interface(plan, CodeArtifact(files={"app.py": source}, entry_points=("app.py",)))


def test_each_feature_gets_a_command_named_by_its_first_word():
    table = commands(PLAN)
    assert [c.word for c in table] == ["add", "mark", "remove", "list"]
    assert session(PLAN) == ["add example item", "mark 1", "remove 1", "list", "quit"]
    clash = Plan(
        subtasks=tuple(
            Subtask(title=f, description=f, function=f"{f}(items)", acceptance_criteria=("x",))
            for f in ("show_all", "show_done")
        )
    )
    assert [c.word for c in commands(clash)] == ["show_all", "show_done"]


def test_a_right_application_passes_both_sessions_and_keeps_its_items():
    code = app(STORE + FEATURES_CODE)
    cases = play(code, "app.py", PLAN, LIMITS)
    assert [c.passed for c in cases] == [True, True, True], [c.message for c in cases]
    again = sandbox.run(
        sandbox.python("app.py"),
        code.files,
        LIMITS,
        stdin="add buy milk\nadd walk the dog\nmark 2\nlist\nquit\n",
    )
    # stored items read as text, a set flag after the words, never as a dict's repr
    assert "1. buy milk\n" in again.stdout and "2. walk the dog [done]\n" in again.stdout
    assert "{" not in again.stdout


def test_the_interface_turns_the_users_numbers_into_indices():
    source = app(STORE + FEATURES_CODE).files["app.py"]
    assert "result = mark_done(items, int(words[0]) - 1)" in source
    counter = Plan(
        subtasks=(Subtask(title="Add", description="Add", function="add(n)", acceptance_criteria=("x",)),)
    )
    assert "result = add(int(words[0]))" in app("def add(n):\n    pass\n", counter).files["app.py"]


@pytest.mark.parametrize(
    ("wrong", "why"),
    [
        # 1-based inside the feature as well: item 1 is index -1, the last item
        ("items[number]['done'] = True", "items[number - 1]['done'] = True"),
        ("del items[task_id]", "del items[task_id - 1]"),
        # what the local model wrote: the task's text overwritten, and an out-of-range pick ignored
        ("items[number]['done'] = True", "items[number] = 'Done'"),
        ("del items[task_id]", "if task_id + 1 < len(items):\n        del items[task_id + 1]"),
    ],
)
def test_a_feature_with_the_wrong_effect_fails_the_effects_session(wrong, why):
    cases = play(app(STORE + FEATURES_CODE.replace(wrong, why)), "app.py", PLAN, LIMITS)
    effects = cases[-1]
    assert effects.name.startswith("effects on items.json: add example item, add other item, mark 1")
    assert not effects.passed and "item 1" in effects.message, effects.message
    assert all(c.passed for c in cases[:-1]) or "error" in cases[0].message


def test_items_that_are_not_saved_fail_the_kept_between_runs_session():
    forgetful = STORE.replace("json.dump(items, f)", "json.dump([], f)")
    whole, kept, _ = play(app(forgetful + FEATURES_CODE), "app.py", PLAN, LIMITS)
    assert whole.passed and not kept.passed and "items.json lacks 'example item'" in kept.message


def test_a_saved_file_the_next_run_cannot_load_fails():
    unreadable = STORE.replace("json.dump(items, f)", "f.write(repr(items))")
    _, kept, _ = play(app(unreadable + FEATURES_CODE), "app.py", PLAN, LIMITS)
    assert not kept.passed and "the next run could not load items.json" in kept.message


def test_a_query_never_replaces_the_items():
    search = Plan(
        subtasks=(
            *PLAN.subtasks[:-1],
            Subtask(
                title="Find",
                description="Find",
                function="find_tasks(items, text)",
                acceptance_criteria=("x",),
            ),
            INTERFACE,
        )
    )
    find = "\ndef find_tasks(items, text):\n    return [i for i in items if text in i['text']]\n"
    source = STORE + FEATURES_CODE + find
    code = app(source, search)
    result = sandbox.run(
        sandbox.python("app.py"), code.files, LIMITS, stdin="add buy milk\nadd walk\nfind milk\nlist\nquit\n"
    )
    assert "2. walk\n" in result.stdout.rpartition("1. buy milk")[2]


@pytest.mark.parametrize(
    ("test", "mocked"),
    [
        (
            "from unittest.mock import patch\ndef test_mark_done():\n    with patch('app.mark_done') as m:\n"
            "        m.return_value = []\n        assert m.call_count == 0\n",
            True,
        ),
        (
            "import app\nfrom unittest.mock import patch\ndef test_mark_done():\n"
            "    with patch.object(app, 'mark_done'):\n        assert True\n",
            True,
        ),
        ("def test_mark_done():\n    assert mark_done([{'done': False}], 1) == [{'done': True}]\n", False),
    ],
)
def test_a_test_that_mocks_the_function_it_tests_is_refused(test, mocked):
    assert patches(test, "mark_done") is mocked


BAD_ADD = fenced("def add_task(items, text):\n    if not items:\n        return\n    items.append(text)\n")
"""What the local model writes for an add: nothing is ever added to an empty list."""
GOOD_ADD = fenced(
    "def add_task(items, text):\n    items.append({'text': text, 'done': False})\n    return items\n"
)


def _feature_call(*answers):
    model = ScriptedChatModel(script=list(answers))
    return StageCall(
        stage="implementing",
        role="coder",
        round=1,
        context=Context(),
        models={"coder": model},
        spec=SPECS["coder"],
    ), model


def test_a_feature_without_its_effect_is_sampled_again_with_the_failure():

    call, model = _feature_call(BAD_ADD, GOOD_ADD)
    store = CodeArtifact(files={"app.py": STORE}, entry_points=("app.py",))
    result = merged_piece(
        call, store, "app.py", "prompt", check=defines("add_task"), prefer=behaves(call, PLAN, "add_task")
    )
    assert "'done': False" in result.files["app.py"]
    assert "'add example item' should add one item holding 'example item'" in model.prompts[1]
    assert [e.outcome for e in call.ledger if e.kind == "sandbox"] == ["failed", "passed"]


def test_a_feature_no_sample_gets_right_is_kept_and_the_miss_recorded():

    call, _ = _feature_call(BAD_ADD, BAD_ADD, BAD_ADD)
    store = CodeArtifact(files={"app.py": STORE}, entry_points=("app.py",))
    result = merged_piece(
        call, store, "app.py", "prompt", check=defines("add_task"), prefer=behaves(call, PLAN, "add_task")
    )
    assert "if not items:" in result.files["app.py"]
    assert any(e.kind == "error" and e.outcome == "kept" for e in call.ledger)


def test_a_feature_is_not_blamed_for_the_add_before_it():
    from accord.nodes.interface import feature_effects

    broken_add = STORE + FEATURES_CODE.replace("items.append({'text': text, 'done': False})", "pass")
    code = app(broken_add)
    assert feature_effects(code, "app.py", PLAN, "mark_done", LIMITS) is None
    add = feature_effects(code, "app.py", PLAN, "add_task", LIMITS)
    assert add is not None and not add.passed
    wrong_mark = app(STORE + FEATURES_CODE.replace("items[number]['done'] = True", "items.clear()"))
    mark = feature_effects(wrong_mark, "app.py", PLAN, "mark_done", LIMITS)
    assert mark is not None and not mark.passed and "'mark 1' should change item 1" in mark.message
    assert feature_effects(app(STORE + FEATURES_CODE), "app.py", PLAN, "list_tasks", LIMITS) is None


def test_an_add_must_store_an_item_the_marks_can_change():
    from accord.nodes.interface import feature_effects

    strings = app(
        STORE + FEATURES_CODE.replace("items.append({'text': text, 'done': False})", "items.append(text)")
    )
    add = feature_effects(strings, "app.py", PLAN, "add_task", LIMITS)
    assert add is not None and not add.passed and "should add the item as a dict of its fields" in add.message


NO_RETURN_LOAD = STORE.replace("        return json.load(f)", "        items = json.load(f)")
"""A ``load_items`` the local model writes: it reads the file and returns None."""


@pytest.mark.parametrize(
    ("source", "function", "problem"),
    [
        (STORE, "load_items", ""),
        (STORE, "save_items", ""),
        (NO_RETURN_LOAD, "load_items", "load_items gave None for a file holding"),
        (
            STORE.replace("        return []", "        return None"),
            "load_items",
            "load_items on a missing file gave None, not []",
        ),
        (
            STORE.replace("json.dump(items, f)", "f.write(str(items))"),
            "save_items",
            "Expecting property name",
        ),
        (STORE.replace("def save_items", "def save_all"), "save_items", "cannot import name 'save_items'"),
    ],
)
def test_a_storage_step_must_read_or_write_the_data_file(source, function, problem):
    from accord.nodes.interface import storage_effects

    code = CodeArtifact(files={"app.py": source}, entry_points=("app.py",))
    case = storage_effects(code, "app.py", function, LIMITS)
    assert case.passed == (not problem) and problem in case.message


def test_a_storage_step_that_misses_is_sampled_again_before_any_feature_is_blamed():
    from accord.nodes.interface import checkable

    assert checkable(PLAN, "load_items") and checkable(PLAN, "save_items")
    assert not checkable(Plan(subtasks=PLAN.subtasks[2:]), "add_task")  # nothing kept in a file
    call, model = _feature_call(fenced(NO_RETURN_LOAD), fenced(STORE))
    result = merged_piece(
        call, None, "app.py", "prompt", check=defines("load_items"), prefer=behaves(call, PLAN, "load_items")
    )
    assert "return json.load(f)" in result.files["app.py"]
    assert "load_items gave None for a file holding" in model.prompts[1]


def test_a_commands_error_line_is_quoted_as_the_failure():
    from accord.nodes.interface import feature_effects

    typo = STORE + FEATURES_CODE.replace("items.append({'text': text, 'done': False})", "items.add(text)")
    case = feature_effects(app(typo), "app.py", PLAN, "add_task", LIMITS)
    assert case is not None and "error: AttributeError: 'list' object has no attribute 'add'" in case.message


def test_a_crash_is_quoted_by_its_last_line():
    from accord.nodes.interface import feature_effects

    # an add_task the local model writes: it saves the file itself, through an unknown name
    saves = STORE + FEATURES_CODE.replace(
        "    items.append({'text': text, 'done': False})\n",
        "    items.append({'text': text, 'done': False})\n    save_items(path, items)\n",
    )
    case = feature_effects(app(saves), "app.py", PLAN, "add_task", LIMITS)
    assert case is not None and "exit 1: NameError: name 'path' is not defined" in case.message


def test_a_revision_samples_the_first_wrong_step_again_from_its_failure():
    from accord.nodes.coding.application import repair_step
    from accord.state.artifacts import TaskSpec

    task = TaskSpec(request="Build a to-do list kept in a file.", level="application")
    broken = app(
        STORE
        + FEATURES_CODE.replace(
            "    items.append({'text': text, 'done': False})\n", "    if not items:\n        return\n"
        )
    )
    call, model = _feature_call(GOOD_ADD)
    repaired = repair_step(call, task, PLAN, broken)
    assert repaired is not None and "items.append({'text': text, 'done': False})" in repaired.files["app.py"]
    assert "The current `add_task` is wrong: 'add example item' should add one item" in model.prompts[0]
    assert "def add_task(items, text)" in model.prompts[0]  # the step's own prompt, with the code so far
    # every step has its effect: nothing to sample
    call, model = _feature_call()
    assert repair_step(call, task, PLAN, app(STORE + FEATURES_CODE)) is None and model.calls == 0
    # no sample passes: the caller falls back to its free-form fix
    call, model = _feature_call(BAD_ADD, BAD_ADD, BAD_ADD)
    assert repair_step(call, task, PLAN, broken) is None and model.calls == 3
    assert any(e.kind == "error" and e.outcome == "unrepaired" for e in call.ledger)


def test_a_fix_cannot_rewrite_the_interface_written_from_the_plan():
    from accord.nodes.coding.writing import merged

    # what a local model's fix does: main() loading another file
    fixed = merged(
        app(STORE + FEATURES_CODE),
        "app.py",
        "def main():\n    items = load_items('tasks.json')\n\n\ndef list_tasks(items):\n    return []\n",
    )
    assert "load_items('items.json')" in fixed.files["app.py"] and "tasks.json" not in fixed.files["app.py"]
    assert "return []" in fixed.files["app.py"]  # the rest of the fix is merged


def test_a_feature_that_fails_on_the_items_is_told_which_items_it_met():
    from accord.nodes.interface import feature_effects

    # a mark the local model writes: it looks items up by an 'id' no add has given them
    by_id = STORE + FEATURES_CODE.replace(
        "    items[number]['done'] = True\n",
        "    next(i for i in items if i['id'] == number)['done'] = True\n",
    )
    case = feature_effects(app(by_id), "app.py", PLAN, "mark_done", LIMITS)
    assert case is not None and not case.passed
    assert case.message.startswith("'mark 1' on the items [{'text': 'example item', 'done': False}, ")
    assert "error: KeyError: 'id'" in case.message.splitlines()[0]
