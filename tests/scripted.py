"""A scripted chat model: replays answers in order and records every prompt (tests, benchmarks).

Each script item is the tool-call arguments (a dict) to return, a string to return as plain content (no
tool call: malformed structured output), or a callable receiving the prompt messages and returning one of
those. It answers forced tool calls like a real OpenAI-compatible server, with usage metadata.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

Answer = dict[str, Any] | str
ScriptItem = Answer | Callable[[list[BaseMessage]], Answer]


class ScriptedChatModel(BaseChatModel):
    """Replay scripted answers; ``prompts`` records each call's messages as text."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    script: list[Any]
    model_name: str = "scripted"
    repeat_last: bool = False
    """Keep answering with the last item once the script is used up (else raise)."""
    prompts: list[str] = Field(default_factory=list)
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as an OpenAI-compatible model would."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _next(self, messages: list[BaseMessage]) -> Answer:
        if self.calls >= len(self.script):
            if not (self.repeat_last and self.script):
                raise RuntimeError(f"script exhausted after {self.calls} calls")
            item = self.script[-1]
        else:
            item = self.script[self.calls]
        self.calls += 1
        answer: Answer = item(messages) if callable(item) else item
        return answer

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(f"{m.type}: {m.content}" for m in messages)
        self.prompts.append(prompt)
        answer = self._next(messages)
        tools = kwargs.get("tools") or []
        tokens_in, tokens_out = len(prompt) // 4, len(str(answer)) // 4
        usage = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        if isinstance(answer, str) or not tools:
            message = AIMessage(content=str(answer), usage_metadata=usage)
        else:
            name = tools[0]["function"]["name"]
            message = AIMessage(
                content="",
                usage_metadata=usage,
                tool_calls=[{"name": name, "args": answer, "id": f"call_{next(_ids)}"}],
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


_ids = itertools.count(1)
