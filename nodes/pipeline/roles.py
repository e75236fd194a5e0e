"""The pipeline roles as specs: the Planner plans, the Executor carries the plan out, the Critic checks the
result and approves or corrects it (the accountability paper's Planner → Executor → Critic, each role with
a model of its own). Each role has one duty per kind of task: a multiple-choice question, or a Python
function to write."""

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
TEAM = ("planner", "executor", "critic")
TEAM_NAME = "a problem-solving pipeline"

CONTRACTS = {
    (c.role, c.duty): c
    for c in (
        Contract(role="intake", duty="intake", optional_outputs=("question", "task")),
        Contract(role="planner", duty="plan", inputs=("question",), outputs=("reasoning",)),
        Contract(role="executor", duty="execute", inputs=("question", "reasoning"), outputs=("answer",)),
        Contract(
            role="critic",
            duty="critique",
            inputs=("question", "reasoning", "answer"),
            outputs=("critique", "answer"),
        ),
        Contract(role="planner", duty="plan_code", inputs=("task",), outputs=("reasoning",)),
        Contract(role="executor", duty="write_code", inputs=("task", "reasoning"), outputs=("code",)),
        Contract(
            role="critic",
            duty="critique_code",
            inputs=("task", "reasoning", "code"),
            outputs=("critique", "code"),
        ),
    )
}
"""Each duty: what it reads, what it writes (the Critic writes the final answer or code, changed or not;
the intake writes a question or a function task, whichever the request is)."""

AN_OPTION = SafetyProperty(
    kind="must_always",
    name="choose_an_option",
    statement="answer a question with the letter of one of its options",
    enforced_by="nodes/pipeline/work.py: the schema the model fills offers only the question's letters "
    "(lettered), option refuses any other answer; the contract retries, then fails",
)
WORKING_CODE = SafetyProperty(
    kind="must_always",
    name="deliver_the_function",
    statement="hand over code that parses and defines the function the task names",
    enforced_by="nodes/coding/writing.py:function_module, under the write_code and critique_code contracts",
)
QUESTION = Param(name="question", type="Question")
TASK = Param(name="task", type="TaskSpec")
PROMPT = Param(name="prompt", type="str")
CODE = Param(name="code", type="CodeArtifact")


def _llm(name: str, description: str, *params: Param, output: str = "tool call") -> ActionSpec:
    # No executor retries: the contract wrapper retries malformed output with feedback.
    return ActionSpec(
        name=name,
        description=description,
        type=LLM,
        params=params,
        returns=name,
        config={"output": output, "retries": 0},
    )


def _role(name: str, goal: str, domain: str, *duties: tuple[str, str, tuple[ActionSpec, ...]]) -> RoleSpec:
    """A pipeline role: one (duty, description, its actions) per kind of task."""
    specs = tuple(
        DutySpec(
            name=duty,
            description=description,
            contract=CONTRACTS[(name, duty)],
            actions=tuple(a.name for a in actions),
        )
        for duty, description, actions in duties
    )
    return RoleSpec(
        name=name,
        goal=goal,
        domain=domain,
        team=TEAM,
        team_name=TEAM_NAME,
        duties=specs,
        actions=tuple(a for _, _, actions in duties for a in actions),
        properties=(CONTRACT_BOUND, AN_OPTION, WORKING_CODE),
    )


def _code(description: str) -> ActionSpec:
    return _llm(
        "code",
        description,
        TASK,
        PROMPT,
        Param(name="temperature", type="float", optional=True),
        output="text",
    )


SPECS: dict[str, RoleSpec] = {
    spec.name: spec
    for spec in (
        RoleSpec(
            name="intake",
            goal="turn a multiple-choice question or a function stub into a typed task",
            domain="requirements",
            duties=(
                DutySpec(
                    name="intake",
                    description="split a question from its lettered options, or read a Python function stub",
                    contract=CONTRACTS[("intake", "intake")],
                    actions=("parse_request",),
                ),
            ),
            actions=(
                ActionSpec(
                    name="parse_request",
                    description="read a question and its options A, B, ..., "
                    "or a function's signature and docstring",
                    type=LOCAL,
                    params=(Param(name="request", type="str"),),
                    returns="Question | TaskSpec",
                ),
            ),
            properties=(
                CONTRACT_BOUND,
                SafetyProperty(
                    kind="must_always",
                    name="refuse_bad_input",
                    statement="refuse an empty or oversized request, or one that is neither a question with "
                    "lettered options nor a function stub, before any model is called",
                    enforced_by="nodes/pipeline/intake.py:parse_pipeline_request, "
                    "the initialized stage's fail",
                ),
            ),
        ),
        _role(
            "planner",
            "plan the steps that solve the task, and commit to where they lead",
            "reasoning",
            (
                "plan",
                "plan the reasoning that decides between the options",
                (_llm("ReasoningDraft", "the reasoning steps and the option they lead to", QUESTION),),
            ),
            (
                "plan_code",
                "plan the function's implementation and the behaviour it leads to",
                (
                    _llm(
                        "CodePlanDraft",
                        "the implementation steps and examples of the function's behaviour",
                        TASK,
                    ),
                ),
            ),
        ),
        _role(
            "executor",
            "carry out the plan: choose the option it supports, or write the function",
            "reasoning and implementation",
            (
                "execute",
                "carry out the plan and choose an option",
                (
                    _llm(
                        "AnswerDraft",
                        "the answer: the worked reasoning, then the option's letter",
                        QUESTION,
                        Param(name="reasoning", type="Reasoning", optional=True),
                    ),
                ),
            ),
            (
                "write_code",
                "write the function the plan describes",
                (_code("the function's implementation as a fenced code block"),),
            ),
        ),
        _role(
            "critic",
            "check the result against the task; approve it, or correct it with the reason",
            "critical review",
            (
                "critique",
                "check the answer; approve it or correct it",
                (
                    _llm(
                        "CritiqueDraft",
                        "the check, then approve or the corrected option",
                        QUESTION,
                        Param(name="reasoning", type="Reasoning"),
                        Param(name="answer", type="Answer"),
                    ),
                ),
            ),
            (
                "critique_code",
                "check the code; approve it or write the corrected function",
                (
                    _llm("CodeCheckDraft", "the check, then whether the code is correct", TASK, CODE),
                    _code(
                        "the corrected function as a fenced code block, when the check finds the code wrong"
                    ),
                    _llm(
                        "CodeCritique",
                        "the simple pipeline's one reply: APPROVED, or the reason and the corrected "
                        "function as a fenced code block",
                        TASK,
                        CODE,
                        PROMPT,
                        output="text",
                    ),
                ),
            ),
        ),
    )
}
