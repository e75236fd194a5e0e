"""Model settings: per-role overrides, endpoint resolution, and a token limit every server honours."""

from __future__ import annotations

import pytest

from accord.nodes import llm
from accord.nodes.coding import writing
from accord.nodes.coding.prompts import SYSTEM
from accord.nodes.coding.writing import BLOCK_END, write_function
from accord.nodes.development import baseline
from accord.nodes.development.roles import SPECS
from accord.nodes.requests import parse_request
from accord.nodes.views import FUNCTION_FILE
from accord.runtime import local_model, model_server
from accord.state.artifacts import CodeArtifact
from accord.state.context import Context
from accord.state.graph_state import dump
from accord.state.stage import StageCall
from tests.endpoint import FakeEndpoint, Text
from tests.scripted import ScriptedChatModel


def test_role_override_falls_back_to_run_defaults():
    overrides = {"coder": {"model": "big", "max_tokens": 99}}
    context = Context(model="base", temperature=0.2, role_models=overrides)
    coder, planner = context.model_for("coder"), context.model_for("planner")
    assert (coder.model, coder.max_tokens, coder.temperature) == ("big", 99, 0.2)
    assert (planner.model, planner.max_tokens) == ("base", 1024)


def test_a_misspelt_role_override_is_refused():
    with pytest.raises(ValueError, match=r"role_models\['coder'\]: \('modle',\): Extra inputs"):
        Context(role_models={"coder": {"modle": "big"}})


def test_compatible_endpoints_receive_max_tokens_in_the_request_body():
    with FakeEndpoint([Text("ok")]) as endpoint:
        assert llm.client("m", endpoint.url, "k", 0.0, 77).invoke("hi").content == "ok"
    assert endpoint.requests[0]["max_tokens"] == 77  # llama.cpp's server ignores max_completion_tokens


def test_openai_itself_gets_only_max_completion_tokens():
    payload = llm.client("gpt-x", None, "k", 0.0, 77)._get_request_payload([("human", "hi")])
    assert payload["max_completion_tokens"] == 77 and "max_tokens" not in payload


def test_a_function_reply_ends_at_its_code_block_on_the_server():
    stub = parse_request('def inc(x: int) -> int:\n    """Add one.\n    >>> inc(1)\n    2\n    """\n')
    with FakeEndpoint([Text("```python\ndef inc(x):\n    return x + 1\n")]) as endpoint:
        context = Context(base_url=endpoint.url, model="fake", request_timeout_s=5)
        call = StageCall(
            stage="implementing", role="coder", round=1, context=context, models={}, spec=SPECS["coder"]
        )
        code = write_function(call, SYSTEM, stub, "write inc")
    assert endpoint.requests[0]["stop"] == list(BLOCK_END)
    assert "return x + 1" in code.files[FUNCTION_FILE]


def test_a_reply_is_cut_at_its_stop_string_where_the_model_cannot_stop():
    model = ScriptedChatModel(script=["kept\n```\nnever read"])
    call = StageCall(
        stage="implementing",
        role="coder",
        round=1,
        context=Context(),
        models={"coder": model},
        spec=SPECS["coder"],
    )
    assert llm.text(call, "", "say it", stop=("\n```\n",)) == "kept"
    assert llm.stopping(llm.client("gpt-x", None, "k", 0.0, 77), ("\n```\n",)) is llm.client(
        "gpt-x", None, "k", 0.0, 77
    )  # OpenAI's reasoning models refuse stop strings: cut here instead


def test_endpoint_resolution_order(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:1/v1")
    assert llm.resolve(Context().model_for("coder"))[1] == "http://env:1/v1"
    assert llm.resolve(Context(base_url="http://ctx:2/v1").model_for("coder"))[1] == "http://ctx:2/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert llm.resolve(Context().model_for("coder")) == (llm.OPENAI_DEFAULT_MODEL, None, "sk-test")
    monkeypatch.delenv("OPENAI_API_KEY")
    started = []
    monkeypatch.setattr(
        model_server,
        "ensure_server",
        lambda name: started.append(name) or model_server.Server(pid=0, port=5, model=name),
    )
    assert llm.resolve(Context().model_for("coder")) == (
        local_model.DEFAULT_MODEL,
        "http://127.0.0.1:5/v1",
        "local",
    )
    assert started == [local_model.DEFAULT_MODEL]
    with pytest.raises(local_model.ModelSetupError, match="'gpt-4o' is not an embedded model"):
        llm.resolve(Context(model="gpt-4o").model_for("coder"))  # never the local model in its place
    assert started == [local_model.DEFAULT_MODEL]


def test_a_role_the_run_names_no_model_for_plays_on_its_embedded_default(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    def model_of(role: str, context: Context) -> str | None:
        return llm.role_settings(StageCall(stage="s", role=role, round=1, context=context, models={})).model

    # The default team: the 1.5B Coder, the 0.5B model in every other role.
    assert model_of("coder", Context()) == "qwen2.5-coder-1.5b" == local_model.default_model("coder")
    assert model_of("planner", Context()) == local_model.DEFAULT_MODEL
    # A model the run names, for every role or for one, comes first.
    assert model_of("coder", Context(model=local_model.DEFAULT_MODEL)) == local_model.DEFAULT_MODEL
    assert model_of("planner", Context(role_models={"planner": {"model": "gemma3-270m"}})) == "gemma3-270m"
    # An endpoint serves its own default: no embedded model's name is sent to it.
    assert model_of("coder", Context(base_url="http://ctx:2/v1")) is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert model_of("coder", Context()) is None


def test_a_schema_whose_bound_the_local_grammar_drops_is_refused():
    from pydantic import BaseModel, Field

    from accord.state.stage import StageCall

    class Long(BaseModel):
        text: str = Field(max_length=1500)

    call = StageCall(stage="s", role="r", round=1, context=Context(), models={})
    with pytest.raises(ValueError, match="maxLength 1500 is over 1000"):
        llm.structured(call, Long, "system", "user")


CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_a_harness_begins_an_embedded_models_answer_in_its_chat_template(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(local_model, "chat_template", lambda name: local_model.ChatTemplate(CHATML, "", ""))

    def call(context: Context, models: dict) -> StageCall:
        return StageCall(
            stage="implementing", role="coder", round=1, context=context, models=models, spec=SPECS["coder"]
        )

    begun = llm.begun_chat(call(Context(), {}), "write inc", "Here:\n```python\n")
    assert begun == "<|im_start|>user\nwrite inc<|im_end|>\n<|im_start|>assistant\nHere:\n```python\n"
    # An endpoint formats its chats its own way, and a scripted model has no template: no text to continue.
    assert llm.begun_chat(call(Context(base_url="http://ctx:2/v1"), {}), "write inc", "Here:") is None
    assert llm.begun_chat(call(Context(), {"coder": ScriptedChatModel(script=[])}), "write inc", "x") is None


def test_single_continues_evalplus_answer_on_an_embedded_model(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(local_model, "chat_template", lambda name: local_model.ChatTemplate(CHATML, "", ""))
    stub = parse_request('def inc(x: int) -> int:\n    """Add one.\n    >>> inc(1)\n    2\n    """\n')
    with FakeEndpoint([Text("def inc(x):\n    return x + 1\n")]) as endpoint:
        port = int(endpoint.url.rsplit(":", 1)[1].split("/")[0])
        monkeypatch.setattr(
            model_server, "ensure_server", lambda name: model_server.Server(pid=0, port=port, model=name)
        )
        call = StageCall(
            stage="implementing",
            role="coder",
            round=1,
            context=Context(request_timeout_s=5),
            models={},
            spec=SPECS["coder"],
        )
        code = CodeArtifact.model_validate(baseline.implement_plainly({"task": dump(stub)}, call)["code"])
    [request] = endpoint.requests
    [prompt] = request["prompt"]
    assert prompt.endswith(f"<|im_start|>assistant\n{writing.RESPONSE_PREFIX}\n```python\n")
    assert "Please provide a self-contained Python script" in prompt and request["stop"] == ["```"]
    assert code.files[FUNCTION_FILE].endswith("def inc(x):\n    return x + 1\n")
