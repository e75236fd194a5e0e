"""The repair team's work: read the project (LOCAL_CODE), run its tests in the sandbox (LOCAL_CODE), fix
the file the failure points at (LLM), review the diff (LLM).

Only Accord's public API is used: artifacts and state helpers from ``state``, model calls and views from
``nodes``, the sandbox and the action executor from ``runtime``.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord import (
    CaseResult,
    CodeArtifact,
    OutputError,
    ReviewIssue,
    ReviewReport,
    StageCall,
    TestReport,
    dump,
    llm,
    perform,
    read,
    sandbox,
    views,
)
from accord_repair.artifacts import RepairTask

DEFAULT_COMMAND = "python -m pytest -q"
MAX_FILES, MAX_FILE_CHARS = 40, 50_000
"""A project is small: a fix is asked for one file, shown whole to the model."""
SKIPPED_DIRS = {"__pycache__", ".git", ".venv", "venv", "build", "dist", ".pytest_cache"}
OUTPUT_TAIL = 3000
"""Characters of the test command's output a report keeps (its end: where pytest states the failure)."""

FIX_SYSTEM = """Fix the bug in a Python project so that its failing tests pass. Change the source, never
the tests. Keep everything that works; change only what the failure shows is wrong."""

FIX_PROMPT = """The test command `{command}` fails:
{output}
{review}
The file `{path}`:
```python
{source}
```

Return the whole corrected `{path}` in one ```python code block."""

REVIEW_SYSTEM = """Review a fix to a Python project, shown as a diff of its source. Approve a fix that
corrects the cause of the failure without breaking other behaviour or special-casing the tests."""

REVIEW_PROMPT = """The test command `{command}` failed on the project as given, and passes with this fix:
```diff
{diff}
```

On the first line write APPROVE if the fix is right, or REJECT if it is wrong. After REJECT, write each
problem on its own line starting with '- '."""
VERDICT = re.compile(r"\b(APPROVE|REJECT)", re.I)


def parse_repair_request(request: str) -> tuple[Path, tuple[str, ...]]:
    """Return the project folder and the test command a request names: JSON ``{"project": PATH,
    "test_command": CMD}``, or a folder's path alone (the command is then ``python -m pytest -q``).

    Raises:
        OutputError: the request names no readable folder, or its command is empty.
    """
    request = request.strip()
    try:
        given = json.loads(request) if request.startswith("{") else {"project": request}
    except json.JSONDecodeError as exc:
        raise OutputError(f"the request is not valid JSON: {exc}") from exc
    if not isinstance(given, dict) or not isinstance(given.get("project"), str):
        raise OutputError('give a project folder, or JSON {"project": PATH, "test_command": CMD}')
    folder = Path(given["project"]).expanduser()
    if not folder.is_dir():
        raise OutputError(f"no project folder at {folder}")
    command = tuple(shlex.split(str(given.get("test_command") or DEFAULT_COMMAND)))
    if not command:
        raise OutputError("the test command is empty")
    return folder, command


def is_test_file(path: str) -> bool:
    """Return whether a project path holds tests (pytest's naming)."""
    name = Path(path).name
    return name.startswith("test_") or name.endswith("_test.py") or "tests" in Path(path).parts[:-1]


def read_project(folder: Path) -> dict[str, str]:
    """Return the project's Python and text files by relative path (nothing runs).

    Raises:
        OutputError: the folder holds no Python file, too many files, or one too large.
    """
    files = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or SKIPPED_DIRS & set(relative.parts):
            continue
        if path.suffix not in (".py", ".txt", ".cfg", ".toml", ".ini", ".json", ".md"):
            continue
        content = path.read_text(errors="replace")
        if len(content) > MAX_FILE_CHARS:
            raise OutputError(f"{relative} has {len(content):,} characters; the limit is {MAX_FILE_CHARS:,}")
        files[relative.as_posix()] = content
    if not any(name.endswith(".py") for name in files):
        raise OutputError(f"no Python file in {folder}")
    if len(files) > MAX_FILES:
        raise OutputError(f"{folder} has {len(files)} files; the repair workflow takes at most {MAX_FILES}")
    return files


def intake(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Read the project and the test command (LOCAL_CODE)."""
    folder, command = parse_repair_request(str(state.get("request", "")))
    files = read_project(folder)
    tests = tuple(name for name in files if name.endswith(".py") and is_test_file(name))
    task = RepairTask(project=str(folder), test_command=command, original=files, test_files=tests)
    return {"repair_task": dump(task), "code": dump(CodeArtifact(files=files, test_files=tests))}


def summary(output: str) -> str:
    """Return a test run's output in one line: its first assertion error, then its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    first = next((line for line in lines if line.startswith("E ")), "")
    return " … ".join(part for part in (first, lines[-1] if lines else "") if part)[:300]


def run_command(task: RepairTask, code: CodeArtifact, call: StageCall) -> TestReport:
    """Run the task's test command over ``code``'s files in the sandbox; record the run."""
    argv = list(task.test_command)
    if argv[0] in ("python", "python3"):
        argv = sandbox.python(*argv[1:])  # the sandbox's interpreter, with the installed pytest
    limits = sandbox.Limits(timeout_s=call.context.sandbox_timeout_s * 3)
    result = sandbox.run(argv, code.files, limits)
    output = (result.stdout + result.stderr)[-OUTPUT_TAIL:]
    ending = "passed" if result.ok else "timeout" if result.ending == "timeout" else "failed"
    command = " ".join(task.test_command)
    call.record(
        "sandbox",
        latency_s=result.duration_s,
        outcome=ending,
        detail=f"{command} [{result.isolation}] {result.ending}, exit {result.exit_code}",
    )
    case = CaseResult(name=command, passed=result.ok, message="" if result.ok else output)
    return TestReport(ending=ending, cases=(case,), output=output, duration_s=result.duration_s)


def run_tests(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Run the project's test command on the current code (the runner's reproduce and verify duties)."""
    task, code = read(state, "repair_task", RepairTask), read(state, "code", CodeArtifact)
    assert task is not None and code is not None  # the contract's preconditions
    report = perform(
        call,
        "sandbox",
        lambda repair_task, code: run_command(repair_task, code, call),
        repair_task=task,
        code=code,
    )
    return {"test_report": dump(report)}


def implicated(task: RepairTask, output: str) -> str:
    """Return the source file the failure points at: the last non-test file its traceback names, else the
    first non-test Python file."""
    sources = [name for name in task.original if name.endswith(".py") and not is_test_file(name)]
    if not sources:
        raise OutputError("the project has no source file outside its tests to fix")
    named = [name for name in re.findall(r"([\w./-]+\.py)", output) if name in sources]
    return named[-1] if named else sources[0]


def fix(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Return the code with the implicated file rewritten against the failure (LLM)."""
    task, code = read(state, "repair_task", RepairTask), read(state, "code", CodeArtifact)
    report, review = read(state, "test_report", TestReport), read(state, "review", ReviewReport)
    assert task is not None and code is not None and report is not None
    path = implicated(task, report.output)
    asked = "\n".join(f"- {issue.description}" for issue in review.issues) if review else ""
    prompt = FIX_PROMPT.format(
        command=" ".join(task.test_command),
        output=report.output,
        path=path,
        source=code.files[path],
        review=f"\nA reviewer asked for these changes:\n{asked}\n" if asked else "",
    )
    reply = llm.text(call, FIX_SYSTEM, prompt, what="FileFix")
    source = views.code_block(reply)
    try:
        ast.parse(source)
    except SyntaxError as exc:
        raise OutputError(f"the corrected {path} does not parse (line {exc.lineno}: {exc.msg})") from exc
    changed = code.model_copy(update={"files": {**code.files, path: source}})
    return {"code": dump(changed)}


def diff(task: RepairTask, code: CodeArtifact) -> str:
    """Return the unified diff from the project as given to the current code."""
    return "".join(
        line
        for name in sorted(code.files)
        for line in difflib.unified_diff(
            task.original.get(name, "").splitlines(keepends=True),
            code.files[name].splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
        )
    )


def review(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """Approve the diff or list its problems (LLM)."""
    task, code = read(state, "repair_task", RepairTask), read(state, "code", CodeArtifact)
    assert task is not None and code is not None
    prompt = REVIEW_PROMPT.format(command=" ".join(task.test_command), diff=diff(task, code) or "(none)")
    reply = llm.text(call, REVIEW_SYSTEM, prompt, what="DiffReview")
    verdict = VERDICT.search(reply)
    if verdict is None:
        raise OutputError("start the reply with APPROVE or REJECT")
    if verdict.group(1).upper() == "APPROVE":
        return {"review": dump(ReviewReport(decision="approve"))}
    problems = [
        line[2:].strip()
        for line in reply[verdict.end() :].splitlines()
        if line.startswith("- ") and line[2:].strip()
    ]
    issues = tuple(ReviewIssue(severity="major", location="diff", description=p) for p in problems[:5])
    if not issues:
        raise OutputError("after REJECT, write each problem on its own line starting with '- '")
    return {"review": dump(ReviewReport(decision="request_changes", issues=issues))}
