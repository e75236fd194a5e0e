"""The pipeline's work: the Planner plans the reasoning, the Executor carries it out and chooses an option,
the Critic checks the answer and approves or corrects it. Each writes a typed artifact (``accountable``) or
a free-text reply whose option is read by pattern (``free_text``: the papers' simple pipeline).

An answer names one of the question's options by its letter and nothing else; any other answer is refused
(the contract retries it with feedback, then the stage fails): a run is never scored on a guess at what a
reply meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from accord.nodes.llm import structured, text
from accord.nodes.pipeline.artifacts import Answer, Critique, Question, Reasoning
from accord.nodes.pipeline.steps import Step, plan_steps
from accord.runtime.executor import perform
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall, Work

PLANNER = """Plan how to answer the multiple-choice question: at most five short steps of reasoning that
decide between the options, in order. Then give the letter of the option the steps lead to."""

EXECUTOR = """Answer the multiple-choice question by carrying out the plan on it, step by step. Then give
the letter of the option the reasoning supports."""

ALONE = """Answer the multiple-choice question: reason step by step, then give the letter of the option
the reasoning supports."""

CRITIC = """Check the answer to the multiple-choice question: does it follow from the question, and does
another option fit better? Then give the letter of the final answer: the same letter to approve it, another
to correct it."""

SAY_LETTER = "\nEnd with a line 'Answer: X', X the letter of one option."


class ReasoningDraft(BaseModel):
    """A plan: the steps first, then where they lead."""

    # Bounded: a grammar-constrained reply that rambles past the token limit is cut off, and a cut-off
    # JSON object is no answer at all.
    steps: list[Step] = Field(
        min_length=1, max_length=5, description="the reasoning steps, in order, one sentence each"
    )
    leads_to: str = Field(description="the letter of the option the steps lead to")


class AnswerDraft(BaseModel):
    """An answer: the reasoning first (a small model that states a letter first argues for it after)."""

    reasoning: str = Field(
        max_length=800, description="the plan carried out on the question: what each step finds"
    )
    choice: str = Field(description="the letter of the chosen option")


class CritiqueDraft(BaseModel):
    """A check of the answer, then the final option."""

    check: str = Field(
        max_length=800,
        description="whether the answer follows from the question, and whether another option fits better",
    )
    choice: str = Field(description="the letter of the final answer: the same one to approve it")


LETTER_FIELD: dict[type[BaseModel], str] = {
    ReasoningDraft: "leads_to",
    AnswerDraft: "choice",
    CritiqueDraft: "choice",
}


def lettered(schema: type[BaseModel], question: Question) -> type[BaseModel]:
    """Return ``schema`` with its letter field limited to the question's letters, so that a model whose
    output a grammar constrains (the local server's) can only name one of them; the tool keeps the
    schema's name. ``option`` still checks the letter: an endpoint may not honour the enum."""
    field = LETTER_FIELD[schema]
    letters: Any = Literal[tuple(question.letters)]
    fields: dict[str, Any] = {field: (letters, Field(description=schema.model_fields[field].description))}
    narrowed: type[BaseModel] = create_model(
        schema.__name__, __base__=schema, __doc__=schema.__doc__, **fields
    )
    return narrowed


def option(value: str, question: Question) -> str:
    """Return the letter ``value`` names: one of the question's letters, alone or as ``(B)`` or ``B.``.

    Raises:
        OutputError: ``value`` is anything else.
    """
    match = re.fullmatch(r"\s*\(?([A-Ja-j])[.)]?\s*", value)
    if match is None or match[1].upper() not in question.letters:
        raise OutputError(
            f"choose one option by its letter alone ({', '.join(question.letters)}), "
            f"not {value.strip()[:40]!r}"
        )
    return match[1].upper()


# How a reply states its option: "Answer: B", "the answer is: (B)", "**Answer:** B", "\boxed{B}". The word
# is matched in any case, the letter only in capitals: "the answer is a subset" names no option.
ANSWER_LINE = re.compile(
    r"(?i:answer)\s*(?:(?i:is)\s*:?|:)\s*(?i:option\s*)?\(?([A-J])\b"
    r"|\\boxed\{\s*([A-J])\s*\}"
)
LETTER_ALONE = re.compile(r"\s*\(?([A-J])[.)]?\s*")


def said_option(reply: str, question: Question) -> str | None:
    """Return the option a free-text reply gives as its answer (its last stated answer, else a last line
    that is a letter alone), or None when it gives none of the question's letters. Markdown emphasis is
    read through: ``**B**`` is the letter B."""
    plain = reply.replace("*", "")
    found = [m[1] or m[2] for m in ANSWER_LINE.finditer(plain)]
    lines = [line for line in plain.strip().splitlines() if line.strip()]
    if not found and lines and (alone := LETTER_ALONE.fullmatch(lines[-1])):
        found = [alone[1]]
    return found[-1] if found and found[-1] in question.letters else None


def no_option(reply: str) -> OutputError:
    """Return the error for a reply that states no option, quoting how it ends: the reply is not stored
    anywhere else, and its ending shows whether the model answered in a form the reader does not know."""
    ending = " ".join(reply.split())[-120:]
    return OutputError(f"the reply gives no option: end with 'Answer: X' (it ends: {ending!r})")


def _question(state: Mapping[str, Any]) -> Question:
    question = read(state, "question", Question)
    assert question is not None  # the contract's precondition
    return question


def _shown(state: Mapping[str, Any]) -> str:
    """Return what a stage reads: the question, then the plan and the answer handed over so far."""
    parts = [_question(state).shown()]
    if plan := read(state, "reasoning", Reasoning):
        steps = "\n".join(f"{n}. {step}" for n, step in enumerate(plan.steps, 1))
        parts.append(f"Plan:\n{steps}" + (f"\nIt leads to {plan.leads_to}." if plan.leads_to else ""))
    if answer := read(state, "answer", Answer):
        parts.append(f"Answer: {answer.choice}. {answer.justification}")
    return "\n\n".join(parts)


def _ask(
    call: StageCall, state: Mapping[str, Any], action: str, system: str, schema: type[BaseModel] | None
) -> Any:
    """Take the role's one LLM action on what the stage reads: a ``schema`` object, or free text."""
    params = {
        "question": _question(state),
        "reasoning": read(state, "reasoning", Reasoning),
        "answer": read(state, "answer", Answer),
    }
    declared = {p.name for p in call.spec.action(action).params} if call.spec else set(params)
    user = _shown(state)

    def ask(**_: Any) -> Any:
        if schema is None:
            return text(call, system + SAY_LETTER, user, what=action)
        return structured(call, lettered(schema, _question(state)), system, user)

    return perform(call, action, ask, **{k: v for k, v in params.items() if k in declared})


def plan(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Planner: the reasoning steps and the option they lead to."""
    question = _question(state)
    if free_text:
        reply = _ask(call, state, "ReasoningDraft", PLANNER, None)
        return {"reasoning": dump(Reasoning(steps=(reply.strip(),), leads_to=said_option(reply, question)))}
    draft = _ask(call, state, "ReasoningDraft", PLANNER, ReasoningDraft)
    steps = plan_steps(draft.steps, "reasoning")
    return {"reasoning": dump(Reasoning(steps=steps, leads_to=option(draft.leads_to, question)))}


def _answer(state: Mapping[str, Any], call: StageCall, system: str, free_text: bool) -> Answer:
    question = _question(state)
    if free_text:
        reply = _ask(call, state, "AnswerDraft", system, None)
        if (choice := said_option(reply, question)) is None:
            raise no_option(reply)
        return Answer(choice=choice, justification=reply.strip())
    draft = _ask(call, state, "AnswerDraft", system, AnswerDraft)
    if not draft.reasoning.strip():
        raise OutputError("the answer gives no reasoning: carry out the plan, then choose")
    return Answer(choice=option(draft.choice, question), justification=draft.reasoning.strip())


def execute(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Executor: the plan carried out, an option chosen."""
    return {"answer": dump(_answer(state, call, EXECUTOR, free_text))}


def answer_alone(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
    """One call from the question alone (the monolithic baseline)."""
    return {"answer": dump(_answer(state, call, ALONE, free_text=False))}


def critique(state: Mapping[str, Any], call: StageCall, free_text: bool = False) -> dict[str, Any]:
    """The Critic: the answer approved (the same letter) or corrected (another letter, with the reason)."""
    question, given = _question(state), read(state, "answer", Answer)
    assert given is not None  # the contract's precondition
    if free_text:
        reply = _ask(call, state, "CritiqueDraft", CRITIC, None)
        choice, reason = said_option(reply, question), reply.strip()
        if choice is None:
            raise no_option(reply)
    else:
        draft = _ask(call, state, "CritiqueDraft", CRITIC, CritiqueDraft)
        choice, reason = option(draft.choice, question), draft.check.strip() or "no reason given"
    final = given if choice == given.choice else Answer(choice=choice, justification=reason)
    return {"critique": dump(Critique(approved=choice == given.choice, reason=reason)), "answer": dump(final)}


def work(free_text: bool = False) -> dict[tuple[str, str], Work]:
    """Return each role's work on a question by (role, duty) (``free_text`` for the simple pipeline)."""
    return {
        ("planner", "plan"): partial(plan, free_text=free_text),
        ("executor", "execute"): partial(execute, free_text=free_text),
        ("critic", "critique"): partial(critique, free_text=free_text),
    }
