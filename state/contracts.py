"""Behavioural contracts C = (role, inputs, outputs) and the checks that enforce them.

Inputs are preconditions (present and valid in state before the role runs); outputs are postconditions
(present and valid in the role's update, with nothing written outside them). Messages are checked against
the receiver's contract. A failed check returns violations; it never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError, model_validator

from accord.state.artifacts import ARTIFACT_MODELS, ArtifactKind, Frozen
from accord.state.messages import Message


class Contract(Frozen):
    """What a role needs before it performs one duty and must deliver after."""

    role: str
    duty: str = "work"
    """The responsibility this contract governs (a role may have several, e.g. run tests and fix)."""
    inputs: tuple[ArtifactKind, ...] = ()
    """Artifact kinds that must be present and valid in state before the role runs."""
    optional_inputs: tuple[ArtifactKind, ...] = ()
    """Artifact kinds the role reads when present (e.g. a review asking for changes)."""
    outputs: tuple[ArtifactKind, ...] = ()
    """Artifact kinds the role must write."""
    optional_outputs: tuple[ArtifactKind, ...] = ()
    """Artifact kinds the role may also write (valid when written); it may write nothing else."""
    recorded: tuple[ArtifactKind, ...] = ()
    """Output kinds written for the record (state, the gate, blame) and handed to no role: e.g. a
    person's approval, which decides where the plan goes but is not the next role's input."""
    withheld: tuple[ArtifactKind, ...] = ()
    """Artifact kinds the role must not see, even when present in state (e.g. the other roles' findings
    before an independent judgement): the compiler removes them from its view, and no message may bring
    them."""

    def accepts(self) -> frozenset[str]:
        """Return the artifact kinds this duty may receive in a message."""
        return (frozenset(self.inputs) | frozenset(self.optional_inputs)) - frozenset(self.withheld)

    @model_validator(mode="after")
    def _withheld_not_read(self) -> Contract:
        if read := set(self.withheld) & (set(self.inputs) | set(self.optional_inputs)):
            raise ValueError(f"contract {self.role}/{self.duty}: withholds what it reads: {sorted(read)}")
        if unwritten := set(self.recorded) - set(self.outputs) - set(self.optional_outputs):
            raise ValueError(
                f"contract {self.role}/{self.duty}: records what it does not write: {sorted(unwritten)}"
            )
        return self


def accepted_kinds(contracts: list[Contract]) -> dict[str, frozenset[str]]:
    """Return, per role, the artifact kinds any of its duties takes."""
    kinds: dict[str, frozenset[str]] = {}
    for contract in contracts:
        kinds[contract.role] = kinds.get(contract.role, frozenset()) | contract.accepts()
    return kinds


class Violation(Frozen):
    """A contract check that failed, recorded as an event."""

    role: str
    phase: Literal["precondition", "postcondition", "message", "output"]
    key: str
    """The artifact kind, message id or field at fault."""
    detail: str


def _invalid(model: type[Frozen], value: Any) -> str | None:
    """Return why ``value`` does not validate as ``model``, or None when it does."""
    try:
        model.model_validate(value)
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in exc.errors()
        )
    return None


def check_preconditions(contract: Contract, state: Mapping[str, Any]) -> list[Violation]:
    """Check that every required input is present and valid, and optional ones valid if present."""
    violations = []
    for kind in (*contract.inputs, *contract.optional_inputs):
        value = state.get(kind)
        if value is None:
            if kind in contract.inputs:
                violations.append(
                    Violation(role=contract.role, phase="precondition", key=kind, detail="missing")
                )
            continue
        if reason := _invalid(ARTIFACT_MODELS[kind], value):
            violations.append(Violation(role=contract.role, phase="precondition", key=kind, detail=reason))
    return violations


def check_postconditions(contract: Contract, update: Mapping[str, Any]) -> list[Violation]:
    """Check that the update writes every output, each valid, and nothing else."""
    violations = []
    for kind in (*contract.outputs, *contract.optional_outputs):
        value = update.get(kind)
        if value is None and kind in contract.optional_outputs:
            continue
        reason = "missing" if value is None else _invalid(ARTIFACT_MODELS[kind], value)
        if reason:
            violations.append(Violation(role=contract.role, phase="postcondition", key=kind, detail=reason))
    for key in update:
        if key not in contract.outputs and key not in contract.optional_outputs:
            violations.append(
                Violation(
                    role=contract.role,
                    phase="postcondition",
                    key=key,
                    detail="written outside the role's declared outputs",
                )
            )
    return violations


def check_message(message: Message, accepted: Mapping[str, frozenset[str]]) -> list[Violation]:
    """Check that a message goes to a known role and carries only kinds its contracts take."""
    receiver = accepted.get(message.receiver)
    if receiver is None:
        return [
            Violation(
                role=message.sender,
                phase="message",
                key=message.id,
                detail=f"unknown receiver {message.receiver!r}",
            )
        ]
    refused = [kind for kind in message.kinds() if kind not in receiver]
    return [
        Violation(
            role=message.sender,
            phase="message",
            key=message.id,
            detail=f"{message.receiver} does not take {kind!r} (takes {sorted(receiver)})",
        )
        for kind in refused
    ]
