"""``accord cost | blame | history | fork | export | report``: who did what, what it cost, who is to blame.

Every command reads one branch of a thread's checkpoints: from the local SQLite database, or with
``--url`` from a LangGraph server (``langgraph dev`` or a deployment).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from accord.accountability import cost, exports, mast, page
from accord.accountability.account import Account, of_chain
from accord.cli.running import console, drive, one_line, run_context
from accord.graphs import store
from accord.graphs.catalog import blame_oracle, thread_workflow, workflow_of
from accord.graphs.oracle import Oracle
from accord.runtime import model_server
from accord.state.history import Checkpoint, from_graph, from_server
from accord.state.lifecycle import Lifecycle


@contextmanager
def _branch(args: argparse.Namespace) -> Iterator[list[Checkpoint]]:
    """Yield the branch the arguments name: ``--url`` server or local database, ``--checkpoint`` head."""
    head = getattr(args, "checkpoint", None)
    if getattr(args, "url", None):
        yield from_server(args.url, args.thread, head)
        return
    with store.checkpointer() as saver:
        graph = thread_workflow(saver, args.thread).build(checkpointer=saver)
        yield from_graph(graph, args.thread, head)


def _missing(args: argparse.Namespace) -> int:
    print(
        f"no thread {args.thread!r}"
        + (f" at {args.url}" if getattr(args, "url", None) else f" in {store.db_path()}")
    )
    return 2


def _lifecycle(chain: list[Checkpoint]) -> Lifecycle:
    """Return the lifecycle of the thread a (non-empty) branch belongs to."""
    return workflow_of(chain[-1].values).lifecycle


def _oracle(args: argparse.Namespace, chain: list[Checkpoint]) -> Oracle | None:
    """Return the oracle ``--hidden`` names (a HumanEval problem's hidden tests), else the one the thread's
    workflow blames an ended thread by (``catalog.blame_oracle``), else None: the stored judgments."""
    if not getattr(args, "hidden", None):
        return blame_oracle(chain[-1].values)
    from accord.evals.benchmarks.humaneval import hidden_tests_oracle, problems

    return hidden_tests_oracle(problems()[args.hidden])


def _account(args: argparse.Namespace, chain: list[Checkpoint], judge: mast.Judge | None = None) -> Account:
    return of_chain(chain, _lifecycle(chain), _oracle(args, chain), judge)


def cmd_cost(args: argparse.Namespace) -> int:
    """Print tokens, cost and latency per role, model and stage."""
    with _branch(args) as chain:
        if not chain:
            return _missing(args)
        result = cost.breakdown(chain[-1].values.get("ledger", []))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for group in cost.GROUPS:
        print(cost.table(result[f"by_{group}"], f"by {group}") + "\n")
    print(cost.table({"total": result["total"]}, "total"))
    return 0


def cmd_blame(args: argparse.Namespace) -> int:
    """Print per-stage verdicts, repair/harm flags, the error origin and MAST failures."""
    with _branch(args) as chain:
        if not chain:
            return _missing(args)
        judge = mast.judge_on(args.judge_model) if args.judge else None
        try:
            told = _account(args, chain, judge)
        finally:
            model_server.stop_owned()
    result, findings = told.blame, list(told.failures)
    if args.json:
        print(
            json.dumps(
                {
                    "thread": args.thread,
                    **result.model_dump(),
                    "rates": result.rates(),
                    "failures": [f.model_dump() for f in findings],
                    "failure_summary": mast.summary(findings),
                },
                indent=2,
            )
        )
        return 0
    print(
        f"thread {args.thread}: final result "
        + {True: "correct", False: "wrong", None: "not judged"}[result.final_correct]
    )
    for s in result.stages:
        mark = "right" if s.correct else "WRONG"
        by = f" [played by {s.agent}]" if s.agent else ""
        print(
            f"  step {s.step:>3} round {s.round} {s.stage:<12} {s.role:<9} {mark:<5} "
            f"{s.flag or '':<6} {one_line(s.evidence, 110)}{by}"
        )
    origin = result.origin
    print(
        "error origin: "
        + (
            f"step {origin.step} {origin.stage} ({origin.role}"
            + (f", played by {origin.agent}" if origin.agent else "")
            + f", round {origin.round}): "
            f"{one_line(origin.evidence, 200)}"
            if origin
            else "NONE"
        )
    )
    print(
        "per role: "
        + ", ".join(
            f"{role} repaired {c['repairs']}/{c['wrong_inputs']} harmed {c['harms']}/{c['right_inputs']}"
            for role, c in result.rates().items()
        )
    )
    counts = mast.summary(findings)
    per_category = "".join(f"; {k}: {v}" for k, v in counts["by_category"].items())
    per_round = ", ".join(f"round {k}: {v}" for k, v in counts["by_round"].items())
    print(f"failures (MAST): {len(findings)}{per_category}" + (f" ({per_round})" if per_round else ""))
    for f in findings:
        judged = " (judged)" if f.judged else ""
        print(
            f"  {f.mode} {f.name}{judged} [{f.category}] step {f.step} round {f.round} {f.role}: "
            f"{one_line(f.evidence, 100)}"
        )
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """List the branch's checkpoints: step, id, stage, role, verdict."""
    with _branch(args) as chain:
        if not chain:
            return _missing(args)
    for c in chain:
        judgments = [j for j in c.values.get("judgments", []) if j["step"] == c.step]
        verdict = ("right" if judgments[-1]["correct"] else "wrong") if judgments else ""
        gate = next((v for v in reversed(c.values.get("verdicts", [])) if v.get("target")), None)
        where = f"{c.node or c.source:<12} {(gate or {}).get('role', '') if c.node else '':<9}"
        decided = f"{gate['outcome']} → {gate['target']}" if gate and c.node else ""
        print(f"step {c.step:>3}  {c.checkpoint_id}  {where} {decided:<28} {verdict}")
    return 0


def _values(pairs: list[str]) -> dict[str, Any]:
    """Parse ``key=value`` pairs; a value that is JSON is decoded, anything else stays a string."""
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--set wants key=value, got {pair!r}")
        try:
            values[key] = json.loads(raw)
        except json.JSONDecodeError:
            values[key] = raw
    return values


def cmd_fork(args: argparse.Namespace) -> int:
    """Start a new branch from a checkpoint (optionally changing state) and run it to its end."""
    started = time.monotonic()
    with store.checkpointer() as saver:
        graph = thread_workflow(saver, args.thread).build(checkpointer=saver)
        context = run_context(args)  # bad options, like bad values, leave no branch behind
        try:
            config = store.fork(graph, args.thread, args.checkpoint, _values(args.set or []))
        except (KeyError, ValueError) as exc:
            console.print(f"[red]{exc.args[0]}[/]")
            return 2
        print(
            f"forked {args.thread} at {args.checkpoint}: new branch head "
            f"{config['configurable']['checkpoint_id']}"
        )
        return drive(graph, None, config, args, args.thread, started, context)


def cmd_export(args: argparse.Namespace) -> int:
    """Write the run as a Who&When record, a MAST/MAD record or OpenTelemetry spans."""
    with _branch(args) as chain:
        if not chain:
            return _missing(args)
        told = _account(args, chain)
        values, trace = told.values, list(told.trace)
        if args.format == "whowhen":
            record: dict[str, Any] = exports.whowhen(
                args.thread, values, trace, told.blame, workflow_of(values).system_prompts
            )
        elif args.format == "mad":
            models = sorted({e["model"] for e in values.get("ledger", []) if e["kind"] == "llm"})
            record = exports.mad(args.thread, values, trace, list(told.failures), ", ".join(models))
        else:
            times = {c.step: (p.created_at, c.created_at) for p, c in itertools.pairwise(chain)}
            if args.collector:
                exports.send(args.thread, trace, times, args.collector)
                print(f"sent the spans of {args.thread} to {args.collector}")
                return 0
            record = exports.otel(args.thread, trace, times)
    text = json.dumps(record, indent=2)
    if args.output:
        Path(args.output).write_text(text + "\n")
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Write the run's page: one self-contained HTML file (``accountability.page``); or, with ``--serve``,
    serve every thread's page (``accord.cli.report_server``)."""
    if args.serve:
        from accord.cli import report_server

        pages = report_server.server(args.host, args.port)
        host, port = pages.server_address[:2]
        print(
            f"serving the run store's pages at http://{host!s}:{port}/ (read-only; Ctrl-C stops)", flush=True
        )
        try:
            pages.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            pages.server_close()
        return 0
    if not args.thread:
        print("accord report needs a THREAD, or --serve")
        return 2
    with _branch(args) as chain:
        if not chain:
            return _missing(args)
        html = page.of_branch(args.thread, chain, _lifecycle(chain), _oracle(args, chain))
    out = Path(args.output or f"{args.thread.replace('/', '_')}.html")
    out.write_text(html, encoding="utf-8")
    print(f"wrote {out}: open it in any browser, offline")
    return 0


def add_commands(sub: Any, model_options: Any) -> None:
    """Register the accountability commands on the CLI's subparsers."""

    def source(p: argparse.ArgumentParser, head: bool = True) -> None:
        p.add_argument("thread")
        p.add_argument("--url", help="a LangGraph server holding the thread (default: local database)")
        if head:
            p.add_argument("--checkpoint", help="the branch's head checkpoint (default: the newest)")

    p = sub.add_parser("cost", help="tokens, cost and latency per role, model and stage")
    source(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cost)

    p = sub.add_parser("blame", help="per-stage verdicts, repair/harm, error origin, MAST failures")
    source(p)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--hidden", metavar="TASK_ID", help="judge offline with a HumanEval problem's hidden tests"
    )
    p.add_argument(
        "--judge",
        action="store_true",
        help="ask an LLM about the MAST modes no detector found (marked judged)",
    )
    p.add_argument("--judge-model", help="the judge's model (default: the run's default endpoint)")
    p.set_defaults(func=cmd_blame)

    p = sub.add_parser("history", help="list a thread's checkpoints")
    source(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("fork", help="start a new branch from a checkpoint and run it")
    p.add_argument("thread")
    p.add_argument("checkpoint")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="state to change (JSON values)")
    model_options(p)
    p.set_defaults(func=cmd_fork)

    p = sub.add_parser("export", help="export a run for external attribution tools")
    source(p)
    p.add_argument("--format", choices=["whowhen", "mad", "otel"], required=True)
    p.add_argument("--hidden", metavar="TASK_ID", help="blame with a HumanEval problem's hidden tests")
    p.add_argument("--output", "-o", help="write here instead of stdout")
    p.add_argument(
        "--collector",
        metavar="URL",
        help="with --format otel: send the spans to this OTLP/HTTP collector "
        "(e.g. http://127.0.0.1:4318/v1/traces) instead",
    )
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("report", help="write a run's page: one HTML file with its path, blame, cost and code")
    p.add_argument("thread", nargs="?", help="the thread (not with --serve)")
    p.add_argument("--url", help="a LangGraph server holding the thread (default: local database)")
    p.add_argument("--checkpoint", help="the branch's head checkpoint (default: the newest)")
    p.add_argument("--hidden", metavar="TASK_ID", help="blame with a HumanEval problem's hidden tests")
    p.add_argument("--output", "-o", help="the file to write (default: THREAD.html here)")
    p.add_argument(
        "--serve",
        action="store_true",
        help="serve every thread's page from the run store instead, live runs reloading",
    )
    p.add_argument("--host", default="127.0.0.1", help="with --serve: the address to bind (default loopback)")
    p.add_argument("--port", type=int, default=8765, help="with --serve: the port (0: any free one)")
    p.set_defaults(func=cmd_report)
