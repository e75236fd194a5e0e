"""The Coder: implements the plan into the shared file map (LLM).

A function-level task gets several candidate implementations, each a fenced block in a plain-text reply
(the Tester's selection keeps one). An application is built feature by feature into ``app.py``: each call
sees the plan and the code so far and returns only the new or changed definitions, which code merges in
by name (``nodes.merge``); code writes ``main()`` from the plan (``nodes.interface``); then one pytest
test per function in ``test_app.py``. All code comes as fenced blocks in plain text: inside a JSON string
the small local model must escape every quote and newline, and one slip loses the answer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from typing import Any

from graphs.compiler import OutputError, StageCall
from nodes import interface, sandbox, testing
from nodes.executor import perform
from nodes.llm import retry_temperature, text
from nodes.merge import (
    clean_test_module,
    defined_names,
    definition,
    merge_module,
    named_tests,
    repaired,
    without_calls,
)
from nodes.planner import FILE_PARAMETERS, STORAGE_NAMES
from nodes.static_check import test_functions, undefined_names
from nodes.views import (
    APP_FILE,
    FUNCTION_FILE,
    TEST_FILE,
    apply_changes,
    artifacts,
    code_block,
    code_view,
    plan_view,
    review_view,
    strip_fences,
    task_view,
)
from state.artifacts import Candidates, CaseResult, CodeArtifact, Plan, ReviewReport, TaskSpec, TestReport
from state.contracts import Contract
from state.graph_state import code_versions, dump, read

CONTRACT = Contract(role="coder", duty="implement", inputs=("task", "plan"),
                    optional_inputs=("code", "review", "candidates", "selection"), outputs=("code",),
                    optional_outputs=("candidates",))

SYSTEM = """You are the Coder of a small software team. Write correct, complete, runnable Python.
No placeholders, no TODOs. Handle the edge cases the task implies."""

FUNCTION_PROMPT = """{task}

Plan:
{plan}

Return the complete implementation of `{name}` (with any imports and helper functions it needs) in one
```python code block."""

ALONE_PROMPT = """{task}

Return the complete implementation of `{name}` (with any imports and helpers it needs) in one ```python
code block."""
"""The task alone: the monolithic baseline's one call, and the Coder's first candidate."""

SAMPLE_TEMPERATURE = 0.8
"""Sampled candidates: hot enough to differ from the greedy ones."""

SUBTASK_PROMPT = """{task}

Plan:
{plan}

Current {app}:
{code}

Now implement subtask {number}: {title} ({description}){function}. Return only the new or changed
functions, with the imports and constants they need: they are merged into {app} by name. Do not repeat
unchanged code.
{conventions}
Answer with the code in one ```python code block."""

CONVENTIONS = """
The command-line interface calls each feature with the items and the words the user typed; a number that
picks an item arrives as its index in the list (0 for the first). A feature changes the items in place and
returns them, or returns what it reports. An item is a dict of its fields: marking or updating an item
changes a field (e.g. 'done') and keeps the item and its text in the list. A feature never reads or writes
the data file: the interface loads the items before and saves them after. For example:
```python
def set_priority(items, index, priority):
    items[index]['priority'] = priority
    return items
```
"""
"""What every feature of an application agrees on with the generated interface (``nodes.interface``, which
turns the user's 1-based numbers into indices). To-do runs of session 11 wrote a "mark done" that deleted
the item, and one that overwrote the task's text with 'Done'."""
EXAMPLE_NAMES = frozenset(defined_names(code_block(CONVENTIONS)))
"""What the conventions' example defines: a step's piece that copies it does not add it to the app, unless
the plan names it (to-do run 45374ecdcbdc merged a ``set_priority`` nobody asked for)."""

MISSING_PROMPT = """{task}

Current {app}:
{code}

Problems:
{problems}

Define what is missing (the constants, data or functions named above). Return only those definitions,
in one ```python code block."""

TEST_PROMPT = """Here is `{name}` from {app}:
```python
{source}
```

Test it with pytest: complete this test of `{name}` with concrete arguments and the result they must
give (a file path, where one is needed, is `tmp_path / 'items.json'`):
```python
def test_{name}(tmp_path):
    assert {name}(...) == ...
```
Check:
{criteria}

Answer with the test in one ```python code block."""
"""One test per function: asked for a whole test module, the small local model copies the code instead.
The test comes as a fenced block in plain text: through the JSON tool call most of the model's tests had
no tool call, a quote that broke the JSON or no assert (to-do run, session 10)."""

REVISE_PROMPT = """{task}

Plan:
{plan}

Current code:
{code}

The Reviewer asked for changes:
{review}

Fix the most important issue. Return {what}."""

CHANGED_DEFINITIONS = ("only the functions you change, in one ```python code block (they replace the "
                       "same-named ones; a test function goes into the tests)")
"""A fix comes as plain text, like all code: in the JSON tool call the local model once wrote a whole
revision on one line, three times over (to-do run, session 10)."""


def merged(code: CodeArtifact | None, path: str, piece: str,
           keep: frozenset[str] | None = None, drop: frozenset[str] = frozenset()) -> CodeArtifact:
    """Return ``code`` with ``piece`` merged into ``path`` by definition (tests kept importing the app).

    ``keep`` names definitions the piece may not replace; by default an app's ``main()``, once there.
    ``drop`` names definitions of the piece to leave out. An app's features lose their calls to the
    storage functions: ``main()`` loads and saves the items (``nodes.merge.without_calls``).

    Raises:
        OutputError: the piece does not parse, so the model can be told why.
    """
    files = dict(code.files) if code else {}
    if keep is None:
        # Once written from the plan, the interface is code's: a fix that rewrote main() dropped the
        # data file's name (to-do run 830e6868c58f).
        keep = frozenset({"main"}) if path == APP_FILE else frozenset()
    try:
        source = repaired(strip_fences(piece))
        if path == APP_FILE:
            source = without_calls(source, STORAGE_NAMES - {"main"}, exempt=frozenset({"main"}),
                                   file_parameters=FILE_PARAMETERS)
        content = merge_module(files.get(path, ""), source,
                               module=path.removesuffix(".py").replace("/", "."), keep=keep, drop=drop)
    except SyntaxError as exc:
        raise OutputError(f"the code for {path} does not parse: {_syntax(exc)}") from exc
    if path == TEST_FILE:
        content = clean_test_module(content, APP_FILE.removesuffix(".py"),
                                    defined_names(files.get(APP_FILE, "")))
    entry_points = code.entry_points if code else (APP_FILE,)
    return apply_changes(code, {path: content}, entry_points=entry_points)


def _syntax(exc: SyntaxError) -> str:
    """Return where and why code does not parse, with the offending line (for the model and the ledger)."""
    line = (exc.text or "").strip()
    return f"line {exc.lineno}: {exc.msg}" + (f": `{line[:120]}`" if line else "")


def fix_one_file(call: StageCall, system: str, prompt: str, code: CodeArtifact) -> CodeArtifact:
    """Ask for the changed definitions as a fenced block in plain text; return the code with them merged
    into the file they belong to (``file_of``), so a fix can also write the tests an application lacks."""

    def fix(code: CodeArtifact, prompt: str) -> CodeArtifact:
        piece = code_block(text(call, system, prompt, what="fix"))
        return merged(code, file_of(piece), piece)

    return perform(call, "FileFix", fix, code=code, prompt=prompt)


def file_of(piece: str) -> str:
    """Return the application file a piece of code belongs in: the tests when it defines only tests."""
    try:
        names = [n.name for n in ast.parse(strip_fences(piece)).body
                 if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    except SyntaxError:
        return APP_FILE  # the merge reports why it does not parse
    return TEST_FILE if names and all(n.startswith("test_") for n in names) else APP_FILE


def write_function(call: StageCall, system: str, task: TaskSpec, prompt: str,
                   temperature: float | None = None) -> CodeArtifact:
    """Ask for a function task's implementation as a fenced block in plain text; return its module."""

    def code(task: TaskSpec, prompt: str, temperature: float | None) -> CodeArtifact:
        reply = text(call, system, prompt, temperature, what="code")
        return function_module(task, code_block(reply, task.entry_point or ""))

    return perform(call, "code", code, task=task, prompt=prompt, temperature=temperature)


def write_test(call: StageCall, prompt: str, temperature: float | None = None) -> str:
    """Ask for a pytest test as a fenced block in plain text; return its source."""

    def ask(prompt: str, temperature: float | None) -> str:
        return code_block(text(call, SYSTEM, prompt, temperature, what="test"))

    return perform(call, "test", ask, prompt=prompt, temperature=temperature)


def write_piece(call: StageCall, prompt: str, temperature: float | None = None) -> str:
    """Ask for a piece of an application (new or changed definitions) as a fenced block in plain text.

    Through the JSON tool call, most of the local model's misses on a to-do feature were answers that
    did not parse as JSON: a ``}`` out of place, a string cut off (to-do run todo-s11f)."""

    def ask(prompt: str, temperature: float | None) -> str:
        return code_block(text(call, SYSTEM, prompt, temperature, what="piece"))

    return perform(call, "piece", ask, prompt=prompt, temperature=temperature)


REDRAWS = 2
"""Sampled draws after a function's revision or fix that repeats a version already tried. At temperature 0
the small model mostly hands back such a version (the repeat gate then ends the loop with nothing
learnt); a sampled draw gives the tests something new to judge."""


def new_function(call: StageCall, system: str, task: TaskSpec, prompt: str,
                 state: Mapping[str, Any]) -> CodeArtifact:
    """Write a function task's code, sampling again while it repeats a version already tried.

    Tried means handed over in a message or among the candidates the selection ran. When every draw
    repeats, the last is returned, and the gates see the repeat.
    """
    pool = read(state, "candidates", Candidates)
    tried = [*code_versions(state), *(c.files for c in (pool.items if pool else ()))]
    code = write_function(call, system, task, prompt)
    for draw in range(2, REDRAWS + 2):
        if code.files not in tried:
            break
        call.record("retry", outcome=str(draw), detail="repeats a version already tried; sampling again")
        try:
            code = write_function(call, system, task, prompt, retry_temperature(call))
        except OutputError as exc:
            call.record("retry", outcome=str(draw), detail=f"sampled draw: {exc}"[:300])
    return code


def function_module(task: TaskSpec, body: str) -> CodeArtifact:
    """Return the code artifact for a function task: the stub (its imports and helpers), then the code."""
    try:
        source = repaired(strip_fences(body))
    except SyntaxError as exc:
        raise OutputError(f"the code does not parse: {_syntax(exc)}") from exc
    if f"def {task.entry_point}" not in source:
        raise OutputError(f"the code does not define `{task.entry_point}`")
    return CodeArtifact(files={FUNCTION_FILE: f"{task.stub}\n\n{source}"},
                        entry_points=(FUNCTION_FILE,))


PIECE_ATTEMPTS = 3


def _merged_piece(call: StageCall, app: CodeArtifact | None, path: str, prompt: str,
                  check: Callable[[CodeArtifact], None] | None = None,
                  prefer: Callable[[CodeArtifact], None] | None = None,
                  drop: frozenset[str] = frozenset()) -> CodeArtifact:
    """Ask for one piece of code and merge it into ``path`` (less the definitions named in ``drop``),
    retrying just this call with the error.

    ``check`` may refuse the merged result with an OutputError, which becomes the retry's feedback.
    ``prefer`` may too, but softly: when no attempt satisfies it, the last answer that passed ``check`` is
    kept and the miss recorded (the gates judge the whole application later).
    """
    feedback, kept = "", None
    for attempt in range(PIECE_ATTEMPTS):
        temperature = None if attempt == 0 else retry_temperature(call)
        try:
            code = write_piece(call, prompt + feedback, temperature)
            if len(code.strip()) < 10:
                raise OutputError("the code is empty")
            result = merged(app, path, code, drop=drop)
            if check is not None:
                check(result)
            kept = result
            if prefer is not None:
                prefer(result)
            return result
        except OutputError as exc:
            call.record("retry", outcome=str(attempt + 1), detail=f"{path}: {exc}"[:300])
            feedback = f"\n\nYour previous answer was rejected: {exc}. Answer again with corrected code."
    if kept is not None:
        call.record("error", outcome="kept", detail=f"{path}: kept one that fails: {feedback.strip()}"[:300])
        return kept
    raise OutputError(f"{path}: no valid code after {PIECE_ATTEMPTS} attempts ({feedback.strip()})")


def _behaves(call: StageCall, plan: Plan, name: str) -> Callable[[CodeArtifact], None]:
    """Return a check that a step just written has the effect it must have on the data file
    (``nodes.interface``): a storage step reads or writes it, a feature run through the interface written
    from the plan does what its verb implies. On the local model, a step sampled again with the failure
    beat a review round's revision, which rarely repaired one (to-do run todo-s11d)."""
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def effects(code: CodeArtifact) -> TestReport:
        if name in interface.STORAGE_CHECKS:
            case: CaseResult | None = interface.storage_effects(code, APP_FILE, name, limits)
        else:
            case = interface.feature_effects(with_interface(plan, code), APP_FILE, plan, name, limits)
        call.record("sandbox", outcome="skipped" if case is None else "passed" if case.passed else "failed",
                    detail=f"effects of {name}" + (": an add before it fails" if case is None else ""))
        return TestReport(ending="passed" if case is None or case.passed else "failed",
                          cases=() if case is None else (case,))

    def check(code: CodeArtifact) -> None:
        report = perform(call, "sandbox", effects, code=code)
        if not report.passed:
            raise OutputError(report.cases[0].message.partition("\ninput:")[0])

    return check


def _best_effort(call: StageCall, app: CodeArtifact, what: str, prompt: str) -> CodeArtifact:
    """Merge a piece into the app if the model manages one; if not, go on (the tests will show the gap)."""
    try:
        return _merged_piece(call, app, APP_FILE, prompt)
    except OutputError as exc:
        call.record("error", outcome="skipped", detail=f"{what}: {exc}"[:300])
        return app


TEST_SAMPLES = 3
"""Tests sampled per function until one agrees with the code."""


def write_tests(call: StageCall, plan: Plan, app: CodeArtifact) -> CodeArtifact:
    """Return the app with a pytest test for each function the plan names (its CLI aside).

    Tests are sampled one function at a time and each is run against the code in the sandbox: the first
    that passes is kept (code and test written apart and agreeing, as in CodeT). A function no sample
    agrees with is left untested and recorded, so the Reviewer and the ledger see the gap.
    """
    for subtask in plan.subtasks:
        name = function_name(subtask.function)
        source = definition(app.files[APP_FILE], name) if name and name != "main" else ""
        if source:
            app = _agreed_test(call, app, name, TEST_PROMPT.format(
                name=name, app=APP_FILE, source=source, function=subtask.function,
                criteria="\n".join(f"- {c}" for c in subtask.acceptance_criteria)))
    return app


def _agreed_test(call: StageCall, app: CodeArtifact, name: str, prompt: str) -> CodeArtifact:
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s)

    def run_test(code: CodeArtifact) -> TestReport:
        report, result = testing.run_pytest(code, limits)
        mine = _tests_of(report, name)
        call.record("sandbox", latency_s=result.duration_s, outcome=report.ending,
                    detail=f"test of {name}: {sum(c.passed for c in mine)}/{len(mine)} passed")
        return report

    for attempt in range(TEST_SAMPLES):
        temperature = None if attempt == 0 else retry_temperature(call)
        try:
            piece = named_tests(write_test(call, prompt, temperature), name)
        except (OutputError, SyntaxError) as exc:
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: {exc}"[:300])
            continue
        if "assert" not in piece:
            call.record("retry", outcome=str(attempt + 1),
                        detail=f"test of {name}: no test_{name} with an assert")
            continue
        if _placeholder(piece):  # `f(...) == ...` passes for a function that returns its argument
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: `...` left in it")
            continue
        if _patches(piece, name):  # it tests the mock, so it passes whatever the function does
            call.record("retry", outcome=str(attempt + 1), detail=f"test of {name}: it mocks `{name}`")
            continue
        candidate = merged(app, TEST_FILE, piece)
        report = perform(call, "sandbox", run_test, code=candidate)
        mine = _tests_of(report, name)
        if mine and all(c.passed for c in mine):
            return candidate
        why = next((c.message for c in mine if not c.passed), report.output)
        call.record("retry", outcome=str(attempt + 1),
                    detail=f"test of {name} disagrees with the code: {why.strip()[-200:]}")
    call.record("error", outcome="skipped", detail=f"no test of {name} agreed with the code")
    return app


def _placeholder(source: str) -> bool:
    """Return whether ``source`` still holds the outline's ``...`` (an Ellipsis literal)."""
    return any(isinstance(node, ast.Constant) and node.value is Ellipsis
               for node in ast.walk(ast.parse(source)))


def _patches(source: str, name: str) -> bool:
    """Return whether ``source`` patches function ``name`` (``patch('app.name')``, ``patch.object(app,
    'name')``): the to-do run of session 11 kept such a test of ``mark_task_as_done``; it could not fail."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and "patch" in ast.unparse(node.func):
            strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if any(s == name or s.endswith(f".{name}") for s in strings):
                return True
    return False


def _tests_of(report: TestReport, name: str) -> list[CaseResult]:
    """Return the results of the tests of function ``name``."""
    return [c for c in report.cases if c.name.rpartition("::")[2].startswith(f"test_{name}")]


def has_tests(code: CodeArtifact) -> bool:
    """Return whether any test file of ``code`` holds a test pytest would collect."""
    return any(test_functions(code.files[path]) for path in code.test_files)


def function_name(signature: str) -> str:
    """Return the function name a plan's ``add_task(tasks, text)`` names, or '' when there is none."""
    match = re.match(r"\s*(?:def\s+)?([A-Za-z_]\w*)\s*(\(|$)", signature)
    return match.group(1) if match else ""


def _defines(name: str) -> Callable[[CodeArtifact], None]:
    def check(code: CodeArtifact) -> None:
        if name not in defined_names(code.files[APP_FILE]):
            raise OutputError(f"the code does not define `{name}`: write `def {name}(...)`")

    return check


def implement(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Write or revise the code."""
    task, plan, code = artifacts(state)
    assert plan is not None
    pool = read(state, "candidates", Candidates)
    if pool is not None and code is not None and resampling(state):
        # The chosen code stands until the selection has run the bigger pool.
        return {"code": dump(code), "candidates": dump(fresh_candidates(call, task, plan, pool))}
    review = read(state, "review", ReviewReport)
    if review is not None and code is not None:
        revised = revise(call, task, plan, code, review, state)
        if pool is None:
            return {"code": dump(revised)}
        # The revision joins the pool: the selection keeps it only if the evidence says it is better.
        items = pool.items if revised in pool.items else (*pool.items, revised)
        return {"code": dump(revised), "candidates": dump(Candidates(items=items))}
    if task.level == "function":
        candidates = write_candidates(call, task, plan)
        return {"code": dump(candidates.items[0]), "candidates": dump(candidates)}
    app: CodeArtifact | None = None
    for number, subtask in enumerate(plan.subtasks, 1):
        name = function_name(subtask.function)
        if name == "main":
            continue  # the interface is written from the plan below
        prompt = _step_prompt(task, plan, app, number)
        app = _merged_piece(call, app, APP_FILE, prompt, check=_defines(name) if name else None,
                            prefer=_behaves(call, plan, name) if interface.checkable(plan, name) else None,
                            drop=_unplanned_examples(plan))
    assert app is not None  # an application's plan has at least one feature
    app = perform(call, "interface", with_interface, plan=plan, code=app)
    if missing := undefined_names(APP_FILE, app.files):
        app = _best_effort(call, app, "missing definitions", MISSING_PROMPT.format(
            task=task_view(task), app=APP_FILE, code=_app_view(app), problems="\n".join(missing)))
    return {"code": dump(write_tests(call, plan, app))}


def _step_prompt(task: TaskSpec, plan: Plan, app: CodeArtifact | None, number: int) -> str:
    """Return the prompt for step ``number`` (1-based) of an application's plan, given the code so far."""
    subtask = plan.subtasks[number - 1]
    name = function_name(subtask.function)
    return SUBTASK_PROMPT.format(task=task_view(task), plan=plan_view(plan), app=APP_FILE,
        code=_app_view(app), number=number, title=subtask.title, description=subtask.description,
        conventions=CONVENTIONS if name not in STORAGE_NAMES else "",
        function=f" as the function `{subtask.function}`" if name else "")


def _unplanned_examples(plan: Plan) -> frozenset[str]:
    return EXAMPLE_NAMES - {function_name(s.function) for s in plan.subtasks}


def repair_step(call: StageCall, task: TaskSpec, plan: Plan, code: CodeArtifact) -> CodeArtifact | None:
    """Sample again the first step whose effect on the data file is wrong, shown its failure; return the
    code with a sample that passes, or None when every step passes or no sample does.

    Asked for a free-form fix against the review, the local model repeated the failing feature for three
    rounds (to-do run 4758b57706c5); the step's own prompt and check repair from the concrete case.
    """
    failing = _first_wrong_step(call, plan, code)
    if failing is None:
        return None
    number, failure = failing
    name = function_name(plan.subtasks[number - 1].function)
    behaves = _behaves(call, plan, name)

    def check(candidate: CodeArtifact) -> None:
        _defines(name)(candidate)
        behaves(candidate)

    prompt = (_step_prompt(task, plan, code, number)
              + f"\n\nThe current `{name}` is wrong: {failure}. Answer with corrected code.")
    try:
        return _merged_piece(call, code, APP_FILE, prompt, check=check, drop=_unplanned_examples(plan))
    except OutputError as exc:
        call.record("error", outcome="unrepaired", detail=f"{name}: {exc}"[:300])
        return None


def _first_wrong_step(call: StageCall, plan: Plan, code: CodeArtifact) -> tuple[int, str] | None:
    """Return the number of the first step whose effect check fails, with the failure (None if none)."""
    for number, subtask in enumerate(plan.subtasks, 1):
        name = function_name(subtask.function)
        if interface.checkable(plan, name):
            try:
                _behaves(call, plan, name)(code)
            except OutputError as exc:
                return number, str(exc)
    return None


def write_candidates(call: StageCall, task: TaskSpec, plan: Plan) -> Candidates:
    """Write up to ``max_candidates`` distinct implementations of a function, for the Tester to select.

    The first is written from the task alone at temperature 0 (what one call would give), the second
    from the task and the plan, the rest from both, sampled: diversity the selection can choose from.
    """
    alone = ALONE_PROMPT.format(task=task_view(task), name=task.entry_point)
    planned = FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point)
    budget = max(1, call.context.max_candidates)
    tries: list[tuple[str, float | None]] = [(alone, None), (planned, None)]
    tries += [(planned, SAMPLE_TEMPERATURE)] * (budget - len(tries))
    items: list[CodeArtifact] = []
    error = ""
    for number, (prompt, temperature) in enumerate(tries[:budget], 1):
        try:
            code = write_function(call, SYSTEM, task, prompt, temperature)
        except OutputError as exc:
            error = str(exc)
            call.record("retry", outcome=str(number), detail=f"candidate {number}: {exc}"[:300])
            continue
        if code in items:
            call.record("retry", outcome=str(number), detail=f"candidate {number} repeats an earlier one")
            continue
        items.append(code)
    if not items:
        raise OutputError(f"no candidate was valid code; the last: {error}")
    return Candidates(items=tuple(items))


def resampling(state: Mapping[str, Any]) -> bool:
    """Return whether the selection just asked for fresh candidates (no candidate passed every example)."""
    verdicts = state.get("verdicts") or []
    last = verdicts[-1] if verdicts else {}
    return last.get("stage") == "selecting" and last.get("outcome") == "resample"


def fresh_candidates(call: StageCall, task: TaskSpec, plan: Plan, pool: Candidates) -> Candidates:
    """Add up to ``max_candidates`` sampled implementations the pool does not hold yet, alternating the
    prompt with the plan and the one from the task alone."""
    prompts = (FUNCTION_PROMPT.format(task=task_view(task), plan=plan_view(plan), name=task.entry_point),
               ALONE_PROMPT.format(task=task_view(task), name=task.entry_point))
    items = list(pool.items)
    for number in range(max(1, call.context.max_candidates)):
        try:
            code = write_function(call, SYSTEM, task, prompts[number % 2], SAMPLE_TEMPERATURE)
        except OutputError as exc:
            call.record("retry", outcome=str(number + 1), detail=f"fresh candidate: {exc}"[:300])
            continue
        if code in items:
            call.record("retry", outcome=str(number + 1), detail="fresh candidate repeats one in the pool")
            continue
        items.append(code)
    return Candidates(items=tuple(items))


def with_interface(plan: Plan, code: CodeArtifact) -> CodeArtifact:
    """Return the app with ``main()`` written from the plan's features (LOCAL_CODE, ``nodes.interface``)."""
    return merged(code, APP_FILE, interface.interface(plan, interface.data_file(plan)), keep=frozenset())


def _app_view(code: CodeArtifact | None) -> str:
    return f"```python\n{code.files[APP_FILE]}```" if code and APP_FILE in code.files else "(empty)"


def revise(call: StageCall, task: TaskSpec, plan: Plan, code: CodeArtifact, review: ReviewReport,
           state: Mapping[str, Any]) -> CodeArtifact:
    """Return the code revised to answer the review: an application's step with a wrong effect is sampled
    again first (``repair_step``); otherwise the Coder fixes the most important issue."""
    if task.level == "function":
        prompt = REVISE_PROMPT.format(task=task_view(task), plan=plan_view(plan), code=code_view(code, task),
                                      review=review_view(review),
                                      what=f"the complete corrected implementation of `{task.entry_point}` "
                                           "in one ```python code block")
        return new_function(call, SYSTEM, task, prompt, state)
    if (repaired := repair_step(call, task, plan, code)) is not None:
        return repaired
    prompt = REVISE_PROMPT.format(task=task_view(task), plan=plan_view(plan), code=code_view(code),
                                  review=review_view(review),
                                  what=CHANGED_DEFINITIONS)
    return fix_one_file(call, SYSTEM, prompt, code)
