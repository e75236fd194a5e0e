"""Measure the Coder's candidate draw on a local model against the server's single-stream decode.

Usage: ``python -m bench.draw [--problems N] [--model NAME]`` (``make bench`` runs it when the
model
is set up). For each of the first N HumanEval problems the Coder draws its candidates exactly as the
development graph does (``write_candidates``: the harness's plain call, then with the plan, then
sampled), and the ledger's tokens and latencies give the draw's generated tokens per second. The reference
is single-stream decode: one greedy completion of a long answer after a short prompt, on the same server.
A draw below that rate pays for prompt processing on every candidate; one above it would need batching.
"""

from __future__ import annotations

import argparse
import statistics
import time

from accord.evals.benchmarks.humaneval import one_step_plan, problems
from accord.nodes.coding.function import write_candidates
from accord.nodes.development.roles import SPECS
from accord.nodes.llm import text
from accord.nodes.requests import parse_request
from accord.runtime import local_model, model_server
from accord.state.context import Context
from accord.state.stage import StageCall

DECODE_PROMPT = "Count from 1 to 200 in words, one number per line, without skipping any."


def _call(context: Context) -> StageCall:
    return StageCall(
        stage="implementing", role="coder", round=1, context=context, models={}, spec=SPECS["coder"]
    )


def decode_rate(context: Context, repeats: int = 3) -> float:
    """Return the median generated tokens per second of a long greedy completion after a short prompt."""
    rates = []
    for _ in range(repeats):
        call = _call(context)
        text(call, "", DECODE_PROMPT, temperature=0.0, what="decode")
        [entry] = [e for e in call.ledger if e.kind == "llm"]
        rates.append(entry.tokens_out / entry.latency_s)
    return statistics.median(rates)


def draw(context: Context, count: int) -> dict[str, float]:
    """Return the draw's totals over the first ``count`` HumanEval problems: candidates, tokens, seconds."""
    candidates = tokens = replies = 0
    seconds = wall = 0.0
    for problem in list(problems().values())[:count]:
        task = parse_request(problem["prompt"])
        call = _call(context)
        started = time.monotonic()
        pool = write_candidates(call, task, one_step_plan(task))
        wall += time.monotonic() - started
        calls = [e for e in call.ledger if e.kind == "llm"]
        candidates += len(pool.items)
        replies += len(calls)
        tokens += sum(e.tokens_out for e in calls)
        seconds += sum(e.latency_s for e in calls)
    return {
        "problems": count,
        "candidates": candidates,
        "replies": replies,
        "tokens": tokens,
        "model_s": seconds,
        "wall_s": wall,
    }


def main() -> None:
    """Print the draw's rate beside the single-stream decode rate."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problems", type=int, default=5)
    parser.add_argument("--model", default=local_model.DEFAULT_MODEL)
    args = parser.parse_args()
    if args.model in local_model.MODELS and not local_model.gguf_path(args.model).exists():
        print(f"candidate draw: skipped, {args.model} is not set up (accord model setup {args.model})")
        return
    context = Context(model=args.model)
    try:
        decode = decode_rate(context)
        totals = draw(context, args.problems)
    finally:
        model_server.stop_owned()
    rate = totals["tokens"] / totals["wall_s"]
    print(
        f"candidate draw on {args.model}, first {totals['problems']} HumanEval problems, "
        f"{context.max_candidates} candidates each ({totals['candidates']:.0f} distinct kept)"
    )
    print(f"single-stream decode  {decode:6.1f} generated tokens/s (one greedy completion)")
    print(
        f"candidate draw        {rate:6.1f} generated tokens/s ({totals['tokens']:.0f} tokens in "
        f"{totals['wall_s']:.1f} s), {rate / decode:.2f}× single-stream; "
        f"{totals['tokens'] / max(1, totals['replies']):.0f} tokens per reply"
    )


if __name__ == "__main__":
    main()
