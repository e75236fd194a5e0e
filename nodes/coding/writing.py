"""How the Coder asks for code and takes it in: every piece comes as a fenced block in a plain-text reply
(inside a JSON string the small local model must escape every quote and newline, and one slip loses the
answer), is parsed, and is merged into its file by definition (``nodes.merge``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accord.nodes.coding.methods import fill_class
from accord.nodes.coding.prompts import SYSTEM
from accord.nodes.development.artifacts import Candidates
from accord.nodes.llm import begun_chat, continuation, plain_text, retry_temperature, text
from accord.nodes.merge import (
    clean_test_module,
    defined_names,
    merge_module,
    repaired,
    with_imports,
    without_calls,
    without_checks,
)
from accord.nodes.signatures import FILE_PARAMETERS, STORAGE_NAMES
from accord.nodes.views import (
    APP_FILE,
    FUNCTION_FILE,
    TEST_FILE,
    apply_changes,
    code_block,
    defines,
    strip_fences,
)
from accord.runtime.executor import perform
from accord.state.artifacts import CodeArtifact, Plan, TaskSpec
from accord.state.graph_state import code_versions, read
from accord.state.stage import OutputError, StageCall


def merged(
    code: CodeArtifact | None,
    path: str,
    piece: str,
    keep: frozenset[str] | None = None,
    drop: frozenset[str] = frozenset(),
) -> CodeArtifact:
    """Return ``code`` with ``piece`` merged into ``path`` by definition (tests kept importing the app).

    ``keep`` names definitions the piece may not replace; by default an app's ``main()``, once there.
    ``drop`` names definitions of the piece to leave out. An app's features lose their calls to the
    storage functions: ``main()`` loads and saves the items (``nodes.merge.without_calls``).

    Raises:
        OutputError: the piece does not parse, so the model can be told why.
    """
    files = dict(code.files) if code else {}
    if keep is None:
        # Once written from the plan, the interface is code's: a fix that rewrites main() can drop the
        # data file's name.
        keep = frozenset({"main"}) if path == APP_FILE else frozenset()
    try:
        source = repaired(strip_fences(piece))
        if path == APP_FILE:
            source = without_calls(
                source, STORAGE_NAMES - {"main"}, exempt=frozenset({"main"}), file_parameters=FILE_PARAMETERS
            )
        content = with_imports(
            merge_module(
                files.get(path, ""),
                source,
                module=path.removesuffix(".py").replace("/", "."),
                keep=keep,
                drop=drop,
            )
        )
    except SyntaxError as exc:
        raise OutputError(f"the code for {path} does not parse: {_syntax(exc)}") from exc
    if path == TEST_FILE:
        content = clean_test_module(
            content, APP_FILE.removesuffix(".py"), defined_names(files.get(APP_FILE, ""))
        )
    entry_points = code.entry_points if code else (APP_FILE,)
    return apply_changes(code, {path: content}, entry_points=entry_points)


def code_written(plan: Plan | None) -> frozenset[str]:
    """Return the definitions of ``app.py`` that code writes from the plan, which no model's piece may
    replace: a records application's ``main()`` (a program's ``main()`` is the model's to write and fix)."""
    return frozenset() if plan is not None and plan.shape == "program" else frozenset({"main"})


def _syntax(exc: SyntaxError) -> str:
    """Return where and why code does not parse, with the offending line (for the model and the ledger)."""
    line = (exc.text or "").strip()
    return f"line {exc.lineno}: {exc.msg}" + (f": `{line[:120]}`" if line else "")


def fix_one_file(
    call: StageCall,
    system: str,
    prompt: str,
    code: CodeArtifact,
    plan: Plan | None = None,
    temperature: float | None = None,
) -> CodeArtifact:
    """Ask for the changed definitions as a fenced block in plain text; return the code with them merged
    into the files they belong to (``split_by_file``), so a fix can also write the tests an application
    lacks. What code writes from ``plan`` stays (``code_written``)."""

    def fix(code: CodeArtifact, prompt: str, temperature: float | None) -> CodeArtifact:
        piece = code_block(text(call, system, prompt, temperature, what="fix"))
        for path, part in split_by_file(piece).items():
            code = merged(code, path, part, keep=code_written(plan) if path == APP_FILE else None)
        return code

    return perform(call, "FileFix", fix, code=code, prompt=prompt, temperature=temperature)


def tried_versions(state: Mapping[str, Any], *also: CodeArtifact) -> list[dict[str, str]]:
    """Return the versions of the code a new one must not repeat: those handed over in a message,
    ``also``, and the candidates the selection ran."""
    pool = read(state, "candidates", Candidates)
    return [*code_versions(state), *(c.files for c in also), *(c.files for c in (pool.items if pool else ()))]


def unrepeated(
    call: StageCall,
    draw: Callable[[float | None], CodeArtifact],
    tried: list[dict[str, str]],
    redraws: int = 1,
) -> CodeArtifact:
    """Return ``draw(None)``, drawn again at the retry temperature (at most ``redraws`` times) while it
    repeats a version in ``tried``; a redraw that fails keeps the draw before it, and when every draw
    repeats the last is returned (the repeat gate sees it).

    At temperature 0 the small model mostly hands back a version already tried, and the repeat gate then
    ends the loop with nothing learnt; a sampled draw gives the tests something new to judge.
    """
    code = draw(None)
    for attempt in range(2, redraws + 2):
        if code.files not in tried:
            break
        call.record("retry", outcome=str(attempt), detail="repeats a version already tried; sampling again")
        try:
            code = draw(retry_temperature(call))
        except OutputError as exc:
            call.record("retry", outcome=str(attempt), detail=f"sampled draw: {exc}"[:300])
    return code


def split_by_file(piece: str) -> dict[str, str]:
    """Return the parts of a piece of code by the application file they belong in: its tests (with the
    imports) to the tests, the rest to the app.

    A fix of a feature often comes with a test of it; merged into the app, that test is code the app runs
    on import, with names (``os``, ``tmp_path``) it never defines.
    """
    source = strip_fences(piece)
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return {APP_FILE: piece}  # the merge reports why it does not parse
    lines = source.splitlines(keepends=True)

    def text_of(node: ast.stmt) -> str:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        return "".join(lines[first - 1 : node.end_lineno])

    is_test = [
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.name.lower().startswith("test")
        for n in body
    ]
    if not any(is_test):
        return {APP_FILE: piece}
    if all(is_test[i] or isinstance(n, ast.Import | ast.ImportFrom) for i, n in enumerate(body)):
        return {TEST_FILE: piece}
    imports = "".join(text_of(n) for n in body if isinstance(n, ast.Import | ast.ImportFrom))
    tests = "\n\n".join(text_of(n) for i, n in enumerate(body) if is_test[i])
    rest = "\n\n".join(text_of(n) for i, n in enumerate(body) if not is_test[i])
    return {APP_FILE: rest, TEST_FILE: f"{imports}\n{tests}"}


BLOCK_END = ("\n```\n",)
"""Where a function's reply ends: the close of its code block, so the tokens a model spends after it
(usage lines, explanations) are never generated. An opening fence names ``python`` or opens the reply, so
it does not match; one after a line of prose without a language does, and the reply left is prose, which
fails as code that does not parse."""


def write_function(
    call: StageCall, system: str, task: TaskSpec, prompt: str, temperature: float | None = None
) -> CodeArtifact:
    """Ask for a function task's implementation as a fenced block in plain text; return its module."""

    def code(task: TaskSpec, prompt: str, temperature: float | None) -> CodeArtifact:
        reply = text(call, system, prompt, temperature, what="code", stop=BLOCK_END)
        module = function_module(task, code_block(reply, task.entry_point or ""))
        # A class handed back with methods left empty gets them written one by one.
        return fill_class(call, task, module, temperature=temperature) if task.level == "class" else module

    return perform(call, "code", code, task=task, prompt=prompt, temperature=temperature)


HARNESS_PROMPT = """Please provide a self-contained Python script that solves the following problem in a \
markdown code block:
```
{stub}
```
"""
"""EvalPlus's instruction for chat models, with the stub exactly as given."""

RESPONSE_PREFIX = (
    "Below is a Python script with a self-contained function that solves the problem and "
    "passes corresponding tests:"
)
"""EvalPlus's start of a chat model's answer, which it writes for the model when it can apply the model's
chat template."""


def harness_reply(
    call: StageCall,
    instruction: str,
    temperature: float | None = None,
    before: Sequence[tuple[str, str]] = (),
) -> str:
    """Ask as EvalPlus asks a chat model, after the exchanges ``before`` (a user's turn and the reply
    each): where the model's chat template is at hand (an embedded model), the answer is begun with
    EvalPlus's response prefix and an open code block, and the model continues it to the block's end; an
    endpoint's chat is sent the instruction alone."""
    begun = f"{RESPONSE_PREFIX}\n```python\n"
    if (chat := begun_chat(call, instruction, begun, before)) is None:
        return plain_text(call, instruction, what="code", temperature=temperature, before=before)
    return f"```python\n{continuation(call, chat, ('```',), temperature, what='code')}\n```"


def write_plainly(call: StageCall, task: TaskSpec, temperature: float | None = None) -> CodeArtifact:
    """Ask for a function task's implementation as a benchmark harness asks the model (``harness_reply``):
    at the role's temperature, what one plain call gives, taken in as the Coder takes code. It is the
    model alone, so no role identity goes with it."""

    def code(task: TaskSpec, prompt: str, temperature: float | None) -> CodeArtifact:
        reply = harness_reply(call, prompt, temperature)
        return function_module(task, code_block(reply, task.entry_point or ""))

    instruction = HARNESS_PROMPT.format(stub=(task.stub or "").strip())
    return perform(call, "code", code, task=task, prompt=instruction, temperature=temperature)


def write_class(
    call: StageCall, task: TaskSpec, plan: Plan | None = None, temperature: float | None = None
) -> CodeArtifact:
    """Write a class task's skeleton method by method (``nodes.coding.methods``), with the plan as comments
    ahead of it when given."""

    def code(task: TaskSpec, plan: Plan | None, temperature: float | None) -> CodeArtifact:
        stub = CodeArtifact(files={FUNCTION_FILE: task.stub or ""}, entry_points=(FUNCTION_FILE,))
        return fill_class(call, task, stub, plan, temperature)

    return perform(call, "methods", code, task=task, plan=plan, temperature=temperature)


def write_test(call: StageCall, prompt: str, temperature: float | None = None) -> str:
    """Ask for a pytest test as a fenced block in plain text; return its source."""

    def ask(prompt: str, temperature: float | None) -> str:
        return code_block(text(call, SYSTEM, prompt, temperature, what="test"))

    return perform(call, "test", ask, prompt=prompt, temperature=temperature)


def write_piece(call: StageCall, prompt: str, temperature: float | None = None) -> str:
    """Ask for a piece of an application (new or changed definitions) as a fenced block in plain text.

    Through the JSON tool call, most of the local model's misses on a to-do feature are answers that
    do not parse as JSON: a ``}`` out of place, a string cut off."""

    def ask(prompt: str, temperature: float | None) -> str:
        return code_block(text(call, SYSTEM, prompt, temperature, what="piece"))

    return perform(call, "piece", ask, prompt=prompt, temperature=temperature)


def function_module(task: TaskSpec, body: str) -> CodeArtifact:
    """Return the code artifact for a function task: the stub (its imports and helpers), then the code
    without the checks the model wrote after it (``without_checks``)."""
    try:
        source = without_checks(repaired(strip_fences(body)), task.entry_point or "")
    except SyntaxError as exc:
        raise OutputError(f"the code does not parse: {_syntax(exc)}") from exc
    if not defines(source, task.entry_point or ""):
        raise OutputError(f"the code does not define `{task.entry_point}`")
    return CodeArtifact(files={FUNCTION_FILE: f"{task.stub}\n\n{source}"}, entry_points=(FUNCTION_FILE,))


def function_name(signature: str) -> str:
    """Return the function name a plan's ``add_task(tasks, text)`` names, or '' when there is none."""
    match = re.match(r"\s*(?:def\s+)?([A-Za-z_]\w*)\s*(\(|$)", signature)
    return match.group(1) if match else ""
