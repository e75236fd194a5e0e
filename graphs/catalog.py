"""Every workflow Accord runs, by name, each registered by a package or a setting: Accord's own three
(``development``, ``audit``, ``pipeline``) through its own entry points, exactly as any other package's.

A workflow is a lifecycle table, its roles' specs and a function that compiles its graph (``Workflow``).
A package registers one under the ``accord.workflows`` entry point group (``repair =
"accord_repair.workflow:WORKFLOW"``); ``ACCORD_WORKFLOWS`` names more as ``module:attribute``, comma
separated. ``accord run --graph``, ``show``, ``blame``, ``cost``, ``export``, ``roles`` and the eval runner
then serve it like the built-in ones.

A thread records the workflow it runs (the ``workflow`` key every gate writes), so the commands that read a
thread afterwards (show, blame, cost, history, fork, resume) build the graph it belongs to.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from accord.graphs import store
from accord.graphs.duties import Role
from accord.graphs.oracle import Oracle
from accord.state.graph_state import ENDED
from accord.state.lifecycle import Lifecycle
from accord.state.role_specs import RoleSpec
from accord.state.settings import settings

ENTRY_POINTS = "accord.workflows"
"""The entry point group a package registers its workflows under."""


class RegistrationError(ValueError):
    """A registered workflow that does not load, is not a ``Workflow``, or takes a name already used."""


@dataclass(frozen=True)
class Workflow:
    """One workflow: what Accord's commands need to run it and to read its threads."""

    name: str
    lifecycle: Lifecycle
    specs: Mapping[str, RoleSpec]
    """Every role's spec, by name (``accord roles``; contracts, identity and prompts come from them)."""
    build: Callable[..., CompiledStateGraph[Any, Any, Any, Any]]
    """Compile the graph: ``build(models=None, checkpointer=None[, oracle=...])``."""
    system_prompts: Mapping[str, str] = field(default_factory=dict)
    """Each role's system prompt for its main duty, where stated (Who&When exports record them)."""
    roles: Mapping[str, Role] = field(default_factory=dict)
    """The roles with their duties' work, where the workflow shares them: a role among them can be served
    as an A2A agent (``accord serve --a2a --role NAME``)."""
    judged_after: Callable[[Mapping[str, Any]], Oracle | None] | None = None
    """The oracle a thread that stored no judgment is blamed by once it has ended, given its last values,
    where the evidence comes only at the end (the pipeline: its Critic's word; the audit: its vote's word);
    None, or an oracle of None for a thread: the thread's stored judgments alone."""

    def __post_init__(self) -> None:
        if self.lifecycle.name != self.name:
            raise ValueError(
                f"workflow {self.name!r}: its lifecycle is named {self.lifecycle.name!r} (a "
                "thread records the lifecycle's name, so the two must be the same)"
            )
        staffed = {role for stage in self.lifecycle.stages for role in stage.roles}
        if missing := sorted(staffed - set(self.specs)):
            raise ValueError(f"workflow {self.name!r}: no spec for the roles {missing}")


DEFAULT = "development"
"""The workflow a run takes when it names none."""


def _load(reference: str, source: str) -> Workflow:
    """Return the ``Workflow`` a ``module:attribute`` reference names.

    Raises:
        RegistrationError: the reference does not import, or names something that is not a ``Workflow``.
    """
    module, _, attribute = reference.strip().partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute or "WORKFLOW")
    except (ImportError, AttributeError) as exc:
        raise RegistrationError(f"{source}: cannot load {reference!r}: {exc}") from exc
    if not isinstance(found, Workflow):
        raise RegistrationError(
            f"{source}: {reference!r} is a {type(found).__name__}, not an accord.graphs.catalog.Workflow"
        )
    return found


def workflows() -> dict[str, Workflow]:
    """Return every workflow by name: the built-in ones, then the registered ones.

    Raises:
        RegistrationError: a registration does not load, or takes a name already used.
    """
    found: dict[str, Workflow] = {}
    registered = [
        (_load(ep.value, f"entry point {ep.name!r}"), f"entry point {ep.name!r}")
        for ep in entry_points(group=ENTRY_POINTS)
    ]
    registered += [
        (_load(ref, "ACCORD_WORKFLOWS"), "ACCORD_WORKFLOWS")
        for ref in (settings().workflows or "").split(",")
        if ref.strip()
    ]
    for workflow, source in registered:
        if workflow.name in found and found[workflow.name] is not workflow:
            raise RegistrationError(f"{source}: a workflow named {workflow.name!r} is already registered")
        found[workflow.name] = workflow
    if DEFAULT not in found:
        raise RegistrationError(
            f"no workflow {DEFAULT!r}: Accord's own workflows register through its installed entry points "
            "(pip install -e . in the checkout, or pip install accord)"
        )
    return found


def workflow(name: str = DEFAULT) -> Workflow:
    """Return the workflow registered as ``name``.

    Raises:
        KeyError: no workflow of that name is registered here.
    """
    known = workflows()
    if name not in known:
        raise KeyError(f"no workflow {name!r} is registered here (registered: {', '.join(sorted(known))})")
    return known[name]


def workflow_of(values: Mapping[str, Any]) -> Workflow:
    """Return the workflow a thread's state belongs to.

    Raises:
        KeyError: the state names a workflow that is not registered here.
    """
    name = values.get("workflow") or DEFAULT
    try:
        return workflow(name)
    except KeyError:
        raise KeyError(
            f"the thread runs the workflow {name!r}, which is not registered here "
            f"(registered: {', '.join(sorted(workflows()))})"
        ) from None


def blame_oracle(values: Mapping[str, Any]) -> Oracle | None:
    """Return what a thread whose last values are ``values`` is blamed by: its workflow's ``judged_after``
    when it has ended and stored no judgment, else None (the judgments it stored as it ran)."""
    after = workflow_of(values).judged_after
    ended = values.get("status") in ENDED
    return after(values) if after is not None and ended and not values.get("judgments") else None


def thread_workflow(saver: BaseCheckpointSaver[Any], thread: str) -> Workflow:
    """Return the workflow of a stored thread (the default one for a thread not stored)."""
    latest = saver.get_tuple(store.config(thread))
    return workflow_of(latest.checkpoint["channel_values"] if latest else {})
