"""The monolithic baselines: one model call from the task alone, no plan, no tests (the evals' ``single``).

``single`` is the model at its plain best: on a function task the call any HumanEval harness makes for a
chat model (EvalPlus's instruction around the stub, no system prompt, and on a model whose chat template it
can apply, the start of the answer written for it) and the harness's extraction; on a class task the
skeleton continued method by method at temperature 0 (ClassEval's compositional generation), since asked
for the whole class the small models hand the skeleton back.
``single-holistic`` asks for a class in one call with ClassEval's own instruction instead (its holistic
generation), as ClassEval's published baselines do.
``single-completion`` is the original HumanEval harness's call instead: the stub itself continued, as a
completion, up to the function's end.
``single-coder`` is one call with the Coder's system prompt and instructions instead.
``best-of-n`` is the plain model given a team's tokens: ``single``'s call, then samples of it, each run on
the task's stated examples, until one passes them all or the next call would spend past the task's
``Context.token_cap`` (the compared team's spend on that task; ``best_of`` calls where none is set); the
reply passing most examples is kept (the earliest among equals, so ``single``'s own answer wins a tie),
and with no example stated the reply sampled most often (the candidates' agreement).
``self-repair`` is the plain model repairing its own answer (Chen et al., 2023, self-debugging; Olausson
et al., 2024): ``single``'s call, then, while the answer fails a stated example, the failures fed back in
the same chat, within the same cap; the answer passing most examples is kept.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from accord.nodes import testing
from accord.nodes.coding.function import SAMPLE_TEMPERATURE
from accord.nodes.coding.methods import BODY_TOKENS
from accord.nodes.coding.prompts import ALONE_PROMPT, SYSTEM
from accord.nodes.coding.writing import (
    HARNESS_PROMPT,
    harness_reply,
    write_class,
    write_function,
    write_piece,
)
from accord.nodes.llm import continuation, plain_text
from accord.nodes.merge import without_checks
from accord.nodes.views import (
    APP_FILE,
    FUNCTION_FILE,
    artifacts,
    code_block,
    defines,
    failures_view,
    task_view,
)
from accord.runtime import sandbox
from accord.runtime.executor import perform
from accord.state.artifacts import CodeArtifact, TaskSpec, TestReport
from accord.state.graph_state import dump
from accord.state.stage import StageCall

APP_PROMPT = """{task}

Return the whole program, one Python module `{app}` runnable as `python {app}`, in one ```python code
block."""

CLASS_HARNESS_PROMPT = """Please complete the class {name} in the following code.
{stub}"""
"""ClassEval's instruction for chat models (its holistic generation), with the skeleton as given."""


def implement_alone(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the code in one call with the Coder's system prompt that sees only the task."""
    task, _, _ = artifacts(state)
    if task.completes_stub:
        prompt = ALONE_PROMPT.format(task=task_view(task), name=task.entry_point)
        return {"code": dump(write_function(call, SYSTEM, task, prompt))}
    return _application(call, task)


def implement_plainly(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write the code as plainly as the model does best: a function task's stub in one call with EvalPlus's
    instruction and no system prompt (``harness_reply``); a class skeleton continued method by method at
    temperature 0, with no plan and no tests (``write_class``); an application from the task alone."""
    task, _, _ = artifacts(state)
    if not task.completes_stub:
        return _application(call, task)
    if task.level == "class":
        return {"code": dump(write_class(call, task))}
    reply = harness_reply(call, HARNESS_PROMPT.format(stub=(task.stub or "").strip()))
    return {"code": dump(harness_module(task, reply))}


def implement_holistically(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Ask for a class in one call with ClassEval's own instruction, the skeleton as given (ClassEval's
    holistic generation); any other task as ``implement_plainly``."""
    task, _, _ = artifacts(state)
    if task.level != "class":
        return implement_plainly(state, call)
    reply = plain_text(
        call, CLASS_HARNESS_PROMPT.format(stub=(task.stub or "").strip(), name=task.entry_point), what="code"
    )
    return {"code": dump(harness_module(task, reply))}


def room_for_another(call: StageCall, made: int) -> bool:
    """Return whether a baseline that has made ``made`` calls may make one more: where the task has a token
    cap, while its calls so far plus one more of their mean size stay within it (so it never spends past
    the team it is compared with); else while fewer than ``best_of`` calls are made."""
    cap = call.context.token_cap
    spent = sum(e.tokens_in + e.tokens_out for e in call.ledger if e.kind == "llm")
    if not cap or not spent:  # no cap, or an endpoint that reports no usage: count calls instead
        return made < max(1, call.context.best_of)
    return made < MOST_CALLS and spent + spent / max(1, made) <= cap


MOST_CALLS = 64
"""A bound on a capped baseline's calls whatever its cap, should a reply cost next to nothing."""


def implement_best_of(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Sample ``single``'s call (the first as ``single`` makes it) until a reply passes every stated
    example or there is no room for another call (``room_for_another``); keep the reply passing most
    examples, or with none stated the reply sampled most often; any other task than a function as
    ``implement_plainly``."""
    task, _, _ = artifacts(state)
    if not task.completes_stub or task.level == "class":
        return implement_plainly(state, call)
    instruction = HARNESS_PROMPT.format(stub=(task.stub or "").strip())
    run = _on_examples(call, task, lambda code: f"sample {pool.index(code) + 1}")
    pool: list[CodeArtifact] = []
    times: list[int] = []  # how often each distinct reply was sampled
    passes: list[int] = []
    made = 0
    while True:
        code = harness_module(task, harness_reply(call, instruction, SAMPLE_TEMPERATURE if made else None))
        made += 1
        if code in pool:
            times[pool.index(code)] += 1
            call.record("retry", outcome=str(made), detail=f"sample {made} repeats one before")
        else:
            pool.append(code)
            times.append(1)
            if task.examples:
                report = perform(call, "sandbox", run, code=code)
                passes.append(sum(c.passed for c in report.cases))
                if report.passed:
                    break
        if not room_for_another(call, made):
            break
    score = passes if task.examples else times
    best = max(range(len(pool)), key=lambda i: (score[i], -i))
    return {"code": dump(pool[best])}


def _on_examples(
    call: StageCall, task: TaskSpec, label: Callable[[CodeArtifact], str]
) -> Callable[[CodeArtifact], TestReport]:
    """Return the sandbox action that runs a reply's module on the task's stated examples, each run in the
    ledger under ``label(code)`` with how many examples passed."""
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def run(code: CodeArtifact) -> TestReport:
        report, result = testing.run_examples(code, FUNCTION_FILE, task.examples, limits)
        call.record(
            "sandbox",
            latency_s=result.duration_s,
            outcome=report.ending,
            detail=f"{label(code)}: {sum(c.passed for c in report.cases)}/{len(task.examples)} examples",
        )
        return report

    return run


REPAIR_PROMPT = """Running the script on the problem's examples fails:
{failures}

Please fix it, and provide the whole corrected self-contained Python script in a markdown code block."""
"""The feedback of self-repair: the failing examples as the sandbox reports them, nothing else."""


def implement_self_repair(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Make ``single``'s call, then, while the latest answer fails one of the task's stated examples and
    there is room for another call (``room_for_another``), feed its failures back in the same chat (the
    first repair at the role's temperature, later ones at ``SAMPLE_TEMPERATURE``, since a repeated greedy
    reply repeats its repair) and keep the answer passing most examples, the earliest among equals; any
    other task than a function, or one stating no example, as ``implement_plainly``."""
    task, _, _ = artifacts(state)
    if not task.completes_stub or task.level == "class" or not task.examples:
        return implement_plainly(state, call)
    instruction = HARNESS_PROMPT.format(stub=(task.stub or "").strip())
    tried: list[tuple[CodeArtifact, int]] = []
    run = _on_examples(call, task, lambda _: f"answer {len(tried) + 1}")
    reply = harness_reply(call, instruction)
    for number in itertools.count(1):
        code = harness_module(task, reply)
        report = perform(call, "sandbox", run, code=code)
        tried.append((code, sum(c.passed for c in report.cases)))
        if report.passed or not room_for_another(call, number):
            break
        feedback = REPAIR_PROMPT.format(failures=failures_view(report))
        reply = harness_reply(
            call, feedback, None if number == 1 else SAMPLE_TEMPERATURE, before=((instruction, reply),)
        )
    best = max(range(len(tried)), key=lambda i: (tried[i][1], -i))
    return {"code": dump(tried[best][0])}


COMPLETION_STOPS = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
"""The HumanEval harness's stop sequences (Chen et al., 2021): a line at the module's level ends the
function."""


def complete_plainly(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write a function in one plain completion, as the original HumanEval harness asks a model: the stub
    exactly as given, continued at temperature 0 up to the harness's stop sequences, the stub and its
    continuation scored as they are; any other task as ``implement_plainly``."""
    task, _, _ = artifacts(state)
    if not task.completes_stub or task.level == "class":
        return implement_plainly(state, call)
    stub = task.stub or ""
    body = continuation(call, stub, COMPLETION_STOPS, 0.0, BODY_TOKENS, what="code")
    return {"code": dump(CodeArtifact(files={FUNCTION_FILE: stub + body}, entry_points=(FUNCTION_FILE,)))}


def harness_module(task: TaskSpec, reply: str) -> CodeArtifact:
    """Return the module a harness scores for ``reply``: the stub, then the reply's code block that defines
    the entry point (else its first block, else the reply itself); a block that defines no such function
    or class is taken as the stub's body.

    The module keeps its definitions: the checks the model wrote after its code, and a last statement cut
    off at the length limit, are dropped (``without_checks``), as a harness's sanitizer drops them. Nothing
    is repaired or retried: code that does not parse fails the hidden tests, as it would in the harness.
    """
    code = code_block(reply, task.entry_point or "")
    stub = task.stub or ""
    source = f"{stub}\n\n{code}" if defines(code, task.entry_point or "") else f"{stub.rstrip()}\n{code}"
    # Code that does not parse is scored as written, and fails as the harness fails it.
    with contextlib.suppress(SyntaxError):
        source = without_checks(source, task.entry_point or "")
    return CodeArtifact(files={FUNCTION_FILE: source}, entry_points=(FUNCTION_FILE,))


def _application(call: StageCall, task: TaskSpec) -> dict[str, Any]:
    source = write_piece(call, APP_PROMPT.format(task=task_view(task), app=APP_FILE))
    return {"code": dump(CodeArtifact(files={APP_FILE: source}, entry_points=(APP_FILE,)))}
