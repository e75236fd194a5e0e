"""Lazy grammar sampling chooses exactly the tokens full-vocabulary grammar sampling chooses."""

from __future__ import annotations

import json

import pytest

from accord.nodes.development.reviewer import ReviewDraft

pytestmark = pytest.mark.integration

PROMPT = [
    {
        "role": "user",
        "content": "Review this code and list its issues as JSON.\n```python\n"
        "def avg(xs):\n    return sum(xs) / len(xs)\n```",
    }
]


def test_lazy_and_full_grammar_agree_on_the_real_model(gguf, monkeypatch):
    from llama_cpp import Llama, LlamaGrammar
    from llama_cpp import llama as llama_module

    from accord.runtime import llama_server

    llm = Llama(model_path=gguf, n_ctx=2048, n_threads=2, verbose=False)
    grammar = json.dumps(ReviewDraft.model_json_schema())

    def complete() -> str:
        llm.reset()
        constraint = LlamaGrammar.from_json_schema(grammar, verbose=False)
        out = llm.create_chat_completion(PROMPT, grammar=constraint, temperature=0, max_tokens=160)
        return str(out["choices"][0]["message"]["content"])

    full = complete()
    monkeypatch.setattr(llama_module.Llama, "_init_sampler", llama_server._init_sampler)
    lazy = complete()
    assert lazy == full
    ReviewDraft.model_validate_json(lazy)
