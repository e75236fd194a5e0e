"""The ``accord`` command line: run, list, show and resume development runs; manage the local model."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from langgraph.types import Command

from accord.accountability import cost
from accord.accountability.account import UNISOLATED, outcome
from accord.cli import approval
from accord.cli.accounts import add_commands
from accord.cli.audit import add_audit_command
from accord.cli.doctor import add_doctor_command, require_sandbox
from accord.cli.evaluation import add_eval_command
from accord.cli.introspect import add_roles_command
from accord.cli.running import (
    console,
    context_options,
    drive,
    finish,
    one_line,
    read_task,
    run_context,
    stream,
    usage_error,
)
from accord.cli.serve import add_serve_command
from accord.graphs import store
from accord.graphs.catalog import DEFAULT, RegistrationError, thread_workflow, workflows
from accord.nodes.requests import MAX_REQUEST_CHARS
from accord.runtime import local_model, model_server, sandbox
from accord.state.graph_state import handoffs
from accord.state.secrets import redact, redacted


def cmd_run(args: argparse.Namespace) -> int:
    """Run a workflow's graph (the development graph unless ``--graph`` names another) on a task."""
    request = read_task(Path(args.file)) if args.file else args.task
    if not request:
        console.print("[red]give a task, or --file with a Python stub[/]")
        return 2
    if len(request) > MAX_REQUEST_CHARS:  # refused before a checkpoint holds it
        usage_error(f"the task has {len(request):,} characters; the limit is {MAX_REQUEST_CHARS:,}")
    context = run_context(args)
    require_sandbox(console)
    thread = args.thread or uuid.uuid4().hex[:12]
    started = time.monotonic()
    with store.checkpointer() as saver:
        workflow = workflows()[args.graph]
        inputs: dict[str, Any] = {"request": request}
        if args.approve_plan:
            if not any("human" in stage.roles for stage in workflow.lifecycle.stages):
                usage_error(f"--approve-plan: the {args.graph} workflow puts nothing to a person")
            inputs["approve_plan"] = True
        graph = workflow.build(checkpointer=saver)
        console.print(f"thread [bold]{thread}[/] (resume with: accord resume {thread})")
        return drive(graph, inputs, store.config(thread), args, thread, started, context)


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue a thread from its last checkpoint."""
    require_sandbox(console)
    started = time.monotonic()
    with store.checkpointer() as saver:
        graph = thread_workflow(saver, args.thread).build(checkpointer=saver)
        cfg = store.config(args.thread)
        snapshot = graph.get_state(cfg)
        if not snapshot.values:
            console.print(f"[red]no thread {args.thread!r} in {store.db_path()}[/]")
            return 2
        # A stage whose writes were saved but whose checkpoint was not (killed in between) shows as a
        # task with no ``next``: the run has not ended, and resuming applies those writes.
        if not snapshot.next and not snapshot.tasks:
            console.print(f"thread {args.thread} already ended: {snapshot.values.get('status')}")
            return finish(dict(snapshot.values), args.thread, Path(args.out) if args.out else None, started)
        args.graph = thread_workflow(saver, args.thread).name  # what a --team file is checked against
        where = ", ".join(snapshot.next) or f"the stage after {', '.join(t.name for t in snapshot.tasks)}"
        try:
            said = approval.answer(args)
        except ValueError as exc:
            console.print(f"[red]{exc}[/]; thread {args.thread} keeps waiting")
            return 2
        if said is not None and not approval.questions(graph, cfg):
            console.print(f"[red]thread {args.thread} waits for no answer[/]")
            return 2
        context = run_context(args)
        console.print(f"resuming {args.thread} at {where}")
        answer: Command[Any] | None = None if said is None else Command(resume=said)
        return drive(graph, answer, cfg, args, args.thread, started, context)


def cmd_runs(args: argparse.Namespace) -> int:
    """List threads, newest first."""
    with store.checkpointer() as saver:
        for thread in store.thread_ids(saver):
            graph = thread_workflow(saver, thread).build(checkpointer=saver)
            values = dict(graph.get_state(store.config(thread)).values)
            info = outcome(values)
            request = " ".join(str(values.get("request", "")).split())[:60]
            print(
                f"{thread}  {info['status']:<10} {info['stage']:<12} round {info['round']}  "
                f"{info['tokens_in'] + info['tokens_out']:>7,} tokens  {request}"
            )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print a thread: path taken, artifacts, contract checks and gate decisions."""
    with store.checkpointer() as saver:
        graph = thread_workflow(saver, args.thread).build(checkpointer=saver)
        values = dict(graph.get_state(store.config(args.thread)).values)
    if not values:
        console.print(f"[red]no thread {args.thread!r} in {store.db_path()}[/]")
        return 2
    info = outcome(values)
    if args.json:
        print(
            json.dumps(
                {"thread": args.thread, **info, "state": values},
                indent=2,
                default=lambda o: o.model_dump() if hasattr(o, "model_dump") else str(o),
            )
        )
        return 0
    print(
        f"thread {args.thread}: {info['status']} at {info['stage']} (round {info['round']})"
        + (f" — {info['reason']}" if info["reason"] else "")
    )
    print("path: " + " → ".join(info["path"]))
    if info["unisolated"]:
        print(f"WARNING: {UNISOLATED}")
    print(
        f"LLM calls {info['llm_calls']}, tokens {info['tokens_in']:,} in / {info['tokens_out']:,} out, "
        f"cost {info['cost']}"
    )
    ledger = cost.breakdown(values.get("ledger", []))
    print(
        "\n"
        + cost.table(ledger["by_role"], "ledger by role")
        + "\n\n"
        + cost.table(ledger["by_model"], "ledger by model")
    )
    played = sorted({(e["role"], e["agent"]) for e in values.get("ledger", []) if e.get("agent")})
    for role, agent in played:
        print(f"{role} played by {agent}")
    print("\ngate decisions:")
    for v in values.get("verdicts", []):
        target = f" → {v['target']}" if v.get("target") else " (vote)"
        print(
            f"  round {v['round']} {v['stage']:<12} {v['role']:<9} {v['outcome']:<12}{target}"
            f"  {one_line(v['evidence'], 100)}"
        )
    for e in values.get("ledger", []):  # a new output set aside, the role's standing one kept
        if e["kind"] == "action" and e["outcome"] == "kept":
            print(f"  round {e['round']} {e['stage']:<12} {e['role']:<9} kept: {one_line(e['detail'], 100)}")
    checks = [e for e in values.get("ledger", []) if e["kind"] == "contract"]
    failed = [e for e in checks if e["outcome"] != "pass"]
    print(f"\ncontract checks: {len(checks)}, failed {len(failed)}")
    for viol in values.get("violations", []):
        print(f"  {viol['role']} {viol['phase']} {viol['key']}: {one_line(viol['detail'], 120)}")
    print("\nhandoffs (typed messages between roles):")
    for m in handoffs(values):
        print(f"  round {m['round']} {m['sender']} → {m['receiver']}: {[a['kind'] for a in m['payload']]}")
    if plan := values.get("plan"):
        print("\nplan:")
        for i, s in enumerate(plan["subtasks"], 1):
            print(f"  {i}. {s['title']}")
    if report := values.get("test_report"):
        passed = sum(c["passed"] for c in report["cases"])
        print(f"\nlast test report: {report['ending']}, {passed}/{len(report['cases'])} cases passed")
    if review := values.get("review"):
        print(f"\nreview: {review['decision']}")
        for issue in review["issues"]:
            print(f"  [{issue['severity']}] {issue['location']}: {one_line(issue['description'], 120)}")
    if code := values.get("code"):
        print("\nfiles: " + ", ".join(sorted(code["files"])))
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    """Assemble, serve or report on the embedded local model."""
    if args.action == "setup":
        chosen = [args.name] if args.name else local_model.default_team()
        for name in sorted(local_model.MODELS) if args.all else chosen:
            path = local_model.assemble(name, log=console.print)
            console.print(f"{name}: {path}")
        return 0
    if args.action == "serve":
        if (server := model_server.running_server()) is not None:
            console.print(f"already serving {server.model} at {server.base_url} (pid {server.pid})")
            return 0
        name = args.name or local_model.DEFAULT_MODEL
        server = model_server.start_server(name, port=args.port, detach=True)
        console.print(
            f"serving {server.model} at {server.base_url} (pid {server.pid}); stop with: accord model stop"
        )
        return 0
    if args.action == "stop":
        if (server := model_server.detached_server()) is None:
            console.print("no server running")
            return 1
        server.stop()
        console.print(f"stopped pid {server.pid}")
        return 0
    for name in [args.name] if args.name else local_model.default_team():
        path = local_model.gguf_path(name)
        state = "(assembled)" if path.exists() else "(not assembled: run `accord model setup`)"
        print(f"model {name}: {path} {state}")
    server = model_server.running_server()
    print(f"server: {server.base_url} pid {server.pid} ({server.model})" if server else "server: not running")
    return 0


def parser() -> argparse.ArgumentParser:
    """Return the argument parser."""
    root = argparse.ArgumentParser(prog="accord", description=__doc__)
    sub = root.add_subparsers(dest="command", required=True)

    def model_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--model",
            action="append",
            metavar="[ROLE=]NAME",
            help="model for every role, or ROLE=NAME for one role (repeatable); a letter of "
            "--mix names an embedded model",
        )
        letters = ", ".join(f"{letter} = {name}" for letter, name in local_model.MIX.items())
        p.add_argument(
            "--mix",
            metavar="ABC|ROLE=MODEL,...",
            help=f"models by role: letters for the pipeline's planner, executor and critic "
            f"({letters}), or role=letter-or-name pairs for any workflow",
        )
        p.add_argument(
            "--style",
            action="append",
            metavar="ROLE=FIELD=VALUE",
            help="a role's communication style: tone, verbosity (terse, normal, detailed) or "
            "languages (prose first, e.g. de,python); repeatable",
        )
        p.add_argument(
            "--team",
            metavar="FILE",
            help="a team file (YAML): agents, each a model or an A2A agent's URL and the roles it "
            "may play, cast onto the workflow's roles (docs/roles.md)",
        )
        p.add_argument(
            "--remote",
            action="append",
            metavar="ROLE=URL",
            help="a role played by the A2A agent at URL (accord serve --a2a --role ROLE serves "
            "one); repeatable",
        )
        context_options(p.add_argument_group("run settings (the Context; budgets at 0 mean no limit)"))
        p.add_argument("--out", help="write the produced files here")

    run = sub.add_parser("run", help="run a workflow (the development graph by default) on a task")
    run.add_argument(
        "task",
        nargs="?",
        help="the task, in words (for the pipeline: a question, then its "
        "options one per line: A. ..., B. ...)",
    )
    run.add_argument(
        "--graph",
        choices=sorted(workflows()),
        default=DEFAULT,
        help="the workflow to run (default: %(default)s)",
    )
    run.add_argument("--file", help="a file holding the task (e.g. a Python function stub)")
    run.add_argument("--thread", help="thread id (default: a new one)")
    model_options(run)
    run.set_defaults(func=cmd_run)

    resume = sub.add_parser("resume", help="continue an interrupted run, or answer the person it waits for")
    resume.add_argument("thread")
    model_options(resume)
    approval.add_options(run, resume)
    resume.set_defaults(func=cmd_resume)

    sub.add_parser("runs", help="list runs").set_defaults(func=cmd_runs)

    show = sub.add_parser("show", help="show a run")
    show.add_argument("thread")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    add_commands(sub, model_options)
    add_roles_command(sub)
    add_doctor_command(sub)
    add_eval_command(sub, model_options, run_context)
    add_audit_command(sub, model_options, run_context, stream)
    add_serve_command(sub, model_options, run_context)

    model = sub.add_parser("model", help="the embedded local model")
    model.add_argument("action", choices=["setup", "serve", "stop", "status"])
    model.add_argument(
        "--name",
        choices=sorted(local_model.MODELS),
        help="one embedded model (default: setup and status the default team's, "
        f"serve {local_model.DEFAULT_MODEL})",
    )
    model.add_argument("--all", action="store_true", help="with setup: every embedded model")
    model.add_argument("--port", type=int)
    model.set_defaults(func=cmd_model)
    return root


class _Redacting(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        return True


def keep_secrets_out() -> None:
    """Redact configured secrets from this process's log lines and, when tracing is on, from what its
    traces send to LangSmith (the client's anonymizer runs before anything is uploaded)."""
    handler = logging.StreamHandler()
    handler.addFilter(_Redacting())
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", handlers=[handler]
    )
    tracing = os.environ.get("LANGSMITH_TRACING") or os.environ.get("LANGCHAIN_TRACING_V2") or ""
    if tracing.lower() == "true":
        import langsmith

        langsmith.configure(client=langsmith.Client(anonymizer=redacted))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI."""
    keep_secrets_out()
    try:
        args = parser().parse_args(argv)
    except RegistrationError as exc:  # a workflow package that does not load: say which, run nothing
        console.print(f"[red]workflow registration: {exc}[/]")
        return 2
    try:
        return int(args.func(args))
    except local_model.ModelSetupError as exc:
        console.print(f"[red]local model: {exc}[/]")
        return 3
    except store.RunStoreError as exc:
        console.print(f"[red]{exc}[/]")
        return 5
    except sandbox.SandboxUnavailable as exc:
        console.print(f"[red]refusing to run model-written code: {exc}[/]")
        return 6


if __name__ == "__main__":
    sys.exit(main())
