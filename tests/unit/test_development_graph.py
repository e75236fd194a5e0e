"""The development graph end to end on scripted models: gates, rounds, retries, budgets."""

from __future__ import annotations

from accord.graphs.development import LIFECYCLE
from accord.nodes.coding.writing import unrepeated
from accord.nodes.development.roles import SPECS
from accord.state.artifacts import CodeArtifact
from accord.state.context import Context
from accord.state.contracts import accepted_kinds, check_message
from accord.state.messages import Message
from accord.state.stage import OutputError, StageCall
from tests.conftest import APPROVE, BAD, CHANGES, GOOD, PLAN, fenced

FULL = [
    "initialized",
    "planning",
    "implementing",
    "designing_tests",
    "selecting",
    "testing",
    "reviewing",
    "completed",
]


def test_happy_path_completes_with_tested_code(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run()
    assert values["status"] == "completed"
    assert run.path(values) == FULL
    assert "return a + b" in values["code"]["files"]["solution.py"]
    assert values["test_report"]["ending"] == "passed"
    assert len(values["test_report"]["cases"]) == 6  # the examples, then the Tester's three cases
    assert all(c["passed"] for c in values["test_report"]["cases"])
    assert values["review"]["integration"]["ending"] == "passed"


def test_a_subtask_the_planner_repeats_is_kept_once(scripted):
    again = {**PLAN["subtasks"][0], "title": "Add"}
    other = {"title": "edge cases", "description": "negatives", "acceptance_criteria": ["add(-1, 1) == 0"]}
    repeating = {"subtasks": [PLAN["subtasks"][0], again, other]}
    run = scripted(planner=[repeating], coder=[GOOD], reviewer=[APPROVE])
    values = run()
    assert [s["title"] for s in values["plan"]["subtasks"]] == ["add", "edge cases"]
    assert values["status"] == "completed"


def test_every_handoff_is_a_typed_message_the_receiver_accepts(scripted):
    values = scripted(planner=[PLAN], coder=[GOOD], reviewer=[APPROVE])()
    accepted = accepted_kinds(
        [
            d.contract
            for r in __import__("accord.graphs.development").graphs.development.ROLES.values()
            for d in r.duties.values()
        ]
    )
    hops = [(m["sender"], m["receiver"], [a["kind"] for a in m["payload"]]) for m in values["handoffs"]]
    assert hops == [
        ("intake", "planner", ["task"]),
        ("planner", "coder", ["plan"]),
        ("coder", "tester", ["code", "candidates"]),
        ("tester", "tester", ["tests"]),
        ("tester", "debugger", ["code", "selection"]),
        ("debugger", "reviewer", ["test_report"]),
    ]
    for m in values["handoffs"]:
        assert check_message(Message.model_validate(m), accepted) == []


def test_planner_prompt_sees_the_task_and_coder_sees_the_plan(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], reviewer=[APPROVE])
    run(max_candidates=2)
    assert "def add(a: int, b: int)" in run.models["planner"].prompts[0]
    # The first candidate is written from the task alone, the second from the task and the plan.
    assert "add(1, 2) == 3" not in run.models["coder"].prompts[0]
    assert "add(1, 2) == 3" in run.models["coder"].prompts[1]


def test_the_tester_selects_the_candidate_that_passes_the_most_examples(scripted):
    half = fenced("def add(a, b):\n    return 3 if a == 1 else a - b\n")  # passes add(1, 2) only
    run = scripted(planner=[PLAN], coder=[BAD, half, BAD, GOOD], debugger=[GOOD], reviewer=[APPROVE])
    values = run(max_candidates=3, max_rounds=1)
    assert run.models["coder"].calls == 3  # the budget: GOOD, the fourth answer, is never asked for
    assert "3 if a == 1" in values["code"]["files"]["solution.py"]
    # Neither passes every example and no resample is allowed: the run fails on the selection's evidence,
    # with no Debugger call on what every candidate already failed.
    assert values["status"] == "failed" and run.models["debugger"].calls == 0
    assert values["reason"].startswith("no resample left; no candidate passes every example")
    runs = [e["detail"] for e in values["ledger"] if e["kind"] == "sandbox" and e["stage"] == "selecting"]
    # The third answer repeats the first: it is one candidate, run once.
    assert runs == ["candidate 1: 0/2 examples, 1/3 tests", "candidate 2: 1/2 examples, 1/3 tests"]
    assert values["selection"]["chosen"] == 1


def test_the_coder_writes_every_candidate_and_the_right_one_is_selected(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD, BAD], reviewer=[APPROVE])
    values = run(max_candidates=3)
    assert run.models["coder"].calls == 3  # no early stop: the Coder never runs code
    assert values["status"] == "completed" and "a + b" in values["code"]["files"]["solution.py"]
    assert values["selection"]["chosen"] == 1 and values["selection"]["flagged"] == []
    selected = next(v for v in values["verdicts"] if v["stage"] == "selecting")
    assert selected["evidence"].startswith("candidate 2 of 2: 2 examples and 3 test cases passed")


def test_agreement_breaks_a_tie_on_the_examples(scripted):
    # All three pass both examples; on the Tester's cases the two that agree with each other (and with
    # the tests) beat the odd one out, though the odd one is written first.
    odd = fenced("def add(a, b):\n    return a + b if a > 0 else 0\n")
    also_good = fenced("def add(a, b):\n    return b + a\n")
    run = scripted(planner=[PLAN], coder=[odd, GOOD, also_good], reviewer=[APPROVE])
    values = run(max_candidates=3)
    scores = values["selection"]["scores"]
    assert [s["agreeing"] for s in scores] == [1, 2, 2]
    assert [s["examples_passed"] for s in scores] == [2, 2, 2]
    assert values["selection"]["chosen"] == 1


def test_a_test_case_the_chosen_code_disputes_is_flagged_and_not_chased(scripted):
    wrong_case = "```python\nassert add(2, 3) == 5\nassert add(2, 2) == 5\n```"  # the second is wrong
    run = scripted(planner=[PLAN], coder=[GOOD], tester=[wrong_case], reviewer=[APPROVE])
    values = run()
    assert values["selection"]["flagged"] == [{"call": "add(2, 2)", "expected": "5", "setup": []}]
    names = " ".join(c["name"] for c in values["test_report"]["cases"])
    assert "add(2, 3)" in names and "add(2, 2)" not in names
    assert values["status"] == "completed" and "debugging" not in run.path(values)


def test_the_tester_sees_the_task_but_never_the_code(scripted):
    marker = fenced("def add(a, b):\n    # MARKER-IN-THE-CODE\n    return a + b\n")
    run = scripted(planner=[PLAN], coder=[marker], reviewer=[APPROVE])
    run()
    prompt = run.models["tester"].prompts[0]
    assert "def add(a: int, b: int)" in prompt and "MARKER-IN-THE-CODE" not in prompt


def test_failing_tests_go_to_debugging_then_pass(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])
    values = run()
    assert values["status"] == "completed"
    assert run.path(values) == [
        "initialized",
        "planning",
        "implementing",
        "designing_tests",
        "selecting",
        "testing",
        "debugging",
        "testing",
        "reviewing",
        "completed",
    ]
    # one candidate has no pool to choose from: the selection sends it to repair
    selected = next(v for v in values["verdicts"] if v["stage"] == "selecting")
    assert selected["outcome"] == "repair" and selected["evidence"].startswith("the one candidate fails")
    prompt = run.models["debugger"].prompts[0]
    assert "add(1, 2) returned -1, expected 3" in prompt and "Trace of this call" not in prompt
    assert values["counters"]["debug"] == 1


def test_a_run_that_asks_for_traces_shows_the_debugger_the_first_failing_call_line_by_line(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])
    assert run(traced_failures=1)["status"] == "completed"
    prompt = run.models["debugger"].prompts[0]
    # The line that computes the wrong value, with its inputs, and what the call returned.
    assert ": return a - b   [a=1, b=2]\nadd returns -1" in prompt
    assert prompt.count("Trace of this call") == 1


def test_repeated_fix_stops_the_debug_loop(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[BAD] * 3, reviewer=[APPROVE, APPROVE])
    values = run(max_rounds=1)
    debug_verdicts = [v for v in values["verdicts"] if v["stage"] == "debugging"]
    assert [v["outcome"] for v in debug_verdicts] == ["repeat"]
    assert debug_verdicts[0]["target"] == "reviewing"
    # The greedy fix and both sampled draws repeated the code already tried.
    assert run.models["debugger"].calls == 3


def test_a_repeated_fix_is_drawn_again(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[BAD, GOOD], reviewer=[APPROVE])
    values = run(max_rounds=1)
    assert values["status"] == "completed"
    assert [v["outcome"] for v in values["verdicts"] if v["stage"] == "debugging"] == ["pass"]
    retries = [e for e in values["ledger"] if e["role"] == "debugger" and e["kind"] == "retry"]
    assert ["repeats a version already tried" in e["detail"] for e in retries] == [True]


def test_a_sampled_redraw_that_fails_keeps_the_draw_before_it():
    call = StageCall(
        stage="debugging", role="debugger", round=1, context=Context(), models={}, spec=SPECS["debugger"]
    )
    tried = CodeArtifact(files={"solution.py": "def add(a, b):\n    return a - b\n"})
    temperatures: list[float | None] = []

    def draw(temperature: float | None) -> CodeArtifact:
        temperatures.append(temperature)
        if temperature is None:
            return tried
        raise OutputError("the code does not parse")

    assert unrepeated(call, draw, [tried.files], redraws=2) == tried
    assert temperatures[0] is None and all(t is not None and t > 0 for t in temperatures[1:])
    assert len(temperatures) == 3  # the greedy draw, then both sampled draws
    assert [e.detail for e in call.ledger if e.kind == "retry"] == [
        "repeats a version already tried; sampling again",
        "sampled draw: the code does not parse",
    ] * 2


def test_debug_attempts_are_bounded_per_round(scripted):
    # Each fix fails a different example, so the evidence changes and only the bound ends the loop.
    fixes = [fenced(f"def add(a, b):\n    return a + b + (a == {a})\n") for a in (1, -1, 1, -1)]
    run = scripted(planner=[PLAN], coder=[BAD], debugger=fixes, reviewer=[APPROVE])
    values = run(max_debug_attempts=2, max_rounds=1)
    testing = [v for v in values["verdicts"] if v["stage"] == "testing"]
    assert [v["outcome"] for v in testing] == ["tests_failed", "tests_failed", "exhausted"]
    assert "debug attempts exhausted" in testing[-1]["evidence"]
    assert run.models["debugger"].calls == 2


def test_review_requesting_changes_starts_a_new_round(scripted):
    # The debugger cannot repair BAD, so the review sees failing integration cases and a new round starts.
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], debugger=[BAD], reviewer=[CHANGES, APPROVE])
    values = run()
    assert values["status"] == "completed"
    assert values["counters"]["round"] == 2
    review_outcomes = [v["outcome"] for v in values["verdicts"] if v["stage"] == "reviewing"]
    assert review_outcomes == ["changes", "pass"]
    revise_prompt = run.models["coder"].prompts[1]
    assert "[major] solution.py:add: wrong" in revise_prompt
    assert {m["round"] for m in values["handoffs"] if m["sender"] == "coder"} == {1, 2}


def test_a_function_whose_cases_all_pass_is_approved_without_a_model_review(scripted):
    run = scripted(planner=[PLAN], coder=[GOOD], reviewer=[CHANGES])
    values = run()
    assert values["status"] == "completed" and values["counters"]["round"] == 1
    assert run.models["reviewer"].calls == 0
    assert values["review"]["decision"] == "approve" and values["review"]["integration"]["ending"] == "passed"


def test_failing_integration_blocks_approval_whatever_the_reviewer_says(scripted):
    run = scripted(planner=[PLAN], coder=[BAD, GOOD], debugger=[BAD], reviewer=[APPROVE, APPROVE])
    values = run()
    first = next(v for v in values["verdicts"] if v["stage"] == "reviewing")
    assert first["outcome"] == "changes" and "integration tests failed" in first["evidence"]
    assert values["status"] == "completed"


def test_a_round_that_changes_nothing_the_review_checks_ends_the_run(scripted):
    # Each revision is drawn again while it repeats the code (greedy, then twice sampled) and the review
    # meets the same failing examples: the second round's review ends the run instead of a third round.
    run = scripted(planner=[PLAN], coder=[BAD] * 7, debugger=[BAD] * 3, reviewer=[CHANGES] * 3)
    values = run(max_rounds=3)
    assert values["status"] == "failed" and values["counters"]["round"] == 2
    reviews = [v for v in values["verdicts"] if v["stage"] == "reviewing"]
    assert [v["outcome"] for v in reviews] == ["changes", "exhausted"]
    assert reviews[-1]["evidence"].startswith(
        "evidence repeats: implementing, selecting, testing changed "
        "nothing reviewing checks; integration tests failed"
    )
    # The second round's test run met the first round's failures too: no fix was asked for again.
    testing = [v["outcome"] for v in values["verdicts"] if v["stage"] == "testing"]
    assert testing[-1] == "exhausted" and run.models["debugger"].calls == 3
    assert run.models["reviewer"].calls == 2 and run.models["coder"].calls == 1 + 3
    assert run.path(values)[-2:] == ["reviewing", "failed"]


def test_contract_violation_is_retried_with_feedback_then_fails(scripted):
    empty_plan = {"subtasks": []}
    run = scripted(planner=[empty_plan, empty_plan, empty_plan])
    values = run(max_output_retries=2)
    assert values["status"] == "failed"
    assert run.path(values) == ["initialized", "planning", "failed"]
    assert run.models["planner"].calls == 3
    assert "was rejected" in run.models["planner"].prompts[1]
    assert "subtasks" in run.models["planner"].prompts[1]
    retries = [e for e in values["ledger"] if e["kind"] == "retry"]
    assert len(retries) == 2
    assert values["violations"] and values["violations"][0]["role"] == "planner"


def test_malformed_output_recovers_on_retry(scripted):
    run = scripted(planner=["Sure! Here is my plan: do it.", PLAN], coder=[GOOD], reviewer=[APPROVE])
    values = run()
    assert values["status"] == "completed"
    malformed = [e for e in values["ledger"] if e["kind"] == "llm" and e["outcome"] == "malformed"]
    assert len(malformed) == 1 and malformed[0]["role"] == "planner"
    assert "no tool call" in run.models["planner"].prompts[1]


def test_code_without_the_entry_point_is_a_violation(scripted):
    run = scripted(planner=[PLAN], coder=[fenced("def other():\n    pass\n")] * 3)
    values = run()
    assert values["status"] == "failed"
    assert "does not define `add`" in values["reason"]


def test_empty_request_fails_at_intake():
    from tests.conftest import Run

    values = Run()("   ")
    assert values["status"] == "failed"
    assert "empty" in values["reason"]


def test_ledger_accounts_for_every_llm_call_and_gate(scripted):
    run = scripted(planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])
    values = run(price_in_per_1k=1.0, price_out_per_1k=2.0)
    llm = [e for e in values["ledger"] if e["kind"] == "llm"]
    # planner, coder, tester, debugger; the passing function needs no model review
    assert len(llm) == sum(m.calls for m in run.models.values()) == 4
    assert all(e["tokens_in"] > 0 and e["cost"] > 0 for e in llm)
    gates = [e for e in values["ledger"] if e["kind"] == "gate"]
    assert len(gates) == len(values["verdicts"])
    assert {e["stage"] for e in values["ledger"] if e["kind"] == "sandbox"} == {
        "selecting",
        "testing",
        "reviewing",
    }


def test_lifecycle_table_is_the_one_compiled():
    assert LIFECYCLE.initial == "initialized"
    assert {s.name for s in LIFECYCLE.terminal()} == {"completed", "unverified", "failed"}


def test_an_empty_code_reply_is_malformed_and_retried(scripted):
    run = scripted(planner=[PLAN], coder=["", GOOD], reviewer=[APPROVE])
    values = run()
    assert values["status"] == "completed"
    malformed = [e for e in values["ledger"] if e["kind"] == "llm" and e["outcome"] == "malformed"]
    assert [(e["role"], e["detail"]) for e in malformed] == [("coder", "empty code")]


def test_threads_from_before_the_chat_channel_still_show_their_handoffs():
    from accord.state.graph_state import code_versions, handoffs

    legacy = {
        "sender": "coder",
        "receiver": "tester",
        "round": 1,
        "payload": [{"kind": "code", "files": {"a.py": "x = 1"}}],
    }
    new = {**legacy, "payload": [{"kind": "code", "files": {"a.py": "x = 2"}}]}
    state = {"messages": [legacy], "handoffs": [new]}
    assert handoffs(state) == [legacy, new]
    assert code_versions(state) == [{"a.py": "x = 1"}, {"a.py": "x = 2"}]


def test_a_run_replies_in_the_chat_channel_except_on_a_thread_from_before_it():
    from accord.graphs.compiler import Compiler
    from accord.graphs.development import GATES, ROLES

    finish = Compiler(LIFECYCLE, ROLES, GATES)._terminal_node(LIFECYCLE.by_name["completed"])
    code = {"kind": "code", "files": {"solution.py": "def add(a, b):\n    return a + b\n"}}
    [reply] = finish({"code": code, "messages": []})["messages"]
    assert reply.content.startswith("Run completed.") and "```python\ndef add(a, b):" in reply.content
    legacy = {"sender": "coder", "receiver": "tester", "round": 1, "payload": []}
    assert "messages" not in finish({"code": code, "messages": [legacy]})
