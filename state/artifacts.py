"""The artifacts every workflow may share: task, plan, code, test report, review report and a fan-out
stage's vote. A workflow registers its own kinds with ``register_artifact`` in its own folder.

Artifacts are frozen pydantic models. Graph state stores their JSON form (see `state.graph_state`), so
checkpoints stay portable across SQLite, Postgres and a LangGraph server; every write is validated by the
contract wrapper before it reaches state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, TypeVar, overload

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, SerializeAsAny


class Frozen(BaseModel):
    """Base for protocol objects: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


F = TypeVar("F", bound=Frozen)


ARTIFACT_MODELS: dict[str, type[Frozen]] = {}
"""Artifact kind -> model, filled by ``register_artifact``. The kind is also the state key the artifact
lives under."""
ARTIFACT_REDUCERS: dict[str, Callable[[Any, Any], Any]] = {}
"""Artifact kind -> how the state merges what several roles write under it in one step (a LangGraph
reducer), for the kinds registered with one; any other kind is replaced by each write."""


@overload
def register_artifact(model: type[F], /) -> type[F]: ...


@overload
def register_artifact(*, reducer: Callable[[Any, Any], Any]) -> Callable[[type[F]], type[F]]: ...


def register_artifact(
    model: type[F] | None = None, /, *, reducer: Callable[[Any, Any], Any] | None = None
) -> type[F] | Callable[[type[F]], type[F]]:
    """Make an artifact model known by its ``kind`` (use it as a class decorator, bare or with a
    ``reducer`` for a kind that parallel roles write together).

    Contracts may then name the kind, messages carry it, the graph state keeps it under that key, and
    traces show it (through the model's ``text()`` where it has one). Accord's shared vocabulary registers
    here; each workflow registers its own kinds in its own folder.

    Raises:
        TypeError: the model declares no ``kind: Literal["..."] = "..."`` field.
        ValueError: another model already has that kind.
    """
    if model is None:
        return lambda given: _register(given, reducer)
    return _register(model, reducer)


def _register(model: type[F], reducer: Callable[[Any, Any], Any] | None) -> type[F]:
    field = model.model_fields.get("kind")
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{model.__name__}: an artifact declares its kind, e.g. kind: Literal['x'] = 'x'")
    known = ARTIFACT_MODELS.get(kind)
    # The same class imported again (a module loaded by path and by name) replaces itself.
    if known is not None and (known.__module__, known.__qualname__) != (model.__module__, model.__qualname__):
        raise ValueError(f"the artifact kind {kind!r} is {known.__module__}.{known.__qualname__}'s already")
    ARTIFACT_MODELS[kind] = model
    if reducer is not None:
        ARTIFACT_REDUCERS[kind] = reducer
    return model


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


@register_artifact
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


@register_artifact
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


@register_artifact
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
SandboxLimit = Literal[
    "", "timeout", "cpu_limit", "memory_limit", "file_limit", "disk_limit", "process_limit", "killed"
]


@register_artifact
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


@register_artifact
class ReviewReport(Frozen):
    """The Reviewer's decision on the whole codebase."""

    kind: Literal["review"] = "review"
    decision: Literal["approve", "request_changes"]
    issues: tuple[ReviewIssue, ...] = ()
    integration: TestReport | None = None
    """The integration run the Reviewer made before deciding."""


@register_artifact
class Vote(Frozen):
    """One role's vote in a fan-out stage; a voting gate joins the votes."""

    kind: Literal["vote"] = "vote"
    outcome: str
    rationale: str = ""


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
    """Return a one-paragraph text view of an artifact's JSON form (traces, free-text handoffs): a shared
    kind's here, any other through its model's ``text()`` (or ``shown()``)."""
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
    model = ARTIFACT_MODELS.get(kind)
    if model is None:
        return str(artifact)[:300]
    valid = model.model_validate(artifact)
    # ``shown()`` for a model whose data has a field named ``text`` (a question's)
    views = (getattr(valid, "text", None), getattr(valid, "shown", None))
    view = next((m for m in views if callable(m)), None)
    return str(view()) if view is not None else str(artifact)[:300]
