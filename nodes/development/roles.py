"""The development roles as specs: who each role is, what it must do and never do, and how it acts.

Action names are the names the ledger and the traces record (an LLM action is named by its output:
``PlanDraft``, ``code``, ``tests``, ``ReviewDraft``), so a spec can be read against any run. Every safety
property names the mechanism that enforces it.
"""

from __future__ import annotations

import sys

from accord.state.contracts import Contract
from accord.state.role_specs import (
    CONTRACT_BOUND,
    ActionSpec,
    ActionType,
    DutySpec,
    Param,
    RoleSpec,
    SafetyProperty,
)

LLM, LOCAL = ActionType.LLM, ActionType.LOCAL_CODE

SANDBOXED = SafetyProperty(
    kind="must_never",
    name="run_code_outside_sandbox",
    statement="run model-written code anywhere but the sandbox (no network, read-only system, limits)",
    enforced_by="runtime/sandbox.py: the only code path that executes generated code",
)


def _sandbox(description: str, returns: str = "TestReport") -> ActionSpec:
    return ActionSpec(
        name="sandbox",
        description=description,
        type=LOCAL,
        params=(Param(name="code", type="CodeArtifact"),),
        returns=returns,
        config={"isolation": "bubblewrap", "timeout": "Context.sandbox_timeout_s"},
    )


def _llm(name: str, description: str, returns: str, *params: Param, output: str) -> ActionSpec:
    # No executor retries: the stage retries a model call itself (LangGraph's retry policy for a
    # transient endpoint error, the contract wrapper with feedback for malformed output).
    return ActionSpec(
        name=name,
        description=description,
        type=LLM,
        params=params,
        returns=returns,
        config={"output": output, "retries": 0},
    )


TASK = Param(name="task", type="TaskSpec")
CODE = Param(name="code", type="CodeArtifact")
REPORT = Param(name="test_report", type="TestReport")
FILES = Param(name="files", type="dict")
PROMPT = Param(name="prompt", type="str")
TEMPERATURE = Param(name="temperature", type="float", optional=True)
"""Sampling temperature of one call; None is the role's own (0 for the local model)."""
METHOD_FIX = _llm(
    "MethodFix",
    "a class's methods that failing tests or a review name, each rewritten as the "
    "model's continuation of the source after its docstring, with the failures as comments",
    "CodeArtifact",
    CODE,
    Param(name="failures", type="str"),
    TEMPERATURE,
    output="text",
)
FILE_FIX = _llm(
    "FileFix",
    "the changed functions of the application or its tests, as a fenced code block",
    "CodeArtifact",
    CODE,
    PROMPT,
    TEMPERATURE,
    output="text",
)
PIECE = _llm(
    "piece",
    "an application step's new or changed definitions, as a fenced code block: written, "
    "or written again against the step's failing check",
    "str",
    PROMPT,
    TEMPERATURE,
    output="text",
)
"""The Coder's and the Debugger's actions alike: both repair a class method by method and an application
step by step."""
ANALYSIS_SERVER = {"command": sys.executable, "args": ["-m", "accord.runtime.mcp_server"]}
ANY_FAILURE = ("exception", "timeout", "connection", "protocol", "tool_resolution", "malformed")
"""How the analysis server can fail; each falls back to the local check, since a review goes on without it."""

# The contracts: what each duty needs in state before it runs and must write when it is done.
INTAKE = Contract(role="intake", duty="intake", outputs=("task",))
PLAN = Contract(
    role="planner",
    duty="plan",
    inputs=("task",),
    optional_inputs=("plan", "approval", "test_report"),
    outputs=("plan",),
)
"""A plan that a person rejected is read again, with the approval that says why. A plain attempt's failing
check is handed over when it brought the team in (the plan is written from the task all the same)."""
ADJUDICATE = Contract(
    role="planner",
    duty="adjudicate",
    inputs=("task", "selection"),
    optional_inputs=("code",),
    outputs=("plan",),
)
"""The disputed calls come with the selection, and the Tester hands over the candidate it kept with it; the
Planner is shown what the candidates returned, never their code (``read_code_when_adjudicating``)."""
IMPLEMENT = Contract(
    role="coder",
    duty="implement",
    inputs=("task", "plan"),
    optional_inputs=("code", "review", "candidates", "selection"),
    outputs=("code",),
    optional_outputs=("candidates",),
)
DESIGN_TESTS = Contract(role="tester", duty="design_tests", inputs=("task",), outputs=("tests",))
SELECT = Contract(
    role="tester",
    duty="select",
    inputs=("task", "candidates"),
    optional_inputs=("plan", "code", "tests"),
    outputs=("code", "selection"),
)
"""Without a plan (plain attempts cross-checked) the task's own examples are run."""
RUN_TESTS = Contract(
    role="debugger",
    duty="run_tests",
    inputs=("task", "code"),
    optional_inputs=("plan", "tests", "selection"),
    outputs=("test_report",),
)
"""Without a plan (a plain attempt) the task's own examples are run."""
FIX = Contract(
    role="debugger",
    duty="fix",
    inputs=("task", "code", "test_report"),
    optional_inputs=("plan",),
    outputs=("code",),
)
REVIEW = Contract(
    role="reviewer",
    duty="review",
    inputs=("task", "code"),
    optional_inputs=("plan", "test_report", "tests", "selection"),
    outputs=("review",),
)
BASELINE_CODER = Contract(role="coder", duty="implement", inputs=("task",), outputs=("code",))
"""The monolithic baseline's one duty: code from the task alone, no plan."""
SAMPLE = Contract(role="coder", duty="sample", inputs=("task", "code"), outputs=("candidates",))
"""More plain attempts beside one that passed its check, for the Tester to run side by side."""
ATTEMPT = BASELINE_CODER.model_copy(update={"duty": "attempt", "optional_inputs": ("code", "test_report")})
"""The team's first tries: the baseline's call, before any plan. A sample comes after a failed check (its
report is handed over with the attempt) and reads the attempts before it only so as not to repeat them:
the call itself is the plain one, since fed its failing examples back the plain model solved no more of
HumanEval's dev problems than one call did (89 against 90 of 164 on the 0.5B model)."""

TEAM = ("planner", "coder", "tester", "debugger", "reviewer")
"""The development team in the order work flows; each member's system prompt names it."""

SPECS: dict[str, RoleSpec] = {
    spec.name: spec
    for spec in (
        RoleSpec(
            name="intake",
            goal="turn a request into a task specification",
            domain="requirements",
            duties=(
                DutySpec(
                    name="intake",
                    description="parse the request: a stub with examples, or prose",
                    contract=INTAKE,
                    actions=("parse_request",),
                ),
            ),
            actions=(
                ActionSpec(
                    name="parse_request",
                    description="parse a Python stub or a prose task",
                    type=LOCAL,
                    params=(Param(name="request", type="str"),),
                    returns="TaskSpec",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SafetyProperty(
                    kind="must_always",
                    name="refuse_bad_input",
                    statement="refuse an empty, oversized, binary or unparsable request with a "
                    "clear reason before any model is called",
                    enforced_by="nodes/requests.py:parse_request, the initialized stage's fail",
                ),
            ),
        ),
        RoleSpec(
            name="planner",
            team=TEAM,
            goal="break the task into ordered subtasks with acceptance criteria",
            domain="software design",
            duties=(
                DutySpec(
                    name="plan",
                    description="write the plan",
                    contract=PLAN,
                    actions=("PlanDraft", "FeaturesDraft", "DesignDraft", "input_file"),
                ),
                DutySpec(
                    name="adjudicate",
                    description="decide from the task's words which value each call the candidates "
                    "answered differently must return, as the plan's examples",
                    contract=ADJUDICATE,
                    actions=("decisions",),
                ),
            ),
            actions=(
                _llm(
                    "PlanDraft", "the plan of a function or class task", "PlanDraft", TASK, output="tool call"
                ),
                _llm(
                    "FeaturesDraft",
                    "the features of a records application, framed by fixed storage and interface steps",
                    "FeaturesDraft",
                    TASK,
                    output="tool call",
                ),
                _llm(
                    "DesignDraft",
                    "the design of any other program: its units with executable examples, how "
                    "main() is driven, a scripted session",
                    "DesignDraft",
                    TASK,
                    output="tool call",
                ),
                _llm(
                    "decisions",
                    "for each disputed call, the letter of the value the task's words require (or "
                    "none) and those words, as the plan's examples",
                    "Plan",
                    TASK,
                    output="text",
                ),
                _llm(
                    "input_file",
                    "the text of a data file a program's session reads that its design does not give",
                    "str",
                    PROMPT,
                    output="text",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SafetyProperty(
                    kind="must_always",
                    name="keep_examples",
                    statement="carry every example the task states into the plan",
                    enforced_by="the planning gate (graphs/development.py:gate_plan)",
                ),
                SafetyProperty(
                    kind="must_never",
                    name="read_code_when_adjudicating",
                    statement="see any candidate's code while deciding the calls the candidates disputed",
                    enforced_by="nodes/development/planner.py:adjudicate prompts from the task and the "
                    "values returned (tests/unit/test_escalation.py checks the prompt)",
                ),
            ),
        ),
        RoleSpec(
            name="coder",
            team=TEAM,
            goal="write code that meets the task and the plan",
            domain="implementation",
            duties=(
                DutySpec(
                    name="attempt",
                    description="one plain try from the task alone, as the single "
                    "call makes it, before any plan; sampled again after a failed check",
                    contract=ATTEMPT,
                    actions=("code", "methods"),
                ),
                DutySpec(
                    name="sample",
                    description="more plain tries beside one that passed its check, for the Tester "
                    "to run side by side on inputs the task does not state",
                    contract=SAMPLE,
                    actions=("code", "methods"),
                ),
                DutySpec(
                    name="implement",
                    description="write candidates (function) or the application's "
                    "files; revise them against review issues",
                    contract=IMPLEMENT,
                    actions=(
                        "code",
                        "methods",
                        "piece",
                        "interface",
                        "test",
                        "FileFix",
                        "MethodFix",
                        "sandbox",
                    ),
                ),
            ),
            actions=(
                _llm(
                    "code",
                    "a function implementation as a fenced code block: from the task alone, with "
                    "the plan, or revised against a review (candidates are sampled)",
                    "CodeArtifact",
                    TASK,
                    PROMPT,
                    TEMPERATURE,
                    output="text",
                ),
                _llm(
                    "methods",
                    "a class's empty methods, one by one, each the model's continuation of the "
                    "source after the method's docstring (a completion; the plan as comments ahead)",
                    "CodeArtifact",
                    TASK,
                    Param(name="plan", type="Plan", optional=True),
                    TEMPERATURE,
                    output="text",
                ),
                PIECE,
                ActionSpec(
                    name="interface",
                    description="an application's command-line interface, written "
                    "from the plan's features (nodes/interface.py)",
                    type=LOCAL,
                    params=(Param(name="plan", type="Plan"), CODE),
                    returns="CodeArtifact",
                ),
                _llm(
                    "test",
                    "a pytest test of one application function, as a fenced code block",
                    "str",
                    PROMPT,
                    TEMPERATURE,
                    output="text",
                ),
                FILE_FIX,
                METHOD_FIX,
                _sandbox("keep a generated test only when it passes against the code"),
            ),
            properties=(CONTRACT_BOUND, SANDBOXED),
        ),
        RoleSpec(
            name="tester",
            team=TEAM,
            domain="testing",
            goal="test the task's behaviour from its specification and pick the best candidate by executed "
            "evidence",
            duties=(
                DutySpec(
                    name="design_tests",
                    description="write test cases from the specification alone",
                    contract=DESIGN_TESTS,
                    actions=("tests",),
                ),
                DutySpec(
                    name="select",
                    description="run every candidate on the examples and the cases; rank",
                    contract=SELECT,
                    actions=("sandbox",),
                ),
            ),
            actions=(
                _llm(
                    "tests",
                    "assert lines from the specification: examples, edge cases, properties",
                    "TestSuite",
                    TASK,
                    output="text",
                ),
                _sandbox("run a candidate on the examples and the Tester's cases"),
            ),
            properties=(
                CONTRACT_BOUND,
                SANDBOXED,
                SafetyProperty(
                    kind="must_never",
                    name="read_code_when_designing",
                    statement="see any candidate's code while writing the tests",
                    enforced_by="nodes/development/tester.py:design_tests prompts from the task alone "
                    "(tests/unit/test_roles.py checks the prompt)",
                ),
            ),
        ),
        RoleSpec(
            name="debugger",
            team=TEAM,
            goal="run the tests and repair the code they fail",
            domain="debugging",
            duties=(
                DutySpec(
                    name="run_tests",
                    description="run the examples, the undisputed cases and the pytest files",
                    contract=RUN_TESTS,
                    actions=("sandbox", "static_check"),
                ),
                DutySpec(
                    name="fix",
                    description="fix the code against the failing cases (untested code: "
                    "write its tests first)",
                    contract=FIX,
                    actions=("code", "MethodFix", "piece", "FileFix", "test", "sandbox"),
                ),
            ),
            actions=(
                _sandbox("run the tests against the code (or a generated test, kept only when it passes)"),
                ActionSpec(
                    name="static_check",
                    description="undefined names and syntax, without running",
                    type=LOCAL,
                    params=(CODE,),
                    returns="TestReport",
                ),
                _llm(
                    "code",
                    "the corrected implementation of the function",
                    "CodeArtifact",
                    TASK,
                    PROMPT,
                    TEMPERATURE,
                    output="text",
                ),
                METHOD_FIX,
                PIECE,
                FILE_FIX,
                _llm(
                    "test",
                    "a pytest test of one function of untested code, as a fenced code block",
                    "str",
                    PROMPT,
                    TEMPERATURE,
                    output="text",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SANDBOXED,
                SafetyProperty(
                    kind="must_always",
                    name="report_with_evidence",
                    statement="return a test report with each case's result and output",
                    enforced_by="the run_tests contract's test_report output",
                ),
            ),
        ),
        RoleSpec(
            name="reviewer",
            team=TEAM,
            goal="approve only code that works and meets the task",
            domain="code review",
            duties=(
                DutySpec(
                    name="review",
                    description="run the integration tests, analyse, then review",
                    contract=REVIEW,
                    actions=("sandbox", "analyse", "undefined_names", "ReviewDraft"),
                ),
            ),
            actions=(
                _sandbox(
                    "the integration run: every test, a smoke run of each entry point and, for an "
                    "application, the scripted sessions of its command-line interface"
                ),
                ActionSpec(
                    name="analyse",
                    description="static analysis with ruff and bandit on Accord's MCP "
                    "server (the code is read, never run)",
                    type=ActionType.MCP_TOOL,
                    params=(FILES,),
                    returns="dict",
                    config={
                        "server": ANALYSIS_SERVER,
                        "tool": "analyse",
                        "timeout_s": 60,
                        "retries": 0,
                        "fallback": "undefined_names",
                        "policies": dict.fromkeys(ANY_FAILURE, "fallback"),
                    },
                ),
                ActionSpec(
                    name="undefined_names",
                    description="names used but never defined (the analysis without its server)",
                    type=LOCAL,
                    params=(FILES,),
                    returns="dict",
                ),
                _llm(
                    "ReviewDraft",
                    "a decision with issues (severity, location)",
                    "ReviewDraft",
                    TASK,
                    CODE,
                    REPORT,
                    Param(name="analysis", type="dict"),
                    output="tool call",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SANDBOXED,
                SafetyProperty(
                    kind="must_never",
                    name="approve_failing_code",
                    statement="approve code whose integration run failed",
                    enforced_by="the reviewing gate (graphs/development.py:gate_review)",
                ),
            ),
        ),
    )
}
