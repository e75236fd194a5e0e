"""Driving a run from the command line: its Context from the defaults, the environment and the options,
the stream of finished stages, and the files and summary it ends with.

``accord run``, ``resume``, ``fork`` and ``audit`` all drive a thread through here.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import textwrap
import time
from pathlib import Path
from typing import Any, NoReturn, get_args, get_type_hints

from rich.console import Console
from rich.markup import escape

from accord.accountability.account import outcome
from accord.cli import approval
from accord.graphs import store
from accord.graphs.catalog import DEFAULT, workflows
from accord.nodes import llm
from accord.nodes.pipeline.roles import TEAM as PIPELINE_TEAM
from accord.runtime import local_model, model_server
from accord.state.context import Context
from accord.state.settings import run_defaults
from accord.state.team import Team, load_team

console = Console(stderr=True, highlight=False, soft_wrap=True)


def one_line(text: str, width: int) -> str:
    """Return ``text`` on one line (whitespace runs collapsed), cut to ``width`` with an ellipsis: a table
    row stays a row however many lines a test's output has (``--json`` keeps the full text)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


ROLE_OPTIONS = ("model", "role_models", "role_styles", "remote_roles", "role_agents")
"""Context fields set through ``--model [ROLE=]NAME``, ``--style ROLE=FIELD=VALUE``, ``--remote ROLE=URL``
and ``--team FILE``, not generated."""


def field_docs(cls: type) -> dict[str, str]:
    """Return each attribute docstring of a class on one line, by attribute name."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(body, ast.ClassDef)
    docs = {}
    for target, doc in itertools.pairwise(body.body):
        if (
            isinstance(target, ast.AnnAssign)
            and isinstance(target.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
        ):
            docs[target.target.id] = " ".join(str(doc.value.value).replace("``", "").split()).rstrip(".")
    return docs


def context_options(p: argparse._ActionsContainer) -> None:
    """Add one option per scalar Context field (``max_rounds`` → ``--max-rounds``), defaulting to unset."""
    hints, docs = get_type_hints(Context), field_docs(Context)
    for field in dataclasses.fields(Context):
        if field.name in ROLE_OPTIONS:
            continue
        default = "" if field.default is None else f"default {field.default}; "
        option = "--" + field.name.replace("_", "-")
        described = f"{docs.get(field.name, '')} ({default}ACCORD_{field.name.upper()})"
        if hints[field.name] is bool:  # a flag: given, it sets the field
            p.add_argument(option, action="store_const", const=True, default=None, help=described)
            continue
        kind = next(t for t in (int, float, str) if t in (hints[field.name], *get_args(hints[field.name])))
        p.add_argument(option, type=kind, default=None, metavar=kind.__name__.upper(), help=described)


def run_context(args: argparse.Namespace) -> Context:
    """Return the run's Context: the defaults, the environment's ``ACCORD_*`` values, then the options."""
    try:
        base = run_defaults()
    except ValueError as exc:
        usage_error(str(exc))
    role_models = {role: dict(settings) for role, settings in base.role_models.items()}
    remote_roles, role_agents = dict(base.remote_roles), dict(base.role_agents)
    if team := cast(args):
        for role, agent in ((role, team.agent_of(role)) for role in team.cast):
            role_agents[role] = agent.name
            role_models.setdefault(role, {}).update(
                {k: v for k, v in (("model", agent.model), ("base_url", agent.base_url)) if v}
            )
            if agent.url:
                remote_roles[role] = agent.url
    default_model = base.model
    for spec in args.model or []:
        role, _, name = spec.rpartition("=")
        name = local_model.MIX.get(name, name)  # a letter names an embedded model: --model C
        if role:
            role_models.setdefault(role.lower(), {})["model"] = name
        else:
            default_model = name
    for role, name in mix_roles(args.mix).items() if getattr(args, "mix", None) else ():
        role_models.setdefault(role, {})["model"] = name
    role_styles = {role: dict(style) for role, style in base.role_styles.items()}
    for spec in args.style or []:
        role, _, setting = spec.partition("=")
        name, _, value = setting.partition("=")
        if not (role and name and value):
            usage_error(f"--style wants ROLE=FIELD=VALUE, got {spec!r}")
        role_styles.setdefault(role.lower(), {})[name] = value.split(",") if name == "languages" else value
    for spec in getattr(args, "remote", None) or []:
        role, _, url = spec.partition("=")
        if not (role and url.startswith(("http://", "https://"))):
            usage_error(f"--remote wants ROLE=URL (an http or https URL), got {spec!r}")
        remote_roles[role.lower()] = url
    options = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(Context)
        if f.name not in ROLE_OPTIONS and getattr(args, f.name, None) is not None
    }
    try:  # a bad style value is refused here, before anything runs
        context = dataclasses.replace(
            base,
            model=default_model,
            role_models=role_models,
            role_styles=role_styles,
            remote_roles=remote_roles,
            role_agents=role_agents,
            **options,
        )
    except ValueError as exc:
        usage_error(str(exc))
    for role in ("", *context.role_models):  # a model no endpoint serves, refused before anything runs
        if reason := llm.unservable(context.model_for(role)):
            usage_error(reason)
    return context


def cast(args: argparse.Namespace) -> Team | None:
    """Return the team the ``--team`` file casts, checked against the workflow the command runs (the
    ``--graph``, or the audit's) before anything runs; None without ``--team``."""
    if not getattr(args, "team", None):
        return None
    workflow = getattr(args, "graph", None) or ("audit" if args.command == "audit" else DEFAULT)
    try:
        team = load_team(Path(args.team))
    except ValueError as exc:
        usage_error(str(exc))
    if problems := team.problems(workflows()[workflow].specs):
        usage_error(
            f"team file {args.team}: the {workflow} workflow cannot run this cast: " + "; ".join(problems)
        )
    return team


def mix_roles(spec: str) -> dict[str, str]:
    """Return the models by role a ``--mix`` names: ``ABC`` (the pipeline's Planner, Executor and Critic,
    in that order) or ``planner=A,critic=NAME`` (any roles; a letter or a model's name)."""
    letters = ", ".join(f"{letter} = {name}" for letter, name in local_model.MIX.items())

    def model(value: str) -> str:
        if len(value) == 1:
            if value.upper() not in local_model.MIX:
                usage_error(f"--mix: no model {value!r} ({letters})")
            return local_model.MIX[value.upper()]
        return value

    if "=" not in spec:
        if len(spec) != len(PIPELINE_TEAM):
            usage_error(f"--mix {spec!r}: give one letter per role ({', '.join(PIPELINE_TEAM)}): {letters}")
        return {role: model(letter) for role, letter in zip(PIPELINE_TEAM, spec, strict=True)}
    pairs = [part.partition("=") for part in spec.split(",")]
    if any(not role or not value for role, _, value in pairs):
        usage_error(f"--mix wants ROLE=MODEL[,ROLE=MODEL...] or letters such as ABC, got {spec!r}")
    return {role.strip().lower(): model(value.strip()) for role, _, value in pairs}


def read_text_file(path: Path) -> str:
    """Return a file's text.

    Raises:
        ValueError: it is missing, unreadable, or binary (not UTF-8 text).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not text (binary or not UTF-8)") from None
    if "\x00" in text:
        raise ValueError(f"{path} is not text (it holds NUL bytes)")
    return text


def read_task(path: Path) -> str:
    """Return a task file's text, or end the command with one line saying why it cannot be read."""
    try:
        return read_text_file(path)
    except ValueError as exc:
        usage_error(str(exc))


def usage_error(message: str) -> NoReturn:
    """Say what is wrong with the command line and exit as argparse does (status 2)."""
    console.print(f"accord: error: {message}")
    raise SystemExit(2)


def stream(graph: Any, inputs: Any, cfg: Any, context: Any) -> dict[str, Any]:
    """Run the graph, printing one line per finished stage."""
    started, tokens = time.monotonic(), [0, 0]
    traced = {**cfg, "tags": ["accord", "configuration:accountable"]}  # LangSmith run tags
    # ``sync``: each stage's checkpoint is on disk before the next stage starts, so a killed run
    # resumes with nothing redone (LangGraph's default, ``async``, may lose the last step).
    for chunk in graph.stream(inputs, traced, context=context, stream_mode="updates", durability="sync"):
        for update in chunk.values():
            if not isinstance(update, dict) or not update:  # e.g. an interrupt's ``__interrupt__`` tuple
                continue
            for entry in update.get("ledger", []):
                if entry["kind"] == "llm":
                    tokens[0] += entry["tokens_in"]
                    tokens[1] += entry["tokens_out"]
            verdicts = [v for v in update.get("verdicts", []) if v.get("target")]
            elapsed = time.monotonic() - started
            if verdicts:
                v = verdicts[-1]
                colour = "green" if v["outcome"] == "pass" else "yellow"
                evidence = escape(one_line(v["evidence"], 70))
                console.print(
                    f"[dim]{elapsed:7.1f}s[/] round {v['round']}  [bold]{v['stage']:<12}[/] "
                    f"{v['role']:<9} [{colour}]{v['outcome']:<12}[/] → {v['target']:<12} "
                    f"[dim]tokens {tokens[0]:,} in / {tokens[1]:,} out  {evidence}[/]"
                )
            elif "status" in update:
                colour = {"completed": "green", "unverified": "yellow"}.get(update["status"], "red")
                console.print(
                    f"[dim]{elapsed:7.1f}s[/] [{colour} bold]{update['status']}[/] "
                    f"{escape(one_line(update.get('reason', ''), 200))}"
                )
    # The thread's head, not ``cfg``'s checkpoint: a fork's config names the checkpoint it started from.
    return dict(graph.get_state(store.config(cfg["configurable"]["thread_id"])).values)


def write_files(values: dict[str, Any], out: Path) -> None:
    files = (values.get("code") or {}).get("files", {})
    for rel, content in files.items():
        target = (out / rel).resolve()
        if out.resolve() not in target.parents:
            console.print(f"[red]skipping {rel}: outside {out}[/]")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    if files:
        console.print(f"wrote {len(files)} files to {out}/: {', '.join(sorted(files))}")


def finish(values: dict[str, Any], thread: str, out: Path | None, started: float) -> int:
    info = outcome(values)
    if out is not None:
        write_files(values, out)
    if answer := values.get("answer"):
        console.print(f"answer: {answer['choice']} — {answer['justification'][:300]}")
    console.print(
        f"thread [bold]{thread}[/]: {info['status']} after {time.monotonic() - started:.1f}s, "
        f"{info['llm_calls']} LLM calls, {info['tokens_in']:,} tokens in / {info['tokens_out']:,} out"
        + (f" — {info['reason']}" if info["reason"] else "")
    )
    return 0 if info["status"] == "completed" else 1


def stopped(thread: str, exc: Exception) -> int:
    console.print(
        f"[red]run stopped by {type(exc).__name__}: {exc}[/]\n"
        f"its last checkpoint is kept; resume with: accord resume {thread}"
    )
    return 4


def drive(
    graph: Any,
    inputs: Any,
    cfg: Any,
    args: argparse.Namespace,
    thread: str,
    started: float,
    context: Context,
) -> int:
    """Run a thread until it ends or is interrupted, stop the local model, report; return the exit code.
    ``context`` is built (``run_context``) before anything is written, so bad options write nothing."""
    try:
        values = stream(graph, inputs, cfg, context)
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted; resume with: accord resume {thread}[/]")
        return 130
    except Exception as exc:  # the run stays at its last checkpoint, whatever broke
        return stopped(thread, exc)
    finally:
        model_server.stop_owned()
    if asked := approval.questions(graph, store.config(thread)):  # the head: a fork's cfg names its start
        return approval.show(console, asked, thread)
    return finish(values, thread, Path(args.out) if args.out else None, started)
