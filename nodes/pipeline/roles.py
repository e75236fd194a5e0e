"""The pipeline roles as specs: the Planner plans the reasoning, the Executor answers from the plan, the
Critic checks the answer and approves or corrects it (the accountability paper's Planner → Executor →
Critic, each role with a model of its own)."""

from __future__ import annotations

from nodes.roles import CONTRACT_BOUND
from state.contracts import Contract
from state.roles import ActionSpec, ActionType, DutySpec, Param, RoleSpec, SafetyProperty

LLM, LOCAL = ActionType.LLM, ActionType.LOCAL_CODE
TEAM = ("planner", "executor", "critic")
TEAM_NAME = "a question-answering pipeline"

CONTRACTS = {
    "intake": Contract(role="intake", duty="intake", outputs=("question",)),
    "planner": Contract(role="planner", duty="plan", inputs=("question",), outputs=("reasoning",)),
    "executor": Contract(role="executor", duty="execute", inputs=("question", "reasoning"),
                         outputs=("answer",)),
    "critic": Contract(role="critic", duty="critique", inputs=("question", "reasoning", "answer"),
                       outputs=("critique", "answer")),
}
"""Each role's duty: what it reads, what it writes (the Critic writes the final answer, changed or not)."""

AN_OPTION = SafetyProperty(
    kind="must_always", name="choose_an_option",
    statement="answer with the letter of one of the question's options",
    enforced_by="nodes/pipeline/work.py: the schema the model fills offers only the question's letters "
                "(lettered), option refuses any other answer; the contract retries, then fails")
QUESTION = Param(name="question", type="Question")


def _llm(name: str, description: str, *params: Param) -> ActionSpec:
    # No executor retries: the contract wrapper retries malformed output with feedback.
    return ActionSpec(name=name, description=description, type=LLM, params=(QUESTION, *params), returns=name,
                      config={"output": "tool call", "retries": 0})


def _role(name: str, duty: str, description: str, goal: str, domain: str, action: ActionSpec) -> RoleSpec:
    return RoleSpec(name=name, goal=goal, domain=domain, team=TEAM, team_name=TEAM_NAME,
                    duties=(DutySpec(name=duty, description=description, contract=CONTRACTS[name],
                                     actions=(action.name,)),),
                    actions=(action,), properties=(CONTRACT_BOUND, AN_OPTION))


SPECS: dict[str, RoleSpec] = {spec.name: spec for spec in (
    RoleSpec(
        name="intake", goal="turn a multiple-choice question into a typed question", domain="requirements",
        duties=(DutySpec(name="intake", description="split the question from its lettered options",
                         contract=CONTRACTS["intake"], actions=("parse_question",)),),
        actions=(ActionSpec(name="parse_question", description="read a question and its options A, B, ...",
                            type=LOCAL, params=(Param(name="request", type="str"),), returns="Question"),),
        properties=(CONTRACT_BOUND, SafetyProperty(
            kind="must_always", name="refuse_bad_input",
            statement="refuse an empty or oversized request, or one without lettered options, before any "
                      "model is called",
            enforced_by="nodes/pipeline/intake.py:parse_question, the initialized stage's fail")),
    ),
    _role("planner", "plan", "plan the reasoning that decides between the options",
          "plan the steps of reasoning that decide the question, and say which option they lead to",
          "reasoning", _llm("ReasoningDraft", "the reasoning steps and the option they lead to")),
    _role("executor", "execute", "carry out the plan and choose an option",
          "carry out the plan step by step on the question and choose the option it supports",
          "reasoning", _llm("AnswerDraft", "the answer: the worked reasoning, then the option's letter",
                            Param(name="reasoning", type="Reasoning", optional=True))),
    _role("critic", "critique", "check the answer; approve it or correct it",
          "check the answer against the question and every option; approve it, or correct it with the reason",
          "critical review", _llm("CritiqueDraft", "the check, then approve or the corrected option",
                                  Param(name="reasoning", type="Reasoning"),
                                  Param(name="answer", type="Answer"))),
)}
