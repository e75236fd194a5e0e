"""Eval results as a LangSmith experiment (``accord eval ... --langsmith``), through ``langsmith.evaluate``.

One example per task holds what the agents saw (the task id and its prompt; never the hidden tests). The
target returns the task's finished row, so the experiment records the eval as it ran instead of paying for
the models again; the evaluators read pass@1, tokens, cost, latency and MAST failures from it. With a
LangSmith key the dataset ``accord-BENCHMARK`` gets any missing example and the experiment is uploaded;
without one it is evaluated locally (``upload_results=False``) and nothing is sent.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langsmith import Client, evaluate, schemas, tracing_context
from langsmith.evaluation import EvaluationResult

from accord.evals.benchmarks import EvalTask

FIELDS = (
    "passed",
    "status",
    "reason",
    "rounds",
    "llm_calls",
    "tokens_in",
    "tokens_out",
    "cost",
    "latency_s",
    "version",
)


def _score(key: str, run: schemas.Run) -> float:
    return float((run.outputs or {}).get(key) or 0)


def _pass(run: schemas.Run, example: schemas.Example) -> EvaluationResult:
    return EvaluationResult(key="pass@1", score=_score("passed", run))


def _tokens(run: schemas.Run, example: schemas.Example) -> EvaluationResult:
    return EvaluationResult(key="tokens", score=_score("tokens_in", run) + _score("tokens_out", run))


def _cost(run: schemas.Run, example: schemas.Example) -> EvaluationResult:
    return EvaluationResult(key="cost", score=_score("cost", run))


def _latency(run: schemas.Run, example: schemas.Example) -> EvaluationResult:
    return EvaluationResult(key="latency_s", score=_score("latency_s", run))


def _failures(run: schemas.Run, example: schemas.Example) -> EvaluationResult:
    return EvaluationResult(key="mast_failures", score=_score("mast_failures", run))


EVALUATORS = (_pass, _tokens, _cost, _latency, _failures)


def uploading() -> bool:
    """Return whether a LangSmith key is configured (else the experiment stays local)."""
    return bool(os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY"))


def _local_examples(benchmark: str, tasks: Sequence[EvalTask]) -> list[schemas.Example]:
    dataset = uuid.uuid5(uuid.NAMESPACE_URL, f"accord/{benchmark}")
    return [
        schemas.Example(
            id=uuid.uuid5(dataset, t.id),
            dataset_id=dataset,
            created_at=datetime.now(UTC),
            inputs={"task_id": t.id, "prompt": t.prompt},
            outputs={},
        )
        for t in tasks
    ]


def _uploaded_examples(client: Client, benchmark: str, tasks: Sequence[EvalTask]) -> list[schemas.Example]:
    name = f"accord-{benchmark}"
    if not client.has_dataset(dataset_name=name):
        client.create_dataset(name, description=f"Accord: {benchmark} tasks as the agents see them")
    known = {(e.inputs or {}).get("task_id"): e for e in client.list_examples(dataset_name=name)}
    if missing := [t for t in tasks if t.id not in known]:
        client.create_examples(
            dataset_name=name, examples=[{"inputs": {"task_id": t.id, "prompt": t.prompt}} for t in missing]
        )
        known = {(e.inputs or {}).get("task_id"): e for e in client.list_examples(dataset_name=name)}
    return [known[t.id] for t in tasks]


def push(
    benchmark: str,
    config: str,
    tasks: Sequence[EvalTask],
    rows: Sequence[Mapping[str, Any]],
    upload: bool | None = None,
) -> Any:
    """Record finished ``rows`` as an experiment over ``tasks``; return langsmith's ExperimentResults.

    Raises:
        KeyError: a task has no finished row (run the eval first).
    """
    by_id = {r["id"]: r for r in rows}
    if missing := [t.id for t in tasks if t.id not in by_id]:
        raise KeyError(f"no finished row for {len(missing)} tasks (first: {missing[0]}); run the eval first")
    upload = uploading() if upload is None else upload

    def accord(inputs: dict[str, Any]) -> dict[str, Any]:
        row = by_id[inputs["task_id"]]
        return {**{k: row.get(k) for k in FIELDS}, "mast_failures": len(row.get("mast", []))}

    # Offline, no client thread may start either: it would ask the default endpoint for its /info.
    client = Client() if upload else Client(auto_batch_tracing=False)
    data = _uploaded_examples(client, benchmark, tasks) if upload else _local_examples(benchmark, tasks)
    versions = sorted({str(r.get("version", "")) for r in rows if r["id"] in {t.id for t in tasks}})
    with tracing_context(enabled=upload):
        return evaluate(
            accord,
            data=data,
            evaluators=list(EVALUATORS),
            upload_results=upload,
            client=client,
            experiment_prefix=f"accord-{config}",
            max_concurrency=0,
            metadata={"benchmark": benchmark, "configuration": config, "versions": versions},
            description=f"Accord {config} on {benchmark}",
        )
