"""Failure attribution on Who&When's logs: which agent made the decisive mistake of a failed run, and at
which step, against the logs' labels (Zhang et al., ICML 2025; ``data/who_and_when``).

Usage: ``python -m accord.evals.benchmarks.who_and_when [--model NAME] [--subset NAME] [--limit N]
[--out DIR]``.

Accord's attribution reads a log as its blame reads a run: a judge (the run's model, asked through the
same structured call as any role, with the question and its correct answer, the paper's "with ground
truth" setting) names the step whose mistake was never repaired, and the agent that took it. Each log's
steps are shown whole when the log fits the model's context, else each cut to an equal share of it
(``STEP_SHARE``). Rows land in ``DIR/results.jsonl`` as they come (a rerun resumes), and ``DIR/summary.json``
holds agent-level and step-level accuracy per subset with Wilson intervals beside the floors a skeptic
asks for:

- per log, knowing nothing of the labels: a uniformly random agent of the log and step (the expected
  accuracy), the first agent step, the last step, the agent who speaks most;
- from the labels' own distribution: always the most frequent labelled agent, always the most frequent
  labelled step (what a method tuned to the set could reach without reading a log).

The paper's best method reaches 53.5% agent-level and 14.2% step-level accuracy (its abstract; GPT-4o).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from pydantic import Field

from accord.evals import runner
from accord.evals.paths import data_dir
from accord.evals.reports import stats
from accord.nodes.llm import structured
from accord.runtime import local_model, model_server
from accord.state.artifacts import Frozen
from accord.state.context import Context
from accord.state.stage import OutputError, StageCall

SUBSETS = ("Algorithm-Generated", "Hand-Crafted")
PUBLISHED = {"agent": 0.535, "step": 0.142}
"""The best method's accuracy in the paper's abstract (agent-level, step-level)."""
CONTEXT_CHARS = 16_000
"""What of a log the judge is shown, in characters (about 4,000 tokens: the embedded server's context
holds that, the question and the reply)."""
STEP_SHARE = 200
"""The least each step keeps when a long log is cut to fit."""

SYSTEM = (
    "You find the decisive mistake in a failed multi-agent run: the earliest step whose mistake was "
    "never repaired and led to the wrong final answer."
)
PROMPT = """A team of agents answered this question wrongly.

Question: {question}
Correct answer: {truth}

The conversation, step by step:
{steps}

Which step made the decisive mistake, and which agent took it? Give the step's number and the agent's name
exactly as shown."""


class Attribution(Frozen):
    """A judge's verdict on a failed log."""

    step: int = Field(ge=0)
    agent: str = Field(max_length=80)


def agent_of(message: Mapping[str, Any]) -> str:
    """Return who took a step, as the labels name agents: its ``name``, else its ``role`` without the
    Magentic-One annotation ("Orchestrator (thought)" is the Orchestrator)."""
    who = str(message.get("name") or message.get("role") or "")
    return who.split(" (")[0].strip()


def logs(subset: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Return one subset's logs with their labels, in index order."""
    folder = root or data_dir() / "who_and_when"
    index = [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines() if line.strip()]
    return [
        {**entry, **json.loads((folder / entry["file"]).read_text())}
        for entry in index
        if entry["subset"] == subset
    ]


def shown(history: list[Mapping[str, Any]], limit: int = CONTEXT_CHARS) -> str:
    """Return the log's steps as the judge reads them, each cut to an equal share of ``limit`` when the
    whole does not fit."""
    share = max(STEP_SHARE, limit // max(1, len(history)))
    whole = sum(len(str(m.get("content", ""))) for m in history) <= limit
    return "\n\n".join(
        f"Step {i} ({agent_of(m)}): "
        + (str(m.get("content", "")) if whole else str(m.get("content", ""))[:share])
        for i, m in enumerate(history)
    )


def floors(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Return each floor's agent-level and step-level accuracy over ``records`` (see the module)."""
    records = list(records)
    labelled_agent = Counter(r["mistake_agent"] for r in records).most_common(1)[0][0]
    labelled_step = Counter(int(r["mistake_step"]) for r in records).most_common(1)[0][0]

    def accuracy(pick: Any) -> dict[str, float]:
        picks = [pick(r) for r in records]
        pairs = list(zip(picks, records, strict=True))
        return {
            "agent": statistics.mean(a == r["mistake_agent"] for (a, _), r in pairs),
            "step": statistics.mean(s == int(r["mistake_step"]) for (_, s), r in pairs),
        }

    def first_agent(r: Mapping[str, Any]) -> tuple[str, int]:
        steps = [i for i, m in enumerate(r["history"]) if agent_of(m) not in ("human", "user", "")]
        i = steps[0] if steps else 0
        return agent_of(r["history"][i]), i

    def most_speaking(r: Mapping[str, Any]) -> tuple[str, int]:
        agent = Counter(agent_of(m) for m in r["history"]).most_common(1)[0][0]
        return agent, next(i for i, m in enumerate(r["history"]) if agent_of(m) == agent)

    n = len(records)
    return {
        "random agent and step (expected)": {
            "agent": sum(1 / len({agent_of(m) for m in r["history"]}) for r in records) / n,
            "step": sum(1 / len(r["history"]) for r in records) / n,
        },
        "first agent step": accuracy(first_agent),
        "last step": accuracy(lambda r: (agent_of(r["history"][-1]), len(r["history"]) - 1)),
        "agent who speaks most, its first step": accuracy(most_speaking),
        f"always {labelled_agent}, step {labelled_step} (most frequent labels)": accuracy(
            lambda r: (labelled_agent, labelled_step)
        ),
    }


def attribute(
    record: Mapping[str, Any], context: Context, models: Mapping[str, BaseChatModel] | None = None
) -> dict[str, Any]:
    """Ask the judge (``models["judge"]`` in tests) for one log's decisive step and agent; return its row
    (a reply that does not parse is counted, as no attribution)."""
    call = StageCall(stage="attributing", role="judge", round=1, context=context, models=models or {})
    user = PROMPT.format(
        question=record["question"], truth=record.get("ground_truth", ""), steps=shown(record["history"])
    )
    started = time.monotonic()
    try:
        verdict: Attribution | None = structured(call, Attribution, SYSTEM, user, max_tokens=100)
    except OutputError:
        verdict = None
    spent = [e for e in call.ledger if e.kind == "llm"]
    agent = verdict.agent.strip() if verdict else ""
    return {
        "file": record["file"],
        "subset": record["subset"],
        "agent": agent,
        "step": verdict.step if verdict else None,
        "label_agent": record["mistake_agent"],
        "label_step": int(record["mistake_step"]),
        "agent_ok": agent == record["mistake_agent"],
        "step_ok": verdict is not None and verdict.step == int(record["mistake_step"]),
        "tokens": sum(e.tokens_in + e.tokens_out for e in spent),
        "latency_s": round(time.monotonic() - started, 2),
    }


def summary(rows: Iterable[Mapping[str, Any]], root: Path | None = None) -> dict[str, Any]:
    """Return per subset: n, the judge's agent-level and step-level accuracy with Wilson intervals, the
    unparsed replies, and the floors on the same logs."""
    rows = list(rows)
    out: dict[str, Any] = {}
    for subset in SUBSETS:
        mine = [r for r in rows if r["subset"] == subset]
        if not mine:
            continue
        done = {r["file"] for r in mine}
        n = len(mine)
        agent, step = sum(r["agent_ok"] for r in mine), sum(r["step_ok"] for r in mine)
        out[subset] = {
            "n": n,
            "agent": agent,
            "step": step,
            "agent_rate": stats.rate(agent, n),
            "step_rate": stats.rate(step, n),
            "unparsed": sum(r["step"] is None for r in mine),
            "judges": sorted({judge(r) for r in mine}),
            "floors": floors(r for r in logs(subset, root) if r["file"] in done),
        }
    return out


def judge(row: Mapping[str, Any]) -> str:
    """Return which judge made a row: its model and the commit of the code that asked it."""
    return f"{row['model']} at {row['commit'][:7]}{'+dirty' if row['dirty'] else ''}"


def table(figures: Mapping[str, Any]) -> str:
    """Return a summary (or the floors alone) as a markdown table: per subset, the judge's agent-level and
    step-level accuracy with Wilson intervals, the floors on the same logs and the published best."""
    lines = ["| logs | attribution | agent-level | step-level |", "|---|---|---|---|"]
    for subset, s in figures.items():
        where = f"{subset} ({s['n']})"
        if "agent_rate" in s:
            lines.append(
                f"| {where} | the judge ({', '.join(s['judges'])}; {s['unparsed']} replies unread) "
                f"| {s['agent_rate']} | {s['step_rate']} |"
            )
        lines += [
            f"| {where} | {name} | {floor['agent']:.1%} | {floor['step']:.1%} |"
            for name, floor in s["floors"].items()
        ]
        lines.append(
            f"| {where} | published best (the paper's abstract, GPT-4o) | {PUBLISHED['agent']:.1%} "
            f"| {PUBLISHED['step']:.1%} |"
        )
    return "".join(f"{line}\n" for line in lines)


def main() -> None:
    """Attribute every log of the chosen subsets not attributed yet; print and write the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=local_model.DEFAULT_MODEL)
    parser.add_argument("--subset", choices=SUBSETS, action="append")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--out", type=Path, default=Path("results/who-and-when"))
    parser.add_argument("--floors", action="store_true", help="only the floors, on every log (no judge)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.floors:
        every = {
            subset: {"n": len(records), "floors": floors(records)}
            for subset in args.subset or SUBSETS
            for records in [logs(subset)]
        }
        (args.out / "floors.json").write_text(json.dumps(every, indent=2) + "\n")
        print(printed(every))
        return
    results = args.out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    done = {r["file"] for r in rows}
    context = Context(model=args.model)
    # Which code judged each row: a judge's rows of two commits are never read as one.
    code = {"commit": runner.source_commit(), "dirty": bool(runner.changed_files())}
    try:
        for subset in args.subset or SUBSETS:
            for record in logs(subset)[: args.limit]:
                if record["file"] in done:
                    continue
                row = {**attribute(record, context), "model": args.model, **code}
                with results.open("a") as handle:
                    handle.write(json.dumps(row) + "\n")
                rows.append(row)
    finally:
        model_server.stop_owned()
    figures = summary(rows)
    (args.out / "summary.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(printed(figures))


def printed(figures: Mapping[str, Any]) -> str:
    """Return a summary (or the floors alone) as the command prints it."""
    lines = []
    for subset, s in figures.items():
        judged = (
            f", the judge: agent {s['agent_rate']}, step {s['step_rate']}, unparsed {s['unparsed']}"
            if "agent_rate" in s
            else ""
        )
        lines.append(
            f"{subset}: {s['n']} logs{judged} (published best: agent {PUBLISHED['agent']:.1%}, "
            f"step {PUBLISHED['step']:.1%})"
        )
        lines += [
            f"  {name:52} agent {floor['agent']:6.1%}  step {floor['step']:6.1%}"
            for name, floor in s["floors"].items()
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
