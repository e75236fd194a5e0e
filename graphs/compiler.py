"""Compile (lifecycle, roles, gates) into a LangGraph StateGraph.

Every working stage becomes one node wrapped by its role's contract: preconditions are checked before the
role runs, its update is checked against its postconditions and its messages against their receivers'
contracts; a violation is recorded and fed back for a bounded retry, then the stage takes its ``fail``
outcome. The stage's gate, a pure function of the state after the update, yields an outcome; counters
bound loops; the decision lands in state as a ``Verdict``. Each gate is a conditional edge whose
``path_map`` is δ for that stage, so drawings label every edge with its outcome. A fan-out stage runs its
roles in parallel; each votes, and a voting node joins them by majority. A role the run's Context names
in ``remote_roles`` performs its duties as an A2A agent elsewhere (``graphs.remote``), under the same
checks.
"""

from __future__ import annotations

import time
from collections import Counter as Tally
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy
from pydantic import ValidationError

from accord.graphs.duties import Role
from accord.graphs.messages import free_text, handoffs, reply, voter_handoffs
from accord.graphs.oracle import Oracle, judge
from accord.graphs.remote import remote_work
from accord.state.budget import BudgetExhausted, spent
from accord.state.context import Context
from accord.state.contracts import (
    Violation,
    accepted_kinds,
    check_message,
    check_postconditions,
    check_preconditions,
)
from accord.state.graph_state import (
    AccordState,
    Judgment,
    LedgerEntry,
    Verdict,
    ballot,
    records,
    reducers,
    state_for,
    updated,
)
from accord.state.lifecycle import BUDGET, Lifecycle, Stage
from accord.state.messages import Message
from accord.state.secrets import redacted, scrub
from accord.state.settings import run_defaults
from accord.state.stage import OutputError, RequestRefused, StageCall, is_transient

Builder = StateGraph[AccordState, Context, AccordState, AccordState]

OUTCOME_SEPARATOR = " / "
"""Joins the outcomes of one drawn gate edge, e.g. ``pass / exhausted``."""

Gate = Callable[[Mapping[str, Any]], tuple[str, str]]
"""A gate: state after the stage -> (outcome, evidence)."""


RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0, backoff_factor=2.0, retry_on=is_transient)


VOTE = "vote"
"""The role a fan-out stage's joined votes are recorded under (its verdicts, its gate, its judgment)."""


def fan_out_node(stage: str, role: str) -> str:
    """Return the graph node of ``role`` in the fan-out stage ``stage`` (``VOTE``: the node joining them)."""
    return f"{stage}.{role}"


def fan_out_role(node: str) -> tuple[str, str] | None:
    """Return the (stage, role) a fan-out node runs, or None for a node of no fan-out role."""
    stage, dot, role = node.partition(".")
    return (stage, role) if dot else None


def _round(state: Mapping[str, Any]) -> int:
    return int(state.get("counters", {}).get("round", 1))


def _unchanged_since(state: Mapping[str, Any], stage: str, outcome: str, evidence: str) -> str | None:
    """Return the stages that ran since ``stage`` last decided ``outcome`` on the same ``evidence`` (a loop
    that stopped changing anything), joined for the record; None when the evidence is new."""
    verdicts = [v for v in state.get("verdicts") or [] if v.get("target") is not None]
    last = next((i for i in range(len(verdicts) - 1, -1, -1) if verdicts[i]["stage"] == stage), None)
    if last is None or (verdicts[last]["outcome"], verdicts[last]["evidence"]) != (outcome, evidence):
        return None
    between = dict.fromkeys(v["stage"] for v in verdicts[last + 1 :])
    return ", ".join(between) or stage


def _step() -> int:
    """Return the LangGraph step the running node belongs to."""
    return int(get_config().get("metadata", {}).get("langgraph_step", -1))


class Compiler:
    """Builds a StateGraph from a lifecycle table, role implementations and gates."""

    def __init__(
        self,
        lifecycle: Lifecycle,
        roles: Mapping[str, Role],
        gates: Mapping[str, Gate],
        models: Mapping[str, BaseChatModel] | None = None,
        oracle: Oracle | None = None,
        contracts: bool = True,
        typed_messages: bool = True,
        inputs: Mapping[str, Any] | None = None,
    ) -> None:
        """Args beyond the table: ``contracts=False`` runs each duty once, unchecked (a role that
        produces nothing still fails its stage); ``typed_messages=False`` hands over free text, recorded
        in the ledger and checked against no one (both exist for the evals' ablations); ``inputs`` names
        the state keys, beyond ``request``, that the workflow takes from its caller (name -> type)."""
        self.lifecycle, self.roles, self.gates = lifecycle, roles, gates
        self.models = dict(models or {})
        self.oracle = oracle
        self.contracts, self.typed_messages = contracts, typed_messages
        self.inputs = dict(inputs or {})
        self.accepted = accepted_kinds(
            [duty.contract for role in roles.values() for duty in role.duties.values()]
        )
        self._check()

    def _check(self) -> None:
        problems = []
        for stage in self.lifecycle.stages:
            if stage.terminal:
                continue
            problems += [
                f"stage {stage.name!r}: role {r!r} has no duty {stage.duty!r}"
                for r in stage.roles
                if r not in self.roles or stage.duty not in self.roles[r].duties
            ]
            if problems:
                continue
            if stage.roles and "fail" not in stage.outcomes:
                problems.append(f"stage {stage.name!r} has roles but no 'fail' outcome")
            if stage.name not in self.gates and (len(stage.roles) < 2 or stage.choices):
                problems.append(f"stage {stage.name!r} has no gate")
            if len(stage.roles) > 1:
                contracts = [self.roles[r].duties[stage.duty].contract for r in stage.roles]
                merging = reducers()
                outputs = [k for c in contracts for k in c.outputs if k != "vote" and k not in merging]
                if len(outputs) != len(set(outputs)):
                    problems.append(f"fan-out stage {stage.name!r}: roles write the same artifact")
                problems += [
                    f"fan-out role {c.role!r} does not output a vote"
                    for c in contracts
                    if "vote" not in c.outputs
                ]
        if problems:
            raise ValueError("cannot compile: " + "; ".join(problems))

    def build(self) -> StateGraph[AccordState, Context, AccordState, AccordState]:
        """Return the uncompiled StateGraph (compile it with or without a checkpointer)."""
        kinds = [
            kind
            for role in self.roles.values()
            for duty in role.duties.values()
            for kind in (*duty.contract.outputs, *duty.contract.optional_outputs)
        ]
        # A workflow's own artifact kinds (state.artifacts.register_artifact) get state keys of their own.
        builder: Builder = StateGraph(state_for(kinds, self.inputs), context_schema=Context)
        builder.add_edge(START, self.lifecycle.initial)
        for stage in self.lifecycle.stages:
            if stage.terminal:
                builder.add_node(stage.name, self._terminal_node(stage))
                builder.add_edge(stage.name, END)
            elif len(stage.roles) > 1:
                self._add_fan_out(builder, stage)
            else:
                builder.add_node(
                    stage.name,
                    self._stage_node(stage),
                    retry_policy=RETRY,
                    metadata=_trace_metadata(stage, stage.roles[0]),
                )
                self._add_gate_edge(builder, stage.name, stage)
        return builder

    def _add_gate_edge(self, builder: Builder, source: str, stage: Stage) -> None:
        # Drawings keep one edge per (source, target), so outcomes sharing a target share one label.
        by_target: dict[str, list[str]] = {}
        for outcome, target in self.lifecycle.successors(stage.name).items():
            by_target.setdefault(target, []).append(outcome)
        label = {o: OUTCOME_SEPARATOR.join(outs) for outs in by_target.values() for o in outs}

        def route(state: Mapping[str, Any]) -> str:
            return label[str(state["verdicts"][-1]["outcome"])]

        route.__name__ = f"gate_{stage.name}"
        builder.add_conditional_edges(
            source, route, {OUTCOME_SEPARATOR.join(o): t for t, o in by_target.items()}
        )

    def _add_fan_out(self, builder: Builder, stage: Stage) -> None:
        builder.add_node(stage.name, lambda state: {"stage": stage.name})
        voters = [fan_out_node(stage.name, role) for role in stage.roles]
        for role, node in zip(stage.roles, voters, strict=True):
            builder.add_node(
                node, self._stage_node(stage, role), retry_policy=RETRY, metadata=_trace_metadata(stage, role)
            )
            builder.add_edge(stage.name, node)
        vote = fan_out_node(stage.name, VOTE)
        builder.add_node(vote, self._vote_node(stage))
        builder.add_edge(voters, vote)
        self._add_gate_edge(builder, vote, stage)

    def _decide(
        self,
        stage: Stage,
        role: str,
        state: Mapping[str, Any],
        context: Context,
        outcome: str,
        evidence: str,
        latency_s: float = 0.0,
    ) -> dict[str, Any]:
        """Apply counters to a gate outcome and return the update recording the decision."""
        counters = dict(state.get("counters") or {c.name: c.start for c in self.lifecycle.counters})
        limits = context.counter_limits()
        transition = self.lifecycle.delta[(stage.name, outcome)]
        if transition.counter:
            counter = self.lifecycle.counter[transition.counter]
            if counters.get(counter.name, counter.start) >= limits.get(counter.name, counter.limit):
                outcome, evidence = counter.exhausted, f"{counter.reason}; {evidence}".strip("; ")
                transition = self.lifecycle.delta[(stage.name, outcome)]
            elif (unchanged := _unchanged_since(state, stage.name, outcome, evidence)) is not None:
                # Another turn of the loop would meet the same evidence again: the work since it was
                # last seen changed nothing the gate checks.
                outcome = counter.exhausted
                evidence = f"evidence repeats: {unchanged} changed nothing {stage.name} checks; {evidence}"
                transition = self.lifecycle.delta[(stage.name, outcome)]
            else:
                counters[counter.name] = counters.get(counter.name, counter.start) + 1
                for other in counter.resets:
                    counters[other] = self.lifecycle.counter[other].start
        verdict = Verdict(
            stage=stage.name,
            role=role,
            round=_round(state),
            outcome=outcome,
            evidence=evidence,
            target=transition.target,
        )
        entry = LedgerEntry(
            kind="gate",
            role=role,
            stage=stage.name,
            round=_round(state),
            step=_step(),
            outcome=outcome,
            latency_s=latency_s,
            detail=f"-> {transition.target}",
        )
        return {
            "verdicts": records([verdict]),
            "ledger": records([entry]),
            "counters": counters,
            "stage": transition.target,
            "workflow": self.lifecycle.name,
        }

    def _call(
        self, stage: Stage, role: Role, state: Mapping[str, Any], runtime: Runtime[Context]
    ) -> StageCall:
        budgeted = BUDGET in stage.outcomes
        return StageCall(
            stage=stage.name,
            role=role.name,
            round=_round(state),
            context=runtime.context or run_defaults(),
            models=self.models,
            spec=role.spec,
            step=_step(),
            spent_before=spent(state.get("ledger", [])) if budgeted else None,
        )

    def _run_role(
        self, stage: Stage, role: Role, state: Mapping[str, Any], call: StageCall
    ) -> tuple[dict[str, Any], list[Violation]]:
        """Run a role's duty under its contract, retrying with feedback; return update, violations.

        Raises:
            BudgetExhausted: a run budget was spent before the stage or one of its model calls.
        """
        call.check_budget()
        duty = role.duties[stage.duty]
        work = duty.work
        if url := call.context.remote_roles.get(role.name):
            work = remote_work(role, stage.duty, url)
        # What the contract withholds is not in the role's view at all, not merely unread.
        state = {key: value for key, value in state.items() if key not in duty.contract.withheld}
        if not self.contracts:
            try:
                return work(state, call), []
            except (OutputError, ValidationError) as exc:
                return {}, [Violation(role=role.name, phase="output", key="model_output", detail=str(exc))]
        violations = check_preconditions(duty.contract, state)
        call.record("contract", outcome="fail" if violations else "pass", detail="preconditions")
        if violations:
            return {}, violations
        update: dict[str, Any] = {}
        for attempt in range(1 + max(0, call.context.max_output_retries)):
            if attempt:
                call.record("retry", outcome=str(attempt), detail=_summary(violations))
            refused = False
            try:
                update = work(state, call)
                violations = check_postconditions(duty.contract, update)
            except (OutputError, ValidationError) as exc:
                # Malformed output, or an artifact the role's output could not be built into.
                update, violations = (
                    {},
                    [Violation(role=role.name, phase="output", key="model_output", detail=str(exc))],
                )
                refused = isinstance(exc, RequestRefused)
            call.record("contract", outcome="fail" if violations else "pass", detail="postconditions")
            if not violations or refused:
                break
            call.feedback = violations
        return (update if not violations else {}), violations

    def _stage_node(self, stage: Stage, role_name: str | None = None):  # type: ignore[no-untyped-def]
        role = self.roles[role_name or stage.roles[0]]
        fan_out = role_name is not None

        # ``state`` is typed as a plain dict: LangGraph would narrow a node's input to a TypedDict
        # annotation's keys, and a workflow's own artifact kinds are keys AccordState does not declare.
        def node(state: dict[str, Any], runtime: Runtime[Context]) -> dict[str, Any]:
            # What a stage writes, and an error it stops on, keep no configured secret: a model or
            # endpoint that echoes a key would otherwise put it in the checkpoints and all read from them.
            try:
                written: dict[str, Any] = redacted(stage_node(state, runtime))
            except Exception as exc:
                raise scrub(exc) from None
            return written

        def stage_node(state: dict[str, Any], runtime: Runtime[Context]) -> dict[str, Any]:
            started = time.monotonic()
            call = self._call(stage, role, state, runtime)
            try:
                update, violations = self._run_role(stage, role, state, call)
                spent_reason = ""
            except BudgetExhausted as exc:
                # What the stage had not finished is dropped; its model calls stay in the ledger.
                update, violations, spent_reason = {}, [], str(exc)
                call.record("error", outcome=BUDGET, detail=spent_reason)
            merged = updated(state, update)
            if spent_reason:
                outcome, evidence = BUDGET, spent_reason
            elif violations:
                outcome, evidence = "fail", _summary(violations)
            elif fan_out:
                vote = update.pop("vote")
                outcome, evidence = vote["outcome"], vote.get("rationale", "")
            else:
                outcome, evidence = self.gates[stage.name](merged)
            allowed = (*stage.outcomes, *stage.choices) if fan_out else stage.outcomes
            if outcome not in allowed:
                raise ValueError(f"gate of {stage.name!r} returned undeclared outcome {outcome!r}")
            result = {**update, "violations": records(violations)}
            if self.oracle is not None:
                result["judgments"] = records(self._judge(merged, call))
            result["ledger"] = records(call.ledger)
            if fan_out:
                vote_verdict = Verdict(
                    stage=stage.name, role=role.name, round=call.round, outcome=outcome, evidence=evidence
                )
                return {**result, "verdicts": records([vote_verdict])}
            decision = self._decide(
                stage, role.name, state, call.context, outcome, evidence, time.monotonic() - started
            )
            recorded = role.duties[stage.duty].contract.recorded
            sent = {kind: value for kind, value in update.items() if kind not in recorded}
            messages = handoffs(self.lifecycle, role.name, decision["stage"], sent, call.round)
            decision = self._deliver(stage, role.name, state, call.context, decision, messages)
            refused = decision.pop("violations", [])
            return {
                **result,
                **decision,
                "ledger": result["ledger"] + decision["ledger"],
                "violations": result["violations"] + refused,
            }

        node.__name__ = f"{stage.name}_{role.name}"
        return node

    def _judge(self, state: Mapping[str, Any], call: StageCall) -> list[Judgment]:
        """Judge the candidate after this stage with the oracle, timing it in the ledger."""
        assert self.oracle is not None
        started = time.monotonic()
        judgment = judge(self.oracle, state, call)
        if judgment is None:
            return []
        call.record(
            "oracle",
            latency_s=time.monotonic() - started,
            model=self.oracle.name,
            outcome="correct" if judgment.correct else "wrong",
            detail=judgment.evidence[:200],
        )
        return [judgment]

    def _vote_node(self, stage: Stage):  # type: ignore[no-untyped-def]
        gate = self.gates.get(stage.name, majority)

        def vote(state: dict[str, Any], runtime: Runtime[Context]) -> dict[str, Any]:
            context = runtime.context or run_defaults()
            votes = ballot(state)
            if any(v["outcome"] == BUDGET for v in votes):
                outcome, evidence = BUDGET, "a run budget is spent"  # it holds for every voter
            else:
                outcome, evidence = gate(state)
            decision = self._decide(stage, VOTE, state, context, outcome, evidence)
            messages = voter_handoffs(
                self.lifecycle,
                stage,
                decision["stage"],
                state,
                {r: self.roles[r].duties[stage.duty].contract for r in stage.roles},
                _round(state),
            )
            decision = self._deliver(stage, VOTE, state, context, decision, messages)
            if self.oracle is not None:  # the joined result is a candidate of its own
                call = StageCall(
                    stage=stage.name,
                    role=VOTE,
                    round=_round(state),
                    context=context,
                    models=self.models,
                    step=_step(),
                )
                decision["judgments"] = records(self._judge(state, call))
                decision["ledger"] = records(call.ledger) + decision["ledger"]
            return decision

        return vote

    def _deliver(
        self,
        stage: Stage,
        sender: str,
        state: Mapping[str, Any],
        context: Context,
        decision: dict[str, Any],
        messages: list[Message],
    ) -> dict[str, Any]:
        """Add a decision's typed messages to its update, each checked against its receiver's contracts;
        a refused message turns the decision into the stage's ``fail``."""
        if not messages:
            return decision
        if not self.typed_messages:
            texts = [free_text(m, decision["stage"], _step()) for m in messages]
            return {**decision, "ledger": decision["ledger"] + records(texts)}
        if refused := [v for m in messages for v in check_message(m, self.accepted)]:
            failed = self._decide(stage, sender, state, context, "fail", _summary(refused))
            return {**failed, "violations": records(refused)}
        return {**decision, "handoffs": [m.model_dump(mode="json") for m in messages]}

    def _terminal_node(self, stage: Stage):  # type: ignore[no-untyped-def]
        def finish(state: dict[str, Any]) -> dict[str, Any]:
            last = (state.get("verdicts") or [{}])[-1]
            # The last gate's evidence says why a run failed, or how its result was verified.
            reason = last.get("evidence", "")
            status = stage.status or stage.name
            ended = {"status": status, "stage": stage.name, "reason": reason}
            if any(isinstance(m, dict) for m in state.get("messages", [])):
                return ended  # a thread whose `messages` hold typed handoffs has no chat to reply to
            closing = AIMessage(reply(status, reason, state.get("code")), name="accord")
            return {**ended, "messages": [closing]}

        finish.__name__ = stage.name
        return finish


def majority(state: Mapping[str, Any]) -> tuple[str, str]:
    """The default voting gate: the outcome most roles voted for; a tie fails the stage."""
    votes = ballot(state)
    tally = Tally(v["outcome"] for v in votes).most_common()
    tied = len(tally) > 1 and tally[0][1] == tally[1][1]
    evidence = ", ".join(f"{v['role']}={v['outcome']}" for v in votes)
    return ("fail" if not tally or tied else tally[0][0]), evidence


def _trace_metadata(stage: Stage, role: str) -> dict[str, str]:
    """Return what a traced stage run carries besides LangGraph's own metadata."""
    return {"accord_stage": stage.name, "accord_role": role, "accord_duty": stage.duty}


def _summary(violations: list[Violation]) -> str:
    return "; ".join(f"{v.role} {v.phase} {v.key}: {v.detail}" for v in violations)
