"""Measure structured-output speed on the local model: full-vocabulary vs lazy grammar sampling.

Usage: ``python -m bench.grammar`` (needs the ``local`` extra). Runs the same schema-constrained
completions both ways, prints tokens/s for each, and checks that both choose the same tokens.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel, Field

from accord.nodes.development.planner import PlanDraft
from accord.nodes.development.reviewer import ReviewDraft
from accord.runtime import llama_server, local_model


class Implementation(BaseModel):
    """A module's source code (a flat schema, as application pieces would be asked for as JSON)."""

    code: str = Field(description="complete Python source")


CASES: list[tuple[str, type[BaseModel], str]] = [
    (
        "implementation",
        Implementation,
        "Write a Python function `merge_intervals(intervals)` that merges "
        "overlapping intervals, with comments. Answer as JSON.",
    ),
    (
        "review",
        ReviewDraft,
        "Review this code and list its issues as JSON.\n```python\ndef avg(xs):\n"
        "    return sum(xs) / len(xs)\ndef first(xs):\n    return xs[0]\n```",
    ),
    ("plan", PlanDraft, "Plan a command-line to-do list application in Python, as JSON."),
]


def measure(llm: object, lazy: bool) -> dict[str, tuple[int, float, str]]:
    """Return, per case, (completion tokens, seconds, output)."""
    from llama_cpp import Llama, LlamaGrammar  # type: ignore[attr-defined]
    from llama_cpp import llama as llama_module

    assert isinstance(llm, Llama)
    llama_module.Llama._init_sampler = (  # type: ignore[method-assign]
        llama_server._init_sampler if lazy else llama_server._original_init_sampler
    )
    results = {}
    for name, schema, prompt in CASES:
        grammar = LlamaGrammar.from_json_schema(json.dumps(schema.model_json_schema()), verbose=False)
        llm.reset()
        started = time.perf_counter()
        out: dict[str, Any] = llm.create_chat_completion(
            [{"role": "user", "content": prompt}],  # type: ignore[assignment]
            grammar=grammar,
            temperature=0,
            max_tokens=300,
        )
        results[name] = (
            int(out["usage"]["completion_tokens"]),
            time.perf_counter() - started,
            str(out["choices"][0]["message"]["content"]),
        )
    return results


def main() -> None:
    """Print the comparison table."""
    from llama_cpp import Llama

    llm = Llama(
        model_path=str(local_model.assemble()), n_ctx=4096, n_threads=2, flash_attn=True, verbose=False
    )
    full, lazy = measure(llm, lazy=False), measure(llm, lazy=True)
    print(f"{'schema':<16}{'tokens':>8}{'full tok/s':>12}{'lazy tok/s':>12}{'speed-up':>10}  same output")
    for name in full:
        (n, t_full, a), (_, t_lazy, b) = full[name], lazy[name]
        print(f"{name:<16}{n:>8}{n / t_full:>12.1f}{n / t_lazy:>12.1f}{t_full / t_lazy:>9.2f}x  {a == b}")


if __name__ == "__main__":
    main()
