"""Settings of the machine Accord runs on, and the run defaults it overrides: all read from the environment.

This is the one module that reads Accord's environment variables (``ACCORD_*``, and the OpenAI client's
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``), also from a ``.env`` file in the working directory.
``Settings`` says where things live and what may run here; ``run_defaults()`` is the ``Context`` with
any ``ACCORD_<FIELD>`` variable applied, which the CLI starts from. ``.env.example`` lists every variable.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from dotenv import dotenv_values
from pydantic import AliasChoices, Field, SecretStr, TypeAdapter
from pydantic_settings import BaseSettings, SettingsConfigDict

from accord.state.context import Context

PREFIX = "ACCORD_"
ENV_FILE = ".env"


class Settings(BaseSettings):
    """Where Accord keeps runs, data and models, which endpoint it calls, and how it isolates code."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_file=ENV_FILE, extra="ignore", frozen=True)

    db: Path = Path(".accord") / "checkpoints.sqlite"
    """The SQLite run store (``ACCORD_DB``)."""
    database_url: SecretStr | None = None
    """A PostgreSQL run store, used instead of SQLite (``ACCORD_DATABASE_URL``)."""
    data: Path | None = None
    """Benchmark data; None is the repository's ``data/`` (``ACCORD_DATA``)."""
    cache: Path | None = None
    """Assembled models and server logs; None is ``$XDG_CACHE_HOME/accord`` (``ACCORD_CACHE``)."""
    peers: Path | None = None
    """Git checkouts of the published coders the evals run beside Accord, one folder each (``ACCORD_PEERS``);
    None is the cache's ``peers``."""
    broker_url: str | None = None
    """The Celery broker of the scale-out backend, e.g. ``redis://HOST:6379/0`` (``ACCORD_BROKER_URL``)."""
    visibility_timeout_s: float = 3600.0
    """How long a dead worker's eval task waits before it is redelivered (``ACCORD_VISIBILITY_TIMEOUT_S``)."""
    sandbox: str = "bubblewrap"
    """How model-written code runs: ``bubblewrap``, or ``unsafe-rlimits`` to accept running it with rlimits
    alone where bubblewrap cannot (``ACCORD_SANDBOX``)."""
    workflows: str = ""
    """More workflows to serve, as ``module:attribute`` references to ``graphs.catalog.Workflow`` objects,
    comma separated, beside those packages register under the ``accord.workflows`` entry points
    (``ACCORD_WORKFLOWS``)."""
    a2a_max_body_bytes: int = Field(default=1 << 20, gt=0)
    """The largest request body a served role accepts; a larger one gets HTTP 413
    (``ACCORD_A2A_MAX_BODY_BYTES``)."""
    a2a_token: SecretStr | None = None
    """The bearer token a role served over A2A requires, and a run sends to its remote roles
    (``ACCORD_A2A_TOKEN``); it travels in a header only, never in a prompt, message or the ledger."""
    openai_base_url: str | None = Field(default=None, validation_alias=AliasChoices("OPENAI_BASE_URL"))
    """The default OpenAI-compatible endpoint of every role (``OPENAI_BASE_URL``)."""
    openai_api_key: SecretStr | None = Field(default=None, validation_alias=AliasChoices("OPENAI_API_KEY"))
    """The endpoint's key (``OPENAI_API_KEY``); it stays in the client, never in a prompt or the ledger."""

    def cache_dir(self) -> Path:
        """Return the cache directory, created if missing."""
        xdg = os.environ.get("XDG_CACHE_HOME")
        path = self.cache or (Path(xdg) if xdg else Path.home() / ".cache") / "accord"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def peers_dir(self) -> Path:
        """Return where the published coders' checkouts are looked for."""
        return self.peers or self.cache_dir() / "peers"


def settings() -> Settings:
    """Return the settings as the environment holds them now."""
    return Settings()


def run_defaults(environ: Mapping[str, str] | None = None) -> Context:
    """Return the run's Context: its declared defaults with each ``ACCORD_<FIELD>`` variable applied.

    Without ``environ``, the process environment is read over a ``.env`` file in the working directory, as
    ``Settings`` reads it. Dictionaries (``ACCORD_ROLE_MODELS``, ``ACCORD_ROLE_STYLES``) are JSON.

    Raises:
        ValueError: a variable's value does not fit its field (the message names the variable).
    """
    if environ is None:
        dotenv = {name: value for name, value in dotenv_values(ENV_FILE).items() if value is not None}
        environ = {**dotenv, **os.environ}
    hints = get_type_hints(Context)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(Context):
        name = PREFIX + field.name.upper()
        if not (raw := environ.get(name)):
            continue
        try:
            value = json.loads(raw) if get_origin(hints[field.name]) is dict else raw
            values[field.name] = TypeAdapter(hints[field.name]).validate_python(value)
        except ValueError as exc:
            raise ValueError(f"{name}={raw!r}: {str(exc).splitlines()[-1].strip()}") from None
    return Context(**values)
