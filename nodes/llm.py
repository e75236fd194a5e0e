"""Model access for LLM duties: one ChatOpenAI per role, structured output, ledger entries.

Endpoint resolution for a role: its ``base_url`` in the Context, else ``OPENAI_BASE_URL``, else OpenAI
when ``OPENAI_API_KEY`` is set, else the embedded local model (started on demand). Keys stay in the
client: they never enter a prompt, a message, the ledger or state.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_openai import ChatOpenAI, OpenAI
from langsmith.run_helpers import get_current_run_tree
from pydantic import BaseModel, ValidationError

from accord.runtime import local_model, model_server
from accord.runtime.executor import ActionFailed, Toolbox
from accord.state.context import Context, RoleModel
from accord.state.role_specs import ActionSpec, Style
from accord.state.settings import Settings
from accord.state.stage import OutputError, RequestRefused, StageCall, is_transient

T = TypeVar("T", bound=BaseModel)
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"


@lru_cache(maxsize=32)
def client(
    model: str,
    base_url: str | None,
    api_key: str | None,
    temperature: float,
    max_tokens: int,
    timeout_s: float = Context.request_timeout_s,
) -> ChatOpenAI:
    """Return a ChatOpenAI for an endpoint (cached: one client per distinct setting)."""
    # langchain-openai sends the limit as `max_completion_tokens`, which llama.cpp's server (and other
    # OpenAI-compatible servers) ignore: generation then runs until the context is full. Say both.
    extra = {"max_tokens": max_tokens} if base_url else None
    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key,
        temperature=temperature,
        max_tokens=max_tokens,
        extra_body=extra,
        timeout=timeout_s,
        max_retries=1,
    )


@lru_cache(maxsize=32)
def completion_client(
    model: str,
    base_url: str | None,
    api_key: str | None,
    temperature: float,
    max_tokens: int,
    timeout_s: float = Context.request_timeout_s,
) -> OpenAI:
    """Return a completions client (text in, its continuation out) for an endpoint (cached as ``client``)."""
    return OpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key,
        temperature=temperature,
        max_tokens=max_tokens,
        timeout=timeout_s,
        max_retries=1,
    )


def unservable(settings: RoleModel) -> str | None:
    """Return why a role's model cannot be reached (named, not embedded, and no endpoint), or None."""
    environment = Settings()
    if settings.base_url or environment.openai_base_url or environment.openai_api_key:
        return None
    if settings.model is None or settings.model in local_model.MODELS:
        return None
    return (
        f"{settings.model!r} is not an embedded model ({', '.join(local_model.MODELS)}) and no endpoint "
        "is set: give --base-url (or OPENAI_BASE_URL), or set OPENAI_API_KEY"
    )


def embedded(settings: RoleModel) -> str | None:
    """Return the embedded model that serves a role's settings, or None when an endpoint does."""
    environment = Settings()
    if settings.base_url or environment.openai_base_url or environment.openai_api_key:
        return None
    return settings.model or local_model.DEFAULT_MODEL


def resolve(settings: RoleModel) -> tuple[str, str | None, str | None]:
    """Return (model name, base URL, API key) for a role's settings, starting the local model if needed.

    Raises:
        ModelSetupError: the model is named, not embedded, and no endpoint is set (never the local model
            in its place).
    """
    if (name := embedded(settings)) is not None:
        if reason := unservable(settings):
            raise local_model.ModelSetupError(reason)
        server = model_server.ensure_server(name)
        return server.model, server.base_url, "local"
    environment = Settings()
    key = environment.openai_api_key.get_secret_value() if environment.openai_api_key else None
    base_url = settings.base_url or environment.openai_base_url
    # An explicit endpoint without a key (vLLM, Ollama, llama.cpp) still needs a non-empty key.
    return settings.model or OPENAI_DEFAULT_MODEL, base_url, key or "none"


REPLY_MARK = "\x00reply\x00"


def begun_chat(call: StageCall, user: str, reply: str, before: Sequence[tuple[str, str]] = ()) -> str | None:
    """Return a chat of ``user`` (after the exchanges ``before``: each a user's turn and the model's reply)
    whose answer begins with ``reply``, as the text the role's model continues (``continuation``),
    formatted as its server formats a chat: a harness's way of starting a model's answer for it. None when
    that text is unknown: an endpoint's chat template is its own, and a scripted model has none.

    Raises:
        ModelSetupError: the embedded model is not set up.
    """
    settings, scripted = _settings(call, None, None)
    if scripted is not None or (name := embedded(settings)) is None or name not in local_model.MODELS:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # the `local` extra, as the server

    template = local_model.chat_template(name)
    chat = Jinja2ChatFormatter(template.template, template.eos, template.bos, add_generation_prompt=False)
    messages: list[Any] = [
        *(
            {"role": role, "content": content}
            for asked, answered in before
            for role, content in (("user", asked), ("assistant", answered))
        ),
        {"role": "user", "content": user},
        {"role": "assistant", "content": reply + REPLY_MARK},
    ]
    return chat(messages=messages).prompt.split(REPLY_MARK)[0]


def chat_model(
    call: StageCall, temperature: float | None = None, max_tokens: int | None = None
) -> tuple[BaseChatModel, RoleModel, str]:
    """Return the role's chat model (optionally at another temperature or with a lower output limit),
    its settings and its name.

    Raises:
        BudgetExhausted: a run budget is spent, so no further call may be made.
    """
    settings, scripted = _settings(call, temperature, max_tokens)
    if scripted is not None:
        return scripted, settings, getattr(scripted, "model_name", "scripted")
    name, base_url, key = resolve(settings)
    model = client(
        name, base_url, key, settings.temperature, settings.max_tokens, call.context.request_timeout_s
    )
    return model, settings, name


def _settings(
    call: StageCall, temperature: float | None, max_tokens: int | None
) -> tuple[RoleModel, BaseChatModel | None]:
    """Return the role's model settings for one call, and the test's scripted model for the role if any."""
    call.check_budget()
    settings = role_settings(call)
    if temperature is not None:
        settings = settings.model_copy(update={"temperature": temperature})
    if max_tokens is not None:
        settings = settings.model_copy(update={"max_tokens": min(max_tokens, settings.max_tokens)})
    return settings, call.models.get(call.role) or call.models.get("*")


def role_settings(call: StageCall) -> RoleModel:
    """Return the role's model settings: the run's override for the role, else the role spec's model,
    else the run's default, else (no endpoint) the role's embedded default (``local_model.ROLE_MODELS``)."""
    settings = call.context.model_for(call.role)
    spec = call.spec
    if spec and spec.model and "model" not in call.context.role_models.get(call.role, {}):
        settings = settings.model_copy(update={"model": spec.model})
    if settings.model is None and embedded(settings) is not None:
        # Nothing names a model and no endpoint serves one: the embedded default team plays the role.
        settings = settings.model_copy(update={"model": local_model.default_model(call.role)})
    return settings


def answering_model(call: StageCall) -> str:
    """Return the name of the model that answers the role's calls, without starting it: a test's scripted
    model is its class, not the model it stands in for."""
    if (scripted := call.models.get(call.role) or call.models.get("*")) is not None:
        return type(scripted).__name__
    settings = role_settings(call)
    return embedded(settings) or settings.model or OPENAI_DEFAULT_MODEL


def role_style(call: StageCall) -> Style:
    """Return the role's communication style: the run's override over the role spec's style."""
    spec = call.spec
    return call.context.style_for(call.role, spec.style if spec else Style())


RETRY_TEMPERATURE = 0.6
"""A retry at the same temperature mostly repeats the mistake; sampling gives the next try a chance."""


def retry_temperature(call: StageCall) -> float:
    """Return the temperature for a retry of ``call``'s role: at least ``RETRY_TEMPERATURE``."""
    return max(call.context.model_for(call.role).temperature, RETRY_TEMPERATURE)


def feedback_text(call: StageCall) -> str:
    """Return the previous attempt's contract violations, phrased for the model."""
    if not call.feedback:
        return ""
    lines = "\n".join(f"- {v.key}: {v.detail}" for v in call.feedback)
    return f"\n\nYour previous answer was rejected:\n{lines}\nAnswer again, fixing these problems."


def prompt(call: StageCall, instructions: str, user: str) -> list[BaseMessage]:
    """Return a model call's messages: the system prompt (the role's identity from its spec, the duty's
    ``instructions``, its style), then the request with feedback."""
    style = role_style(call)
    system = call.spec.system_prompt(instructions, style) if call.spec else instructions + style.instruction()
    return [SystemMessage(system), HumanMessage(user + feedback_text(call))]


def traced(call: StageCall, action: str, model: str) -> RunnableConfig:
    """Return the run config that names a model call in traces (LangSmith) by role and action."""
    return {
        "run_name": f"{call.role}: {action}",
        "tags": [f"role:{call.role}"],
        "metadata": {
            "accord_role": call.role,
            "accord_action": action,
            "accord_stage": call.stage,
            "accord_round": call.round,
            "accord_model": model,
        },
    }


def _invoke(
    call: StageCall,
    runnable: Runnable[Any, Any],
    messages: list[BaseMessage],
    name: str,
    settings: RoleModel,
    what: str,
) -> tuple[Any, dict[str, Any]]:
    """Call the model as the traced run ``what`` names; return its reply and the tokens and cost spent.

    The call runs inside its own run so that the spend, known only once the reply is in, joins the
    run's metadata (``accord_tokens_in``, ``accord_tokens_out``, ``accord_cost``) before it is sent.

    Raises:
        RequestRefused: the endpoint refused the request (recorded in the ledger).
    """
    spent: dict[str, Any] = {}

    def call_model(prompt: list[BaseMessage]) -> Any:
        reply = runnable.invoke(prompt)
        spent.update(_usage(reply["raw"] if isinstance(reply, dict) else reply, settings))
        run = get_current_run_tree()  # None unless tracing is on
        if run is not None:
            run.metadata.update({f"accord_{key}": value for key, value in spent.items()})
        return reply

    started = time.monotonic()
    try:
        reply = RunnableLambda(call_model).invoke(messages, config=traced(call, what, name))
    except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
        raise _refused(call, name, started, exc) from exc
    return reply, spent


def _refused(call: StageCall, name: str, started: float, exc: openai.APIStatusError) -> RequestRefused:
    """Record a request the endpoint refused; return the error that fails its stage."""
    detail = f"the endpoint refused the request: {exc}"[:300]
    call.record("llm", model=name, latency_s=time.monotonic() - started, outcome="refused", detail=detail)
    return RequestRefused(detail)


def _usage(raw: Any, settings: RoleModel) -> dict[str, Any]:
    """Return the ledger fields for one reply: tokens and cost."""
    usage = getattr(raw, "usage_metadata", None) or {}
    tokens_in, tokens_out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
    cost = (tokens_in * settings.price_in_per_1k + tokens_out * settings.price_out_per_1k) / 1000
    return {"tokens_in": tokens_in, "tokens_out": tokens_out, "cost": cost}


GRAMMAR_MAX_LENGTH = 1000
"""The longest string bound llama.cpp's server turns into a grammar: above it (1,500 measured) the schema's
grammar is dropped without a word, and the model answers in free text where JSON was forced."""


def _bounded(schema: type[BaseModel]) -> None:
    """Refuse a schema with a string bound the local server cannot constrain (a programming error)."""
    text = json.dumps(schema.model_json_schema())
    if over := [int(n) for n in re.findall(r'"maxLength": (\d+)', text) if int(n) > GRAMMAR_MAX_LENGTH]:
        raise ValueError(
            f"{schema.__name__}: maxLength {max(over)} is over {GRAMMAR_MAX_LENGTH}, which the "
            "local server's grammar does not honour"
        )


def structured(
    call: StageCall,
    schema: type[T],
    system: str,
    user: str,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> T:
    """Ask the role's model for a ``schema`` object via a forced tool call; record it in the ledger.

    ``max_tokens`` lowers the output limit for an answer known to be short, so that a model that
    rambles instead of calling the tool costs seconds, not minutes.

    Raises:
        OutputError: the model's output is missing or does not validate against ``schema``.
    """
    _bounded(schema)
    model, settings, name = chat_model(call, temperature, max_tokens)
    runnable = model.with_structured_output(schema, method="function_calling", include_raw=True)
    with model_server.generating(name, call.context.parallel):
        started = time.monotonic()
        result, spent = _invoke(call, runnable, prompt(call, system, user), name, settings, schema.__name__)
        latency = time.monotonic() - started
    assert isinstance(result, dict)  # include_raw=True always returns {"raw", "parsed", "parsing_error"}
    parsed, error = result.get("parsed"), result.get("parsing_error")
    try:
        if error is not None or parsed is None:
            raise OutputError(f"malformed {schema.__name__}: {error or 'no tool call in the reply'}")
        # Validate again: a parser may hand back a dict, or a model built without our validators.
        value = schema.model_validate(parsed.model_dump() if isinstance(parsed, BaseModel) else parsed)
    except (OutputError, ValidationError) as exc:
        call.record("llm", model=name, latency_s=latency, outcome="malformed", detail=str(exc)[:300], **spent)
        raise OutputError(str(exc)) from exc
    call.record("llm", model=name, latency_s=latency, outcome="ok", detail=schema.__name__, **spent)
    return value


TOOLS_NOTE = (
    "\n\nBefore you answer you may call these tools, at most {limit} calls in all, each call's "
    "result coming back to you:\n{tools}\nChoose each next step with next_step: a tool's name "
    "(and its arguments), or answer once you have the evidence you need."
)
ANSWER = "answer"
"""The step that ends a tool loop: the model then gives its answer."""


def tool_loop(
    call: StageCall,
    schema: type[T],
    system: str,
    user: str,
    tools: Toolbox,
    bound: Mapping[str, Any] | None = None,
    view: Callable[[Any], str] = str,
    only: tuple[str, ...] | None = None,
) -> tuple[T, list[tuple[str, Any]]]:
    """Let the role's model call ``tools`` — call, observe, call — until it chooses to answer or the
    toolbox's calls are spent, then take its answer as a ``schema`` object; return the answer and each
    tool call's (name, result).

    Each step is a forced call of one tool, ``next_step`` (the tool to call and its arguments, or
    ``answer``), and the answer is a forced call of ``schema``: a forced call is what every
    OpenAI-compatible server constrains, the embedded one included (a 0.5B model left to choose freely
    among tools answered in prose every time).

    Args:
        bound: parameters the duty gives every tool that takes them (e.g. the code under audit), so the
            model neither sees nor writes them.
        view: how a tool's result reads to the model.
        only: offer only these of the toolbox's tools (e.g. the analysers for the code's language).

    Each model turn is a ledger entry (``llm``), each tool call one more (the toolbox's). A tool that fails
    answers the model with its error.

    Raises:
        OutputError: a step or the answer is malformed.
    """
    _bounded(schema)
    given = dict(bound or {})
    offered = [spec for spec in tools.specs if only is None or spec.name in only]
    step = _step_tool(offered, given)
    listed = "\n".join(f"- {spec.name}: {spec.description}" for spec in offered)
    messages = prompt(call, system, user + TOOLS_NOTE.format(limit=tools.limit, tools=listed))
    observed: list[tuple[str, Any]] = []
    while tools.left():
        chosen = _forced(call, step, messages, "next step")
        name = str(chosen["args"].get("step", ""))
        if name == ANSWER:
            break
        args = chosen["args"].get("arguments") or {}
        takes = {p.name for spec in offered if spec.name == name for p in spec.params}
        try:
            result: Any = tools.call(
                name,
                **{
                    **(args if isinstance(args, dict) else {}),
                    **{k: v for k, v in given.items() if k in takes},
                },
            )
            said = view(result)
        except (ActionFailed, ValueError) as exc:
            result, said = None, f"error: {exc}"
        observed.append((name, result))
        # The call's message says its step in words too: the embedded server refuses a null content.
        messages += [
            AIMessage(content=f"Next step: {name}.", tool_calls=[chosen]),
            ToolMessage(content=said, tool_call_id=chosen["id"] or "next_step"),
        ]
    answer = _forced(call, schema, messages, schema.__name__)
    return schema.model_validate(answer["args"]), observed


def _forced(
    call: StageCall, tool: dict[str, Any] | type[BaseModel], messages: list[BaseMessage], what: str
) -> dict[str, Any]:
    """Make one model call that must call ``tool``; record it; return the tool call.

    Raises:
        OutputError: the reply calls no tool, its arguments do not validate as ``tool`` (a schema), or
            the step names no tool offered.
    """
    model, settings, name = chat_model(call)
    tool_name = tool.__name__ if isinstance(tool, type) else tool["function"]["name"]
    runnable = model.bind_tools([tool], tool_choice=tool_name)
    with model_server.generating(name, call.context.parallel):
        started = time.monotonic()
        reply, spent = _invoke(call, runnable, messages, name, settings, what)
        latency = time.monotonic() - started
    chosen = next((c for c in getattr(reply, "tool_calls", None) or [] if c["name"] == tool_name), None)
    allowed = [] if isinstance(tool, type) else tool["function"]["parameters"]["properties"]["step"]["enum"]
    problem = (
        "the reply calls no tool"
        if chosen is None
        else f"the step {chosen['args'].get('step')!r} is none of {allowed}"
        if allowed and chosen["args"].get("step") not in allowed
        else ""
    )
    if not problem and isinstance(tool, type):
        assert chosen is not None
        try:
            tool.model_validate(chosen["args"])
        except ValidationError as exc:
            problem = str(exc)[:300]
    if problem:
        call.record(
            "llm", model=name, latency_s=latency, outcome="malformed", detail=f"{what}: {problem}", **spent
        )
        raise OutputError(f"malformed {what}: {problem}")
    assert chosen is not None
    shown = f"{what}: {chosen['args'].get('step')}" if allowed else what
    call.record("llm", model=name, latency_s=latency, outcome="ok", detail=shown, **spent)
    return dict(chosen)


def _step_tool(offered: list[ActionSpec], bound: Mapping[str, Any]) -> dict[str, Any]:
    """Return the ``next_step`` tool: which of ``offered`` to call and with what, or ``answer``."""
    arguments = {spec.name: _parameters(spec, bound) for spec in offered}
    takes_any = any(schema["properties"] for schema in arguments.values())
    properties: dict[str, Any] = {"step": {"type": "string", "enum": [*arguments, ANSWER]}}
    if takes_any:
        properties["arguments"] = {"type": "object", "description": "the tool's arguments"}
    return {
        "type": "function",
        "function": {
            "name": "next_step",
            "description": "Call one of the tools, or answer.",
            "parameters": {"type": "object", "properties": properties, "required": ["step"]},
        },
    }


JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
}


def _parameters(spec: ActionSpec, bound: Mapping[str, Any]) -> dict[str, Any]:
    """Return the JSON schema of the parameters the model gives an action (those ``bound`` it does not)."""
    params = [p for p in spec.params if p.name not in bound]
    properties = {p.name: {"type": JSON_TYPES.get(p.type, "object")} for p in params}
    required = [p.name for p in params if not p.optional]
    return {"type": "object", "properties": properties, "required": required}


def text(
    call: StageCall,
    system: str,
    user: str,
    temperature: float | None = None,
    what: str = "text",
    stop: tuple[str, ...] = (),
) -> str:
    """Ask the role's model for a plain-text reply (no tool call), ended at the first ``stop`` string;
    record it in the ledger.

    Code travels best this way: inside a JSON string the small local model must escape every quote and
    newline, and one slip cuts the code off.

    Raises:
        OutputError: the reply is empty.
    """
    return _text(call, prompt(call, system, user), temperature, what, stop)


def plain_text(
    call: StageCall,
    user: str,
    what: str = "text",
    temperature: float | None = None,
    before: Sequence[tuple[str, str]] = (),
    system: str = "",
) -> str:
    """Ask the role's model with ``user`` alone (after the exchanges ``before``: each a user's turn and the
    model's reply), as a benchmark harness does: no role identity, and no system prompt but the harness's
    own ``system``; record it in the ledger.

    Raises:
        OutputError: the reply is empty.
    """
    turns = [message for asked, answered in before for message in (HumanMessage(asked), AIMessage(answered))]
    opening = [SystemMessage(system)] if system else []
    return _text(call, [*opening, *turns, HumanMessage(user)], temperature, what)


def _text(
    call: StageCall,
    messages: list[BaseMessage],
    temperature: float | None,
    what: str,
    stop: tuple[str, ...] = (),
) -> str:
    model, settings, name = chat_model(call, temperature)
    with model_server.generating(name, call.context.parallel):
        started = time.monotonic()
        reply, spent = _invoke(call, stopping(model, stop), messages, name, settings, what)
        latency = time.monotonic() - started
    content = reply.content if isinstance(reply.content, str) else str(reply.content)
    content = _until(content, stop)
    if not content.strip():
        call.record(
            "llm", model=name, latency_s=latency, outcome="malformed", detail=f"empty {what}", **spent
        )
        raise OutputError(f"the reply holds no {what}")
    call.record("llm", model=name, latency_s=latency, outcome="ok", detail=what, **spent)
    return content


def stopping(model: BaseChatModel, stop: tuple[str, ...]) -> Runnable[Any, Any]:
    """Return ``model`` ending its replies at the first ``stop`` string on the server, which then never
    generates the tokens after it; on OpenAI's own API (no base URL), whose reasoning models refuse stop
    strings, and for a scripted model, ``model`` itself (``_text`` cuts the reply as the server would)."""
    return model.bind(stop=list(stop)) if stop and getattr(model, "openai_api_base", None) else model


def _until(reply: str, stop: tuple[str, ...]) -> str:
    """Return ``reply`` up to its first ``stop`` string, as a server that stops would have ended it (a
    scripted model, and OpenAI's own API for chats, know no stop strings)."""
    for end in stop:
        reply = reply.split(end, 1)[0]
    return reply


def continuation(
    call: StageCall,
    prefix: str,
    stop: tuple[str, ...],
    temperature: float | None = None,
    max_tokens: int | None = None,
    what: str = "code",
) -> str:
    """Ask the role's model to continue ``prefix`` (a completion, not a chat) up to the first ``stop``
    string; record it in the ledger. A scripted model is asked with ``prefix`` as its message.

    Raises:
        OutputError: the endpoint serves no completions, or the call fails.
    """
    settings, scripted = _settings(call, temperature, max_tokens)
    if scripted is not None:
        name = getattr(scripted, "model_name", "scripted")
        complete: Runnable[str, tuple[str, dict[str, Any]]] = RunnableLambda(
            lambda text: (str(scripted.invoke([HumanMessage(text)]).content), {})
        )
    else:
        name, base_url, key = resolve(settings)
        model = completion_client(
            name, base_url, key, settings.temperature, settings.max_tokens, call.context.request_timeout_s
        )

        def generate(text: str) -> tuple[str, dict[str, Any]]:
            result = model.generate([text], stop=list(stop))
            usage = (result.llm_output or {}).get("token_usage") or {}
            tokens_in, tokens_out = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
            cost = (tokens_in * settings.price_in_per_1k + tokens_out * settings.price_out_per_1k) / 1000
            return result.generations[0][0].text, {
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "cost": cost,
            }

        complete = RunnableLambda(generate)
    with model_server.generating(name, call.context.parallel):
        started = time.monotonic()
        try:
            reply, spent = complete.invoke(prefix, config=traced(call, what, name))
        except openai.BadRequestError as exc:
            raise _refused(call, name, started, exc) from exc
        except openai.APIStatusError as exc:
            if is_transient(exc):
                raise  # the retry policy's
            # An endpoint that serves chats alone (OpenAI's newer models) answers 404 to a completion.
            call.record(
                "llm",
                model=name,
                latency_s=time.monotonic() - started,
                outcome="malformed",
                detail=f"completion failed: {exc}"[:300],
            )
            raise OutputError(f"the model's completion failed: {exc}"[:500]) from exc
        latency = time.monotonic() - started
    reply = _until(reply, stop)
    call.record("llm", model=name, latency_s=latency, outcome="ok", detail=what, **spent)
    return reply
