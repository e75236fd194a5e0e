"""Per-run settings, read by nodes through ``Runtime[Context]`` and editable in Studio.

Every run default is declared here once: ``state.settings.run_defaults`` applies ``ACCORD_<FIELD>``
variables over it, and the CLI's options are generated from its fields. Secrets never live here: API keys
come from the environment into the client only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from accord.state.artifacts import Frozen
from accord.state.role_specs import Style

IDLE_DUTIES: dict[str, frozenset[str]] = {
    "qwen2.5-coder-0.5b": frozenset({"reviewer.review"}),
}
"""Duties off by default for a role's model (``role.duty`` by model name): those that repaired nothing on
the dev split for that model (the measurements: docs/lifecycle.md, "Idle duties"). An idle duty's stage
still runs what it executes; only its model call is left out. ``every_duty`` turns them all back on."""


class RoleModel(Frozen):
    """The model one role talks to: ``Context``'s defaults (same names) with the role's overrides."""

    model: str | None
    """Model name; None picks the endpoint's default (the embedded local model when none is set)."""
    base_url: str | None
    """OpenAI-compatible endpoint; None falls back to ``OPENAI_BASE_URL``, OpenAI, then the local model."""
    temperature: float
    max_tokens: int
    price_in_per_1k: float
    """Price per 1,000 input tokens, for the ledger's cost column."""
    price_out_per_1k: float
    """Price per 1,000 output tokens."""


@dataclass
class Context:
    """Settings for one run: models per role, limits and rounds."""

    model: str | None = None
    """Default model name for every role."""
    base_url: str | None = None
    """Default OpenAI-compatible endpoint for every role."""
    temperature: float = 0.0
    """Default sampling temperature of every role's model."""
    max_tokens: int = 1024
    """Default limit on the tokens of one reply."""
    price_in_per_1k: float = 0.0
    """Default price per 1,000 input tokens, for the ledger's cost column."""
    price_out_per_1k: float = 0.0
    """Default price per 1,000 output tokens."""
    role_models: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-role overrides of the fields above, e.g. ``{"coder": {"model": "gpt-4o"}}``."""
    role_styles: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-role overrides of the role spec's communication style, e.g.
    ``{"reviewer": {"verbosity": "detailed", "languages": ["de", "python"]}}``."""
    max_rounds: int | None = None
    """Collaboration rounds (review → implementing) before the run fails; None: the lifecycle table's limit
    of its ``round`` counter."""
    max_debug_attempts: int | None = None
    """Debugger fixes per round before the code goes to review as it is; None: the lifecycle table's limit
    of its ``debug`` counter."""
    first_attempt: bool = True
    """Give a function or class task to one plain call first (the ``single`` prompt, on the Coder's
    model), checked in the sandbox on the examples it states (on its entry point, when it states none),
    and bring in the team only when it fails them; off, every task goes to the team at once."""
    max_samples: int | None = None
    """Plain attempts sampled again, each checked on the task's examples, after the first attempt fails
    them and before the team is called in (0: the team at once); None: the lifecycle table's limit of its
    ``sample`` counter (with the first, as many plain calls as the team's pool of candidates holds)."""
    cross_samples: int = 0
    """Plain attempts sampled beside a first attempt that passed its check on a task stating no example,
    run with it on the Tester's cases so that the candidates' agreement chooses and can verify it (0: the
    attempt is kept on its check alone, and handed over unverified). Off by default: on the dev probe it
    repaired no answer for many times the plain call's tokens (docs/evals.md, "The cross-check")."""
    max_candidates: int = 4
    """Implementations the Coder writes for a function; the Tester's selection keeps one."""
    best_of: int = 8
    """Calls the ``best-of-n`` and ``self-repair`` baselines make for a function at most, where no
    ``token_cap`` is set."""
    token_cap: int = 0
    """Tokens (in and out) the ``best-of-n`` and ``self-repair`` baselines may spend on one task: the
    compared team's spend on that same task, set per task by a declared experiment (``same_tokens_as``);
    0: ``best_of`` calls bound them instead."""
    max_resamples: int | None = None
    """Fresh batches of sampled candidates the Coder writes when no candidate passes every example of
    the task (0: none; a pool of several then fails the run on the selection's evidence); None: the
    lifecycle table's limit of its ``resample`` counter."""
    max_tests: int = 10
    """Test cases the Tester writes for a function."""
    traced_failures: int = 0
    """Failing calls of a function's test run that run again under the line tracer, so the Debugger reads
    the lines each ran with their locals besides what the call returned or raised. Off by default: on the
    embedded models it did not pay for its time (``accord.evals.probes.debugger``; docs/evals.md)."""
    parallel: bool = False
    """Let roles on different embedded models generate at the same time (the audit's analysts, or an eval's
    concurrent tasks); off, one embedded model generates at a time, since two servers on 2 cores each run
    at half speed or worse."""
    remote_roles: dict[str, str] = field(default_factory=dict)
    """Roles played by A2A agents elsewhere, by role: the agent's URL (``accord serve --a2a --role NAME``
    serves one), e.g. ``{"reviewer": "http://127.0.0.1:8931"}``. Their duties are A2A calls under the same
    contracts, ledger, blame and budgets; ``ACCORD_A2A_TOKEN``, when set, is sent as a bearer token."""
    role_agents: dict[str, str] = field(default_factory=dict)
    """The agent that plays each role, by role, as a team file casts it (``accord run --team FILE``,
    ``state.team``): the ledger names it on the role's entries."""
    remote_timeout_s: float = 600.0
    """Seconds a remote role may take to answer one duty before the call fails (not retried: the agent is
    busy or stuck)."""
    remote_fallback: bool = False
    """A remote role that cannot be reached, or answers past its timeout, is played here instead (its
    own duty, this run's models); off, the run stops at that stage, resumable once the agent is back."""
    max_output_retries: int = 2
    """Retries of a role whose output violated its contract, with the violation as feedback."""
    request_timeout_s: float = 600.0
    """Seconds one model request may take before it counts as a (retried) timeout."""
    sandbox_timeout_s: float = 10.0
    """Wall-clock limit for one sandboxed program."""
    every_duty: bool = False
    """Run every duty, also those ``IDLE_DUTIES`` turns off for a role's model (measured to repair nothing
    on the dev split)."""
    max_llm_calls: int = 0
    """Run budget: model calls (0: no limit). Each budget, once spent, ends the run in ``failed``."""
    max_run_tokens: int = 0
    """Run budget: input plus output tokens over all calls (0: no limit)."""
    max_cost: float = 0.0
    """Run budget: cost in the price unit of the models' settings (0: no limit)."""
    max_wall_s: float = 0.0
    """Run budget: seconds of the stages' working time (0: no limit)."""

    def __post_init__(self) -> None:
        # A number out of its range is refused before anything runs or is written, naming the field.
        for name, (low, strict) in RANGES.items():
            value = getattr(self, name)
            if value is not None and (value <= low if strict else value < low):
                bound = f"greater than {low}" if strict else f"at least {low}"
                raise ValueError(f"{name} must be {bound}, not {value}")
        # A bad override is refused before any stage runs, naming the role and the field.
        for role in self.role_styles:
            _refuse_invalid(f"role_styles[{role!r}]", partial(self.style_for, role, Style()))
        for role in self.role_models:
            _refuse_invalid(f"role_models[{role!r}]", partial(self.model_for, role))

    def style_for(self, role: str, base: Style) -> Style:
        """Return the role's communication style: this run's override over ``base`` (the role spec's)."""
        return Style.model_validate({**base.model_dump(), **self.role_styles.get(role.lower(), {})})

    def model_for(self, role: str) -> RoleModel:
        """Return the role's model settings: its override over the run's defaults."""
        defaults = {name: getattr(self, name) for name in RoleModel.model_fields}
        return RoleModel.model_validate({**defaults, **self.role_models.get(role.lower(), {})})

    def idle(self, role: str, duty: str, model: str) -> bool:
        """Return whether ``role``'s ``duty`` is off on ``model`` (``IDLE_DUTIES``, unless ``every_duty``)."""
        return not self.every_duty and f"{role.lower()}.{duty}" in IDLE_DUTIES.get(model, frozenset())

    def counter_limits(self) -> dict[str, int]:
        """Return the counter limits this Context sets; the lifecycle table's own limits hold for the rest."""
        limits = {
            "round": self.max_rounds,
            "debug": self.max_debug_attempts,
            "resample": self.max_resamples,
            "attempt": None if self.first_attempt else 0,
            "sample": self.max_samples,
            "cross_check": 1 if self.cross_samples else None,
        }
        return {name: limit for name, limit in limits.items() if limit is not None}


RANGES: dict[str, tuple[float, bool]] = {
    "temperature": (0, False),
    "max_tokens": (1, False),
    "max_rounds": (1, False),
    "max_debug_attempts": (0, False),
    "max_samples": (0, False),
    "cross_samples": (0, False),
    "max_candidates": (1, False),
    "best_of": (1, False),
    "token_cap": (0, False),
    "max_resamples": (0, False),
    "max_tests": (1, False),
    "traced_failures": (0, False),
    "max_output_retries": (0, False),
    "remote_timeout_s": (0, True),
    "request_timeout_s": (0, True),
    "sandbox_timeout_s": (0, True),
    "max_llm_calls": (0, False),
    "max_run_tokens": (0, False),
    "max_cost": (0, False),
    "max_wall_s": (0, False),
}
"""Each numeric field's lower bound, and whether the bound itself is refused (a timeout must be positive;
a budget of 0 means no limit)."""


def _refuse_invalid(where: str, build: Callable[[], object]) -> None:
    try:
        build()
    except ValidationError as exc:
        error = exc.errors()[0]
        raise ValueError(f"{where}: {error['loc']}: {error['msg']}") from None
