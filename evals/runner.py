"""Run a benchmark under a configuration: one checkpointed thread per task, one JSONL row per result.

Rows are appended as tasks finish, so an interrupted eval resumes where it stopped: a task with a row is
never rerun, and a task whose thread was cut off mid-run continues from its last checkpoint (the
checkpoints live beside the results, in ``checkpoints.sqlite``). Each row holds the score from the
benchmark's hidden oracle, the ledger's totals and its calls, tokens and seconds per role, the MAST
failures the detectors find in the trace and the blame computed from the checkpoints, which the same
oracle judged as the run went.
"""

from __future__ import annotations

import base64
import dataclasses
import fcntl
import json
import os
import statistics
import subprocess
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig

from accord.accountability import cost, mast
from accord.accountability.account import of_chain
from accord.accountability.blame import Blame, blame
from accord.evals.benchmarks import BENCHMARKS, Benchmark, EvalTask
from accord.evals.configs import Configuration, base_name
from accord.evals.configs.development import CONFIGURATIONS
from accord.evals.paths import REPOSITORY
from accord.graphs import store
from accord.graphs.catalog import thread_workflow
from accord.runtime import harness
from accord.runtime.local_model import MODELS
from accord.state import history
from accord.state.context import Context
from accord.state.lifecycle import Lifecycle

ROW_UNSET = ("role_styles",)
"""Context fields a row leaves out (a role's style is named in its configuration, not a run setting)."""
RESULTS = "results.jsonl"
CHECKPOINTS = "checkpoints.sqlite"
RECURSION_LIMIT = 200
"""LangGraph steps per run; the lifecycle's counters end every run long before (5 rounds × 9 stages)."""


CODE_PATHS = (
    "accord",
    "accountability",
    "evals",
    "graphs",
    "nodes",
    "runtime",
    "state",
    "data",
    "pyproject.toml",
    ":(exclude)evals/experiments",
)
"""What a row's results depend on: the packages and the benchmark data (not the results, not tests)."""


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPOSITORY, capture_output=True, text=True, check=True).stdout


def source_commit() -> str:
    """Return the full commit of Accord's code ("" outside git)."""
    try:
        return _git("rev-parse", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def changed_files() -> list[str]:
    """Return the code and data files the working copy changes against its commit (none outside git)."""
    try:
        changed = _git("status", "--porcelain", "--", *CODE_PATHS)
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line[3:] for line in changed.splitlines() if line.strip()]


def source_version() -> str:
    """Return the short commit of Accord's code, ``+dirty`` when the working copy changes it."""
    commit = source_commit()
    return commit[:7] + ("+dirty" if commit and changed_files() else "")


def read_rows(out: Path) -> list[dict[str, Any]]:
    """Return the rows in ``out``'s results, the last one per (configuration, task)."""
    path = out / RESULTS
    if not path.exists():
        return []
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            rows[(row["config"], row["id"])] = row
    return list(rows.values())


def stored_runs(
    rows: Iterable[Mapping[str, Any]], out: Path
) -> Iterator[tuple[Mapping[str, Any], list[history.Checkpoint], Lifecycle]]:
    """Yield each row whose thread ``out``'s checkpoints hold, with its branch and the lifecycle it ran."""
    if not (out / CHECKPOINTS).exists():
        return
    with store.checkpointer(out / CHECKPOINTS) as saver:
        for row in rows:
            # The row's own configuration (single's lifecycle has two stages); a user's task set runs the
            # development graph's, and a configuration no benchmark here names runs its workflow's table.
            benchmark = BENCHMARKS.get(row.get("benchmark", ""))
            named = (benchmark.configurations if benchmark else CONFIGURATIONS).get(base_name(row["config"]))
            built = named or thread_workflow(saver, row["thread"])
            if chain := history.from_graph(built.build(checkpointer=saver), row["thread"]):
                yield row, chain, built.lifecycle


def select(
    tasks: list[EvalTask], ids: Iterable[str] | None = None, limit: int | None = None
) -> list[EvalTask]:
    """Return the tasks named by ``ids`` (all when None), the first ``limit`` of them."""
    if ids:
        wanted = set(ids)
        if unknown := wanted - {t.id for t in tasks}:
            raise KeyError(f"no such tasks: {sorted(unknown)}")
        tasks = [t for t in tasks if t.id in wanted]
    return tasks[:limit] if limit else tasks


def select_split(
    tasks: list[EvalTask],
    split_ids: Iterable[str],
    limit: int | None = None,
) -> tuple[list[EvalTask], list[str]]:
    """Return a whole split's tasks that the benchmark offers here (the first ``limit``), and its ids left
    out, in the split's order.

    A split is frozen over a set's data, and a benchmark may offer fewer tasks on this machine (ClassEval:
    those whose reference passes its own tests here); a split run takes the rest and names what it left.
    Ids a user names are checked by ``select`` instead, which refuses an unknown one.
    """
    offered = {t.id: t for t in tasks}
    split_ids = list(split_ids)
    chosen = [offered[i] for i in split_ids if i in offered]
    return (chosen[:limit] if limit else chosen), [i for i in split_ids if i not in offered]


def role_costs(ledger: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return a run's LLM calls, tokens, model seconds and sandbox seconds per role that spent any."""
    return {
        role: {
            "llm_calls": r["llm_calls"],
            "tokens": r["tokens_in"] + r["tokens_out"],
            "llm_s": r["llm_s"],
            "sandbox_s": r["sandbox_s"],
        }
        for role, r in cost.breakdown(ledger)["by_role"].items()
        if r["llm_calls"] or r["sandbox_s"]
    }


@contextmanager
def results_lock(out: Path) -> Iterator[None]:
    """Hold ``out``'s results lock, across processes: an eval appending rows and a rewrite of the file take
    turns, so a row appended while another process rewrites the file is never dropped.

    The lock is on the folder itself (``flock`` on its descriptor), not on the file the rewrite replaces.
    """
    folder = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # closing the descriptor releases the lock


def fill_role_costs(out: Path) -> int:
    """Give each row written without ``by_role`` its costs per role, from the ledger in the last checkpoint
    of its thread in ``out``'s checkpoints; return how many rows gained them.

    The ledger in the checkpoints is the same record a newer row copies, so a filled row says what a row
    written today would. The rewrite holds the results lock, so an eval still appending to ``out`` waits
    for it instead of losing its row.
    """
    path, database = out / RESULTS, out / CHECKPOINTS
    if not path.exists() or not database.exists():
        return 0
    with results_lock(out), store.checkpointer(database) as saver:
        lines = path.read_text().splitlines()
        last = {
            (row["config"], row["id"]): i
            for i, row in ((i, json.loads(line)) for i, line in enumerate(lines) if line.strip())
        }
        filled = 0
        for i in sorted(last.values()):
            row = json.loads(lines[i])
            found = None if "by_role" in row else saver.get_tuple(store.config(row["thread"]))
            if found is not None:
                lines[i] = json.dumps(
                    {**row, "by_role": role_costs(found.checkpoint["channel_values"].get("ledger", []))}
                )
                filled += 1
        if filled:  # whole-file replace: a kill midway leaves the old file, never half of one
            partial = path.with_suffix(".partial")
            partial.write_text("\n".join(lines) + "\n")
            partial.replace(path)
    return filled


def _span(chain: list[history.Checkpoint]) -> float:
    stamps = [datetime.fromisoformat(c.created_at) for c in chain if c.created_at]
    return (max(stamps) - min(stamps)).total_seconds() if len(stamps) > 1 else 0.0


def run_task(
    benchmark: Benchmark,
    config: Configuration,
    task: EvalTask,
    checkpointer: Any,
    context: Context,
    models: Mapping[str, BaseChatModel] | None = None,
    thread_prefix: str = "",
    judge: mast.Judge | None = None,
) -> dict[str, Any]:
    """Run (or resume) one task's thread to its end and return its result row.

    ``thread_prefix`` keeps apart the threads of evals that share one checkpoint database (Postgres).
    ``judge`` (MAST's LLM judge) adds its findings, marked judged, for the modes no detector found.
    """
    thread = f"{thread_prefix}{benchmark.name}/{config.name}/{task.id}"
    context = dataclasses.replace(context, **config.settings)
    graph = config.build(models, checkpointer, oracle=benchmark.oracle(task.id))
    cfg: RunnableConfig = {
        **store.config(thread),
        "recursion_limit": RECURSION_LIMIT,
        "tags": ["accord", f"configuration:{config.name}", f"benchmark:{benchmark.name}"],
    }
    earlier = history.from_graph(graph, thread)
    started = time.monotonic()
    if not earlier:
        graph.invoke({"request": task.prompt, **task.inputs}, cfg, context=context, durability="sync")
    elif earlier[-1].next:  # cut off mid-run: continue from the last checkpoint
        graph.invoke(None, cfg, context=context, durability="sync")
    elapsed = time.monotonic() - started + _span(earlier)
    chain = history.from_graph(graph, thread)
    values = chain[-1].values
    passed, detail = benchmark.score(task.id, values)
    told = of_chain(chain, config.lifecycle, judge=judge)
    live = None if config.live_oracle is None else blame(chain, config.lifecycle, config.live_oracle(values))
    calls = [e for e in values.get("ledger", []) if e["kind"] == "llm" and e["model"]]
    models_used = sorted({e["model"] for e in calls})
    return {
        "benchmark": benchmark.name,
        "config": config.name,
        "id": task.id,
        "thread": thread,
        "date": datetime.now(UTC).date().isoformat(),
        "model": ", ".join(models_used),
        "role_models": {e["role"]: e["model"] for e in calls},
        "model_sha256": {m: MODELS[m].sha256 for m in models_used if m in MODELS},
        "settings": {k: v for k, v in dataclasses.asdict(context).items() if k not in ROW_UNSET},
        "own_settings": dict(config.settings),
        "passed": passed,
        "detail": detail.strip().splitlines()[-1][:300] if detail.strip() else "",
        "judge": harness.JUDGE,
        **({"code": packed(values["code"])} if values.get("code") else {}),
        "status": values.get("status", "running"),
        "reason": values.get("reason", "")[:300],
        "rounds": int(values.get("counters", {}).get("round", 1)),
        "latency_s": round(elapsed, 2),
        "resumed": bool(earlier),
        **{k: told.cost["total"][k] for k in ("llm_calls", "tokens_in", "tokens_out", "cost")},
        "by_role": role_costs(values.get("ledger", [])),
        "mast": [
            {
                "mode": f.mode,
                "category": f.category,
                "round": f.round,
                "role": f.role,
                "retried": f.retried,
                "judged": f.judged,
            }
            for f in told.failures
        ],
        **benchmark.details(task.id, values),
        "blame": blamed(told.blame),
        **({} if live is None else {"live_blame": blamed(live)}),
    }


def packed(code: Mapping[str, Any]) -> str:
    """Return the final code as a row keeps it (JSON, compressed, base64), so its verdict can be re-judged
    offline (``accord eval judge --rows``)."""
    return base64.b64encode(zlib.compress(json.dumps(code, sort_keys=True).encode(), 9)).decode()


def unpacked(text: str) -> dict[str, Any]:
    """Return the code a row keeps (``packed``)."""
    return dict(json.loads(zlib.decompress(base64.b64decode(text))))


def blamed(verdict: Blame) -> dict[str, Any]:
    """Return a row's account of one blame: the final result's correctness, the error origin, and each
    role's repairs and harms."""
    origin = verdict.origin
    return {
        "final_correct": verdict.final_correct,
        "origin": None
        if origin is None
        else {"stage": origin.stage, "role": origin.role, "round": origin.round},
        "roles": verdict.rates(),
    }


class Recorder:
    """Appends rows to the results file (thread-safe) and keeps the running figures for progress."""

    def __init__(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.path, self.lock = out / RESULTS, threading.Lock()
        self.rows: list[dict[str, Any]] = []

    def add(self, row: Mapping[str, Any]) -> None:
        """Append one row, flushed before returning (a kill after this loses nothing)."""
        with self.lock, results_lock(self.path.parent), self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")
            self.rows.append(dict(row))

    def figures(self) -> str:
        """Return pass rate and tokens so far, for the progress line."""
        if not self.rows:
            return "pass —"
        passed = sum(r["passed"] for r in self.rows)
        tokens = statistics.median(r["tokens_in"] + r["tokens_out"] for r in self.rows)
        return f"pass {passed}/{len(self.rows)} ({passed / len(self.rows):.0%}), median {tokens:,.0f} tokens"


def run(
    benchmark: Benchmark,
    config: Configuration,
    tasks: list[EvalTask],
    out: Path,
    context: Context,
    workers: int = 1,
    models: Mapping[str, BaseChatModel] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    judge: mast.Judge | None = None,
    marks: Mapping[str, Any] | None = None,
    caps: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Run every task without a row in ``out`` yet; return all of this configuration's rows.

    ``caps`` gives each task its ``token_cap`` (a baseline matched with a team's spend on that task); a
    task it does not name is refused before anything runs.

    ``progress(done, total, figures)`` is called after each task. A task whose run raises (an endpoint
    down past its retries) gets no row: the next run resumes its thread. ``marks`` go into every row
    (a declared experiment's name, ``dev`` for rows of changed code).
    """
    recorder = Recorder(out)
    # Which code produced each row: rows of different commits are never compared side by side.
    commit, dirty = source_commit(), bool(changed_files())  # one look at git for every row
    short = commit[:7] + ("+dirty" if commit and dirty else "")
    version = {"version": short, "commit": commit, "dirty": dirty, **(marks or {})}
    finished = {r["id"] for r in read_rows(out) if r["config"] == config.name}
    todo = [t for t in tasks if t.id not in finished]
    if caps is not None and (uncapped := [t.id for t in todo if t.id not in caps]):
        raise RuntimeError(
            f"no token cap for {len(uncapped)} tasks (first: {uncapped[0]}): the team has no row"
        )

    def context_of(task: EvalTask) -> Context:
        return context if caps is None else dataclasses.replace(context, token_cap=caps[task.id])

    errors: list[str] = []
    with store.checkpointer(out / CHECKPOINTS) as saver, ThreadPoolExecutor(max(1, workers)) as pool:
        futures = {
            pool.submit(run_task, benchmark, config, t, saver, context_of(t), models, judge=judge): t
            for t in todo
        }
        done = len(tasks) - len(todo)
        if progress:
            progress(done, len(tasks), recorder.figures())
        for future in as_completed(futures):
            try:
                recorder.add({**future.result(), **version})
            except Exception as exc:  # an interrupted task keeps its thread; the next run resumes it
                errors.append(f"{futures[future].id}: {type(exc).__name__}: {exc}")
            done += 1
            if progress:
                progress(done, len(tasks), recorder.figures())
    if errors:
        raise RuntimeError(f"{len(errors)} tasks did not finish (rerun to resume them): " + "; ".join(errors))
    wanted = {t.id for t in tasks}
    return [r for r in read_rows(out) if r["config"] == config.name and r["id"] in wanted]
