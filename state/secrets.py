"""The secrets this process is configured with, and their redaction from any text before it is kept.

A secret is a value of an environment variable whose name says it holds one (``OPENAI_API_KEY``,
``ACCORD_A2A_TOKEN``, an MCP or web service's ``..._TOKEN``), or a secret setting (``.env`` included): the
API key, the A2A token, the password in ``ACCORD_DATABASE_URL``. What a model, tool or endpoint says
passes through ``redacted`` before it reaches a checkpoint, the ledger, an export, a page or a log, so an
endpoint that echoes its key leaves the key nowhere.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any
from urllib.parse import urlsplit

from accord.state.settings import Settings

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
SHORTEST = 8
"""Shorter values are not taken for secrets: redacting them would cut ordinary words out of text."""
REDACTED = "[redacted]"


def configured() -> tuple[str, ...]:
    """Return every secret this process holds, longest first."""
    return _configured(tuple(sorted(os.environ.items())), os.getcwd())


@functools.lru_cache(maxsize=4)
def _configured(environment: tuple[tuple[str, str], ...], where: str) -> tuple[str, ...]:
    # ``where``: the settings read the working directory's .env file too.
    found = {value for name, value in environment if SECRET_NAME.search(name) and len(value) >= SHORTEST}
    settings = Settings()
    for secret in (settings.openai_api_key, settings.a2a_token):
        if secret is not None:
            found.add(secret.get_secret_value())
    if settings.database_url is not None and (
        password := urlsplit(settings.database_url.get_secret_value()).password
    ):
        found.add(password)
    return tuple(sorted((s for s in found if len(s) >= SHORTEST), key=len, reverse=True))


def redact(text: str) -> str:
    """Return ``text`` with every configured secret replaced."""
    for secret in configured():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redacted(value: Any) -> Any:
    """Return ``value`` (JSON-like: dicts, lists, tuples, strings) with every secret in its strings
    replaced."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redacted(k): redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redacted(v) for v in value)
    return value


def scrub(exc: BaseException) -> BaseException:
    """Redact an exception in place (its arguments, and an endpoint error's message and body) and return it,
    so that what stores or prints it keeps no secret; its type, and so its retry policy, is unchanged."""
    exc.args = tuple(redacted(a) for a in exc.args)
    for attribute in ("message", "body"):
        if isinstance(getattr(exc, attribute, None), str | dict | list):
            setattr(exc, attribute, redacted(getattr(exc, attribute)))
    return exc
