"""Every workflow Accord runs, by name: its lifecycle table, its roles' specs and how to build its graph.

A thread records the workflow it runs (the ``workflow`` key every gate writes), so the commands that read
a thread afterwards (show, blame, cost, history, fork, resume) build the graph it belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from graphs import audit, development, pipeline, store
from nodes.audit.roles import SPECS as AUDIT_SPECS
from nodes.pipeline.roles import SPECS as PIPELINE_SPECS
from state.lifecycle import Lifecycle
from state.roles import RoleSpec


@dataclass(frozen=True)
class Workflow:
    """One workflow: its graph module (``LIFECYCLE``, ``build_graph``) and its roles' specs."""

    name: str
    module: ModuleType
    specs: Mapping[str, RoleSpec]

    @property
    def system_prompts(self) -> Mapping[str, str]:
        """Return each role's main system prompt, where the module states them (``SYSTEM_PROMPTS``)."""
        prompts: Mapping[str, str] = getattr(self.module, "SYSTEM_PROMPTS", {})
        return prompts

    @property
    def lifecycle(self) -> Lifecycle:
        """Return the workflow's lifecycle table."""
        lifecycle: Lifecycle = self.module.LIFECYCLE
        return lifecycle

    def build(self, **options: Any) -> CompiledStateGraph[Any, Any, Any, Any]:
        """Compile the workflow's graph (``models``, ``checkpointer``, ``oracle`` as its ``build_graph``)."""
        graph: CompiledStateGraph[Any, Any, Any, Any] = self.module.build_graph(**options)
        return graph


WORKFLOWS = {w.name: w for w in (
    Workflow("development", development, development.SPECS),
    Workflow("audit", audit, AUDIT_SPECS),
    Workflow("pipeline", pipeline, PIPELINE_SPECS),
)}
DEFAULT = "development"


def workflow_of(values: Mapping[str, Any]) -> Workflow:
    """Return the workflow a thread's state belongs to.

    Raises:
        KeyError: the state names a workflow this version of Accord does not have.
    """
    return WORKFLOWS[values.get("workflow") or DEFAULT]


def thread_workflow(saver: BaseCheckpointSaver[Any], thread: str) -> Workflow:
    """Return the workflow of a stored thread (the default one for a thread not stored)."""
    latest = saver.get_tuple(store.config(thread))
    return workflow_of(latest.checkpoint["channel_values"] if latest else {})
