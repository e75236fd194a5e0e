"""``accord eval``: run a benchmark under a configuration, or build one report from result folders."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from accord.cli.doctor import require_sandbox

console = Console(stderr=True, highlight=False, soft_wrap=True)


def cmd_eval(args: argparse.Namespace, context: Any) -> int:
    """Run the eval (or ``compare``), then write the report for the output folder."""
    from accord.evals import configs, runner
    from accord.evals.benchmarks import BENCHMARKS, Benchmark, user_set
    from accord.evals.reports import summary as report

    if args.benchmark == "compare":
        return _compare(args)
    if args.benchmark == "judge":
        return _judge(args)
    if args.benchmark == "run":
        return _run_declared(args, context)
    benchmark: Benchmark
    if args.benchmark == "jsonl":
        if not args.file:
            console.print("[red]accord eval jsonl needs --file TASKS.jsonl[/]")
            return 2
        if args.backend == "celery":
            console.print("[red]a user's task file runs on the local backend; leave out --backend celery[/]")
            return 2
        try:
            benchmark = user_set(Path(args.file))
        except ValueError as exc:
            console.print(f"[red]{exc}[/]")
            return 2
    elif args.benchmark in BENCHMARKS:
        benchmark = BENCHMARKS[args.benchmark]
    else:
        console.print(
            f"[red]unknown benchmark {args.benchmark!r} (known: {', '.join(BENCHMARKS)}, jsonl, compare)[/]"
        )
        return 2
    if args.config not in benchmark.configurations:
        console.print(
            f"[red]{benchmark.name} has no configuration {args.config!r} "
            f"(it has: {', '.join(benchmark.configurations)})[/]"
        )
        return 2
    require_sandbox(console)
    judge = None
    if args.mast_judge:
        if args.backend == "celery":
            console.print("[red]--mast-judge runs with the local backend; leave out --backend celery[/]")
            return 2
        from accord.accountability import mast

        judge = mast.judge_on(args.mast_judge)
    config = configs.on_models(benchmark.configurations[args.config], context)
    if config.needs is not None:
        try:
            config.needs()
        except RuntimeError as exc:
            console.print(f"[red]{exc}[/]")
            return 2
    ids = args.ids
    if args.split:
        from accord.evals.benchmarks import splits

        try:
            own = Path(args.file) if args.benchmark == "jsonl" else None  # a user's set: its split beside it
            ids = splits.narrowed("jsonl" if own else benchmark.name, args.split, tuple(args.ids or ()), own)
        except ValueError as exc:
            console.print(f"[red]{exc}[/]")
            return 2
    tasks = _tasks(benchmark, ids, args.limit, whole_split=bool(args.split and not args.ids))
    out = Path(args.out or Path("out") / "eval" / benchmark.name)
    columns = (
        TextColumn(f"{config.name}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[figures]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        job = bar.add_task(config.name, total=len(tasks), figures="")

        def progress(done: int, total: int, figures: str) -> None:
            bar.update(job, completed=done, figures=figures)

        try:
            if args.backend == "celery":
                from accord.evals import distributed

                rows = distributed.submit(
                    benchmark.name,
                    config.name,
                    tasks,
                    out,
                    context,
                    progress,
                    timeout_s=args.wait_s or distributed.FOREVER,
                )
            else:
                rows = runner.run(
                    benchmark,
                    config,
                    tasks,
                    out,
                    context,
                    workers=args.workers,
                    progress=progress,
                    judge=judge,
                    marks={"split": args.split},
                )
        except RuntimeError as exc:  # a task that did not finish, a missing broker, a timeout
            console.print(f"[red]{exc}[/]")
            return 1
    solved = sum(r["passed"] for r in rows)
    console.print(
        f"{config.name}: {solved}/{len(rows)} solved ({solved / max(1, len(rows)):.1%}); results in {out}"
    )
    paths = report.write(report.collect([out]), out)
    console.print(f"report: {', '.join(str(p) for p in paths)}")
    if args.langsmith:
        _experiment(benchmark.name, config.name, tasks, rows)
    return 0


def _tasks(benchmark: Any, ids: Any, limit: int | None, whole_split: bool) -> list[Any]:
    """Return the tasks a run takes; a whole split's that this machine cannot run are named and left out."""
    from accord.evals import runner

    if not whole_split:
        return runner.select(benchmark.tasks(), ids, limit)
    tasks, left_out = runner.select_split(benchmark.tasks(), ids, limit)
    if left_out:
        console.print(
            f"[yellow]{len(left_out)} of the split's {len(ids)} tasks cannot run here and are left "
            f"out: {', '.join(left_out)}[/]"
        )
    return tasks


def _compare(args: argparse.Namespace) -> int:
    """Build one report from result folders, refusing rows that do not compare
    (``evals.reports.comparable``)."""
    from accord.evals import runner
    from accord.evals.reports import comparable
    from accord.evals.reports import summary as report

    if not args.dirs:
        console.print("[red]accord eval compare needs one or more result folders[/]")
        return 2
    out = Path(args.out or args.dirs[0])
    for folder in args.dirs:  # rows written before rows said where tokens and time go
        if filled := runner.fill_role_costs(Path(folder)):
            console.print(f"{folder}: {filled} rows gained their costs per role from the checkpoints")
    rows = report.collect([Path(d) for d in args.dirs])
    rows = report.common(rows) if args.common else rows
    if args.separate:
        rows = comparable.separately(rows)
    if found := comparable.problems(rows, dev=args.dev):
        if len(args.dirs) > 1:  # which folder holds which code
            found.append(
                "the folders hold: "
                + "; ".join(
                    f"{d} {', '.join(sorted({comparable.code_of(r) for r in runner.read_rows(Path(d))}))}"
                    for d in args.dirs
                )
            )
        console.print(
            "[red]these rows do not compare side by side:[/]\n"
            + "\n".join(f"  {p}" for p in found)
            + "\n(--separate shows each commit's rows as columns of their own; --common keeps "
            "the tasks every configuration ran)"
        )
        return 1
    paths = report.write(rows, out, pages=args.pages)
    console.print(f"report: {', '.join(str(p) for p in paths)}")
    return 0


def _run_declared(args: argparse.Namespace, base: Any) -> int:
    """Run every configuration of a declared experiment at this commit (``evals.declared``)."""
    from accord.evals import configs, declared, runner
    from accord.evals.paths import RESULTS_ROOT
    from accord.evals.reports import comparable
    from accord.evals.reports import summary as report
    from accord.nodes import llm

    if len(args.dirs) != 1:
        console.print("[red]accord eval run needs one experiment: a name in evals/experiments or a .toml[/]")
        return 2
    try:
        experiment = declared.load(args.dirs[0])
        benchmark = declared.benchmark_of(experiment)
        runs = [(run, declared.context_for(base, experiment, run)) for run in experiment.configurations]
        tasks = _tasks(
            benchmark,
            declared.task_ids(experiment),
            experiment.limit,
            whole_split=bool(experiment.split and not experiment.ids),
        )
        for run, _ in runs:  # a configuration missing what it runs stops the experiment before any task
            if (needs := benchmark.configurations[run.config].needs) is not None:
                needs()
        if unservable := [
            reason
            for _, context in runs
            for role in ("", *context.role_models)
            if (reason := llm.unservable(context.model_for(role)))
        ]:
            raise ValueError(unservable[0])
    except (ValueError, KeyError, RuntimeError) as exc:
        console.print(f"[red]{exc}[/]")
        return 2
    if (changed := runner.changed_files()) and not args.dev:
        console.print(
            f"[red]refusing to run {experiment.name} on code that differs from its commit: "
            f"{', '.join(changed[:10])}{' ...' if len(changed) > 10 else ''}[/]\n"
            "commit first, or pass --dev (its rows are marked dev and never published)"
        )
        return 2
    out = Path(args.out or RESULTS_ROOT / experiment.name)
    if (out / runner.RESULTS).exists() and (
        other := {comparable.code_of(r) for r in runner.read_rows(out)}
        - {comparable.code_of({"commit": runner.source_commit(), "dirty": bool(changed)})}
    ):
        # A rerun at another commit goes to a folder of its own: rows of two commits never mix.
        console.print(
            f"[red]{out} holds rows of other code ({', '.join(sorted(other))}); choose another --out[/]"
        )
        return 2
    require_sandbox(console)
    marks = {"experiment": experiment.name, "dev": bool(args.dev and changed), "split": experiment.split}
    named = [configs.on_models(benchmark.configurations[run.config], context) for run, context in runs]
    names = [config.name for config in named]
    for i, ((run, context), config) in enumerate(zip(runs, named, strict=True)):
        own, caps = dict(run.settings), None
        if run.same_tokens_as is not None:
            team = names[declared.team_of(experiment.configurations[:i], run)]
            try:
                caps = declared.token_caps(runner.read_rows(out), team)
            except ValueError as exc:
                console.print(f"[red]{exc}[/]")
                return 1
            console.print(
                f"{config.name}: each task capped at {team}'s tokens on it "
                f"(mean {sum(caps.values()) / len(caps):,.0f} per task)"
            )
        # What the experiment sets for this configuration alone is the configuration's own, as
        # no-diversity's max_candidates is: compare lets it differ between columns.
        config = dataclasses.replace(config, settings={**config.settings, **own})
        try:
            rows = runner.run(benchmark, config, tasks, out, context, marks=marks, caps=caps)
        except RuntimeError as exc:
            console.print(f"[red]{exc}[/]")
            return 1
        solved = sum(r["passed"] for r in rows)
        console.print(f"{config.name}: {solved}/{len(rows)} solved; results in {out}")
        # The report after each configuration: an experiment that spans sessions shows what has finished.
        paths = report.write(report.collect([out]), out)
    console.print(f"report: {', '.join(str(p) for p in paths)}")
    return 0


def _experiment(benchmark: str, config: str, tasks: Any, rows: Any) -> None:
    from accord.evals import langsmith_experiment

    results = langsmith_experiment.push(benchmark, config, tasks, rows)
    scores = [e.score for r in results for e in r["evaluation_results"]["results"] if e.key == "pass@1"]
    where = (
        "uploaded to LangSmith"
        if langsmith_experiment.uploading()
        else "evaluated locally (no LANGSMITH_API_KEY): nothing was sent"
    )
    console.print(
        f"experiment {results.experiment_name}: pass@1 {sum(scores) / max(1, len(scores)):.1%} "
        f"over {len(scores)} tasks; {where}"
    )


def _judge(args: argparse.Namespace) -> int:
    """Judge a solution file against one task (exit 0: pass, 1: fail), or re-judge a result folder's rows
    from the code they keep (exit 0: every verdict reproduced)."""
    from accord.evals import rejudge

    require_sandbox(console)
    tasks = Path(args.file) if args.file else None
    if args.rows:
        try:
            verdicts = list(rejudge.rejudge(Path(args.rows), tasks))
        except (ValueError, OSError) as exc:
            console.print(f"[red]{exc}[/]")
            return 2
        judged = [v for v in verdicts if v.passed is not None]
        differ = [v for v in judged if not v.reproduced]
        for v in differ:
            print(
                f"{v.row['config']} {v.row['id']}: the row says {v.row['passed']}, "
                f"now {v.passed} ({v.detail})"
            )
        print(
            f"{len(judged) - len(differ)} of {len(judged)} verdicts reproduced"
            + (
                f"; {len(verdicts) - len(judged)} rows kept no code to judge"
                if len(judged) < len(verdicts)
                else ""
            )
        )
        return 0 if judged and not differ else 1
    if not (args.id and args.solution) or (not args.dirs and tasks is None):
        console.print(
            "[red]accord eval judge SET --id ID --solution FILE (or --file TASKS.jsonl), or --rows DIR[/]"
        )
        return 2
    try:
        benchmark = rejudge.benchmark_named(args.dirs[0] if args.dirs else "", tasks)
        code = rejudge.solution_code(benchmark, Path(args.solution))
        passed, detail = rejudge.judge(benchmark, args.id, code)
    except (ValueError, KeyError, OSError, UnicodeDecodeError) as exc:
        console.print(f"[red]{exc.args[0] if isinstance(exc, KeyError) else exc}[/]")
        return 2
    reason = detail.strip().splitlines()[-1] if detail.strip() else ""
    print("pass" if passed else f"fail: {reason or 'the checks did not pass'}")
    return 0 if passed else 1


def add_eval_command(
    sub: Any,
    model_options: Callable[[argparse.ArgumentParser], None],
    context: Callable[[argparse.Namespace], Any],
) -> None:
    """Register ``accord eval`` on the CLI's subparsers; ``context`` builds the run Context from args."""
    from accord.evals.benchmarks import BENCHMARKS

    configurations = dict.fromkeys(name for b in BENCHMARKS.values() for name in b.configurations)
    p = sub.add_parser("eval", help="run a benchmark under a configuration; `eval compare DIR...` reports")
    p.add_argument(
        "benchmark",
        help=f"{', '.join(BENCHMARKS)}, jsonl (your own --file), compare, run (a declared experiment), "
        "or judge (a solution against a task, or a folder's rows again)",
    )
    p.add_argument(
        "dirs",
        nargs="*",
        help="for compare: result folders; for run: the experiment's name "
        "(evals/experiments/NAME.toml) or its file; for judge: the set",
    )
    p.add_argument(
        "--config",
        default="accountable",
        choices=list(configurations),
        help="which configuration of the benchmark's workflow",
    )
    p.add_argument(
        "--file",
        help="for jsonl: your function tasks, one JSON object per line with id, "
        "prompt, test (defining check(candidate)) and entry_point",
    )
    p.add_argument("--id", help="for judge: the task to judge the solution against")
    p.add_argument("--solution", help="for judge: the solution file (a module, or a program's entry point)")
    p.add_argument("--rows", help="for judge: a result folder whose rows are judged again from their code")
    p.add_argument("--limit", type=int, help="the first N tasks")
    p.add_argument("--ids", nargs="+", help="these task ids only")
    p.add_argument(
        "--split",
        choices=["dev", "test"],
        help="only the tasks of this half of the set's frozen split (data/SET/SPLIT.json): dev "
        "for tuning, test for published figures",
    )
    p.add_argument(
        "--common",
        action="store_true",
        help="for compare: report only the tasks that every configuration ran",
    )
    p.add_argument(
        "--separate",
        action="store_true",
        help="for compare: rows of different commits as columns of their own (config@commit)",
    )
    p.add_argument(
        "--pages",
        action="store_true",
        help="for compare: also write each task's run page into DIR/runs, linked from report.html",
    )
    p.add_argument(
        "--dev",
        action="store_true",
        help="for run: run on changed code, its rows marked dev; for compare: accept them",
    )
    p.add_argument("--workers", type=int, default=1, help="tasks run concurrently against the endpoint")
    p.add_argument(
        "--backend",
        choices=["local", "celery"],
        default="local",
        help="celery: queue the tasks for `accord worker` processes (ACCORD_BROKER_URL, ACCORD_DATABASE_URL)",
    )
    p.add_argument(
        "--wait-s",
        type=float,
        default=0.0,
        help="with --backend celery: give up waiting for the workers after this long (0: never)",
    )
    p.add_argument(
        "--mast-judge",
        metavar="MODEL",
        help="also ask MAST's LLM judge on MODEL (embedded or an endpoint's) for the failure "
        "modes no detector found, on every configuration's trajectories alike",
    )
    p.add_argument(
        "--langsmith",
        action="store_true",
        help="also record the results as a LangSmith experiment (local only without a key)",
    )
    model_options(p)
    p.set_defaults(func=lambda args: cmd_eval(args, context(args)))

    w = sub.add_parser("worker", help="run eval tasks queued with `accord eval --backend celery`")
    w.add_argument("--concurrency", type=int, default=1, help="tasks this worker runs at once")
    w.set_defaults(func=cmd_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    """Run a Celery worker until it is stopped."""
    from accord.evals import distributed

    try:
        distributed.worker(args.concurrency)
    except distributed.ScaleOutError as exc:
        console.print(f"[red]{exc}[/]")
        return 2
    return 0
