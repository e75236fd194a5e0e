"""The Debugger's repair rate alone, with and without the failing call's trace, on the same wrong code.

Usage: ``python -m accord.evals.probes.debugger [--problems N] [--model NAME] [--debugger-model NAME] [--out
DIR]``.
For each of the first N HumanEval problems the Coder writes its first candidate as the development graph
does (the task alone, temperature 0). A candidate that fails the task's stated examples is what the
Debugger gets: the test run and the fix run on it twice, traced (``traced_failures=1``) and not (``0``),
and the hidden tests judge each fix. Blame's repair rate of the Debugger in an eval mixes in everything
before it; here the inputs are equal and only the trace (or the Debugger's model) differs. Rows go to
``DIR/results.jsonl`` as they come (a rerun resumes), the summary to ``DIR/report.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from accord.evals.benchmarks.humaneval import one_step_plan, passes_hidden_tests, problems
from accord.evals.runner import Recorder, source_version
from accord.nodes.coding.prompts import ALONE_PROMPT, SYSTEM
from accord.nodes.coding.writing import write_function
from accord.nodes.development import debugger
from accord.nodes.development.artifacts import Candidates
from accord.nodes.development.roles import SPECS
from accord.nodes.requests import parse_request
from accord.nodes.views import task_view
from accord.runtime import local_model, model_server
from accord.state.artifacts import CodeArtifact, TestReport
from accord.state.context import Context
from accord.state.graph_state import dump, read
from accord.state.stage import OutputError, StageCall

VARIANTS = {"traced": 1, "untraced": 0}
"""The probe's two Debuggers by the failing calls their test run traces."""


def _call(
    context: Context, stage: str, role: str, models: Mapping[str, BaseChatModel] | None = None
) -> StageCall:
    return StageCall(stage=stage, role=role, round=1, context=context, models=models or {}, spec=SPECS[role])


def _spent(call: StageCall) -> dict[str, float]:
    calls = [e for e in call.ledger if e.kind == "llm"]
    return {
        "tokens_in": sum(e.tokens_in for e in calls),
        "tokens_out": sum(e.tokens_out for e in calls),
        "latency_s": round(sum(e.latency_s for e in calls), 2),
    }


def first_candidate(
    context: Context, problem: Mapping[str, Any], models: Mapping[str, BaseChatModel] | None = None
) -> dict[str, Any]:
    """Write the Coder's first candidate and run the stated examples on it (``models``: scripted, in
    tests; else the Context's)."""
    task = parse_request(problem["prompt"])
    call = _call(context, "implementing", "coder", models)
    try:
        code = write_function(
            call, SYSTEM, task, ALONE_PROMPT.format(task=task_view(task), name=task.entry_point)
        )
    except OutputError as exc:
        return {"id": problem["task_id"], "variant": "input", "code": None, "detail": str(exc)[:300]}
    state = {"task": dump(task), "plan": dump(one_step_plan(task)), "code": dump(code)}
    report = read(debugger.run_tests(state, _call(context, "testing", "debugger")), "test_report", TestReport)
    assert report is not None
    return {
        "id": problem["task_id"],
        "variant": "input",
        "code": dump(code),
        "examples_pass": report.passed,
        "hidden_pass": passes_hidden_tests(problem, code)[0],
        **_spent(call),
    }


def fixed(
    context: Context,
    problem: Mapping[str, Any],
    code: CodeArtifact,
    variant: str,
    models: Mapping[str, BaseChatModel] | None = None,
) -> dict[str, Any]:
    """Run the Debugger's test run and fix on ``code`` with the variant's tracing; judge the fix."""
    task = parse_request(problem["prompt"])
    context = dataclasses.replace(context, traced_failures=VARIANTS[variant])
    # The candidate is in the pool, as after the selection: a fix that hands it back is drawn again.
    state: dict[str, Any] = {
        "task": dump(task),
        "plan": dump(one_step_plan(task)),
        "code": dump(code),
        "candidates": dump(Candidates(items=(code,))),
    }
    state.update(debugger.run_tests(state, _call(context, "testing", "debugger")))
    call = _call(context, "debugging", "debugger", models)
    try:
        new = read(debugger.fix(state, call), "code", CodeArtifact)
    except OutputError as exc:
        return {
            "id": problem["task_id"],
            "variant": variant,
            "repaired": False,
            "examples_pass": False,
            "changed": False,
            "detail": str(exc)[:300],
            **_spent(call),
        }
    assert new is not None
    after = read(
        debugger.run_tests({**state, "code": dump(new)}, _call(context, "testing", "debugger")),
        "test_report",
        TestReport,
    )
    assert after is not None
    return {
        "id": problem["task_id"],
        "variant": variant,
        "repaired": passes_hidden_tests(problem, new)[0],
        "examples_pass": after.passed,
        "changed": new.files != code.files,
        **_spent(call),
    }


def summary(rows: list[dict[str, Any]]) -> str:
    """Return the probe's report: the Debugger's repairs per variant, and paired."""
    inputs = [r for r in rows if r["variant"] == "input"]
    wrong = {r["id"] for r in inputs if r.get("code") and not r["examples_pass"] and not r["hidden_pass"]}
    fixes = {(r["id"], r["variant"]): r for r in rows if r["variant"] in VARIANTS and r["id"] in wrong}
    both = sorted(i for i in wrong if all((i, v) in fixes for v in VARIANTS))
    lines = [
        f"{len(inputs)} problems; {len(wrong)} first candidates fail their stated examples and the "
        f"hidden tests; {len(both)} of them fixed by both Debuggers.",
        "",
        "| Debugger | repaired (hidden tests) | stated examples pass | code changed | "
        "tokens in / out per fix | model seconds per fix |",
        "|---|---|---|---|---|---|",
    ]
    for variant in VARIANTS:
        done = [fixes[(i, variant)] for i in both]
        n = max(1, len(done))

        def mean(key: str, done: list[dict[str, Any]] = done, n: int = n) -> float:
            return float(sum(r[key] for r in done)) / n

        lines.append(
            f"| {variant} | {sum(r['repaired'] for r in done)} / {len(done)} | "
            f"{sum(r['examples_pass'] for r in done)} / {len(done)} | "
            f"{sum(r['changed'] for r in done)} / {len(done)} | "
            f"{mean('tokens_in'):,.0f} / {mean('tokens_out'):,.0f} | {mean('latency_s'):.1f} |"
        )
    only = {
        v: [
            i
            for i in both
            if fixes[(i, v)]["repaired"] and not any(fixes[(i, w)]["repaired"] for w in VARIANTS if w != v)
        ]
        for v in VARIANTS
    }
    lines += [
        "",
        "Repaired by one Debugger only: "
        + "; ".join(f"{v}: {', '.join(ids) or 'none'}" for v, ids in only.items())
        + ".",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Probe the Debugger on the first candidates that fail their examples; write rows and the report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problems", type=int, default=164)
    parser.add_argument(
        "--model",
        default=local_model.DEFAULT_MODEL,
        help="the Coder's model (and the Debugger's, unless --debugger-model names another)",
    )
    parser.add_argument("--debugger-model", help="the Debugger's model, fixing the Coder's candidates")
    parser.add_argument("--out", type=Path, default=Path("results/debug-probe"))
    args = parser.parse_args()
    recorder = Recorder(args.out)
    path = recorder.path
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {(r["id"], r["variant"]): r for r in rows}
    debugger_model = args.debugger_model or args.model
    context = Context(model=args.model, role_models={"debugger": {"model": debugger_model}})
    version = source_version()
    try:
        for problem in list(problems().values())[: args.problems]:
            pid = problem["task_id"]
            if (pid, "input") not in done:
                done[(pid, "input")] = given = {**first_candidate(context, problem), "version": version}
                recorder.add(given)
            given = done[(pid, "input")]
            if not given.get("code") or given["examples_pass"] or given["hidden_pass"]:
                continue
            code = CodeArtifact.model_validate(given["code"])
            for variant in VARIANTS:
                if (pid, variant) not in done:
                    row = {**fixed(context, problem, code, variant), "version": version}
                    done[(pid, variant)] = row
                    recorder.add(row)
    finally:
        model_server.stop_owned()
    report = summary(list(done.values()))
    (args.out / "report.md").write_text(
        f"# The Debugger with and without the trace\n\nCoder {args.model}, "
        f"Debugger {debugger_model}: {report}"
    )
    print(report)


if __name__ == "__main__":
    main()
