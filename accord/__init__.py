"""Accord: accountable multi-agent software engineering on LangGraph.

The public API. Each name is loaded on first use, so ``import accord`` (and the ``accord`` command) stays
fast; a workflow written outside Accord needs nothing else (docs/extending.md).

Run a task and read its account::

    app = accord.workflow("development").build(checkpointer=InMemorySaver())
    app.invoke({"request": ...}, {"configurable": {"thread_id": "t"}}, context=accord.Context())
    print(accord.account(app, "t").blame.origin)

Build a workflow: a ``Lifecycle`` of ``Stage`` and ``Transition`` rows with ``Counter`` bounds, the
``RoleSpec`` of each role with its duties' ``Contract``, the work behind each duty (``read`` and ``dump``
artifacts, call ``llm``, run code in the ``sandbox``), compiled by ``Compiler`` and registered as a
``Workflow``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accord.accountability.account import Account, account
    from accord.graphs.catalog import Workflow, workflow, workflows
    from accord.graphs.compiler import Compiler, Gate
    from accord.graphs.duties import roles_from_specs
    from accord.graphs.oracle import Oracle
    from accord.nodes import llm, views
    from accord.runtime import sandbox
    from accord.runtime.executor import perform
    from accord.state.artifacts import (
        CaseResult,
        CodeArtifact,
        Frozen,
        ReviewIssue,
        ReviewReport,
        TestReport,
        register_artifact,
    )
    from accord.state.context import Context
    from accord.state.contracts import Contract
    from accord.state.graph_state import dump, read
    from accord.state.lifecycle import Counter, Lifecycle, Stage, Transition, with_budget
    from accord.state.role_specs import (
        CONTRACT_BOUND,
        ActionSpec,
        ActionType,
        DutySpec,
        Param,
        RoleSpec,
        SafetyProperty,
    )
    from accord.state.stage import OutputError, StageCall

_EXPORTS = {
    "accord.accountability.account": ("Account", "account"),
    "accord.graphs.catalog": ("Workflow", "workflow", "workflows"),
    "accord.graphs.compiler": ("Compiler", "Gate"),
    "accord.graphs.duties": ("roles_from_specs",),
    "accord.graphs.oracle": ("Oracle",),
    "accord.runtime.executor": ("perform",),
    "accord.state.artifacts": (
        "CaseResult",
        "CodeArtifact",
        "Frozen",
        "ReviewIssue",
        "ReviewReport",
        "TestReport",
        "register_artifact",
    ),
    "accord.state.context": ("Context",),
    "accord.state.contracts": ("Contract",),
    "accord.state.graph_state": ("dump", "read"),
    "accord.state.lifecycle": ("Counter", "Lifecycle", "Stage", "Transition", "with_budget"),
    "accord.state.role_specs": (
        "CONTRACT_BOUND",
        "ActionSpec",
        "ActionType",
        "DutySpec",
        "Param",
        "RoleSpec",
        "SafetyProperty",
    ),
    "accord.state.stage": ("OutputError", "StageCall"),
}
"""Where each exported name is defined."""
_MODULES = {"llm": "accord.nodes.llm", "views": "accord.nodes.views", "sandbox": "accord.runtime.sandbox"}
"""The modules exported whole: model calls, views of artifacts for prompts, the sandbox."""
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "CONTRACT_BOUND", "Account", "ActionSpec", "ActionType", "CaseResult", "CodeArtifact", "Compiler",
    "Context", "Contract", "Counter", "DutySpec", "Frozen", "Gate", "Lifecycle", "Oracle", "OutputError",
    "Param", "ReviewIssue", "ReviewReport", "RoleSpec", "SafetyProperty", "Stage", "StageCall", "TestReport",
    "Transition", "Workflow", "account", "dump", "llm", "perform", "read", "register_artifact",
    "roles_from_specs", "sandbox", "views", "with_budget", "workflow", "workflows",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'accord' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
