"""A2A on the wire: one duty as a ``message/send`` with ``a2a-sdk``'s client, and the server's guard.

A duty's inputs travel as one data part, the call's protocol facts (duty, stage, round, feedback) as the
message's metadata; the answer is a task whose ``outputs`` artifact holds the duty's update and whose
metadata holds the remote side's ledger entries (its model calls, tokens and cost), so the caller accounts
for them as for its own. A duty that failed on the remote side ends its task ``failed`` with the reason.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

OUTPUTS = "outputs"
"""The name of the artifact that carries a duty's update."""
TOKEN_VARIABLE = "ACCORD_A2A_TOKEN"
"""The bearer token a served role requires, and a caller sends, when it is set."""


class Refused(RuntimeError):
    """The agent answered with an A2A (JSON-RPC) error: the request itself was wrong."""


class Unauthorized(RuntimeError):
    """The agent refused the request's credentials (HTTP 401)."""


@dataclass(frozen=True)
class Reply:
    """What one duty's A2A call returned."""

    completed: bool
    outputs: dict[str, Any] = field(default_factory=dict)
    """The duty's update, when it completed."""
    error: str = ""
    """Why the duty failed on the remote side, when it did."""
    ledger: list[dict[str, Any]] = field(default_factory=list)
    """The remote side's ledger entries for this duty."""
    agent: str = ""
    """The agent that answered: its card's name."""


def plain(value: Any) -> Any:
    """Return ``value`` with integral floats as ints: a data part is a protobuf ``Struct``, which holds
    every number as a double, and the artifacts' and ledger's counts are ints."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def send(
    url: str,
    inputs: Mapping[str, Any],
    metadata: Mapping[str, Any],
    headers: Mapping[str, str],
    timeout_s: float,
) -> Reply:
    """Send one duty to the agent at ``url`` and wait for its task to end.

    Raises:
        httpx.TimeoutException: no answer within ``timeout_s``.
        httpx.TransportError: the agent cannot be reached.
        Unauthorized: the agent refused the credentials.
        Refused: the agent answered with an A2A error (e.g. a contract input missing).
        ValueError: the answer is not a duty's reply (no task, no outputs artifact).
    """
    return asyncio.run(_send(url, dict(inputs), dict(metadata), dict(headers), timeout_s))


async def _send(
    url: str, inputs: dict[str, Any], metadata: dict[str, Any], headers: dict[str, str], timeout_s: float
) -> Reply:
    from a2a.client import A2AClientError, A2AClientTimeoutError, ClientConfig, create_client
    from a2a.helpers.proto_helpers import get_data_parts, new_data_message
    from a2a.types import Role, SendMessageRequest, TaskState
    from a2a.utils.errors import A2AError
    from google.protobuf.json_format import MessageToDict

    message = new_data_message(inputs, role=Role.ROLE_USER)
    message.metadata.update(metadata)
    async with httpx.AsyncClient(headers=headers, timeout=timeout_s) as http:
        try:
            client = await create_client(url, ClientConfig(streaming=False, httpx_client=http))
            async with client:
                events = [event async for event in client.send_message(SendMessageRequest(message=message))]
        except A2AClientTimeoutError as exc:
            raise httpx.TimeoutException(str(exc)) from None
        except (A2AClientError, A2AError) as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, httpx.HTTPStatusError) and cause.response.status_code == 401:
                raise Unauthorized(f"{url} refused the credentials") from None
            if isinstance(cause, httpx.TransportError):
                raise cause from None
            raise Refused(str(exc)) from None
    tasks = [event.task for event in events if event.HasField("task")]
    if not tasks:
        raise ValueError("the agent answered without a task")
    task = tasks[-1]
    outputs = next((a for a in task.artifacts if a.name == OUTPUTS), None)
    meta = plain(MessageToDict(outputs.metadata)) if outputs is not None else {}
    if task.status.state == TaskState.TASK_STATE_COMPLETED:
        data = get_data_parts(outputs.parts) if outputs is not None else []
        if not data or not isinstance(data[0], dict):
            raise ValueError("the agent's task completed without an outputs artifact of data")
        return Reply(True, outputs=plain(data[0]), ledger=meta.get("ledger", []), agent=meta.get("agent", ""))
    said = " ".join(p.text for p in task.status.message.parts if p.text) or "no reason given"
    return Reply(False, error=said, ledger=meta.get("ledger", []), agent=meta.get("agent", ""))


ASGIApp = Callable[
    [dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]
]


async def _answer(send_: Callable[[Any], Awaitable[None]], status: int, text: str) -> None:
    headers = [(b"content-type", b"text/plain")]
    await send_({"type": "http.response.start", "status": status, "headers": headers})
    await send_({"type": "http.response.body", "body": text.encode() + b"\n"})


def body_guard(app: ASGIApp, max_bytes: int, refused: Callable[[bytes], str]) -> ASGIApp:
    """Return ``app`` answering 413 to a request body over ``max_bytes`` (declared or sent) and 400, with
    the reason, to one ``refused`` finds fault with; nothing of either reaches ``app``."""

    async def guarded(
        scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send_: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send_)
            return
        too_large = f"the request body is larger than {max_bytes:,} bytes"
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > max_bytes:
            await _answer(send_, 413, too_large)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_bytes:
                await _answer(send_, 413, too_large)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if reason := refused(body):
            await _answer(send_, 400, reason)
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send_)

    return guarded


def bearer_guard(app: ASGIApp, token: str | None, public: tuple[str, ...] = ()) -> ASGIApp:
    """Return ``app`` answering 401 to an HTTP request without ``Authorization: Bearer <token>`` (every
    request passes when ``token`` is empty); paths in ``public`` (the Agent Card) always pass."""
    if not token:
        return app
    expected = f"Bearer {token}".encode()

    async def guarded(
        scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send_: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope["type"] == "http" and scope["path"] not in public:
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send_(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send_({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        await app(scope, receive, send_)

    return guarded
