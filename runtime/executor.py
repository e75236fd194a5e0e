"""One executor for a role's typed actions: before-hooks → parameters → typed dispatch → after-hooks.

Every phase is recorded in the ledger (kind ``action``; parameter names, never their values). A failure
is classified — an exception in the action's code, an HTTP status, a timeout, a connection or protocol
error, malformed output — and handled by its policy: ``retry`` (bounded, with exponential backoff, through
``tenacity``), ``fallback`` (to the action the spec names, e.g. LOCAL_CODE standing in for a model), or
``escalate`` (raise ``ActionFailed``). Hooks bind to actions by name and are checked when the executor is
built: a hook for an action the role does not have is an error then, not a silent no-op at run time.

Credentials reach a WEB_SERVICE action only through a before-hook that reads them from the environment
into the request's headers (``credential_from_env``); they are not parameters, so they reach no prompt,
message or ledger entry.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal, TypeVar, cast

import httpx
from dotenv import dotenv_values
from pydantic import BaseModel, TypeAdapter, ValidationError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from accord.runtime import a2a
from accord.state.artifacts import ARTIFACT_MODELS
from accord.state.role_specs import ActionSpec, ActionType, RoleSpec
from accord.state.settings import ENV_FILE
from accord.state.stage import StageCall, stage_handles

FailureKind = Literal[
    "exception",
    "parameters",
    "http",
    "timeout",
    "connection",
    "protocol",
    "malformed",
    "tool_resolution",
    "forbidden",
]
Policy = Literal["retry", "fallback", "escalate"]
POLICIES: dict[str, Policy] = {
    "exception": "escalate",
    "parameters": "escalate",
    "http": "retry",
    "timeout": "retry",
    "connection": "retry",
    "protocol": "escalate",
    "malformed": "retry",
    "tool_resolution": "escalate",
    "forbidden": "escalate",
}
"""The default policy per failure kind; an action overrides any of them in ``config["policies"]``."""
RETRIES = 2
BACKOFF_S = 0.2
"""The first wait before a retry, in seconds; an action overrides it in ``config["backoff_s"]``."""
T = TypeVar("T")
SIMPLE_TYPES: dict[str, type] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "dict": dict,
    "list": list,
}


class ActionFailed(RuntimeError):
    """An action failed and its policy escalates (or its retries and fallback are spent)."""

    def __init__(self, action: str, kind: FailureKind, detail: str) -> None:
        super().__init__(f"{action}: {kind}: {detail}")
        self.action, self.kind, self.detail = action, kind, detail


class _Failure(Exception):
    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


@dataclass
class Request:
    """What one invocation carries through the pipeline; hooks may change any of it."""

    action: ActionSpec
    params: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers of a WEB_SERVICE call: where credentials go, kept out of ``params`` and the ledger."""


BeforeHook = Callable[[Request], Request]
AfterHook = Callable[[Request, Any], Any]
Recorder = Callable[..., None]
"""``record(kind, **fields)``, as ``StageCall.record`` writes a ledger entry."""


def credential_from_env(
    variable: str, header: str = "Authorization", scheme: str = "Bearer", required: bool = True
) -> BeforeHook:
    """Return a before-hook that puts ``$variable`` (from the environment, else the ``.env`` file) into a
    request header (a missing key is an error when ``required``; otherwise the request goes without it)."""

    def hook(request: Request) -> Request:
        value = os.environ.get(variable) or dotenv_values(ENV_FILE).get(variable)
        if not value and not required:
            return request
        if not value:
            raise _Failure("parameters", f"the environment variable {variable} is not set")
        request.headers[header] = f"{scheme} {value}".strip()
        return request

    return hook


@dataclass
class Executor:
    """Runs a role's actions; built once per role, validated eagerly."""

    role: RoleSpec
    handlers: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    """The code behind each LOCAL_CODE and LLM action, by action name."""
    before: Mapping[str, Sequence[BeforeHook]] = field(default_factory=dict)
    after: Mapping[str, Sequence[AfterHook]] = field(default_factory=dict)
    record: Recorder = lambda kind, **fields: None
    passthrough: Callable[[BaseException], bool] = lambda exc: False
    """Errors the caller handles itself, raised unclassified: in a graph stage, those the stage's own
    retry policy, output feedback and budgets handle (``state.stage.stage_handles``)."""
    client: httpx.Client | None = None
    """The HTTP client for WEB_SERVICE actions; None opens one per call (most roles never make one)."""

    def __post_init__(self) -> None:
        names = {a.name for a in self.role.actions}
        for kind, hooks in (("before", self.before), ("after", self.after)):
            if unknown := sorted(set(hooks) - names):
                raise ValueError(f"role {self.role.name}: {kind}-hooks for unknown actions {unknown}")
        for action in self.role.actions:
            where = f"role {self.role.name}, {action.type.name} action {action.name}"
            if (
                action.type in (ActionType.LOCAL_CODE, ActionType.LLM, ActionType.LLM_TOOLS, ActionType.HUMAN)
                and action.name not in self.handlers
            ):
                raise ValueError(f"{where}: no code to run it")
            if action.type is ActionType.LLM_TOOLS:
                tools = action.config.get("tools") or []
                if bad := [t for t in tools if t not in names or t == action.name]:
                    raise ValueError(f"{where}: its tools name no other action of the role: {bad}")
                if not tools or int(action.config.get("max_tool_calls", MAX_TOOL_CALLS)) < 1:
                    raise ValueError(f"{where}: it needs tools and max_tool_calls of at least 1")
            if action.type is ActionType.WEB_SERVICE and "endpoint" not in action.config:
                raise ValueError(f"{where}: no endpoint")
            if action.type is ActionType.MCP_TOOL and not {"server", "tool"} <= set(action.config):
                raise ValueError(f"{where}: an MCP tool needs a server and a tool name")
            if action.type is ActionType.MCP_TOOL and not {"url", "command"} & set(action.config["server"]):
                raise ValueError(f"{where}: its MCP server needs a url or a command")
            fallback = action.config.get("fallback")
            if fallback is not None and (fallback not in names or fallback == action.name):
                raise ValueError(f"{where}: falls back to unknown action {fallback!r}")

    def run(self, name: str, **params: Any) -> Any:
        """Run action ``name`` with ``params`` through the pipeline; return its (after-hooked) result.

        Raises:
            ActionFailed: the failure's policy escalates, or retries and fallback are spent.
        """
        action = self.role.action(name)
        policies: dict[str, Policy] = {**dict(POLICIES), **action.config.get("policies", {})}
        retrying = Retrying(
            stop=stop_after_attempt(1 + int(action.config.get("retries", RETRIES))),
            retry=retry_if_exception(lambda exc: isinstance(exc, _Failure) and policies[exc.kind] == "retry"),
            # A service that failed is given a moment, doubling, before it is asked again.
            wait=wait_exponential(multiplier=float(action.config.get("backoff_s", BACKOFF_S)), max=8.0),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    try:
                        return self._once(action, params)
                    except _Failure as failure:
                        self._record(
                            action,
                            "failed",
                            f"{failure.kind}: {failure}"[:300],
                            attempt=attempt.retry_state.attempt_number,
                        )
                        raise
        except _Failure as failure:
            fallback = action.config.get("fallback")
            if fallback and policies[failure.kind] in ("retry", "fallback"):
                self._record(action, "fallback", f"to {fallback}")
                return self.run(fallback, **params)
            raise ActionFailed(name, failure.kind, str(failure)) from None
        raise AssertionError("unreachable: Retrying either returns or reraises")

    def _once(self, action: ActionSpec, params: dict[str, Any]) -> Any:
        request = Request(action=action, params=dict(params))
        for before in self.before.get(action.name, ()):
            request = before(request)
        self._record(action, "before", ", ".join(sorted(request.params)))
        request.params = _converted(action, request.params)
        for prop in self.role.properties:
            if prop.check and (why := CHECKS[prop.check](request)):
                self._record(action, "blocked", f"{prop.kind} {prop.name}: {why}")
                raise _Failure("forbidden", f"{prop.name}: {why}")
        started = time.monotonic()
        result = self._dispatch(request)
        self._record(action, "dispatched", action.type.name, latency_s=time.monotonic() - started)
        for after in self.after.get(action.name, ()):
            result = after(request, result)
        self._record(action, "after", type(result).__name__)
        return result

    def _dispatch(self, request: Request) -> Any:
        action = request.action
        if action.type is ActionType.WEB_SERVICE:
            return self._web(request)
        if action.type is ActionType.MCP_TOOL:
            return _returned(action, mcp_call(action.config, request.params))
        extra = {"tools": Toolbox(self, action)} if action.type is ActionType.LLM_TOOLS else {}
        try:
            result = self.handlers[action.name](**request.params, **extra)
        except _Failure:
            raise
        except Exception as exc:  # the action's own code failed: classified, then its policy decides
            if self.passthrough(exc):
                raise
            if isinstance(exc, ValidationError):
                raise _Failure("malformed", str(exc)[:300]) from None
            raise _Failure(_kind_of(exc), f"{type(exc).__name__}: {exc}") from None
        return _returned(action, result)

    def _web(self, request: Request) -> Any:
        config = request.action.config
        if config.get("protocol") == "a2a":
            return self._a2a(request)
        method = str(config.get("method", "POST")).upper()
        try:
            get = method == "GET"
            with contextlib.nullcontext(self.client) if self.client else httpx.Client() as client:
                response = client.request(
                    method,
                    config["endpoint"],
                    headers=request.headers,
                    timeout=float(config.get("timeout_s", 10.0)),
                    params=request.params if get else None,
                    json=None if get else request.params,
                )
        except httpx.TimeoutException as exc:
            raise _Failure("timeout", str(exc) or "timed out") from None
        except httpx.TransportError as exc:
            raise _Failure("connection", str(exc)) from None
        if response.status_code >= 400:
            raise _Failure("http", f"HTTP {response.status_code}")
        try:
            body = response.json()
        except ValueError:
            raise _Failure("protocol", "the response is not JSON") from None
        return _returned(request.action, body)

    def _a2a(self, request: Request) -> Any:
        """Send an A2A ``message/send``: params ``inputs`` (the data part) and ``metadata``."""
        config = request.action.config
        try:
            reply = a2a.send(
                config["endpoint"],
                request.params.get("inputs") or {},
                request.params.get("metadata") or {},
                request.headers,
                float(config.get("timeout_s", 10.0)),
            )
        except httpx.TimeoutException as exc:
            raise _Failure("timeout", str(exc) or "timed out") from None
        except httpx.TransportError as exc:
            raise _Failure("connection", str(exc) or type(exc).__name__) from None
        except a2a.Unauthorized as exc:
            raise _Failure("http", f"HTTP 401: {exc}") from None
        except a2a.Refused as exc:
            raise _Failure("protocol", str(exc)) from None
        except ValueError as exc:
            raise _Failure("malformed", str(exc)) from None
        return reply

    def _record(self, action: ActionSpec, outcome: str, detail: str, **fields: Any) -> None:
        attempt = fields.pop("attempt", None)
        note = f"{action.name}: {detail}" + (f" (attempt {attempt})" if attempt else "")
        self.record("action", outcome=outcome, detail=note, **fields)


MAX_TOOL_CALLS = 4
"""Tool calls an LLM_TOOLS action's model may make unless its ``max_tool_calls`` says otherwise."""


@dataclass
class Toolbox:
    """What an LLM_TOOLS action's code receives as ``tools``: the role's actions its model may call.

    Each call runs the named action through the same executor (its hooks, properties, failure policies
    and ledger entries) and is itself a ledger entry (``tool_call``); once ``limit`` calls are made, no
    more are allowed and the model must answer."""

    executor: Executor
    action: ActionSpec
    made: int = 0

    @property
    def specs(self) -> tuple[ActionSpec, ...]:
        """The actions the model may call."""
        return tuple(self.executor.role.action(name) for name in self.action.config["tools"])

    @property
    def limit(self) -> int:
        """The most calls the model may make."""
        return int(self.action.config.get("max_tool_calls", MAX_TOOL_CALLS))

    def left(self) -> int:
        """Return how many calls the model may still make."""
        return self.limit - self.made

    def call(self, name: str, **params: Any) -> Any:
        """Run the tool ``name`` with ``params``; return its result.

        Raises:
            ValueError: ``name`` is not one of the tools, or no call is left.
            ActionFailed: the tool failed and its policy escalates.
        """
        tools = self.action.config["tools"]
        if name not in tools:
            raise ValueError(f"there is no tool {name!r} (the tools: {', '.join(tools)})")
        if not self.left():
            raise ValueError(f"all {self.limit} tool calls are spent")
        self.made += 1
        self.executor.record(
            "action",
            outcome="tool_call",
            detail=f"{self.action.name}: {name} (call {self.made} of {self.limit})",
        )
        return self.executor.run(name, **params)


def role_spec(call: StageCall) -> RoleSpec:
    """Return the spec of the calling stage's role.

    Raises:
        ValueError: the role was built without a spec, so it has no actions to take.
    """
    if call.spec is None:
        raise ValueError(f"role {call.role!r} has no spec: build it with roles_from_specs")
    return call.spec


def perform(call: StageCall, action: str, handler: Callable[..., T], **params: Any) -> T:
    """Take one action of the calling stage's role through the role's executor; return its result.

    ``handler`` is the code behind the action in this call (its prompt, its sandbox run). Errors the
    stage handles itself (output feedback, transient endpoint errors, budgets) pass through.
    """
    actions = Executor(
        role_spec(call).narrowed(action),
        handlers={action: handler},
        record=call.record,
        passthrough=stage_handles,
    )
    return cast(T, actions.run(action, **params))


def mcp_call(config: Mapping[str, Any], params: dict[str, Any]) -> Any:
    """Reach the action's MCP server, call its tool with ``params`` and return the result.

    ``config``: ``server`` (``command``, ``args``, optional ``env``: started over stdio; or ``url``: a
    streamable-HTTP server already running), ``tool``, ``timeout_s``. One session lists the tools and calls
    one; a stdio server's stderr is kept apart and its end quoted when it fails.
    """
    import asyncio
    import tempfile

    from langchain_mcp_adapters.tools import load_mcp_tools
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    timeout = float(config.get("timeout_s", 60.0))

    async def call(errlog: Any) -> Any:
        # In here, so that bad settings are classified like any failure of the server.
        if "url" in config["server"]:
            transport: Any = streamable_http_client(str(config["server"]["url"]))
        else:  # errlog is given: stdio_client's default is whatever sys.stderr was when mcp was imported
            transport = stdio_client(StdioServerParameters(**config["server"]), errlog=errlog)
        async with transport as (read, write, *_), ClientSession(read, write) as session:
            await session.initialize()
            tools = await load_mcp_tools(session)
            tool = next((t for t in tools if t.name == config["tool"]), None)
            if tool is None:  # reported outside the session, whose task group would wrap the failure
                return _Failure(
                    "tool_resolution",
                    f"the server has no tool {config['tool']!r} (it has {sorted(t.name for t in tools)})",
                )
            return await tool.ainvoke(params)

    with tempfile.TemporaryFile("w+") as errlog:
        try:
            result = asyncio.run(asyncio.wait_for(call(errlog), timeout))
        except TimeoutError:
            raise _Failure("timeout", f"no answer from the MCP server in {timeout} s") from None
        except (OSError, ExceptionGroup, httpx.TransportError) as exc:
            errlog.seek(0)
            said = errlog.read().strip()[-200:]
            said = f"; it said: {said}" if said else ""
            raise _Failure("connection", f"the MCP server failed: {exc!r}{said}"[:400]) from None
        except Exception as exc:  # the tool reported an error, or the server's settings are wrong
            raise _Failure("exception", f"{type(exc).__name__}: {exc}"[:300]) from None
    if isinstance(result, _Failure):
        raise result
    return _mcp_content(result)


def _mcp_content(result: Any) -> Any:
    """Return a tool's result as data: its JSON text content parsed, when that is what it returned."""
    if isinstance(result, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in result):
        texts = [b["text"] for b in result]
        try:
            parsed = [json.loads(t) for t in texts]
        except ValueError:
            return "\n".join(texts)
        return parsed[0] if len(parsed) == 1 else parsed
    if isinstance(result, str):
        try:
            return json.loads(result)
        except ValueError:
            return result
    return result


def _outside_workspace(request: Request) -> str:
    for name, value in request.params.items():
        if isinstance(value, str) and ("path" in name or "file" in name):
            parts = PurePosixPath(value).parts
            if not parts or PurePosixPath(value).is_absolute() or ".." in parts:
                return f"{name}={value!r} is outside the workspace"
    return ""


def _network(request: Request) -> str:
    kind = request.action.type
    return (
        f"{kind.name} actions reach the network"
        if kind in (ActionType.WEB_SERVICE, ActionType.MCP_TOOL)
        else ""
    )


CHECKS: dict[str, Callable[[Request], str]] = {"workspace_paths": _outside_workspace, "offline": _network}
"""Checkable safety properties: each returns why a request breaks it, or "" when it does not."""


def _kind_of(exc: Exception) -> FailureKind:
    """Classify an exception raised by an action's code (model clients raise these for their endpoint)."""
    import openai

    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError | ConnectionError):
        return "connection"
    if isinstance(exc, openai.APIStatusError):
        return "http"
    return "exception"


def _adapter(type_name: str) -> TypeAdapter[Any] | None:
    if type_name in SIMPLE_TYPES:
        return TypeAdapter(SIMPLE_TYPES[type_name])
    model = next((m for m in ARTIFACT_MODELS.values() if m.__name__ == type_name), None)
    return TypeAdapter(model) if model else None


def _converted(action: ActionSpec, params: dict[str, Any]) -> dict[str, Any]:
    """Check the parameters against the spec and convert each to its declared type."""
    declared = {p.name: p for p in action.params}
    if unknown := sorted(set(params) - set(declared)):
        raise _Failure("parameters", f"unknown parameters {unknown}")
    out: dict[str, Any] = {}
    for name, param in declared.items():
        if name not in params or (param.optional and params[name] is None):
            if not param.optional:
                raise _Failure("parameters", f"missing parameter {name!r}")
            out[name] = params.get(name, param.default)  # an optional parameter may be given as None
            continue
        adapter = _adapter(param.type)
        try:
            out[name] = params[name] if adapter is None else adapter.validate_python(params[name])
        except ValidationError as exc:
            raise _Failure("parameters", f"{name}: {exc.errors()[0]['msg']}") from None
    return out


def _returned(action: ActionSpec, result: Any) -> Any:
    """Check a result against the action's declared return type (malformed output otherwise)."""
    adapter = _adapter(action.returns)
    if adapter is None or isinstance(result, BaseModel):
        return result
    try:
        return adapter.validate_python(result)
    except ValidationError as exc:
        raise _Failure("malformed", f"expected {action.returns}: {exc.errors()[0]['msg']}") from None
