"""A class is written method by method: the model continues the source after each empty method's docstring,
the continuation is cut at the method's end, taken in only when it parses, and the imports its code needs
are added; the monolithic baseline asks for a class with ClassEval's own instruction."""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage

from accord.nodes.coding.function import fresh_candidates, write_candidates
from accord.nodes.coding.methods import body_of, emptied, empty_methods, fill_class, implicated
from accord.nodes.development import baseline, coder, debugger
from accord.nodes.development.roles import SPECS
from accord.nodes.merge import with_imports
from accord.nodes.requests import parse_request
from accord.nodes.views import FUNCTION_FILE
from accord.state.artifacts import (
    CaseResult,
    CodeArtifact,
    Plan,
    ReviewIssue,
    ReviewReport,
    Subtask,
    TestReport,
)
from accord.state.context import Context
from accord.state.graph_state import dump
from accord.state.stage import StageCall
from tests.endpoint import FakeEndpoint, Status, Text
from tests.scripted import ScriptedChatModel

COUNTER = '''class Counter:
    """Counts up from a start."""

    def __init__(self, start):
        self.value = start

    def step(self):
        """Add one and return the new value.
        >>> Counter(1).step()
        2
        """

    def area(self):
        """Return the area of a circle whose radius is the value."""
        pass

    def done(self):
        return True
'''

BODIES = {
    "step": "        self.value += 1\n        return self.value\n",
    "area": "        return math.pi * self.value ** 2\n",
}


def continuing(bodies: dict[str, str], tail: str = "\n    def other(self):\n        return 0\n"):
    """Return a scripted answer that continues a prefix with the body of the method it ends in, then
    runs on into another method (as the model does without a stop string)."""

    def answer(messages: list[BaseMessage]) -> str:
        prefix = str(messages[-1].content)
        name = re.findall(r"def (\w+)\(", prefix)[-1]
        return bodies[name] + tail

    return answer


def _call(*script, context: Context | None = None):
    model = ScriptedChatModel(script=list(script))
    return StageCall(
        stage="implementing",
        role="coder",
        round=1,
        context=context or Context(),
        models={"coder": model},
        spec=SPECS["coder"],
    ), model


def test_the_empty_methods_are_those_with_a_docstring_or_pass_alone_in_the_last_class():
    assert [m.name for m in empty_methods(COUNTER, "Counter")] == ["step", "area"]
    written = COUNTER + "\n\nclass Counter:\n    def step(self):\n        return 1\n"
    assert [m.name for m in empty_methods(written, "Counter")] == []  # the later class is the one run
    assert empty_methods(COUNTER, "Other") == []


def test_a_continuation_is_cut_where_the_method_ends():
    text = "        x = 1\n\n        return x\n    def other(self):\n        pass\nprint(1)\n"
    assert body_of(text, 4) == "        x = 1\n\n        return x"
    assert body_of("\nprint(Counter(1).step())\n", 4) == ""


def test_a_class_is_filled_method_by_method_and_gets_the_imports_its_code_uses():
    call, model = _call(continuing(BODIES), continuing(BODIES))
    task = parse_request(COUNTER)
    code = fill_class(call, task, CodeArtifact(files={FUNCTION_FILE: COUNTER}, entry_points=(FUNCTION_FILE,)))
    source = code.files[FUNCTION_FILE]
    assert source.startswith("import math\n")
    namespace: dict = {}
    exec(compile(source, FUNCTION_FILE, "exec"), namespace)  # a fixture of our own, not model output
    counter = namespace["Counter"](1)
    assert counter.step() == 2 and round(counter.area(), 2) == 12.57 and counter.done()
    assert "def other" not in source  # the run-on into another method is cut
    # Each call continues the source up to the method's docstring; the second sees the first written.
    first, second = model.prompts
    assert first.rstrip().endswith('2\n        """') and "def area" not in first
    assert "self.value += 1" in second and second.rstrip().endswith(
        '"""Return the area of a circle whose radius is the value."""'
    )
    assert [e.detail for e in call.ledger if e.kind == "llm"] == ["method", "method"]


def test_a_body_that_does_not_parse_is_drawn_again_then_the_method_stays_empty():
    broken = {"step": "        return (\n", "area": "        return 1\n"}
    call, model = _call(continuing(broken), continuing(broken), continuing(BODIES))
    task = parse_request(COUNTER)
    code = fill_class(call, task, CodeArtifact(files={FUNCTION_FILE: COUNTER}, entry_points=(FUNCTION_FILE,)))
    assert [m.name for m in empty_methods(code.files[FUNCTION_FILE], "Counter")] == ["step"]
    retries = [e for e in call.ledger if e.kind == "retry"]
    assert len(retries) == 2 and all("step does not parse" in e.detail for e in retries)
    assert "return math.pi" in code.files[FUNCTION_FILE] and model.calls == 3


def test_class_candidates_are_written_from_the_skeleton_then_with_the_plan_as_comments():
    call, model = _call(*[continuing(BODIES)] * 4, context=Context(max_candidates=2))
    task = parse_request(COUNTER)
    plan = Plan(subtasks=(Subtask(title="step", description="add one", acceptance_criteria=("steps",)),))
    pool = write_candidates(call, task, plan)
    assert len(model.prompts) == 4
    assert len(pool.items) == 1  # the planned draw writes the same class: one candidate
    assert "# Plan:\n# 1. step: add one" not in model.prompts[0] and "# 1. step: add one" in model.prompts[2]
    assert all("Complete the Python class" not in p for p in model.prompts)  # no chat for the whole class


def test_a_class_draw_is_capped_since_each_candidate_costs_a_call_per_method():
    call, model = _call(*[continuing(BODIES)] * 8, context=Context(max_candidates=4))
    task = parse_request(COUNTER)
    plan = Plan(subtasks=(Subtask(title="step", description="add one", acceptance_criteria=("steps",)),))
    pool = write_candidates(call, task, plan)
    assert model.calls == 4  # two classes of two empty methods, not four
    fresh_candidates(call, task, plan, pool)
    assert model.calls == 8


WRITTEN = COUNTER.replace(
    '''        2
        """
''',
    '''        2
        """
        return self.value
''',
).replace(
    '''the value."""
        pass
''',
    '''the value."""
        return 3.14 * self.value ** 2
''',
)


def test_the_methods_a_failure_names_are_found_in_its_name_or_traceback():
    failures = "- test_step_adds_one\nTraceback: File solution.py, in step\nAssertionError: 1 != 2"
    assert implicated(WRITTEN, "Counter", failures) == ["step"]
    assert implicated(WRITTEN, "Counter", "in done_with\nNameError") == []  # a name inside another is not it
    assert implicated(WRITTEN, "Counter", "- Counter(2).area() == 12.56\n- import solution: in step") == [
        "step",
        "area",
    ]


def test_a_method_is_emptied_down_to_its_docstring_or_pass():
    blank, method = emptied(WRITTEN, "Counter", "step")
    assert "return self.value\n" not in blank and method.name == "step"
    assert [m.name for m in empty_methods(blank, "Counter")] == ["step"]
    undocumented, _ = emptied(WRITTEN, "Counter", "done")
    assert "    def done(self):\n        pass\n" in undocumented and "return True" not in undocumented


def _debugging(*script):
    model = ScriptedChatModel(script=list(script))
    call = StageCall(
        stage="debugging",
        role="debugger",
        round=1,
        context=Context(),
        models={"debugger": model},
        spec=SPECS["debugger"],
    )
    return call, model


def _report(*cases: CaseResult) -> dict:
    return dump(TestReport(ending="failed", cases=cases))


def test_the_debugger_rewrites_only_the_methods_the_failures_name_with_the_failures_as_comments():
    call, model = _debugging(continuing(BODIES))
    code = CodeArtifact(files={FUNCTION_FILE: WRITTEN}, entry_points=(FUNCTION_FILE,))
    failing = CaseResult(name="Counter(1).step() == 2", passed=False, message="AssertionError: 1 != 2")
    update = debugger.fix(
        {"task": dump(parse_request(COUNTER)), "code": dump(code), "test_report": _report(failing)}, call
    )
    source = update["code"]["files"][FUNCTION_FILE]
    assert model.calls == 1  # one continuation for the one failing method; the class is not rewritten
    assert "self.value += 1" in source and "return 3.14 * self.value ** 2" in source
    (prompt,) = model.prompts
    assert prompt.rstrip().endswith("# AssertionError: 1 != 2") and "def area" not in prompt
    assert "An earlier version failed" not in source  # the failures are the prompt's, not the code's


def test_a_method_the_model_cannot_rewrite_keeps_its_earlier_body():
    broken = {"step": "        return (\n"}
    call, model = _debugging(continuing(broken), continuing(broken), continuing(broken), continuing(broken))
    code = CodeArtifact(files={FUNCTION_FILE: WRITTEN}, entry_points=(FUNCTION_FILE,))
    failing = CaseResult(name="Counter(1).step() == 2", passed=False, message="AssertionError")
    update = debugger.fix(
        {"task": dump(parse_request(COUNTER)), "code": dump(code), "test_report": _report(failing)}, call
    )
    # Two draws, then the same code again: a repeat, so sampled once more (two draws), then kept.
    assert model.calls == 4 and update["code"]["files"][FUNCTION_FILE] == WRITTEN


def test_a_rewrite_that_only_goes_on_with_comments_keeps_the_earlier_body():
    # Shown the failures as comments, the model can answer with more of them and no code at all.
    echo = {"step": "        # - example 2: Counter(1).step()\n        # AssertionError: 1 != 2\n"}
    call, model = _debugging(*[continuing(echo, tail="")] * 4)
    code = CodeArtifact(files={FUNCTION_FILE: WRITTEN}, entry_points=(FUNCTION_FILE,))
    failing = CaseResult(name="Counter(1).step() == 2", passed=False, message="AssertionError: 1 != 2")
    update = debugger.fix(
        {"task": dump(parse_request(COUNTER)), "code": dump(code), "test_report": _report(failing)}, call
    )
    assert model.calls == 4 and update["code"]["files"][FUNCTION_FILE] == WRITTEN
    assert [e.detail for e in call.ledger if e.kind == "retry"][:2] == ["method step: no body"] * 2


def test_the_coder_answers_a_review_of_a_class_by_rewriting_the_methods_it_names():
    call, model = _call(continuing(BODIES))
    code = CodeArtifact(files={FUNCTION_FILE: WRITTEN}, entry_points=(FUNCTION_FILE,))
    review = ReviewReport(
        decision="request_changes",
        issues=(
            ReviewIssue(severity="major", location="solution.py: area", description="uses 3.14, not math.pi"),
        ),
    )
    plan = Plan(subtasks=(Subtask(title="area", description="circle area", acceptance_criteria=("area",)),))
    revised = coder.revise(call, parse_request(COUNTER), plan, code, review, {})
    source = revised.files[FUNCTION_FILE]
    assert model.calls == 1 and "math.pi" in source and source.startswith("import math\n")
    assert "return self.value\n" in source  # the method the review does not name is kept
    assert "uses 3.14" in model.prompts[0]


def test_the_holistic_baseline_asks_for_a_class_with_classevals_instruction():
    call, model = _call("```python\n" + COUNTER.replace('    """Counts up from a start."""\n', "") + "```")
    update = baseline.implement_holistically({"task": dump(parse_request(COUNTER))}, call)
    assert model.prompts == [
        f"human: Please complete the class Counter in the following code.\n{COUNTER.strip()}"
    ]
    assert update["code"]["files"][FUNCTION_FILE].count("class Counter") == 2


def test_single_writes_a_class_method_by_method_from_the_skeleton():
    call, model = _call(continuing(BODIES), continuing(BODIES))
    update = baseline.implement_plainly({"task": dump(parse_request(COUNTER))}, call)
    assert empty_methods(update["code"]["files"][FUNCTION_FILE], "Counter") == []
    assert all(p.startswith("human: class Counter:") for p in model.prompts)  # no plan, no instruction


def test_imports_go_after_a_future_import_and_never_shadow_a_bound_name():
    source = "from __future__ import annotations\ndef f(math):\n    return math.pi + re.I + os.sep\nos = 1\n"
    assert with_imports(source) == (
        "from __future__ import annotations\nimport re\n"
        "def f(math):\n    return math.pi + re.I + os.sep\nos = 1\n"
    )


def _endpoint_call(endpoint: FakeEndpoint) -> StageCall:
    context = Context(base_url=endpoint.url, model="fake", request_timeout_s=5)
    return StageCall(
        stage="implementing", role="coder", round=1, context=context, models={}, spec=SPECS["coder"]
    )


def test_an_endpoint_continues_the_source_through_its_completions_api():
    with FakeEndpoint([Text(BODIES["step"]), Text(BODIES["area"])]) as endpoint:
        call = _endpoint_call(endpoint)
        code = fill_class(call, parse_request(COUNTER), CodeArtifact(files={FUNCTION_FILE: COUNTER}))
    assert empty_methods(code.files[FUNCTION_FILE], "Counter") == []
    first = endpoint.requests[0]
    [prompt] = first["prompt"]  # the client sends a list of one prompt
    assert "messages" not in first and prompt.endswith('        2\n        """\n')
    assert "\n    def " in first["stop"]  # the next method ends the continuation at the server
    assert [(e.tokens_in, e.tokens_out) for e in call.ledger if e.kind == "llm"] == [(10, 5), (10, 5)]


def test_an_endpoint_without_completions_leaves_the_methods_empty_and_says_why():
    with FakeEndpoint([Status(404)]) as endpoint:
        call = _endpoint_call(endpoint)
        code = fill_class(call, parse_request(COUNTER), CodeArtifact(files={FUNCTION_FILE: COUNTER}))
    assert [m.name for m in empty_methods(code.files[FUNCTION_FILE], "Counter")] == ["step", "area"]
    refused = [e for e in call.ledger if e.kind == "llm"]
    assert len(refused) == 4 and all(
        e.outcome == "malformed" and "completion failed" in e.detail for e in refused
    )
