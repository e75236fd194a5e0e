"""Where the default team's time goes, on tasks of HumanEval's dev split (``make bench`` runs it when the
model is set up).

Usage: ``python -m bench.time_split [--tasks N] [--model NAME] [--out DIR]``. The first N tasks of the
dev
split run under ``accountable`` (Accord as it ships, two rounds) on the default team (or ``--model`` in
every role), on a server per model that this process starts or finds, and three records of the same run
are set side by side:

- the rows: each task's wall time, the time its model calls took as the client waited for them, and its
  sandbox runs (``latency_s`` and ``by_role``);
- the server's own timing of every completion, the ``llama_perf_context_print`` lines llama.cpp writes to
  the server's log: prompt processing, decoding, and the rest of the completion (sampling, the grammar,
  detokenizing, llama-cpp-python's own Python per token);
- each server's single-stream decode (``bench.draw.decode_rate``), the rate a long greedy reply
  reaches on this machine: the limit a run's decoding on that model is held to.

Accord itself is the wall time spent neither waiting for a model nor in the sandbox (nor in the benchmark's
hidden tests, which an eval runs after each stage and a user's run never does); the model calls' time
beyond the server's completions is HTTP, JSON and waiting for the server. The figures go to
``DIR/time_split.json`` with the run's rows beside them.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accord.evals import runner
from accord.evals.benchmarks import BENCHMARKS, splits
from accord.evals.configs.development import CONFIGURATIONS
from accord.graphs import store
from accord.runtime import local_model, model_server
from accord.state.context import Context
from bench.draw import decode_rate

PERF = re.compile(
    r"llama_perf_context_print:\s+(?P<what>prompt eval|eval|total) time =\s+(?P<ms>[\d.]+) ms"
    r" /\s+(?P<count>\d+) "
)
"""llama.cpp's timing of one completion: prompt processing (tokens), decoding (runs: one per generated
token) and the whole completion."""
PERF_KEYS = ("prompt_ms", "prompt_tokens", "decode_ms", "decode_tokens", "completion_ms", "completions")


def server_timings(log: str) -> dict[str, float]:
    """Return the sums over every completion in ``log``: milliseconds and tokens of prompt processing and
    decoding, milliseconds of whole completions, and how many completions there were."""
    sums = dict.fromkeys(PERF_KEYS, 0.0)
    names = {
        "prompt eval": ("prompt_ms", "prompt_tokens"),
        "eval": ("decode_ms", "decode_tokens"),
        "total": ("completion_ms", "completions"),
    }
    for match in PERF.finditer(log):
        ms, count = names[match["what"]]
        sums[ms] += float(match["ms"])
        sums[count] += 1 if match["what"] == "total" else float(match["count"])
    return sums


def split_of(
    rows: Iterable[Mapping[str, Any]],
    servers: Mapping[str, Mapping[str, float]],
    limits: Mapping[str, float],
    oracle: float = 0.0,
) -> dict[str, Any]:
    """Return where the rows' wall time went, from the rows and each model's server timings of the same
    run (``servers``, by model); ``limits`` is each server's single-stream decode in tokens per second,
    ``oracle`` the seconds the benchmark's hidden tests ran (an eval's judge, which the rows count as
    sandbox time and a user's run never spends)."""
    rows = list(rows)
    server = {key: sum(timings[key] for timings in servers.values()) for key in PERF_KEYS}
    wall = sum(r["latency_s"] for r in rows)
    model = sum(c.get("llm_s", 0.0) for r in rows for c in r["by_role"].values())
    sandbox = sum(c.get("sandbox_s", 0.0) for r in rows for c in r["by_role"].values()) - oracle
    prompt, decode = server["prompt_ms"] / 1000, server["decode_ms"] / 1000
    completion = server["completion_ms"] / 1000
    parts = {
        "prompt processing": prompt,
        "decoding": decode,
        "rest of the server's completions": completion - prompt - decode,
        "HTTP and waiting for the server": model - completion,
        "sandbox": sandbox,
        "hidden tests (the eval's judge)": oracle,
        "Accord itself": wall - model - sandbox - oracle,
    }
    return {
        "tasks": len(rows),
        "solved": sum(bool(r["passed"]) for r in rows),
        "wall_s": round(wall, 1),
        "llm_calls": sum(r["llm_calls"] for r in rows),
        "completions": int(server["completions"]),
        "parts_s": {name: round(seconds, 1) for name, seconds in parts.items()},
        "shares": {name: round(seconds / wall, 4) if wall else 0.0 for name, seconds in parts.items()},
        "models": {name: rates(timings, limits[name]) for name, timings in servers.items()},
    }


def rates(server: Mapping[str, float], limit: float) -> dict[str, Any]:
    """Return one model's decoding and prompt processing rates in a run, beside its single-stream limit."""
    prompt, decode = server["prompt_ms"] / 1000, server["decode_ms"] / 1000
    return {
        "completions": int(server["completions"]),
        "decode_tokens_per_s": round(server["decode_tokens"] / decode, 1) if decode else 0.0,
        "single_stream_tokens_per_s": round(limit, 1),
        "prompt_tokens_per_s": round(server["prompt_tokens"] / prompt, 1) if prompt else 0.0,
        "prompt_tokens": int(server["prompt_tokens"]),
        "decode_tokens": int(server["decode_tokens"]),
    }


def measure(model: str | None, count: int, out: Path) -> dict[str, Any]:
    """Run the first ``count`` dev tasks under ``accountable`` on ``model`` (None: the default team) and
    return ``split_of`` them, with the team's models, each one's single-stream decode and the commit; the
    rows are copied to ``out``."""
    context = Context(model=model, max_rounds=2)
    team = [model] if model else list(local_model.default_team())
    servers = {name: model_server.ensure_server(name) for name in team}
    limits = {name: decode_rate(Context(model=name)) for name in team}
    logs = {name: model_server.server_log(server.port) for name, server in servers.items()}
    starts = {name: log.stat().st_size for name, log in logs.items()}
    benchmark = BENCHMARKS["humaneval"]
    tasks = runner.select(benchmark.tasks(), splits.ids("humaneval", "dev"))[:count]
    config = CONFIGURATIONS["accountable"]
    with tempfile.TemporaryDirectory() as fresh:  # every task runs afresh: a resumed one has no log lines
        rows = runner.run(benchmark, config, tasks, Path(fresh), context)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(fresh) / runner.RESULTS, out / runner.RESULTS)
        with store.checkpointer(Path(fresh) / runner.CHECKPOINTS) as saver:
            graph = config.build(checkpointer=saver)
            ledgers = [graph.get_state(store.config(r["thread"])).values.get("ledger", []) for r in rows]
    oracle = sum(e["latency_s"] for ledger in ledgers for e in ledger if e["kind"] == "oracle")
    timings = {}
    for name, log in logs.items():
        with log.open("rb") as handle:
            handle.seek(starts[name])
            timings[name] = server_timings(handle.read().decode("utf-8", "replace"))
    return {
        "team": ", ".join(team),
        "commit": runner.source_version(),
        **split_of(rows, timings, limits, oracle),
    }


def printed(figures: Mapping[str, Any]) -> str:
    """Return the measurement as ``make bench`` prints it."""
    lines = [
        f"where the time goes: accountable on {figures['team']}, first {figures['tasks']} HumanEval "
        f"dev tasks ({figures['solved']} solved), {figures['wall_s']:.0f} s in all, "
        f"{figures['llm_calls']} model calls, {figures['completions']} completions"
    ]
    lines += [
        f"  {name:34} {seconds:8.1f} s  {figures['shares'][name]:6.1%}"
        for name, seconds in figures["parts_s"].items()
    ]
    lines += [
        f"{name}: {m['completions']} completions, decoding {m['decode_tokens_per_s']:.1f} tokens/s "
        f"against {m['single_stream_tokens_per_s']:.1f} single-stream ({m['decode_tokens']:,} tokens); "
        f"prompt processing {m['prompt_tokens_per_s']:.1f} tokens/s ({m['prompt_tokens']:,} tokens)"
        for name, m in figures["models"].items()
    ]
    return "\n".join(lines)


def main() -> None:
    """Measure, print, and write ``time_split.json``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--model", help="every role's model (default: the default team's)")
    parser.add_argument("--out", type=Path, default=Path("results/time-split"))
    args = parser.parse_args()
    missing = [
        name
        for name in ([args.model] if args.model else local_model.default_team())
        if name in local_model.MODELS and not local_model.gguf_path(name).exists()
    ]
    if missing:
        print(f"where the time goes: skipped, {', '.join(missing)} not set up (accord model setup)")
        return
    try:
        figures = measure(args.model, args.tasks, args.out)
    finally:
        model_server.stop_owned()
    (args.out / "time_split.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(printed(figures))


if __name__ == "__main__":
    main()
