"""Reports from eval results: ``summary.json``, ``report.md`` and two plots (``evals.reports.plots``).

The table compares configurations as SEMAP's and the accountability paper's tables do, with deltas
against ``simple``; the plots are SEMAP's failures per round by category (its Figure 2) and the
accountability paper's accuracy against cost with latency as colour and the Pareto frontier (its Figure 3).
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accord.accountability.mast import CATEGORIES
from accord.evals.configs import audit, development
from accord.evals.reports import classification, comparable, plots, stats
from accord.evals.reports import page as report_page
from accord.evals.runner import read_rows

ORDER = list(dict.fromkeys([*development.CONFIGURATIONS, *audit.CONFIGURATIONS]))
"""Configurations in the order reports list them: the baselines first, then Accord, then ablations."""
BASELINE = "simple"
REFERENCE = "accountable"
"""The configuration every other one is paired with, task by task, when it is present."""


def collect(dirs: Iterable[Path]) -> list[dict[str, Any]]:
    """Return the rows of several result folders: a folder's latest row for each (config, task), and a later
    folder's row in place of an earlier one's of the same code. A row of other code stays beside it, so that
    a comparison sees both commits (and refuses them, or shows each as columns of its own)."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for d in dirs:
        if not (d / "results.jsonl").exists():
            raise FileNotFoundError(f"no results.jsonl in {d}")
        latest = {(r["config"], r["id"]): r for r in read_rows(d)}
        rows.update({(config, task, comparable.code_of(r)): r for (config, task), r in latest.items()})
    return list(rows.values())


def common(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the rows of the tasks that every configuration in ``rows`` ran."""
    ran: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        ran[row["config"]].add(row["id"])
    shared = set.intersection(*ran.values()) if ran else set()
    return [r for r in rows if r["id"] in shared]


def paired(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return, per configuration, who solved what on the tasks it shares with ``REFERENCE``.

    Pass rates over different task sets do not compare; this does: the same tasks, solved by both,
    by this configuration only, or by the reference only (the ids of the last two are listed).
    """
    solved: dict[str, dict[str, bool]] = defaultdict(dict)
    for row in rows:
        solved[row["config"]][row["id"]] = bool(row["passed"])
    if REFERENCE not in solved:
        return {}
    ref, out = solved[REFERENCE], {}
    for name, results in solved.items():
        if name == REFERENCE:
            continue
        shared = sorted(results.keys() & ref.keys(), key=_natural)
        out[name] = {
            "tasks": len(shared),
            "both": sum(results[t] and ref[t] for t in shared),
            "only_this": [t for t in shared if results[t] and not ref[t]],
            "only_reference": [t for t in shared if ref[t] and not results[t]],
        }
    return out


def _on(picked: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the score and the MAST failures of some rows of one configuration."""
    n = len(picked)
    scores = {
        "pass@1": round(sum(r["passed"] for r in picked) / n, 4),
        "mast_per_task": sum(len(r["mast"]) for r in picked) / n,
        "mast_by_category": {
            c: sum(f["category"] == c for r in picked for f in r["mast"]) for c in CATEGORIES
        },
        "mast_left_per_task": _left_per_task(picked),
    }
    if all("label" in r for r in picked):
        scores["f1"] = classification.metrics(picked)["f1"]
    return scores


def failures_per_task(summary: Mapping[str, Any]) -> float:
    """MAST failures per task from their count. Per-task figures are stored unrounded, since a figure rounded
    to three places prints wrong at two (155 of 164 is 0.9451, stored as 0.945 it prints 0.94); a summary
    may still hold one rounded."""
    return summary["mast"]["total"] / summary["tasks"] if summary["tasks"] else 0.0


def _left_per_task(group: list[dict[str, Any]]) -> float | None:
    """Return the MAST failures per task left after retries (those no contract caught and sent back for a
    retry); None for rows recorded before findings said whether they were retried."""
    failures = [f for r in group for f in r["mast"]]
    if not group or any("retried" not in f for f in failures):
        return None
    return sum(not f["retried"] for f in failures) / len(group)


def against_baseline(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return, per configuration, it and ``BASELINE`` on the tasks both ran: the score (and F1 on a
    labelled set) and MAST failures per task, with the failures' relative change (SEMAP's comparison)."""
    by_config: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        by_config[row["config"]][row["id"]] = row
    base = by_config.get(BASELINE, {})
    out: dict[str, Any] = {}
    for name, mine in by_config.items():
        shared = sorted(mine.keys() & base.keys(), key=_natural)
        if name == BASELINE or not shared:
            continue
        before, after = _on([base[t] for t in shared]), _on([mine[t] for t in shared])
        change = (
            (after["mast_per_task"] - before["mast_per_task"]) / before["mast_per_task"]
            if before["mast_per_task"]
            else None
        )
        out[name] = {
            "tasks": len(shared),
            "baseline": before,
            "this": after,
            "mast_change": None if change is None else round(change, 3),
        }
    return out


COUNTS = ("runs", "origins", "repairs", "wrong_inputs", "harms", "right_inputs")


def by_role_model(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Return, per role and the model it ran on, over the runs that cast it so: runs, repairs and harms
    with their rates, and how often the role was the error origin (the accountability paper's Tables IV
    and V: the planner error rate, repair and harm rates per model and role). Rows of several
    configurations add up; so do the counts of several summaries (``merged``)."""
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rows:
        for role, model in row.get("role_models", {}).items():
            tally = counts[(role, model)]
            tally.update({k: v for k, v in row["blame"]["roles"].get(role, {}).items() if k in COUNTS})
            tally["runs"] += 1
            tally["origins"] += bool(row["blame"]["origin"] and row["blame"]["origin"]["role"] == role)
    return _rated(counts)


def _rated(counts: Mapping[tuple[str, str], Mapping[str, int]]) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (role, model), c in sorted(counts.items()):
        out[role][model] = {
            **{k: c.get(k, 0) for k in COUNTS},
            "repair_rate": _rate(c.get("repairs", 0), c.get("wrong_inputs", 0)),
            "harm_rate": _rate(c.get("harms", 0), c.get("right_inputs", 0)),
            "error_origin_rate": _rate(c.get("origins", 0), c.get("runs", 0)),
        }
    return dict(out)


def merged(summary: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Return ``by_role_model`` over every configuration of a summary."""
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for s in summary.values():
        for role, models in s.get("by_role_model", {}).items():
            for model, r in models.items():
                counts[(role, model)].update({k: r[k] for k in COUNTS})
    return _rated(counts)


def per_mix(summary: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return ``simple`` against ``accountable`` for every model mix that ran both (``simple@ABC`` and
    ``accountable@ABC``; the plain names for the default model): the paper's Table III."""
    out = {}
    for name, s in summary.items():
        base, _, mix = name.partition("@")
        simple = summary.get(f"{BASELINE}@{mix}" if mix else BASELINE)
        if base == REFERENCE and simple is not None:
            out[mix or "default"] = {
                "simple": simple["pass@1"],
                "accountable": s["pass@1"],
                "delta": round(s["pass@1"] - simple["pass@1"], 4),
                "tasks": (simple["tasks"], s["tasks"]),
            }
    return out


def verdicts(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Return how each run's own verdict (``completed`` or not) agrees with the hidden tests.

    A gate that trusts a wrong test fails correct code; one that trusts weak evidence completes wrong
    code. pass@1 sees neither; this counts both, listing the correct code a run reported as failed.
    """
    claimed = [r for r in group if r["status"] == "completed"]
    unclaimed = [r for r in group if r["status"] != "completed"]
    out = {
        "completed_correct": sum(r["passed"] for r in claimed),
        "completed_wrong": sum(not r["passed"] for r in claimed),
        "failed_correct": sorted((r["id"] for r in unclaimed if r["passed"]), key=_natural),
        "failed_wrong": sum(not r["passed"] for r in unclaimed),
    }
    agree = out["completed_correct"] + out["failed_wrong"]
    return {**out, "agreement": round(agree / len(group), 4) if group else 0.0}


def cost_shares(group: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Return where a configuration's tokens and wall time go per role, over the rows that record it: LLM
    calls per task, each role's tokens and its share of them, of the wall time in model calls and in the
    sandbox (None when no row records it)."""
    costed = [r for r in group if "by_role" in r]
    if not costed:
        return None
    sums: dict[str, Counter[str]] = defaultdict(Counter)
    for r in costed:
        for role, spent in r["by_role"].items():
            sums[role].update(spent)
    tokens, wall = sum(c["tokens"] for c in sums.values()), sum(r["latency_s"] for r in costed)
    return {
        "tasks": len(costed),
        "roles": {
            role: {
                "calls_per_task": round(c["llm_calls"] / len(costed), 2),
                "tokens": c["tokens"],
                "token_share": round(c["tokens"] / tokens, 3) if tokens else 0.0,
                "model_time_share": round(c["llm_s"] / wall, 3) if wall else 0.0,
                "sandbox_time_share": round(c["sandbox_s"] / wall, 3) if wall else 0.0,
            }
            for role, c in sorted(sums.items())
        },
    }


def _natural(task_id: str) -> tuple[str | int, ...]:
    """Return a sort key that puts HumanEval/9 before HumanEval/10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", task_id))


def _rate(hits: int, chances: int) -> float | None:
    return round(hits / chances, 3) if chances else None


def _planned(group: list[dict[str, Any]]) -> bool:
    """Return whether a Planner ran in these rows (it is named among their models, their blame's roles or
    error origins): a planner error rate means nothing for a configuration without one."""
    return any(
        "planner" in r.get("role_models", {})
        or "planner" in r["blame"]["roles"]
        or (r["blame"]["origin"] or {}).get("role") == "planner"
        for r in group
    )


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the metrics of each configuration present in ``rows``."""
    by_config: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_config[row["config"]].append(row)
    order = [c for c in ORDER if c in by_config] + sorted(set(by_config) - set(ORDER))
    out: dict[str, Any] = {}
    for name in order:
        group = sorted(by_config[name], key=lambda r: _natural(r["id"]))
        n, solved = len(group), sum(r["passed"] for r in group)
        failures = [f for r in group for f in r["mast"]]
        per_round: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CATEGORIES, 0))
        for f in failures:
            per_round[str(f["round"])][f["category"]] += 1
        roles: dict[str, Counter[str]] = defaultdict(Counter)
        for r in group:
            for role, counts in r["blame"]["roles"].items():
                roles[role].update(counts)
        origins = Counter(r["blame"]["origin"]["role"] for r in group if r["blame"]["origin"])
        cost, tokens = sum(r["cost"] for r in group), sum(r["tokens_in"] + r["tokens_out"] for r in group)
        out[name] = {
            "tasks": n,
            "solved": solved,
            "pass@1": round(solved / n, 4) if n else 0.0,
            "ids": [r["id"] for r in group],
            "solved_ids": [r["id"] for r in group if r["passed"]],
            # What each task cost, and the cap a baseline matched with a team ran under (goals check both).
            "spent": {r["id"]: r["tokens_in"] + r["tokens_out"] for r in group},
            "caps": {r["id"]: cap for r in group if (cap := r.get("settings", {}).get("token_cap"))},
            # a row names every model it called, comma-separated; a role a run never reached is absent
            "models": sorted({m for r in group for m in r["model"].split(", ") if m}),
            "dates": sorted({r["date"] for r in group}),
            "mast": {
                "total": len(failures),
                "per_task": len(failures) / n if n else 0.0,
                "by_category": {c: sum(f["category"] == c for f in failures) for c in CATEGORIES},
                "by_mode": dict(Counter(f["mode"] for f in failures)),
                "by_round": dict(sorted(per_round.items(), key=lambda kv: int(kv[0]))),
                "left_per_task": _left_per_task(group),
            },
            "roles": {
                role: {
                    "repair_rate": _rate(c["repairs"], c["wrong_inputs"]),
                    "harm_rate": _rate(c["harms"], c["right_inputs"]),
                    **c,
                }
                for role, c in sorted(roles.items())
            },
            "error_origins": dict(origins),
            "planner_error_rate": round(origins.get("planner", 0) / n, 3) if _planned(group) else None,
            "median_tokens_in": statistics.median(r["tokens_in"] for r in group) if n else 0,
            "median_tokens_out": statistics.median(r["tokens_out"] for r in group) if n else 0,
            "tokens_per_task": round(tokens / n) if n else 0,
            "tokens_per_solved": round(tokens / solved) if solved else None,
            "cost": round(cost, 6),
            "cost_per_solved": round(cost / solved, 6) if solved else None,
            "median_latency_s": round(statistics.median(r["latency_s"] for r in group), 1) if n else 0.0,
            "llm_calls_per_task": round(sum(r["llm_calls"] for r in group) / n, 2) if n else 0.0,
            "verdicts": verdicts(group),
            "by_role_model": by_role_model(group),
            "cost_by_role": cost_shares(group),
            **({"classification": classification.metrics(group)} if all("label" in r for r in group) else {}),
            **({"method_level": method_level(group)} if all("methods" in r for r in group) else {}),
            **({"acceptance": acceptance(group)} if all("checks" in r for r in group) else {}),
            **({"answers": answers(group)} if all("gold" in r for r in group) else {}),
            **({"live_blame": live_agreement(group)} if all("live_blame" in r for r in group) else {}),
        }
    for name, versus in paired(rows).items():
        out[name]["versus"] = {"reference": REFERENCE, **versus}
    for name, against in against_baseline(rows).items():
        out[name]["against_baseline"] = against
    return out


def answers(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Return a multiple-choice configuration's answers: how often it gave each letter, how many items it
    left unanswered (counted wrong), and the set's floors (``stats.answer_floors``)."""
    given = Counter(r["answer"] or "none" for r in group)
    return {
        "distribution": dict(sorted(given.items())),
        "unanswered": given.get("none", 0),
        "floors": stats.answer_floors([r["gold"] for r in group], [r["options"] for r in group]),
    }


def live_agreement(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Return how often blame by what a run itself has (``live_blame``: the stated examples) says what blame
    by the benchmark's oracle says: the same error origin (a role, or none), the same verdict on the final
    result, and the same repairs and harms per role; each with Cohen's kappa where it is defined."""

    def origin(b: Mapping[str, Any]) -> str:
        return b["origin"]["role"] if b["origin"] else "none"

    def acts(b: Mapping[str, Any], role: str) -> tuple[int, int]:
        counts = b["roles"].get(role, {})
        return counts.get("repairs", 0), counts.get("harms", 0)

    origins = [(origin(r["blame"]), origin(r["live_blame"])) for r in group]
    finals = [(r["blame"]["final_correct"], r["live_blame"]["final_correct"]) for r in group]
    roles = [
        (r, role) for r in group for role in sorted(set(r["blame"]["roles"]) | set(r["live_blame"]["roles"]))
    ]
    kappas = {"origin": stats.kappa(origins), "final": stats.kappa(finals)}
    return {
        "tasks": len(group),
        "same_origin": sum(a == b for a, b in origins),
        "origin_kappa": None if kappas["origin"] is None else round(kappas["origin"], 3),
        "same_final": sum(a == b for a, b in finals),
        "final_kappa": None if kappas["final"] is None else round(kappas["final"], 3),
        "role_runs": len(roles),
        "same_acts": sum(acts(r["blame"], role) == acts(r["live_blame"], role) for r, role in roles),
    }


def method_level(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Return how many of the tasks' methods passed their own tests (ClassEval's method-level pass@1)."""
    results = [passed for r in group for passed in r["methods"].values()]
    return {
        "methods": len(results),
        "passed": sum(results),
        "pass@1": round(sum(results) / len(results), 4) if results else 0.0,
    }


def acceptance(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Return how many programs ran and how many acceptance checks passed (ProgramDev)."""
    results = [passed for r in group for passed in r["checks"].values()]
    runs = sum(bool(r["executable"]) for r in group)
    return {
        "tasks": len(group),
        "executable": runs,
        "executability": round(runs / len(group), 4) if group else 0.0,
        "checks": len(results),
        "passed": sum(results),
        "check_rate": round(sum(results) / len(results), 4) if results else 0.0,
    }


def _ids(ids: list[str]) -> str:
    return f" ({', '.join(ids)})" if ids else ""


def _fmt(value: float | None, pattern: str = "{:.2f}") -> str:
    return "—" if value is None else pattern.format(value)


def markdown(summary: Mapping[str, Any]) -> str:
    """Return the report as Markdown: the configuration table, failures, blame per role."""
    base = summary.get(BASELINE, {}).get("pass@1")
    lines = ["# Eval report", ""]
    for name, s in summary.items():
        ids = s["ids"]
        lines.append(
            f"- `{name}`: {s['tasks']} tasks ({ids[0]} … {ids[-1]}), model {', '.join(s['models']) or '—'}, "
            f"run {', '.join(s['dates'])}"
        )
    lines += [
        "",
        "| configuration | tasks | solved | pass@1 [95% CI] | Δ vs simple "
        "| MAST failures / task (FC1 / FC2 / FC3) | median tokens in / out | tokens per solved "
        "| cost per solved | median latency (s) | LLM calls / task |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        delta = "—" if base is None or name == BASELINE else f"{(s['pass@1'] - base) * 100:+.1f} pts"
        cats = " / ".join(str(s["mast"]["by_category"][c]) for c in CATEGORIES)
        tokens = f"{s['median_tokens_in']:,.0f} / {s['median_tokens_out']:,.0f}"
        cells = [
            name,
            s["tasks"],
            s["solved"],
            stats.rate(s["solved"], s["tasks"]),
            delta,
            f"{failures_per_task(s):.2f} ({cats})",
            tokens,
            _fmt(s["tokens_per_solved"], "{:,.0f}"),
            _fmt(s["cost_per_solved"], "${:.4f}"),
            f"{s['median_latency_s']:.1f}",
            f"{s['llm_calls_per_task']:.1f}",
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "Failures by MAST mode (detectors):", ""]
    for name, s in summary.items():
        modes = ", ".join(f"{m}: {k}" for m, k in sorted(s["mast"]["by_mode"].items())) or "none"
        lines.append(f"- `{name}`: {modes}")
    left = {name: s["mast"].get("left_per_task") for name, s in summary.items()}
    if any(v is not None for v in left.values()):
        lines += [
            "",
            "Failures per task left after retries (a contract violation its contract caught and "
            "sent back for a retry is counted apart), where the rows say:",
            "",
        ]
        lines += [
            f"- `{name}`: {_fmt(v)} of {failures_per_task(summary[name]):.2f}"
            for name, v in left.items()
            if v is not None
        ]
    lines += [
        "",
        "## Blame (the benchmark's oracle at every checkpoint)",
        "",
        "| configuration | role | repair rate (repairs / wrong inputs) | harm rate (harms / right inputs) |",
        "|---|---|---|---|",
    ]
    for name, s in summary.items():
        for role, r in s["roles"].items():
            lines.append(
                f"| {name} | {role} | {_fmt(r['repair_rate'])} ({r['repairs']}/{r['wrong_inputs']}) "
                f"| {_fmt(r['harm_rate'])} ({r['harms']}/{r['right_inputs']}) |"
            )
    lines += [
        "",
        "Error origins (the stage whose mistake was never repaired), by role:",
        "",
    ]
    for name, s in summary.items():
        origins = ", ".join(f"{role}: {k}" for role, k in sorted(s["error_origins"].items())) or "none"
        rate = s["planner_error_rate"]
        planner = f"; planner error rate {rate:.1%}" if rate is not None else ""
        lines.append(f"- `{name}`: {origins}{planner}")
    lines += [
        "",
        "## Final verdicts against the hidden tests",
        "",
        "A run's status is its own verdict; the hidden tests say whether it was right."
        + (
            " A one-call baseline (`single`) has no gate: it completes whatever its call returns."
            if any(name.startswith("single") for name in summary)
            else ""
        ),
        "",
        "| configuration | completed, correct | completed, wrong | failed, correct | failed, wrong "
        "| verdict agrees |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        v = s["verdicts"]
        lines.append(
            f"| {name} | {v['completed_correct']} | {v['completed_wrong']} "
            f"| {len(v['failed_correct'])}{_ids(v['failed_correct'])} | {v['failed_wrong']} "
            f"| {v['agreement']:.1%} |"
        )
    lines += _against_baseline(summary)
    lines += _models(summary)
    lines += _classification(summary)
    lines += _method_level(summary)
    lines += _acceptance(summary)
    lines += _answers(summary)
    lines += _live_blame(summary)
    versus = {name: s["versus"] for name, s in summary.items() if "versus" in s}
    if versus:
        lines += [
            "",
            f"## Paired with `{REFERENCE}` (the tasks both ran)",
            "",
            f"An exact McNemar test on the tasks one of the two solved alone; a difference is claimed at "
            f"p < {stats.ALPHA}.",
            "",
            f"| configuration | tasks | solved by both | only this | only {REFERENCE} | net | p "
            f"| this against {REFERENCE} |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, p in versus.items():
            mine, theirs = p["only_this"], p["only_reference"]
            lines.append(
                f"| {name} | {p['tasks']} | {p['both']} | {len(mine)}{_ids(mine)} "
                f"| {len(theirs)}{_ids(theirs)} | {len(mine) - len(theirs):+d} "
                f"| {stats.mcnemar(len(mine), len(theirs)):.3g} | {stats.compared(len(mine), len(theirs))} |"
            )
    lines += [
        "",
        "![failures per round](failures_per_round.png)",
        "",
        "![accuracy against cost](accuracy_cost.png)",
        "",
    ]
    return "\n".join(lines)


def _models(summary: Mapping[str, Any]) -> list[str]:
    """Return the report's sections on model mixes: simple against accountable per mix, and each role's
    rates per model, when more than one model ran."""
    by_model = merged(summary)
    if len({model for models in by_model.values() for model in models}) < 2:
        return []
    lines = []
    if mixes := per_mix(summary):
        lines += [
            "",
            f"## `{BASELINE}` against `{REFERENCE}`, per model mix",
            "",
            f"| mix | {BASELINE} | {REFERENCE} | Δ | tasks |",
            "|---|---|---|---|---|",
        ]
        for mix, m in mixes.items():
            lines.append(
                f"| {mix} | {m['simple']:.1%} | {m['accountable']:.1%} "
                f"| {m['delta'] * 100:+.1f} pts | {m['tasks'][0]} / {m['tasks'][1]} |"
            )
    lines += [
        "",
        "## Each role by the model it ran on (every configuration)",
        "",
        "| role | model | runs | error origin | repair rate | harm rate |",
        "|---|---|---|---|---|---|",
    ]
    for role, models_ in by_model.items():
        for model, r in models_.items():
            lines.append(
                f"| {role} | {model} | {r['runs']} | {_fmt(r['error_origin_rate'], '{:.1%}')} "
                f"| {_fmt(r['repair_rate'])} ({r['repairs']}/{r['wrong_inputs']}) "
                f"| {_fmt(r['harm_rate'])} ({r['harms']}/{r['right_inputs']}) |"
            )
    return lines


def _against_baseline(summary: Mapping[str, Any]) -> list[str]:
    """Return the report's section comparing each configuration with ``BASELINE`` on shared tasks."""
    against = {name: s["against_baseline"] for name, s in summary.items() if "against_baseline" in s}
    if not against:
        return []
    labelled = all("f1" in a["this"] for a in against.values())
    lines = [
        "",
        f"## Against `{BASELINE}` (the tasks both ran)",
        "",
        f"| configuration | tasks | {'accuracy' if labelled else 'pass@1'}, {BASELINE} → this "
        + (f"| F1, {BASELINE} → this " if labelled else "")
        + f"| MAST failures / task, {BASELINE} → this | change | by category (FC1 / FC2 / FC3) "
        + f"| left after retries, {BASELINE} → this |",
        "|---|---|---|" + ("---|" if labelled else "") + "---|---|---|---|",
    ]
    for name, a in against.items():
        before, after = a["baseline"], a["this"]
        cats = " → ".join(
            " / ".join(str(side["mast_by_category"][c]) for c in CATEGORIES) for side in (before, after)
        )
        cells = [
            name,
            a["tasks"],
            f"{before['pass@1']:.1%} → {after['pass@1']:.1%}",
            *([f"{_fmt(before['f1'])} → {_fmt(after['f1'])}"] if labelled else []),
            f"{before['mast_per_task']:.2f} → {after['mast_per_task']:.2f}",
            _fmt(a["mast_change"], "{:+.0%}"),
            cats,
            f"{_fmt(before['mast_left_per_task'])} → {_fmt(after['mast_left_per_task'])}",
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return lines


def _method_level(summary: Mapping[str, Any]) -> list[str]:
    levels = {name: s["method_level"] for name, s in summary.items() if "method_level" in s}
    if not levels:
        return []
    lines = [
        "",
        "## Class and method level",
        "",
        "| configuration | class-level pass@1 | method-level pass@1 (methods passed / methods) |",
        "|---|---|---|",
    ]
    for name, m in levels.items():
        lines.append(
            f"| {name} | {summary[name]['pass@1']:.1%} | {m['pass@1']:.1%} ({m['passed']}/{m['methods']}) |"
        )
    return lines


def _acceptance(summary: Mapping[str, Any]) -> list[str]:
    found = {name: s["acceptance"] for name, s in summary.items() if "acceptance" in s}
    if not found:
        return []
    lines = [
        "",
        "## Executability and acceptance",
        "",
        "| configuration | executable | acceptance checks passed | every check (solved) |",
        "|---|---|---|---|",
    ]
    for name, a in found.items():
        lines.append(
            f"| {name} | {a['executability']:.1%} ({a['executable']}/{a['tasks']}) "
            f"| {a['check_rate']:.1%} ({a['passed']}/{a['checks']}) "
            f"| {summary[name]['pass@1']:.1%} |"
        )
    return lines


def _live_blame(summary: Mapping[str, Any]) -> list[str]:
    """Return the report's section on blame by the run's own evidence against blame by the benchmark's."""
    table = live_blame_table(summary)
    if not table:
        return []
    return [
        "",
        "## Blame without the benchmark's answers",
        "",
        "Blame by what a run itself has (the stated examples) against blame by the hidden tests, task "
        "by task: how often both name the same error origin (a role, or none) and the same verdict on "
        "the final result, with Cohen's κ, and the same repairs and harms for each role that ran.",
        "",
        *table,
    ]


def live_blame_table(summary: Mapping[str, Any]) -> list[str]:
    """Return the table of run-time blame's agreement with the benchmark's, a line each (none when no
    configuration carries blame by the run's own evidence)."""
    found = {name: s["live_blame"] for name, s in summary.items() if "live_blame" in s}
    if not found:
        return []
    lines = [
        "| configuration | tasks | same error origin | κ | same final verdict | κ "
        "| same repairs and harms (role runs) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, a in found.items():
        n = a["tasks"]
        acts = stats.rate(a["same_acts"], a["role_runs"]) if a["role_runs"] else "—"
        lines.append(
            f"| {name} | {n} | {stats.rate(a['same_origin'], n)} | {_fmt(a['origin_kappa'])} "
            f"| {stats.rate(a['same_final'], n)} | {_fmt(a['final_kappa'])} "
            f"| {acts} ({a['role_runs']}) |"
        )
    return lines


def above_majority(s: Mapping[str, Any]) -> bool:
    """Return whether a multiple-choice configuration solved more questions than always answering the most
    frequent gold option does, by the exact binomial test at p < ``stats.ALPHA``."""
    p = stats.above_floor(s["solved"], s["tasks"], s["answers"]["floors"]["majority"])
    return p < stats.ALPHA


def answers_given(a: Mapping[str, Any]) -> str:
    """Return how often a multiple-choice configuration gave each answer (``A 13, B 5``)."""
    return ", ".join(f"{letter} {count}" for letter, count in a["distribution"].items()) or "—"


def floors_line(floors: Mapping[str, Any], items: str = "items") -> str:
    """Return the sentence under a multiple-choice table: what a random answer and always the most frequent
    gold option score on the same ``items``."""
    return (
        f"Floors on these {items}: a random answer {floors['random']:.1%}; always "
        f"{floors['majority_answer']} (the most frequent gold answer) {floors['majority']:.1%}."
    )


def _answers(summary: Mapping[str, Any]) -> list[str]:
    """Return the report's section on multiple-choice answers and the set's floors, or nothing."""
    found = {name: s["answers"] for name, s in summary.items() if "answers" in s}
    if not found:
        return []
    lines = [
        "",
        "## Answers and floors",
        "",
        "| configuration | tasks | accuracy [95% CI] | unanswered | answers given | above the majority "
        "answer |",
        "|---|---|---|---|---|---|",
    ]
    for name, a in found.items():
        s = summary[name]
        lines.append(
            f"| {name} | {s['tasks']} | {stats.rate(s['solved'], s['tasks'])} | {a['unanswered']} "
            f"| {answers_given(a)} | {'yes' if above_majority(s) else 'no'} |"
        )
    lines += ["", floors_line(next(iter(found.values()))["floors"])]
    return lines


def _classification(summary: Mapping[str, Any]) -> list[str]:
    """Return the report's section on labelled verdicts (vulnerability sets), or nothing."""
    labelled = {name: s["classification"] for name, s in summary.items() if "classification" in s}
    if not labelled:
        return []
    base = labelled.get(BASELINE, {}).get("f1")
    lines = [
        "",
        "## Verdicts against the labels",
        "",
        "| configuration | accuracy [95% CI] | precision | recall | F1 | Δ F1 vs simple "
        "| balanced accuracy | MCC | TP / FP / TN / FN / no verdict | voters unanimous at once "
        "| above both constants |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in labelled.items():
        m = c["confusion"]
        delta = (
            "—"
            if base is None or c["f1"] is None or name == BASELINE
            else f"{(c['f1'] - base) * 100:+.1f} pts"
        )
        right, n = m["tp"] + m["tn"], summary[name]["tasks"]
        lines.append(
            f"| {name} | {stats.rate(right, n)} | {_fmt(c['precision'])} | {_fmt(c['recall'])} "
            f"| {_fmt(c['f1'])} | {delta} | {_fmt(c['balanced_accuracy'])} | {_fmt(c['mcc'])} "
            f"| {m['tp']} / {m['fp']} / {m['tn']} / {m['fn']} / {m['no_verdict']} "
            f"| {_fmt(c['unanimous_first_round'], '{:.0%}')} "
            f"| {'yes' if classification.beats_constants(c) else 'no better than a constant'} |"
        )
    first = next(iter(labelled.values()))  # the floors of the first's items (compare refuses other sets)
    floors = "; ".join(
        f"{verdict}: accuracy {_fmt(f['accuracy'])}, F1 {_fmt(f['f1'])}"
        for verdict, f in classification.constants(first).items()
    )
    lines += [
        "",
        f"Constant verdicts on {first['positives']} vulnerable and {first['negatives']} safe "
        f"items: {floors} (balanced accuracy 0.50, MCC undefined).",
    ]
    lines += ["", "Each voter's accuracy, first round → final:", ""]
    for name, c in labelled.items():
        roles = (
            ", ".join(
                f"{role} {_fmt(a['first'])} → {_fmt(a['final'])}" for role, a in c["role_accuracy"].items()
            )
            or "—"
        )
        lines.append(f"- `{name}`: {roles}")
    lines += ["", "Whom the wrong verdicts followed (voters whose final finding said the same):", ""]
    for name, c in labelled.items():
        followed = ", ".join(f"{role} {k}" for role, k in c["followed_when_wrong"].items()) or "—"
        lines.append(f"- `{name}`: {c['wrong_verdicts']} wrong verdicts; {followed}")
    lines += ["", "![accuracy per role](role_accuracy.png)"]
    return lines


def write(rows: list[dict[str, Any]], out: Path, pages: bool = False) -> list[Path]:
    """Write ``summary.json``, ``report.md``, its plots and ``report.html`` into ``out``; return their paths.

    Args:
        pages: also write each task's run page into ``out/runs`` from the folder's checkpoints, which
            ``report.html`` links to.
    """
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(rows)
    paths = [
        out / "summary.json",
        out / "report.md",
        out / "failures_per_round.png",
        out / "accuracy_cost.png",
        out / "report.html",
    ]
    text = markdown(summary)
    paths[0].write_text(json.dumps(summary, indent=2) + "\n")
    paths[1].write_text(text)
    plots.failures_per_round(summary, paths[2])
    plots.accuracy_cost(summary, paths[3])
    linked = report_page.run_pages(rows, out) if pages else frozenset()
    paths[4].write_text(report_page.render(text, summary, rows, linked), encoding="utf-8")
    if any("classification" in s for s in summary.values()):
        paths.append(out / "role_accuracy.png")
        plots.role_accuracy(summary, paths[-1])
    return paths
