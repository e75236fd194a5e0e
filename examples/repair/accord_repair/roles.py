"""The repair team as role specs: a Runner that runs the project's tests, a Fixer that changes the code,
a Reviewer that reads the diff. Contracts come from these specs and nowhere else."""

from __future__ import annotations

from accord import CONTRACT_BOUND, ActionSpec, ActionType, Contract, DutySpec, Param, RoleSpec, SafetyProperty

LLM, LOCAL = ActionType.LLM, ActionType.LOCAL_CODE
TEAM = ("intake", "runner", "fixer", "reviewer")
TEAM_NAME = "a repair team for a Python project with a failing test"

SANDBOXED = SafetyProperty(
    kind="must_never",
    name="run_code_outside_sandbox",
    statement="run the project's code or tests anywhere but the sandbox",
    enforced_by="runtime/sandbox.py: the project's test command runs only through sandbox.run",
)
TESTS_UNTOUCHED = SafetyProperty(
    kind="must_never",
    name="change_the_tests",
    statement="change the project's own test files to make them pass",
    enforced_by="accord_repair/work.py: implicated picks a source file, never a test file, and fix writes "
    "only that file",
)

TASK, CODE = Param(name="repair_task", type="RepairTask"), Param(name="code", type="CodeArtifact")
REPORT = Param(name="test_report", type="TestReport")


def _run_tests(description: str) -> ActionSpec:
    return ActionSpec(
        name="sandbox",
        description=description,
        type=LOCAL,
        params=(TASK, CODE),
        returns="TestReport",
        config={"isolation": "bubblewrap"},
    )


def _duty(
    role: str,
    name: str,
    description: str,
    action: str,
    inputs: tuple[str, ...],
    outputs: tuple[str, ...],
    optional_inputs: tuple[str, ...] = (),
) -> DutySpec:
    contract = Contract(role=role, duty=name, inputs=inputs, optional_inputs=optional_inputs, outputs=outputs)
    return DutySpec(name=name, description=description, contract=contract, actions=(action,))


SPECS: dict[str, RoleSpec] = {
    spec.name: spec
    for spec in (
        RoleSpec(
            name="intake",
            goal="read the project and its failing test command",
            domain="requirements",
            team=TEAM,
            team_name=TEAM_NAME,
            duties=(
                _duty(
                    "intake",
                    "intake",
                    "read the project's files and the test command",
                    "read_project",
                    (),
                    ("repair_task", "code"),
                ),
            ),
            actions=(
                ActionSpec(
                    name="read_project",
                    description="read a project folder's Python files and the test command (nothing runs)",
                    type=LOCAL,
                    params=(Param(name="request", type="str"),),
                    returns="RepairTask",
                ),
            ),
            properties=(CONTRACT_BOUND,),
        ),
        RoleSpec(
            name="runner",
            goal="run the project's own test command and report what it shows",
            domain="test execution",
            team=TEAM,
            team_name=TEAM_NAME,
            duties=(
                _duty(
                    "runner",
                    "reproduce",
                    "run the test command on the project as given",
                    "sandbox",
                    ("repair_task", "code"),
                    ("test_report",),
                ),
                _duty(
                    "runner",
                    "verify",
                    "run the test command on the changed project",
                    "sandbox",
                    ("repair_task", "code"),
                    ("test_report",),
                ),
            ),
            actions=(_run_tests("the test command over the project's files, in the sandbox"),),
            properties=(CONTRACT_BOUND, SANDBOXED),
        ),
        RoleSpec(
            name="fixer",
            goal="change the project's code so that its failing tests pass",
            domain="debugging",
            team=TEAM,
            team_name=TEAM_NAME,
            duties=(
                _duty(
                    "fixer",
                    "fix",
                    "rewrite the file the failure points at",
                    "FileFix",
                    ("repair_task", "code", "test_report"),
                    ("code",),
                    optional_inputs=("review",),
                ),
            ),
            actions=(
                ActionSpec(
                    name="FileFix",
                    description="the corrected source file as a fenced code block",
                    type=LLM,
                    params=(TASK, CODE, REPORT),
                    returns="CodeArtifact",
                    config={"output": "text", "retries": 0},
                ),
            ),
            properties=(CONTRACT_BOUND, TESTS_UNTOUCHED),
        ),
        RoleSpec(
            name="reviewer",
            goal="read the fix as a diff and approve it or say what is wrong",
            domain="code review",
            team=TEAM,
            team_name=TEAM_NAME,
            duties=(
                _duty(
                    "reviewer",
                    "review",
                    "review the diff from the project as given, whose tests now pass",
                    "DiffReview",
                    ("repair_task", "code", "test_report"),
                    ("review",),
                ),
            ),
            actions=(
                ActionSpec(
                    name="DiffReview",
                    description="APPROVE, or the problems with the diff",
                    type=LLM,
                    params=(TASK, CODE),
                    returns="ReviewReport",
                    config={"output": "text", "retries": 0},
                ),
            ),
            properties=(CONTRACT_BOUND,),
        ),
    )
}
