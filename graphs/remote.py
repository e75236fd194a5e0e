"""Roles over A2A: a role served as an agent in one process, its duties called from a graph in another.

The caller's side (``remote_work``) replaces a duty's work when the Context names the role in
``remote_roles``: the duty becomes a WEB_SERVICE action of the role's executor speaking A2A, so the
executor's failure policies, hooks and ledger apply to it; the compiler, contracts, typed messages, blame
and budgets see the same duty as for a local role. The served side (``RoleAgent``, ``app``) checks the
request against the duty's contract before any model sees it, runs the duty's own work with the server's
models, and returns the update with its ledger entries.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import openai
from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError

from accord.graphs.duties import Role
from accord.runtime import a2a
from accord.runtime.executor import ActionFailed, Executor, credential_from_env, role_spec
from accord.state.context import Context
from accord.state.contracts import Violation, check_preconditions
from accord.state.graph_state import LedgerEntry, records
from accord.state.role_specs import ActionSpec, ActionType, Param, RoleSpec
from accord.state.secrets import redact
from accord.state.stage import OutputError, RoleUnavailable, StageCall, Work

PROTOCOL = ("verdicts", "counters", "request")
"""State a duty may read besides its contract's inputs: the run's gate decisions and counters (e.g. the
Coder resamples when the selection asked for fresh candidates) and the request as the user wrote it."""
UNAVAILABLE = ("connection", "timeout", "http")
"""Failure kinds that say the agent is not there to answer, not that its answer was wrong."""
PARAMS = (Param(name="inputs", type="dict"), Param(name="metadata", type="dict"))
CALLER_SETTINGS = ("role_styles", "max_candidates", "best_of", "max_tests", "traced_failures", "every_duty")
"""The run settings that travel with a remote duty and that a served role takes from its caller: what
shapes the work, so a remote role works as a local one would. Everything else — its models, endpoints,
timeouts and sandbox limits — the served role keeps its own; a caller sending another is refused (HTTP 400),
and a number the caller sends above the server's own is held at the server's."""


def run_settings(context: Context) -> dict[str, Any]:
    """Return the settings of a run that travel with a remote duty."""
    return {name: getattr(context, name) for name in CALLER_SETTINGS}


def refused_settings(body: bytes) -> str:
    """Return why a served role refuses a JSON-RPC request's settings ('' when it takes them): a key a
    caller may not set. Anything that is not such a request is left to the JSON-RPC handler."""
    try:
        request = json.loads(body)
        given = request["params"]["message"]["metadata"]["settings"]
    except (ValueError, KeyError, TypeError):
        return ""
    if not isinstance(given, dict):
        return "settings: a JSON object of Context fields"
    if unknown := sorted(set(given) - set(CALLER_SETTINGS)):
        return (
            f"settings: a caller may not set {', '.join(unknown)} (it may set: {', '.join(CALLER_SETTINGS)})"
        )
    return ""


def scrubbed(exc: BaseException) -> str:
    """Return what a served role says of a failure in its duty: a model endpoint's error by its kind and
    status alone (its text may echo the request, a key or a server's internals), anything else redacted."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, openai.APIError):  # the executor wraps it
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        status = getattr(cause, "status_code", None)
        return f"the role's model endpoint failed: {type(cause).__name__}" + (
            f" (HTTP {status})" if status else ""
        )
    return redact(f"{type(exc).__name__}: {exc}")


def remote_work(role: Role, duty: str, url: str) -> Work:
    """Return the work that has the agent at ``url`` perform ``role``'s ``duty``.

    The duty's view of the state goes as the message (its contract's inputs, never what it withholds);
    the agent's ledger entries are recorded as this stage's, naming the agent. An agent that cannot be
    reached, or answers past the Context's ``remote_timeout_s``, is retried by the executor's policy, then
    played here when ``remote_fallback`` is on; otherwise the stage raises ``RoleUnavailable`` and the run
    stops at its last checkpoint. A remote duty that failed, or an answer that is not a duty's, is the
    role's malformed output: fed back and retried, then the stage's ``fail``.
    """
    contract = role.duties[duty].contract

    def work(state: Mapping[str, Any], call: StageCall) -> dict[str, Any]:
        context = call.context
        inputs = {kind: state[kind] for kind in sorted(contract.accepts()) if state.get(kind) is not None}
        metadata = {
            "duty": duty,
            "stage": call.stage,
            "round": call.round,
            "settings": run_settings(context),
            "feedback": [v.model_dump() for v in call.feedback],
            **{key: state[key] for key in PROTOCOL if state.get(key) is not None},
        }
        sent, local = f"a2a_{duty}", f"local_{duty}"
        action = ActionSpec(
            name=sent,
            description=f"{duty} by the A2A agent at {url}",
            type=ActionType.WEB_SERVICE,
            params=PARAMS,
            returns="Reply",
            # A timeout is not retried: a model-backed duty past its time is busy or stuck, not flaky.
            config={
                "endpoint": url,
                "protocol": "a2a",
                "timeout_s": context.remote_timeout_s,
                "policies": {"timeout": "fallback"},
                **({"fallback": local} if context.remote_fallback else {}),
            },
        )
        fallback = ActionSpec(
            name=local,
            description=f"{duty} played here, the agent unreachable",
            type=ActionType.LOCAL_CODE,
            params=PARAMS,
            returns="Reply",
        )

        def here(inputs: dict[str, Any], metadata: dict[str, Any]) -> a2a.Reply:
            return a2a.Reply(True, outputs=role.duties[duty].work(state, call))

        spec = role_spec(call).model_copy(update={"duties": (), "actions": (action, fallback)})
        executor = Executor(
            spec,
            handlers={local: here},
            record=call.record,
            before={sent: [credential_from_env(a2a.TOKEN_VARIABLE, required=False)]},
        )
        try:
            reply: a2a.Reply = executor.run(sent, inputs=inputs, metadata=metadata)
        except ActionFailed as exc:
            if exc.kind in UNAVAILABLE:
                raise RoleUnavailable(
                    f"{role.name}: the A2A agent at {url} did not answer ({exc.kind}: "
                    f"{exc.detail}); start it, or pass remote_fallback to play the "
                    f"role here"
                ) from None
            raise OutputError(f"the A2A agent at {url}: {exc.kind}: {exc.detail}") from None
        if not reply.agent:  # played here: its work recorded its own entries
            return reply.outputs
        agent = f"{reply.agent} at {url}"
        call.record("action", outcome="answered", detail=f"{sent}: by {agent}", agent=agent)
        for entry in reply.ledger:
            call.ledger.append(
                LedgerEntry.model_validate(
                    {
                        **entry,
                        "role": role.name,
                        "stage": call.stage,
                        "round": call.round,
                        "step": call.step,
                        "agent": agent,
                    }
                )
            )
        if not reply.completed:
            raise OutputError(f"the remote {role.name} failed: {reply.error}")
        return reply.outputs

    return work


def agent_card(spec: RoleSpec, url: str = "", secured: bool = False, version: str = "0.1.0") -> Any:
    """Return the role's A2A Agent Card (``a2a.types.AgentCard``): one skill per action, and, when the
    role is served, its URL and JSON-RPC interface (``secured``: it requires a bearer token)."""
    from a2a.types import (
        AgentCapabilities,
        AgentCard,
        AgentInterface,
        AgentSkill,
        HTTPAuthSecurityScheme,
        SecurityRequirement,
        SecurityScheme,
        StringList,
    )

    # A duty that requires no artifact starts from the request itself: plain text, as a user types it.
    takes_text = any(not duty.contract.inputs for duty in spec.duties)
    inputs = ["text/plain"] if takes_text else ["application/json"]
    outputs = ["application/json"]
    skills = [
        AgentSkill(
            id=f"{spec.name}.{a.name}",
            name=a.name,
            description=a.description,
            tags=[a.type.value, spec.domain],
            input_modes=inputs,
            output_modes=outputs,
        )
        for a in spec.actions
    ]
    duties = "; ".join(f"{d.name}: {d.description}" for d in spec.duties)
    card = AgentCard(
        name=f"accord-{spec.name}",
        description=f"{spec.goal} ({spec.domain}). Duties: {duties}",
        version=version,
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=inputs,
        default_output_modes=outputs,
        skills=skills,
    )
    if url:
        card.supported_interfaces.append(
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        )
    if secured:
        card.security_schemes["bearer"].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer"))
        )
        card.security_requirements.append(SecurityRequirement(schemes={"bearer": StringList()}))
    return card


def held(context: Context, given: Mapping[str, Any]) -> dict[str, Any]:
    """Return a caller's settings with each number held at the server's own value (a caller may ask
    for fewer candidates or tests than the server allows, never more)."""
    out = dict(given)
    for name, value in given.items():
        mine = getattr(context, name)
        if isinstance(mine, int | float) and not isinstance(mine, bool) and isinstance(value, int | float):
            out[name] = min(value, mine)
    return out


class RoleAgent:
    """The served side: an ``a2a-sdk`` agent executor that performs one role's duties.

    A request names its duty in its metadata (a role with one duty may leave it out); its data part must
    hold the duty's contract inputs, valid, and nothing the duty does not take, or it is answered with an
    A2A error naming what is wrong and no model is called.
    """

    def __init__(
        self, role: Role, context: Context, models: Mapping[str, BaseChatModel] | None = None
    ) -> None:
        from a2a.server.agent_execution import AgentExecutor

        self.role, self.context, self.models = role, context, dict(models or {})
        self.name = f"accord-{role.name}"
        # Subclassed here so that importing this module does not import the A2A server.
        outer = self

        class Executor_(AgentExecutor):
            async def execute(self, context: Any, event_queue: Any) -> None:
                await outer.execute(context, event_queue)

            async def cancel(self, context: Any, event_queue: Any) -> None:
                from a2a.utils.errors import UnsupportedOperationError

                raise UnsupportedOperationError("a duty cannot be cancelled once it runs")

        self.executor = Executor_()

    def _request(self, message: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """Return the duty, its inputs and the metadata a message carries; refuse a bad one."""
        from a2a.helpers.proto_helpers import get_data_parts
        from a2a.utils.errors import InvalidParamsError
        from google.protobuf.json_format import MessageToDict

        metadata = a2a.plain(MessageToDict(message.metadata))
        duties = self.role.duties
        duty = metadata.get("duty") or (next(iter(duties)) if len(duties) == 1 else "")
        if duty not in duties:
            raise InvalidParamsError(
                f"the {self.role.name} has no duty {duty!r} (its duties: "
                f"{', '.join(duties)}); name one in the message's metadata 'duty'"
            )
        data = [d for d in get_data_parts(message.parts) if isinstance(d, dict)]
        if len(data) != 1:
            raise InvalidParamsError("the message must carry the duty's inputs as one data part")
        inputs, contract = a2a.plain(data[0]), duties[duty].contract
        if unexpected := sorted(set(inputs) - contract.accepts()):
            raise InvalidParamsError(f"{self.role.name}/{duty} does not take {', '.join(unexpected)}")
        if violations := check_preconditions(contract, inputs):
            raise InvalidParamsError(
                f"{self.role.name}/{duty}: contract inputs: "
                + "; ".join(f"{v.key}: {v.detail}" for v in violations)
            )
        return duty, inputs, metadata

    async def execute(self, context: Any, event_queue: Any) -> None:
        """Perform the duty a message asks for and end its task with the update, or failed."""
        from a2a.helpers.proto_helpers import new_data_part, new_task_from_user_message, new_text_message
        from a2a.server.tasks import TaskUpdater
        from a2a.utils.errors import InvalidParamsError

        duty, inputs, metadata = self._request(context.message)
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        given = metadata.get("settings") or {}
        if unknown := sorted(set(given) - set(CALLER_SETTINGS)):  # the HTTP guard refuses these first
            raise InvalidParamsError(f"settings: a caller may not set {', '.join(unknown)}")
        try:
            settings = dataclasses.replace(self.context, **held(self.context, given))
        except (TypeError, ValueError) as exc:
            raise InvalidParamsError(f"settings: {exc}") from None
        call = StageCall(
            stage=str(metadata.get("stage", duty)),
            role=self.role.name,
            round=int(metadata.get("round", 1)),
            context=settings,
            models=self.models,
            spec=self.role.spec,
            feedback=[Violation.model_validate(v) for v in metadata.get("feedback", [])],
        )
        state = {**inputs, **{key: metadata[key] for key in PROTOCOL if key in metadata}}
        try:
            update = await asyncio.to_thread(self.role.duties[duty].work, state, call)
            error = ""
        except (OutputError, ValidationError) as exc:
            update, error = {}, redact(str(exc) or type(exc).__name__)
        except Exception as exc:  # the duty's own code broke: the caller's stage fails with the reason
            update, error = {}, scrubbed(exc)
        accounts = {"ledger": records(call.ledger), "agent": self.name}
        await updater.add_artifact([new_data_part(update)], name=a2a.OUTPUTS, metadata=accounts)
        if error:
            await updater.failed(new_text_message(error[:2000], context_id=task.context_id, task_id=task.id))
        else:
            await updater.complete()


def app(
    role: Role,
    url: str,
    context: Context,
    token: str | None = None,
    models: Mapping[str, BaseChatModel] | None = None,
    max_body_bytes: int = 1 << 20,
) -> Any:
    """Return the ASGI app that serves ``role`` at ``url``: its Agent Card at the well-known path (open to
    all) and JSON-RPC at ``/`` (a bearer ``token``, when given, is required; a body over
    ``max_body_bytes`` gets 413, settings a caller may not set 400)."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
    from starlette.applications import Starlette

    spec = role.spec or RoleSpec(name=role.name, goal=role.name, domain="", duties=(), actions=())
    card = agent_card(spec, url=url, secured=bool(token))
    agent = RoleAgent(role, context, models)
    handler = DefaultRequestHandler(
        agent_executor=agent.executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/")
    guarded = a2a.body_guard(Starlette(routes=routes), max_body_bytes, refused_settings)
    return a2a.bearer_guard(guarded, token, public=(AGENT_CARD_WELL_KNOWN_PATH,))
