"""An application built step by step into ``app.py``: each call sees the plan and the code so far and
returns only the new or changed definitions; each step is checked at once against its acceptance and
sampled again on a miss.

A records application's features are checked for their effect on the data file and code writes its
``main()`` from the plan (``nodes.interface``). Any other program's units are checked by the examples its
design states, and the model writes its ``main()``, checked by the design's session (``nodes.sessions``).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

from accord.nodes import interface, sessions, testing
from accord.nodes.coding.app_tests import write_tests
from accord.nodes.coding.prompts import (
    CONVENTIONS,
    ENTRY_CONVENTIONS,
    EXAMPLE_NAMES,
    MISSING_PROMPT,
    SUBTASK_PROMPT,
)
from accord.nodes.coding.writing import code_written, function_name, merged, write_piece
from accord.nodes.llm import retry_temperature
from accord.nodes.merge import (
    defined_names,
)
from accord.nodes.signatures import STORAGE_NAMES
from accord.nodes.static_check import unbound_in, undefined_names
from accord.nodes.views import (
    APP_FILE,
    plan_view,
    task_view,
)
from accord.runtime import sandbox
from accord.runtime.executor import perform
from accord.state.artifacts import CaseResult, CodeArtifact, Design, Example, Plan, TaskSpec, TestReport
from accord.state.stage import OutputError, StageCall

PIECE_ATTEMPTS = 3

Check = Callable[[CodeArtifact], None]
"""A check of the code so far that refuses it with an OutputError (the retry's feedback)."""


def merged_piece(
    call: StageCall,
    app: CodeArtifact | None,
    path: str,
    prompt: str,
    check: Check | None = None,
    prefer: Check | None = None,
    drop: frozenset[str] = frozenset(),
    keep: frozenset[str] | None = None,
) -> CodeArtifact:
    """Ask for one piece of code and merge it into ``path`` (less the definitions named in ``drop``; never
    over those named in ``keep``, by default a records application's ``main()``), retrying just this call
    with the error.

    ``check`` may refuse the merged result with an OutputError, which becomes the retry's feedback.
    ``prefer`` may too, but softly: when no attempt satisfies it, the last answer that passed ``check`` is
    kept and the miss recorded (the gates judge the whole application later).
    """
    feedback, kept, missed = "", None, ""
    for attempt in range(PIECE_ATTEMPTS):
        temperature = None if attempt == 0 else retry_temperature(call)
        try:
            code = write_piece(call, prompt + feedback, temperature)
            if len(code.strip()) < 10:
                raise OutputError("the code is empty")
            result = merged(app, path, code, drop=drop, keep=keep)
            if check is not None:
                check(result)
            kept, missed = result, ""
            if prefer is not None:
                try:
                    prefer(result)
                except OutputError as exc:
                    missed = str(exc)
                    raise
            return result
        except OutputError as exc:
            call.record("retry", outcome=str(attempt + 1), detail=f"{path}: {exc}"[:300])
            feedback = f"\n\nYour previous answer was rejected: {exc}. Answer again with corrected code."
    if kept is not None:
        call.record("error", outcome="kept", detail=f"{path}: kept one that fails: {missed}"[:300])
        return kept
    raise OutputError(f"{path}: no valid code after {PIECE_ATTEMPTS} attempts ({feedback.strip()})")


def acceptance(call: StageCall, plan: Plan, name: str) -> Check | None:
    """Return the check a step that writes ``name`` must pass as soon as it is written, or None when it
    has none: every function reads only names that exist (``bound``), then a records feature's effect
    (``behaves``), a program unit's examples, a program's session."""
    subtask = next((s for s in plan.subtasks if function_name(s.function) == name), None)
    checks = [bound(plan, name)] if name else []
    if plan.shape == "records":
        checks += [behaves(call, plan, name)] if interface.checkable(plan, name) else []
    elif name == "main" and plan.design is not None:
        checks.append(plays(call, plan))
    elif subtask is not None and subtask.examples:
        checks.append(holds(call, name, subtask.examples, plan.design))
    return _all(checks) if checks else None


def _all(checks: list[Check]) -> Check:
    """Return a check that runs every one of ``checks`` and refuses with all their problems: a ``main()``
    that reads an undefined name is still played, so the retry sees the session's failure as well."""

    def check(code: CodeArtifact) -> None:
        problems = []
        for each in checks:
            try:
                each(code)
            except OutputError as exc:
                problems.append(str(exc))
        if problems:
            raise OutputError("; and ".join(problems))

    return check


def bound(plan: Plan, name: str) -> Check:
    """Return a check that the function ``name`` reads no global that nothing defines, other than the
    plan's functions still to be written.

    The local model's ``main()`` plays on a ``board`` it never creates: the session fails on the
    NameError, and a fix of the whole file repeats it round after round. Named, the step's own prompt
    creates it.
    """
    planned = {function_name(s.function) for s in plan.subtasks}

    def check(code: CodeArtifact) -> None:
        if missing := [n for n in unbound_in(code.files[APP_FILE], name) if n not in planned]:
            names = ", ".join(f"`{n}`" for n in missing)
            raise OutputError(
                f"`{name}` uses {names}, which nothing defines: create {names} in `{name}` "
                "(e.g. with a function of the plan) or pass it as an argument"
            )

    return check


def holds(call: StageCall, name: str, examples: tuple[Example, ...], design: Design | None = None) -> Check:
    """Return a check that a program's unit satisfies the examples its design states, once every function
    they call is written (``winner(new_board())`` waits for ``new_board``), the design's input files beside
    it (``read_words('notes.txt')`` reads the file the session reads)."""
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)
    called = _called(examples) - set(dir(builtins))

    def run(code: CodeArtifact) -> TestReport:
        report, result = testing.run_examples(sessions.beside(code, design), APP_FILE, examples, limits)
        passed = sum(c.passed for c in report.cases)
        call.record(
            "sandbox",
            latency_s=result.duration_s,
            outcome=report.ending,
            detail=f"examples of {name}: {passed}/{len(examples)} passed",
        )
        return report

    def check(code: CodeArtifact) -> None:
        if missing := sorted(called - defined_names(code.files[APP_FILE])):
            call.record(
                "sandbox",
                outcome="skipped",
                detail=f"examples of {name}: {', '.join(missing)} not written yet",
            )
            return
        report = perform(call, "sandbox", run, code=code)
        if not report.passed:
            failures = report.failures()
            raise OutputError(failures[0].message.splitlines()[0] if failures else report.output[-300:])

    return check


def _called(examples: tuple[Example, ...]) -> set[str]:
    """Return the names of the functions the examples call (an example that does not parse calls none)."""
    names: set[str] = set()
    for part in (p for e in examples for p in (e.call, e.expected)):
        try:
            tree = ast.parse(part, mode="eval")
        except SyntaxError:
            continue
        names |= {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
    return names


def plays(call: StageCall, plan: Plan) -> Check:
    """Return a check that a program's ``main()`` plays its design's session."""
    assert plan.design is not None
    design, limits = plan.design, sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def run(code: CodeArtifact) -> TestReport:
        cases = sessions.play(code, APP_FILE, design, limits)
        call.record(
            "sandbox",
            outcome="passed" if all(c.passed for c in cases) else "failed",
            detail=f"session of main(): {sum(c.passed for c in cases)}/{len(cases)} passed",
        )
        return TestReport(ending="passed" if all(c.passed for c in cases) else "failed", cases=tuple(cases))

    def check(code: CodeArtifact) -> None:
        report = perform(call, "sandbox", run, code=code)
        if not report.passed:
            raise OutputError(report.failures()[0].message[:SESSION_FEEDBACK])

    return check


SESSION_FEEDBACK = 900
"""Characters of a failed session (the problem, then the transcript) the Coder is shown."""


def behaves(call: StageCall, plan: Plan, name: str) -> Check:
    """Return a check that a step just written has the effect it must have on the data file
    (``nodes.interface``): a storage step reads or writes it, a feature run through the interface written
    from the plan does what its verb implies. On the local model, a step sampled again with the failure
    beats a review round's revision, which rarely repairs one."""
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def effects(code: CodeArtifact) -> TestReport:
        if name in interface.STORAGE_CHECKS:
            case: CaseResult | None = interface.storage_effects(code, APP_FILE, name, limits)
        else:
            case = interface.feature_effects(with_interface(plan, code), APP_FILE, plan, name, limits)
        call.record(
            "sandbox",
            outcome="skipped" if case is None else "passed" if case.passed else "failed",
            detail=f"effects of {name}" + (": an add before it fails" if case is None else ""),
        )
        return TestReport(
            ending="passed" if case is None or case.passed else "failed",
            cases=() if case is None else (case,),
        )

    def check(code: CodeArtifact) -> None:
        report = perform(call, "sandbox", effects, code=code)
        if not report.passed:
            raise OutputError(report.cases[0].message.partition("\ninput:")[0])

    return check


def _best_effort(call: StageCall, app: CodeArtifact, what: str, prompt: str) -> CodeArtifact:
    """Merge a piece into the app if the model manages one; if not, go on (the tests will show the gap)."""
    try:
        return merged_piece(call, app, APP_FILE, prompt)
    except OutputError as exc:
        call.record("error", outcome="skipped", detail=f"{what}: {exc}"[:300])
        return app


def defines(name: str) -> Check:
    def check(code: CodeArtifact) -> None:
        if name not in defined_names(code.files[APP_FILE]):
            raise OutputError(f"the code does not define `{name}`: write `def {name}(...)`")

    return check


def _step_prompt(task: TaskSpec, plan: Plan, app: CodeArtifact | None, number: int) -> str:
    """Return the prompt for step ``number`` (1-based) of an application's plan, given the code so far."""
    subtask = plan.subtasks[number - 1]
    name = function_name(subtask.function)
    if plan.shape == "program":
        used = plan.design.interface if plan.design else "interactive"
        conventions = ENTRY_CONVENTIONS[used] if name == "main" else ""
    else:
        conventions = CONVENTIONS if name not in STORAGE_NAMES else ""
    return SUBTASK_PROMPT.format(
        task=task_view(task),
        plan=plan_view(plan),
        app=APP_FILE,
        code=_app_view(app),
        number=number,
        title=subtask.title,
        description=subtask.description,
        conventions=conventions,
        function=f" as the function `{subtask.function}`" if name else "",
    )


def _unplanned_examples(plan: Plan) -> frozenset[str]:
    return EXAMPLE_NAMES - {function_name(s.function) for s in plan.subtasks}


def repair_step(call: StageCall, task: TaskSpec, plan: Plan, code: CodeArtifact) -> CodeArtifact | None:
    """Sample again the first step that fails its acceptance (``acceptance``), shown its failure; return
    the code with a sample that passes, or None when every step passes or no sample does.

    Asked for a free-form fix against the review or the tests, the local model repeats the failing step
    round after round; the step's own prompt and check repair from the concrete case.
    """
    failing = _first_wrong_step(call, plan, code)
    if failing is None:
        return None
    number, failure = failing
    name = function_name(plan.subtasks[number - 1].function)
    accepted = acceptance(call, plan, name)
    assert accepted is not None  # the step failed its acceptance

    def check(candidate: CodeArtifact) -> None:
        defines(name)(candidate)
        accepted(candidate)

    prompt = (
        _step_prompt(task, plan, code, number)
        + f"\n\nThe current `{name}` is wrong: {failure}. Answer with corrected code."
    )
    try:
        return merged_piece(
            call, code, APP_FILE, prompt, check=check, drop=_unplanned_examples(plan), keep=code_written(plan)
        )
    except OutputError as exc:
        call.record("error", outcome="unrepaired", detail=f"{name}: {exc}"[:300])
        return None


def _first_wrong_step(call: StageCall, plan: Plan, code: CodeArtifact) -> tuple[int, str] | None:
    """Return the number of the first step whose acceptance check fails, with the failure (None if none)."""
    for number, subtask in enumerate(plan.subtasks, 1):
        if (check := acceptance(call, plan, function_name(subtask.function))) is not None:
            try:
                check(code)
            except OutputError as exc:
                return number, str(exc)
    return None


def with_interface(plan: Plan, code: CodeArtifact) -> CodeArtifact:
    """Return the app with ``main()`` written from the plan's features (LOCAL_CODE, ``nodes.interface``)."""
    return merged(code, APP_FILE, interface.interface(plan, interface.data_file(plan)), keep=frozenset())


def _app_view(code: CodeArtifact | None) -> str:
    return f"```python\n{code.files[APP_FILE]}```" if code and APP_FILE in code.files else "(empty)"


def build_application(call: StageCall, task: TaskSpec, plan: Plan) -> CodeArtifact:
    """Write an application step by step (a records application's interface from the plan), then its
    tests."""
    app: CodeArtifact | None = None
    records = plan.shape == "records"
    for number, subtask in enumerate(plan.subtasks, 1):
        name = function_name(subtask.function)
        if name == "main" and records:
            continue  # the interface is written from the plan below
        prompt = _step_prompt(task, plan, app, number)
        app = merged_piece(
            call,
            app,
            APP_FILE,
            prompt,
            check=defines(name) if name else None,
            prefer=acceptance(call, plan, name),
            drop=_unplanned_examples(plan),
            keep=code_written(plan),
        )
    assert app is not None  # an application's plan has at least one feature
    if records:
        app = perform(call, "interface", with_interface, plan=plan, code=app)
    if missing := undefined_names(APP_FILE, app.files):
        app = _best_effort(
            call,
            app,
            "missing definitions",
            MISSING_PROMPT.format(
                task=task_view(task), app=APP_FILE, code=_app_view(app), problems="\n".join(missing)
            ),
        )
    return write_tests(call, plan, app)
