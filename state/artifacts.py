"""Typed artifacts that roles exchange: task, plan, code, test report, review report, audit task, findings,
question, reasoning, answer, critique, and a person's approval; a workflow adds its own with
``register_artifact``.

Artifacts are frozen pydantic models. Graph state stores their JSON form (see `state.graph_state`), so
checkpoints stay portable across SQLite, Postgres and a LangGraph server; every write is validated by the
contract wrapper before it reaches state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, SerializeAsAny


class Frozen(BaseModel):
    """Base for protocol objects: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


F = TypeVar("F", bound=Frozen)


class Example(Frozen):
    """One executable example: a Python expression and the value it must equal, after any setup."""

    call: str
    """Expression to evaluate, e.g. ``add(1, 2)``."""
    expected: str
    """Python literal/expression of the expected value, e.g. ``3``."""
    setup: tuple[str, ...] = ()
    """Statements run before the call, e.g. ``stack = Stack()`` for a method's example."""

    def shown(self) -> str:
        """Return the example as one line: its setup, then the call and the value it must equal."""
        return "; ".join((*self.setup, f"{self.call} == {self.expected}"))


class TaskSpec(Frozen):
    """What the user asked for, normalised by the intake stage."""

    kind: Literal["task"] = "task"
    request: str
    """The user's request, verbatim (for a stub: the stub's source)."""
    level: Literal["function", "class", "application"]
    """A function or a class stub to complete, or an application (files to create)."""
    entry_point: str | None = None
    """For a stub: the function or class to implement."""
    stub: str | None = None
    """For a stub: the signatures and docstrings to complete."""
    examples: tuple[Example, ...] = ()
    """Examples stated in the request (parsed from doctest lines by code, not by a model)."""

    @property
    def completes_stub(self) -> bool:
        """Whether the task is a stub to complete (a function or a class) rather than an application."""
        return self.level != "application"


class Subtask(Frozen):
    """One step of a plan."""

    title: str = Field(min_length=1)
    description: str = ""
    acceptance_criteria: tuple[str, ...] = Field(min_length=1)
    """Checkable statements that say when the subtask is done."""
    function: str = ""
    """The function the subtask writes, with its parameters, e.g. ``add_task(tasks, text)``."""
    examples: tuple[Example, ...] = ()
    """The acceptance criteria that are executable (``winner(board) == 'X'``): the unit is checked against
    them as soon as it is written."""


class Turn(Frozen):
    """One step of a scripted session with a program: what the user types and what the program must show."""

    input: str
    """A line typed at the prompt (an interactive program) or the command-line arguments of one run."""
    expect: str = ""
    """Text the output must show after it (case aside); empty when anything goes."""


class Design(Frozen):
    """What an application is: the shape its plan takes and how a user drives its entry point."""

    shape: Literal["records", "program"]
    """``records``: a list of records the user adds, changes and removes (features over the items, a data
    file, an interface written from them); ``program``: any other program, its units and ``main()`` written
    from the design."""
    interface: Literal["interactive", "arguments"] = "interactive"
    """How a user drives ``main()``: lines typed in a loop, or the arguments of one run each."""
    session: tuple[Turn, ...] = ()
    """A scripted session the entry point must survive, showing each turn's expected output (a program's
    design states it; the records interface derives its own from the features)."""
    files: dict[str, str] = Field(default_factory=dict)
    """Input files the session reads, name -> text: a program that reads a file named on its command line
    is played with that file beside it (the design states it; code never comes from it)."""


class Plan(Frozen):
    """The Planner's decomposition of the task."""

    kind: Literal["plan"] = "plan"
    subtasks: tuple[Subtask, ...] = Field(min_length=1)
    examples: tuple[Example, ...] = ()
    """Test cases the plan commits to (docstring examples plus edge cases the Planner states)."""
    design: Design | None = None
    """For an application: its shape and interface (None for a function or a class stub)."""

    @property
    def shape(self) -> Literal["records", "program"]:
        """Return the application's shape; a plan without a design (an edit that dropped it) is records."""
        return self.design.shape if self.design else "records"


class CodeArtifact(Frozen):
    """The shared project state: a file map plus what to run."""

    kind: Literal["code"] = "code"
    files: dict[str, str]
    """Relative path -> file content."""
    entry_points: tuple[str, ...] = ()
    """Files a user runs (application) or the module holding the function (function level)."""
    test_files: tuple[str, ...] = ()
    """Files holding tests (pytest style) written for this code."""


class CaseResult(Frozen):
    """The outcome of one test case."""

    name: str
    passed: bool
    message: str = ""
    """Failure detail: assertion, exception or traceback tail."""
    got: str = ""
    """For an executed call: the repr of what it returned, or what it raised (agreement between
    candidates is read from it)."""
    trace: str = ""
    """For a failing call run under the tracer: the lines it ran with their locals, then how it ended."""


RunEnding = Literal["passed", "failed", "error", "timeout"]
SandboxLimit = Literal["", "timeout", "cpu_limit", "memory_limit", "file_limit", "process_limit", "killed"]


class TestReport(Frozen):
    """What running the tests in the sandbox showed."""

    __test__ = False  # not a pytest test class
    kind: Literal["test_report"] = "test_report"
    ending: RunEnding
    """How the run ended: every case passed, some failed, the harness errored, or it timed out."""
    cases: tuple[CaseResult, ...] = ()
    output: str = ""
    """Captured stdout/stderr, truncated."""
    duration_s: float = 0.0
    limit: SandboxLimit = ""
    """The sandbox limit the run ran into, if any: what stopped a hang, a flood or a bomb."""

    @property
    def passed(self) -> bool:
        """Return whether the run ended with every case passing."""
        return self.ending == "passed"

    def failures(self) -> list[CaseResult]:
        """Return the failing cases."""
        return [c for c in self.cases if not c.passed]


Severity = Literal["minor", "major", "critical"]


class ReviewIssue(Frozen):
    """One problem the Reviewer found."""

    severity: Severity
    location: str
    """File and function or line the issue is about."""
    description: str


class ReviewReport(Frozen):
    """The Reviewer's decision on the whole codebase."""

    kind: Literal["review"] = "review"
    decision: Literal["approve", "request_changes"]
    issues: tuple[ReviewIssue, ...] = ()
    integration: TestReport | None = None
    """The integration run the Reviewer made before deciding."""


class TestSuite(Frozen):
    """The Tester's cases for a function, written from its specification alone, never from the code."""

    __test__ = False  # not a pytest test class
    kind: Literal["tests"] = "tests"
    cases: tuple[Example, ...] = Field(min_length=1)


class Candidates(Frozen):
    """Alternative implementations of one task, for a selection on executed evidence."""

    kind: Literal["candidates"] = "candidates"
    items: tuple[CodeArtifact, ...] = Field(min_length=1)


class CandidateScore(Frozen):
    """What running one candidate showed."""

    index: int
    examples_passed: int
    """The task's own examples it passes (the strongest evidence)."""
    tests_passed: int
    """The Tester's cases it passes."""
    agreeing: int
    """Candidates (itself included) that return the same on every Tester case."""


class Selection(Frozen):
    """Which candidate was chosen, on what evidence, and which Tester cases the choice disputes."""

    kind: Literal["selection"] = "selection"
    chosen: int
    scores: tuple[CandidateScore, ...] = Field(min_length=1)
    flagged: tuple[Example, ...] = ()
    """Tester cases the chosen code disagrees with: disputed, so not used as tests."""


Language = Literal["c", "cpp", "python"]


class AuditTask(Frozen):
    """Code to audit for vulnerabilities, normalised by the audit intake: one function or one file."""

    kind: Literal["audit_task"] = "audit_task"
    language: Language
    code: str = Field(min_length=1)
    first_line: int = Field(default=1, ge=1)
    """The line number of the code's first line in its file, so findings cite the file's lines."""
    function: str | None = None
    """The function audited, when one was picked out of a file."""
    source: str = ""
    """Where the code came from (a file name), for the reader; never a label."""

    def numbered(self) -> str:
        """Return the code with its file's line numbers, as the roles read it."""
        width = len(str(self.first_line + self.code.count("\n")))
        return "\n".join(
            f"{n:>{width}} | {line}" for n, line in enumerate(self.code.splitlines(), start=self.first_line)
        )


Cwe = Annotated[str, Field(pattern=r"^CWE-[0-9]{1,4}$")]


class ToolReport(Frozen):
    """What one static analyser said about the code, or that it could not run here."""

    tool: str
    available: bool
    """False when the analyser is not installed, or a proof cannot run isolated here (its issue says why);
    the finding then rests on the other reports and the model's reading."""
    issues: tuple[str, ...] = ()
    """One line per issue: line, rule or CWE, message."""


class Finding(Frozen):
    """One role's judgement of the code: vulnerable or not, where, why, how sure."""

    vulnerable: bool
    cwe: Cwe | None = None
    lines: tuple[int, ...] = ()
    """Lines of the file the evidence is about."""
    evidence: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    tools: tuple[ToolReport, ...] = ()
    """The analysers' reports the finding cites (the Tester's)."""


class Findings(Frozen):
    """The findings of a fan-out stage's roles, by role: each role writes its own, the state merges them."""

    kind: Literal["findings"] = "findings"
    by_role: dict[str, Finding] = Field(min_length=1)


class Vote(Frozen):
    """One role's vote in a fan-out stage; a voting gate joins the votes."""

    kind: Literal["vote"] = "vote"
    outcome: str
    rationale: str = ""


Letter = Annotated[str, Field(pattern=r"^[A-J]$")]
"""An option's letter."""


class Question(Frozen):
    """A multiple-choice question, normalised by the pipeline's intake: the text, then options A, B, ..."""

    kind: Literal["question"] = "question"
    text: str = Field(min_length=1)
    """The passage and the question, without the options."""
    options: tuple[str, ...] = Field(min_length=2, max_length=10)

    @property
    def letters(self) -> str:
        """Return the options' letters, in order (``ABCD``)."""
        return "ABCDEFGHIJ"[: len(self.options)]

    def shown(self) -> str:
        """Return the question as the roles read it: the text, then one lettered option per line."""
        lettered = zip(self.letters, self.options, strict=True)
        return self.text + "\n\n" + "\n".join(f"{letter}. {option}" for letter, option in lettered)


class Reasoning(Frozen):
    """The pipeline Planner's plan: the steps, and what they commit to (for a question, the option they
    lead to; for code, examples of the behaviour they lead to)."""

    kind: Literal["reasoning"] = "reasoning"
    steps: tuple[str, ...] = Field(min_length=1)
    leads_to: Letter | None = None
    """The option the steps lead to: what a question's plan is judged by (None: a free-text plan that names
    none, judged wrong)."""
    examples: tuple[Example, ...] = ()
    """For code: calls and the values the steps lead them to return, what a code plan is judged by."""


class Answer(Frozen):
    """An option chosen, with why."""

    kind: Literal["answer"] = "answer"
    choice: Letter
    justification: str = Field(min_length=1)


class Critique(Frozen):
    """The Critic's check of an answer: approved as it is, or corrected (the ``answer`` then changes)."""

    kind: Literal["critique"] = "critique"
    approved: bool
    reason: str = Field(min_length=1)


class Approval(Frozen):
    """A person's decision on an artifact put to them (the plan): approved, edited, or rejected with the
    reason the next attempt must answer."""

    kind: Literal["approval"] = "approval"
    decision: Literal["approved", "edited", "rejected"]
    reason: str = ""
    by: str = Field(min_length=1)
    """Who decided, as they gave their name (the ledger and blame name the role ``human``)."""
    at: str
    """When, as an ISO 8601 UTC time."""


ARTIFACT_MODELS: dict[str, type[Frozen]] = {
    "task": TaskSpec,
    "plan": Plan,
    "code": CodeArtifact,
    "test_report": TestReport,
    "review": ReviewReport,
    "tests": TestSuite,
    "candidates": Candidates,
    "selection": Selection,
    "vote": Vote,
    "audit_task": AuditTask,
    "findings": Findings,
    "question": Question,
    "reasoning": Reasoning,
    "answer": Answer,
    "critique": Critique,
    "approval": Approval,
}
"""Artifact kind -> model. The kind is also the state key the artifact lives under."""


def register_artifact(model: type[F]) -> type[F]:
    """Make a workflow's own artifact model known by its ``kind`` (use it as a class decorator).

    Contracts may then name the kind, messages carry it, the graph state keeps it under that key, and
    traces show it (through the model's ``text()`` where it has one).

    Raises:
        TypeError: the model declares no ``kind: Literal["..."] = "..."`` field.
        ValueError: another model already has that kind.
    """
    field = model.model_fields.get("kind")
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{model.__name__}: an artifact declares its kind, e.g. kind: Literal['x'] = 'x'")
    known = ARTIFACT_MODELS.get(kind)
    # The same class imported again (a module loaded by path and by name) replaces itself.
    if known is not None and (known.__module__, known.__qualname__) != (model.__module__, model.__qualname__):
        raise ValueError(f"the artifact kind {kind!r} is {known.__module__}.{known.__qualname__}'s already")
    ARTIFACT_MODELS[kind] = model
    return model


def _registered(kind: str) -> str:
    if kind not in ARTIFACT_MODELS:
        known = ", ".join(sorted(ARTIFACT_MODELS))
        raise ValueError(
            f"no artifact kind {kind!r} (known: {known}; a workflow adds its own with "
            "accord.state.artifacts.register_artifact)"
        )
    return kind


def _as_artifact(value: Any) -> Any:
    kind = value.get("kind") if isinstance(value, Mapping) else getattr(value, "kind", None)
    model = ARTIFACT_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise ValueError(f"not an artifact of a registered kind: {kind!r}")
    return value if isinstance(value, model) else model.model_validate(value)


ArtifactKind = Annotated[str, AfterValidator(_registered)]
"""An artifact kind: one of ``ARTIFACT_MODELS``' keys, checked when a contract is made."""
Artifact = Annotated[SerializeAsAny[Frozen], BeforeValidator(_as_artifact)]
"""Any registered artifact, validated as its kind's model (a message's payload item)."""


def artifact_text(kind: str, artifact: Mapping[str, Any]) -> str:
    """Return a one-paragraph text view of an artifact's JSON form (traces, free-text handoffs)."""
    if kind == "plan":
        return "; ".join(s["title"] for s in artifact["subtasks"])
    if kind == "code":
        return "\n" + "\n".join(f"# {path}\n{body}" for path, body in sorted(artifact["files"].items()))
    if kind == "test_report":
        passed = sum(c["passed"] for c in artifact["cases"])
        return f"{artifact['ending']}, {passed}/{len(artifact['cases'])} passed"
    if kind == "review":
        issues = "; ".join(f"[{i['severity']}] {i['description']}" for i in artifact["issues"])
        return f"{artifact['decision']} {issues}".strip()
    if kind == "tests":
        return "; ".join(f"{c['call']} == {c['expected']}" for c in artifact["cases"])
    if kind == "candidates":
        return f"{len(artifact['items'])} candidates"
    if kind == "selection":
        return f"candidate {artifact['chosen'] + 1} of {len(artifact['scores'])}"
    if kind == "audit_task":
        return f"{artifact['language']} code, {artifact['code'].count(chr(10)) + 1} lines"
    if kind == "findings":
        return "; ".join(
            f"{role}: {'vulnerable' if f['vulnerable'] else 'safe'}"
            + (f" ({f['cwe']})" if f.get("cwe") else "")
            + f", {f['evidence']}"
            for role, f in artifact["by_role"].items()
        )
    if kind == "question":
        return Question.model_validate(artifact).shown()
    if kind == "reasoning":
        examples = "; ".join(f"{e['call']} == {e['expected']}" for e in artifact.get("examples", ()))
        leads_to = f" So: {artifact['leads_to']}." if artifact["leads_to"] else ""
        return " ".join(artifact["steps"]) + leads_to + (f" Examples: {examples}." if examples else "")
    if kind == "answer":
        return f"{artifact['choice']}: {artifact['justification']}"
    if kind == "critique":
        return ("approved: " if artifact["approved"] else "corrected: ") + str(artifact["reason"])
    if kind == "approval":
        reason = f": {artifact['reason']}" if artifact["reason"] else ""
        return f"{artifact['decision']} by {artifact['by']}{reason}"
    model = ARTIFACT_MODELS.get(kind)
    shown = getattr(model.model_validate(artifact), "text", None) if model is not None else None
    return str(shown()) if callable(shown) else str(artifact)[:300]
