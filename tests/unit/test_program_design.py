"""Applications that are not lists of records: a program's design, its units checked by their examples,
its main() written by the model and checked by the design's session."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from accord.nodes import sessions
from accord.nodes.coding.application import holds
from accord.nodes.coding.writing import code_written, merged
from accord.nodes.development import debugger
from accord.nodes.development.planner import (
    DesignDraft,
    FeaturesDraft,
    design_plan,
    example,
    session_files,
    shape,
)
from accord.nodes.development.roles import SPECS
from accord.nodes.requests import parse_request
from accord.nodes.views import plan_view
from accord.runtime import sandbox
from accord.state.artifacts import CaseResult, CodeArtifact, Design, Example, Plan, Subtask, TestReport, Turn
from accord.state.context import Context
from accord.state.graph_state import dump
from accord.state.stage import OutputError, StageCall
from tests.conftest import APPROVE, CHANGES, fenced
from tests.scripted import ScriptedChatModel

TASK = "Build a calculator: the user types two numbers on a line and it prints their sum, until 'quit'."
DESIGN = {
    "units": [
        {
            "title": "Add two numbers",
            "function": "add(a, b)",
            "examples": ["add(2, 3) == 5", "add(-1, 1) == 0", "adds two numbers"],
        }
    ],
    "interface": "interactive",
    "session": [
        {"input": "2 3", "expect": "5"},
        {"input": "10 20", "expect": "30"},
        {"input": "quit", "expect": ""},
    ],
}
ADD = fenced("def add(a, b):\n    return a + b\n")
SUBTRACT = fenced("def add(a, b):\n    return a - b\n")
MAIN_SOURCE = (
    "def main():\n    while True:\n        try:\n            line = input('> ')\n"
    "        except EOFError:\n            return\n"
    "        if line == 'quit':\n            return\n"
    "        a, b = line.split()\n        print(add(int(a), int(b)))\n\n\n"
    "if __name__ == '__main__':\n    main()\n"
)
MAIN = fenced(MAIN_SOURCE)
SILENT_MAIN = fenced(MAIN_SOURCE.replace("print(add(int(a), int(b)))", "add(int(a), int(b))"))
"""A main() that computes the sum and never shows it."""
TEST_ADD = fenced("def test_add():\n    assert add(2, 3) == 5\n")
LIMITS = sandbox.Limits(timeout_s=20)


def test_a_design_becomes_units_with_their_examples_then_main():
    subtasks, design = design_plan(
        DesignDraft.model_validate(
            {**DESIGN, "units": [*DESIGN["units"], {"title": "Entry", "function": "main()", "examples": []}]}
        )
    )
    assert [s.function for s in subtasks] == ["add(a, b)", "main()"]  # the model's main() is the entry step
    add, entry = subtasks
    # what parses as `call == value` is executable; the rest stays a criterion
    assert add.examples == (Example(call="add(2, 3)", expected="5"), Example(call="add(-1, 1)", expected="0"))
    assert "adds two numbers" in add.acceptance_criteria
    assert entry.acceptance_criteria[:2] == ("after '2 3' it prints '5'", "after '10 20' it prints '30'")
    assert design == Design(
        shape="program",
        interface="interactive",
        session=(Turn(input="2 3", expect="5"), Turn(input="10 20", expect="30"), Turn(input="quit")),
    )


def test_a_design_without_a_unit_besides_main_is_refused_with_the_reason():
    with pytest.raises(OutputError, match="no unit left"):
        design_plan(
            DesignDraft.model_validate(
                {**DESIGN, "units": [{"title": "Run", "function": "main()", "examples": []}]}
            )
        )


@pytest.mark.parametrize(
    "written",
    [
        "",
        "reads a text file and prints its five most frequent words",
        "count",
        "count(words) -> int",
        'f(x="a")',
    ],
)
def test_a_planned_function_is_a_signature_or_the_draft_is_refused(written):
    unit = {"title": "Count words", "function": written, "examples": []}
    with pytest.raises(ValidationError, match="pattern"):
        DesignDraft.model_validate({**DESIGN, "units": [unit]})
    with pytest.raises(ValidationError, match="pattern"):
        FeaturesDraft.model_validate({"features": [{**unit, "acceptance_criteria": []}]})


def test_a_unit_repeating_a_function_adds_nothing_and_def_is_dropped():
    units = [
        {"title": "A", "function": "def f(x):", "examples": ["f(1) == 2"]},
        {"title": "B", "function": "f(y)", "examples": []},
        {"title": "C", "function": "g()", "examples": []},
    ]
    subtasks, _ = design_plan(DesignDraft.model_validate({**DESIGN, "units": units}))
    assert [(s.title, s.function) for s in subtasks] == [
        ("A", "f(x)"),
        ("C", "g()"),
        ("Entry point", "main()"),
    ]
    assert subtasks[0].examples == (Example(call="f(1)", expected="2"),)


def test_a_unit_is_named_by_the_function_its_examples_call():
    units = [
        {
            "title": "read_file",
            "function": "Readstextfile(filename)",
            "examples": ["read_file('notes.txt') == 'a b'", "read_file('x.txt') == ''"],
        },
        {"title": "Both", "function": "pair(a, b)", "examples": ["f(1) == 1", "g(2) == 2"]},
    ]
    subtasks, _ = design_plan(DesignDraft.model_validate({**DESIGN, "units": units}))
    assert [s.function for s in subtasks] == ["read_file(filename)", "pair(a, b)", "main()"]


def test_a_unit_whose_every_example_is_the_instructions_own_is_left_out():
    copied = {
        "title": "count_vowels",
        "function": "Countsvowels(text)",
        "examples": ["count_vowels('banana') == 3", "count_vowels('apple') == 2"],
    }
    subtasks, _ = design_plan(DesignDraft.model_validate({**DESIGN, "units": [copied, *DESIGN["units"]]}))
    assert [s.function for s in subtasks] == ["add(a, b)", "main()"]
    with pytest.raises(OutputError, match="no unit left"):
        design_plan(DesignDraft.model_validate({**DESIGN, "units": [copied]}))


def test_only_one_equality_is_an_example():
    assert example("assert f(1) == [2]") == Example(call="f(1)", expected="[2]")
    assert example("f(1) < 2") is None and example("a == b == c") is None and example("f(") is None


def _app(source: str) -> CodeArtifact:
    return CodeArtifact(files={"app.py": source}, entry_points=("app.py",))


def _design(*turns: tuple[str, str], interface: str = "interactive") -> Design:
    session = tuple(Turn(input=i, expect=e) for i, e in turns)
    return Design(shape="program", interface=interface, session=session)


ADDING = "def add(a, b):\n    return a + b\n\n\n" + MAIN_SOURCE


def test_a_session_passes_when_the_output_shows_each_expected_text_in_order():
    [case] = sessions.play(_app(ADDING), "app.py", _design(("2 3", "5"), ("10 20", "30")), LIMITS)
    assert case.passed, case.message  # the input ends after the last turn: main() returns on EOFError
    [case] = sessions.play(_app(ADDING), "app.py", _design(("10 20", "30"), ("2 3", "50")), LIMITS)
    assert not case.passed and case.message.startswith("after '2 3' the output should show '50'")
    assert "input:\n10 20\n2 3\noutput:\n> 30" in case.message  # the transcript the Coder is shown


def test_a_session_fails_on_a_crash_or_a_hang_but_not_on_the_inputs_end():
    [crashed] = sessions.play(_app(ADDING), "app.py", _design(("2 x", "")), LIMITS)
    assert not crashed.passed and "it crashed: ValueError" in crashed.message
    unguarded = ADDING.replace(
        "        try:\n            line = input('> ')\n        except EOFError:\n            return\n",
        "        line = input('> ')\n",
    )
    [ended] = sessions.play(_app(unguarded), "app.py", _design(("2 3", "5")), LIMITS)
    assert ended.passed, ended.message
    looping = ADDING.replace("except EOFError:\n            return", "except EOFError:\n            continue")
    [hung] = sessions.play(_app(looping), "app.py", _design(("2 3", "5")), sandbox.Limits(timeout_s=2))
    assert not hung.passed and "it did not finish" in hung.message


def test_a_program_driven_by_its_arguments_runs_once_per_turn():
    source = (
        "import sys\n\n\ndef main():\n    print(sum(int(a) for a in sys.argv[1:]))\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    design = _design(("2 3", "5"), ("1 1", "3"), interface="arguments")
    first, second = sessions.play(_app(source), "app.py", design, LIMITS)
    assert first.passed and first.name == "run: python app.py 2 3"
    assert not second.passed and "after '1 1' the output should show '3'" in second.message


WORDS_TASK = (
    "Build a command-line program that reads a text file named on its command line and prints its "
    "most frequent word with its count."
)
WORDS_DESIGN = {
    "units": [
        {
            "title": "Most frequent word",
            "function": "most_frequent(text)",
            "examples": ["most_frequent('b a b') == ('b', 2)"],
        }
    ],
    "interface": "interactive",  # the request says command line: the plan makes it an arguments program
    "session": [{"input": "words.txt", "expect": "b 2"}],
    "files": [
        {"name": "words.txt", "text": "b a b\n"},
        {"name": "../escape.txt", "text": "x"},
        {"name": "app.py", "text": "x"},
    ],
}
MOST_FREQUENT = fenced(
    "def most_frequent(text):\n    words = text.split()\n"
    "    best = max(set(words), key=words.count)\n    return best, words.count(best)\n"
)
WORDS_MAIN_SOURCE = (
    "import sys\n\n\ndef main():\n    with open(sys.argv[1]) as f:\n"
    "        word, count = most_frequent(f.read())\n    print(word, count)\n\n\n"
    "if __name__ == '__main__':\n    main()\n"
)


def test_a_program_named_a_file_on_its_command_line_is_played_with_the_designs_file():
    subtasks, design = design_plan(DesignDraft.model_validate(WORDS_DESIGN), WORDS_TASK)
    assert design.interface == "arguments" and design.files == {"words.txt": "b a b\n"}
    assert "sys.argv[1:]" in subtasks[-1].description
    program = _app(
        "def most_frequent(text):\n    words = text.split()\n"
        "    best = max(set(words), key=words.count)\n    return best, words.count(best)\n\n\n"
        + WORDS_MAIN_SOURCE
    )
    [case] = sessions.play(program, "app.py", design, LIMITS)
    assert case.passed and case.name == "run: python app.py words.txt", case.message
    [missing] = sessions.play(program, "app.py", design.model_copy(update={"files": {}}), LIMITS)
    assert not missing.passed and "FileNotFoundError" in missing.message  # the file is the design's
    assert design_plan(DesignDraft.model_validate(WORDS_DESIGN))[1].interface == "interactive"
    assert session_files(design) == ["words.txt"]
    left_out = {**WORDS_DESIGN, "files": [], "session": [{"input": "notes.txt data.csv -n 3", "expect": ""}]}
    assert session_files(design_plan(DesignDraft.model_validate(left_out), WORDS_TASK)[1]) == [
        "data.csv",
        "notes.txt",
    ]


def test_the_command_that_starts_an_arguments_program_is_not_one_of_its_arguments():
    typed = {
        **WORDS_DESIGN,
        "session": [
            {"input": "python frequency.py words.txt", "expect": "b 2"},
            {"input": "$ python3 src/frequency.py other.txt", "expect": ""},
        ],
    }
    _, design = design_plan(DesignDraft.model_validate(typed), WORDS_TASK)
    assert [t.input for t in design.session] == ["words.txt", "other.txt"]
    _, design = design_plan(DesignDraft.model_validate(typed))  # typed into an interactive program: kept
    assert design.session[0].input == "python frequency.py words.txt"


def test_a_program_that_reads_a_file_on_its_command_line_is_built_and_checked_through_it(scripted):
    test = fenced("def test_most_frequent():\n    assert most_frequent('b a b') == ('b', 2)\n")
    # The draft's text for the file its session reads is written again, shown the runs that read it.
    drafted = {**WORDS_DESIGN, "files": [{"name": "words.txt", "text": "A sample text with some words."}]}
    run = scripted(
        planner=[drafted, "```\nb a b\n```"],
        coder=[MOST_FREQUENT, fenced(WORDS_MAIN_SOURCE), test],
        reviewer=[APPROVE],
    )
    values = run(WORDS_TASK)
    assert values["status"] == "completed", values.get("error")
    assert values["plan"]["design"]["files"] == {"words.txt": "b a b\n"}
    assert "$ python app.py words.txt   → prints 'b 2'" in run.models["planner"].prompts[1]
    assert "words.txt" not in values["code"]["files"]  # an input of the session, not part of the program
    runs = [e["detail"] for e in values["ledger"] if e["kind"] == "sandbox" and e["stage"] == "implementing"]
    assert runs[:2] == ["examples of most_frequent: 1/1 passed", "session of main(): 1/1 passed"]
    integration = {c["name"]: c["passed"] for c in values["review"]["integration"]["cases"]}
    assert integration["run: python app.py words.txt"] is True
    assert "smoke: python app.py" not in integration  # run as its session uses it, never with no arguments
    main_prompt = run.models["coder"].prompts[1]
    assert "sys.argv[1:] (never input())" in main_prompt and "$ python app.py words.txt" in main_prompt
    assert "Input file `words.txt`:\n```\nb a b\n```" in main_prompt
    assert "under\nfiles you give that file's name" in run.models["planner"].prompts[0]


def test_the_plan_view_shows_how_main_is_used_and_the_session():
    subtasks, design = design_plan(DesignDraft.model_validate(DESIGN))
    shown = plan_view(Plan(subtasks=subtasks, design=design))
    assert "How main() is used: interactive" in shown and "> 2 3   → prints '5'" in shown
    assert "> quit" in shown and "> quit   →" not in shown


def test_a_program_is_built_unit_by_unit_and_its_main_by_the_model(scripted):
    run = scripted(planner=[DESIGN], coder=[ADD, MAIN, TEST_ADD], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    assert values["plan"]["design"]["shape"] == "program"
    app = values["code"]["files"]["app.py"]
    assert "print(add(int(a), int(b)))" in app and "if command ==" not in app  # no records interface
    runs = [e["detail"] for e in values["ledger"] if e["kind"] == "sandbox" and e["stage"] == "implementing"]
    assert runs[:2] == ["examples of add: 2/2 passed", "session of main(): 1/1 passed"]
    integration = {c["name"]: c["passed"] for c in values["review"]["integration"]["cases"]}
    assert integration["session: '2 3', '10 20', 'quit'"] is True
    prompts = run.models["coder"].prompts
    assert "as the function `main()`" in prompts[1] and "if __name__ == '__main__':" in prompts[1]
    assert "> 10 20   → prints '30'" in prompts[1]  # the session it must play
    assert "Never more than 6 functions" in run.models["planner"].prompts[0]


def test_a_unit_that_misses_its_examples_and_a_main_that_misses_the_session_are_sampled_again(scripted):
    run = scripted(planner=[DESIGN], coder=[SUBTRACT, ADD, SILENT_MAIN, MAIN, TEST_ADD], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed"
    prompts = run.models["coder"].prompts
    assert "add(2, 3) returned -1, expected 5" in prompts[1]
    assert "after '2 3' the output should show '5'" in prompts[3] and "input:\n2 3\n10 20\nquit" in prompts[3]


def test_a_fix_may_rewrite_a_programs_main_but_not_a_records_interface():
    subtasks, design = design_plan(DesignDraft.model_validate(DESIGN))
    program = Plan(subtasks=subtasks, design=design)
    records = Plan(
        subtasks=(Subtask(title="add", acceptance_criteria=("x",), function="add(items, text)"),),
        design=Design(shape="records"),
    )
    fix = "def main():\n    print('fixed')\n"
    assert "fixed" in merged(_app(ADDING), "app.py", fix, keep=code_written(program)).files["app.py"]
    assert "fixed" not in merged(_app(ADDING), "app.py", fix, keep=code_written(records)).files["app.py"]


def test_a_revision_that_breaks_the_session_is_caught_by_the_reviews_replay(scripted):
    run = scripted(planner=[DESIGN], coder=[ADD, MAIN, TEST_ADD, SILENT_MAIN], reviewer=[CHANGES, APPROVE])
    values = run(TASK, max_rounds=2)
    # every step passed its acceptance, so the revision is the model's free-form fix: it rewrites main()
    assert "add(int(a), int(b))\n" in values["code"]["files"]["app.py"]
    [replayed] = [c for c in values["review"]["integration"]["cases"] if c["name"].startswith("session:")]
    assert not replayed["passed"] and "after '2 3' the output should show '5'" in replayed["message"]
    assert values["status"] == "failed"  # the model approved; the gate reads the failed session


def test_a_units_examples_wait_for_the_functions_they_call():
    call = StageCall(
        stage="implementing",
        role="coder",
        round=1,
        context=Context(),
        models={"coder": ScriptedChatModel(script=[])},
        spec=SPECS["coder"],
    )
    examples = (Example(call="size(new_board())", expected="9"),)
    check = holds(call, "size", examples)
    check(_app("def size(board):\n    return len(board)\n"))  # new_board is not written yet: not run
    assert call.ledger[-1].outcome == "skipped" and "new_board not written yet" in call.ledger[-1].detail
    with pytest.raises(OutputError, match=r"size\(new_board\(\)\) returned 3, expected 9"):
        check(
            _app("def size(board):\n    return len(board)\n\n\ndef new_board():\n    return [[0] * 3] * 3\n")
        )


def test_a_units_examples_read_the_input_files_its_design_supplies():
    call = StageCall(
        stage="implementing",
        role="coder",
        round=1,
        context=Context(),
        models={"coder": ScriptedChatModel(script=[])},
        spec=SPECS["coder"],
    )
    examples = (Example(call="count_lines('notes.txt')", expected="2"),)
    counter = _app("def count_lines(path):\n    with open(path) as f:\n        return len(f.readlines())\n")
    supplied = _design(interface="arguments").model_copy(update={"files": {"notes.txt": "a\nb\n"}})
    holds(call, "count_lines", examples, supplied)(counter)
    assert "examples of count_lines: 1/1 passed" in [e.detail for e in call.ledger]
    with pytest.raises(OutputError, match="FileNotFoundError"):
        holds(call, "count_lines", examples, supplied.model_copy(update={"files": {}}))(counter)


def test_a_programs_pytest_tests_read_the_input_files_its_design_supplies():
    counter = CodeArtifact(
        files={
            "app.py": "def count_lines(path):\n    with open(path) as f:\n"
            "        return len(f.readlines())\n",
            "test_app.py": "from app import count_lines\n\n\ndef test_count_lines():\n"
            "    assert count_lines('notes.txt') == 2\n",
        },
        entry_points=("app.py",),
    )
    supplied = _design(interface="arguments").model_copy(update={"files": {"notes.txt": "a\nb\n"}})
    counting = Subtask(title="Count", acceptance_criteria=("counts lines",), function="count_lines(path)")
    plan = Plan(subtasks=(counting,), design=supplied)
    call = StageCall(
        stage="testing",
        role="debugger",
        round=1,
        context=Context(),
        models={"debugger": ScriptedChatModel(script=[])},
        spec=SPECS["debugger"],
    )

    def report(plan: Plan) -> TestReport:
        state = {"task": dump(parse_request(TASK)), "plan": dump(plan), "code": dump(counter)}
        return TestReport.model_validate(debugger.run_tests(state, call)["test_report"])

    assert [c.name for c in report(plan).cases if not c.passed] == []
    unsupplied = report(plan.model_copy(update={"design": supplied.model_copy(update={"files": {}})}))
    assert any("FileNotFoundError" in c.message for c in unsupplied.cases if not c.passed)


@pytest.mark.parametrize(
    "request_, shaped",
    [
        (
            "Build a command-line to-do list application: add tasks, mark them done, remove them, list them, "
            "and keep the list in a file so it survives between runs.",
            "records",
        ),
        (
            "Build a contact book: add contacts with a phone number, search them by name, delete them.",
            "records",
        ),
        (
            "Design a tic-tac-toe game with a user-friendly interface, allowing two players to take turns.",
            "program",
        ),
        ("Create a budget tracker to monitor expenses and savings", "program"),
        ("write a program that generates Fibonacci numbers up to a given number", "program"),
    ],
)
def test_an_application_is_records_when_it_adds_items_and_manages_them(request_, shaped):
    assert shape(request_) == shaped


def test_an_example_copied_from_the_instructions_is_left_out():
    copied = {
        **DESIGN,
        "units": [
            {
                "title": "Add",
                "function": "add(a, b)",
                "examples": ["count_vowels('banana') == 3", "add(1, 2) == 3"],
            }
        ],
    }
    [unit, _] = design_plan(DesignDraft.model_validate(copied))[0]
    assert unit.examples == (Example(call="add(1, 2)", expected="3"),)
    assert unit.acceptance_criteria == ("add(1, 2) == 3",)


def test_session_inputs_that_are_the_programs_own_questions_are_left_out():
    asked = {
        **DESIGN,
        "session": [
            {"input": "Enter your move (e.g. X or O)", "expect": "X's turn"},
            {"input": "Your name?", "expect": ""},
            {"input": "Press q to quit.", "expect": ""},
            {"input": "2 3", "expect": "5"},
        ],
    }
    _, design = design_plan(DesignDraft.model_validate(asked))
    assert design.session == (Turn(input="2 3", expect="5"),)


HELPLESS_MAIN = fenced(
    MAIN_SOURCE.replace(
        "        if line == 'quit':",
        "        if line == 'help':\n            print(HELP)\n        if line == 'quit':",
    )
)
"""A main() that plays the session but reads a ``HELP`` nothing defines on a path the session never takes."""


def test_a_main_that_reads_a_name_nothing_defines_is_asked_again_with_the_name(scripted):
    run = scripted(planner=[DESIGN], coder=[ADD, HELPLESS_MAIN, MAIN, TEST_ADD], reviewer=[APPROVE])
    values = run(TASK)
    assert values["status"] == "completed" and "HELP" not in values["code"]["files"]["app.py"]
    assert "`main` uses `HELP`, which nothing defines" in run.models["coder"].prompts[2]
    played = [
        e["detail"]
        for e in values["ledger"]
        if e["stage"] == "implementing" and e["detail"].startswith("session of main()")
    ]
    assert played[:2] == ["session of main(): 1/1 passed"] * 2  # refused for the name, played all the same


def test_the_debugger_writes_a_failing_step_again_from_its_own_prompt():
    subtasks, design = design_plan(DesignDraft.model_validate(DESIGN))
    plan = Plan(subtasks=subtasks, design=design)
    broken = merged(
        merged(None, "app.py", ADD[ADD.index("def") : ADD.rindex("```")]),
        "app.py",
        HELPLESS_MAIN[HELPLESS_MAIN.index("def") : HELPLESS_MAIN.rindex("```")],
    )
    model = ScriptedChatModel(script=[MAIN])
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
        cases=(
            CaseResult(
                name="static check: names defined in app.py",
                passed=False,
                message="`HELP` is used in main() but never defined or imported",
            ),
        ),
    )
    update = debugger.fix(
        {
            "task": dump(parse_request(TASK)),
            "plan": dump(plan),
            "code": dump(broken),
            "test_report": dump(failing),
        },
        call,
    )
    assert "HELP" not in update["code"]["files"]["app.py"] and "def add" in update["code"]["files"]["app.py"]
    assert model.calls == 1 and "as the function `main()`" in model.prompts[0]
    assert "The current `main` is wrong: `main` uses `HELP`" in model.prompts[0]


def test_a_call_stated_with_two_results_keeps_the_first_and_an_echoed_turn_is_left_out():
    stated = {
        **DESIGN,
        "units": [
            {
                "title": "Board",
                "function": "new_board()",
                "examples": ["new_board() == [' '] * 9", "new_board()  == ['X'] * 9"],
            }
        ],
        "session": [{"input": "Welcome!", "expect": "welcome!"}, {"input": "2 3", "expect": "5"}],
    }
    [unit, _], design = design_plan(DesignDraft.model_validate(stated))
    assert unit.examples == (Example(call="new_board()", expected="[' '] * 9"),)
    assert design.session == (Turn(input="2 3", expect="5"),)


def test_a_file_the_session_names_is_asked_for_alone_until_the_reply_is_data(scripted):
    test = fenced("def test_most_frequent():\n    assert most_frequent('b a b') == ('b', 2)\n")
    program = "```python\nimport sys\nprint(open(sys.argv[1]).read())\n```"
    run = scripted(
        planner=[{**WORDS_DESIGN, "files": []}, program, "Here it is:\n```text\nb a b\n```"],
        coder=[MOST_FREQUENT, fenced(WORDS_MAIN_SOURCE), test],
        reviewer=[APPROVE],
    )
    values = run(WORDS_TASK)
    assert values["status"] == "completed", values.get("error")
    assert values["plan"]["design"]["files"] == {"words.txt": "b a b\n"}
    asked, again = run.models["planner"].prompts[1:3]
    assert "reads the data file `words.txt`:\n$ python app.py words.txt   → prints 'b 2'" in asked
    assert WORDS_TASK in asked and "Build this application" not in asked
    assert again.endswith("That was a program. Write what words.txt holds: data only, no code.")


def test_a_piece_that_uses_a_standard_module_it_never_imports_is_merged_with_the_import():
    app = merged(None, "app.py", "def exists(path):\n    return os.path.exists(path)\n")
    assert app.files["app.py"].startswith("import os\n")
    again = merged(app, "app.py", "def size(path):\n    return os.path.getsize(path)\n")
    assert again.files["app.py"].count("import os") == 1
