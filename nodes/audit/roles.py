"""The audit roles as specs: an Auditor, a Critic and a Tester judge the same code in parallel, then vote.

SEMAP's decentralized workflow: every analyst judges alone first (its ``analyse`` contract withholds the
others' findings), and only a split vote earns a ``deliberate`` round in which each sees the others'
findings and votes again.
"""

from __future__ import annotations

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
ANALYSTS = ("auditor", "critic", "tester")
"""The voting analysts, in the order their findings are shown."""
TEAM_NAME = "a security review team"

INTAKE = Contract(role="intake", duty="intake", outputs=("audit_task",))


def analyse(role: str) -> Contract:
    """The first round: a finding from the code alone, the other findings withheld."""
    return Contract(
        role=role,
        duty="analyse",
        inputs=("audit_task",),
        outputs=("findings", "vote"),
        withheld=("findings",),
    )


def deliberate(role: str) -> Contract:
    """A deliberation round: the finding again, having read the others'."""
    return Contract(
        role=role, duty="deliberate", inputs=("audit_task", "findings"), outputs=("findings", "vote")
    )


INDEPENDENT = SafetyProperty(
    kind="must_never",
    name="read_others_first",
    statement="see another analyst's finding before writing its own first one",
    enforced_by="the analyse contract withholds findings: the compiler removes them from the role's view",
)
NEVER_RUN = SafetyProperty(
    kind="must_never",
    name="run_audited_code",
    statement="run the code under audit",
    enforced_by="nodes/audit/analysers.py reads it from a file with static analysers only",
)
SANDBOXED = SafetyProperty(
    kind="must_never",
    name="run_audited_code_unisolated",
    statement="run the code under audit, or a script written against it, outside the sandbox",
    enforced_by="nodes/audit/proof.py runs the proof through runtime/sandbox.py, which refuses without "
    "isolation; the analysers read the code without running it",
)
TASK = Param(name="task", type="AuditTask")


def _llm(name: str, description: str, *params: Param) -> ActionSpec:
    # No executor retries: the stage retries a model call itself (LangGraph's retry policy for a
    # transient endpoint error, the contract wrapper with feedback for malformed output).
    return ActionSpec(
        name=name,
        description=description,
        type=LLM,
        params=(TASK, *params),
        returns=name,
        config={"output": "tool call", "retries": 0},
    )


def _analyst(
    name: str,
    goal: str,
    domain: str,
    judge: ActionSpec,
    *extra: ActionSpec,
    properties: tuple[SafetyProperty, ...] = (NEVER_RUN,),
) -> RoleSpec:
    actions = (judge, *extra)
    return RoleSpec(
        name=name,
        goal=goal,
        domain=domain,
        team=ANALYSTS,
        team_name=TEAM_NAME,
        duties=(
            DutySpec(
                name="analyse",
                description="judge the code alone",
                contract=analyse(name),
                actions=tuple(a.name for a in actions),
            ),
            DutySpec(
                name="deliberate",
                description="judge again after reading the other findings",
                contract=deliberate(name),
                actions=(judge.name,),
            ),
        ),
        actions=actions,
        properties=(CONTRACT_BOUND, INDEPENDENT, *properties),
    )


SPECS: dict[str, RoleSpec] = {
    spec.name: spec
    for spec in (
        RoleSpec(
            name="intake",
            goal="turn code to audit into an audit task",
            domain="requirements",
            duties=(
                DutySpec(
                    name="intake",
                    description="detect the language, pick the function, keep lines",
                    contract=INTAKE,
                    actions=("parse_audit_request",),
                ),
            ),
            actions=(
                ActionSpec(
                    name="parse_audit_request",
                    description="read C, C++ or Python code to audit",
                    type=LOCAL,
                    params=(Param(name="request", type="str"),),
                    returns="AuditTask",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SafetyProperty(
                    kind="must_always",
                    name="refuse_bad_input",
                    statement="refuse an empty, oversized, binary or non-code request before any model is "
                    "called",
                    enforced_by="nodes/audit/intake.py:parse_audit_request, the initialized stage's fail",
                ),
            ),
        ),
        _analyst(
            "auditor",
            "find whether the code has a security vulnerability, and where",
            "security audit",
            _llm("FindingDraft", "a judgement of the code: vulnerable or not, the CWE, the lines, why"),
        ),
        _analyst(
            "critic",
            "test the case for and against a vulnerability before judging",
            "adversarial security review",
            _llm(
                "CritiqueDraft",
                "the case that the code is unsafe, the case that it is safe, then a judgement",
            ),
        ),
        _analyst(
            "tester",
            "judge the code on what static analysers report about it",
            "security testing",
            _llm(
                "ToolFindingDraft",
                "a judgement of the code that cites the analysers' reports",
                Param(name="reports", type="list"),
            ),
            ActionSpec(
                name="bandit",
                description="bandit on Python code (read, never run)",
                type=LOCAL,
                params=(TASK,),
                returns="ToolReport",
            ),
            ActionSpec(
                name="cppcheck",
                description="cppcheck on C/C++ code (read, never run)",
                type=LOCAL,
                params=(TASK,),
                returns="ToolReport",
            ),
            ActionSpec(
                name="flawfinder",
                description="flawfinder on C/C++ code (read, never run)",
                type=LOCAL,
                params=(TASK,),
                returns="ToolReport",
            ),
            ActionSpec(
                name="ToolFindingLoop",
                description="a judgement of the code by a model that calls "
                "the language's analysers itself, choosing which, before it judges",
                type=ActionType.LLM_TOOLS,
                params=(TASK,),
                returns="ToolFindingDraft",
                config={"tools": ["bandit", "cppcheck", "flawfinder"], "max_tool_calls": 3},
            ),
            ActionSpec(
                name="ProofScript",
                description="a script that tries to prove a flaw in self-contained Python code by running it",
                type=LLM,
                params=(TASK,),
                returns="str",
                config={"output": "text", "retries": 0},
            ),
            ActionSpec(
                name="prove",
                description="run the proof script beside the code in the sandbox",
                type=LOCAL,
                params=(TASK, Param(name="script", type="str")),
                returns="ToolReport",
                config={"isolation": "bubblewrap", "timeout": "Context.sandbox_timeout_s"},
            ),
            properties=(
                SANDBOXED,
                SafetyProperty(
                    kind="must_always",
                    name="cite_tools",
                    statement="cite the analysers' reports, or say that none could run",
                    enforced_by="nodes/audit/analysts.py:test attaches every report to the finding",
                ),
            ),
        ),
    )
}
