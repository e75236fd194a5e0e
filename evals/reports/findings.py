"""The accountability paper's three findings, checked against Accord's pipeline results.

The paper reports that the accountable pipeline beats the simple one (Table III: up to +36.2 points on
code, +19.8 on AGIEval), that the Planner's error rate differs most between models (Table IV: 7.35% for
the best, 40.49% for the worst), and that heterogeneous mixes sit on the accuracy-cost Pareto frontier
(Figure 3). ``findings`` reads the same quantities from result summaries (``results/<set>``), so
that the docs' side-by-side is generated from measurements, never typed; ``anchors`` sets the best local
configuration of each multiple-choice set beside chance and published small models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.evals.configs import base_name
from accord.evals.reports.plots import pareto
from accord.evals.reports.summary import REFERENCE, merged, per_mix
from accord.nodes.pipeline.roles import TEAM
from accord.runtime.local_model import MIX

_LETTER = {model: letter for letter, model in MIX.items()}

PUBLISHED = {
    "accountable": "accountable above simple: up to +36.2 points on code, +19.8 on AGIEval (Table III)",
    "planner": "the Planner's error rate spans 7.35% (best model) to 40.49% (worst) (Table IV)",
    "frontier": "heterogeneous mixes on the accuracy-cost Pareto frontier (Figure 3)",
}


ANCHORS = {
    # set: (chance, published scores of small models, the aim for the best local configuration).
    # The published scores are the model cards' (AGIEval English, 3-5 shot, the whole set).
    "logiqa": ("25%", "—", 0.40),
    "agieval": ("about 22%", "Llama 3.2 1B 23.3%, Gemma 2 2B 30.6%", 0.35),
}


def _verdict(hits: int, chances: int) -> str:
    if not chances:
        return "not run"
    return "yes" if hits == chances else ("partly" if hits else "no")


def paper_name(config: str, s: Mapping[str, Any]) -> str:
    """Return a configuration as the paper names it: its models' letters in role order (``accountable
    CBA``, ``single C``), or its own name where a role's model has no letter."""
    by_role = s.get("by_role_model", {})
    models = [list(by_role[role]) for role in TEAM if role in by_role]
    if not models or any(len(m) != 1 or m[0] not in _LETTER for m in models):
        return config
    return f"{base_name(config)} {''.join(_LETTER[m[0]] for m in models)}"


def accountable_above_simple(summaries: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """Return what the sets say of Table III: per set, how many mixes gain under ``accountable`` and the
    largest gain; and whether every mix gains."""
    parts, hits, chances = [], 0, 0
    for name, summary in summaries.items():
        mixes = per_mix(summary)
        if not mixes:
            continue
        gains = sum(m["delta"] > 0 for m in mixes.values())
        mix, best = max(mixes.items(), key=lambda kv: kv[1]["delta"])
        config = REFERENCE if mix == "default" else f"{REFERENCE}@{mix}"
        hits, chances = hits + gains, chances + len(mixes)
        letters = paper_name(config, summary[config]).removeprefix(f"{REFERENCE} ")
        parts.append(
            f"{name}: {gains} of {len(mixes)} mixes gain, the most {best['delta'] * 100:+.1f} "
            f"points ({letters})"
        )
    return "; ".join(parts) or "—", _verdict(hits, chances)


def planner_error_rates(summaries: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """Return what the sets say of Table IV: each model's planner error rate (runs whose error origin is
    the Planner, over every run with a Planner on that model), and whether the Planner is the most
    frequent error origin and its rate differs by model."""
    parts, dominant, chances = [], 0, 0
    for name, summary in summaries.items():
        planners = merged(summary).get("planner", {})
        if not planners:
            continue
        rates = {model: r["error_origin_rate"] for model, r in planners.items() if r["runs"]}
        origins: dict[str, int] = {}
        for s in summary.values():
            for role, count in s.get("error_origins", {}).items():
                origins[role] = origins.get(role, 0) + count
        chances += 1
        top = max(origins, key=lambda role: origins[role]) if origins else "none"
        dominant += top == "planner" and len(rates) > 1
        ranked = sorted(rates.items(), key=lambda kv: kv[1])
        shown = ", ".join(f"{_LETTER.get(model, model)} {rate:.1%}" for model, rate in ranked)
        parts.append(f"{name}: {shown}; most frequent error origin: {top}")
    return "; ".join(parts) or "—", _verdict(dominant, chances)


def _models(s: Mapping[str, Any]) -> set[str]:
    """Return the models a configuration's roles ran on."""
    return {model for models in s.get("by_role_model", {}).values() for model in models}


def heterogeneous_frontier(summaries: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """Return what the sets say of Figure 3: the configurations on the accuracy-tokens frontier, and
    whether a heterogeneous mix on it beats every monolithic model (``single``) that costs as much or
    less."""
    parts, hits, chances = [], 0, 0
    for name, summary in summaries.items():
        points = {config: (s["tokens_per_task"], s["pass@1"]) for config, s in summary.items()}
        if len(points) < 2:
            continue
        front = set(pareto(list(points.values())))
        on_front = [config for config, point in points.items() if point in front]
        mixed = [c for c in on_front if len(_models(summary[c])) > 1]
        singles = [points[c] for c in points if base_name(c) == "single"]
        beats = [
            c for c in mixed if all(points[c][1] > acc for tokens, acc in singles if tokens <= points[c][0])
        ]
        chances, hits = chances + 1, hits + bool(beats)
        front_names = ", ".join(paper_name(c, summary[c]) for c in on_front)
        beat_names = ", ".join(paper_name(c, summary[c]) for c in beats)
        parts.append(
            f"{name}: frontier {front_names}"
            + (f"; {beat_names} beats every cheaper monolithic model" if beats else "")
        )
    return "; ".join(parts) or "—", _verdict(hits, chances)


def findings(summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """Return the side-by-side as a Markdown table: each finding as published, as measured, reproduced."""
    rows = [
        ("accountable", accountable_above_simple(summaries)),
        ("planner", planner_error_rates(summaries)),
        ("frontier", heterogeneous_frontier(summaries)),
    ]
    lines = ["| the paper's finding | Accord, small local models | reproduced |", "|---|---|---|"]
    lines += [f"| {PUBLISHED[key]} | {measured} | {verdict} |" for key, (measured, verdict) in rows]
    return "\n".join(lines) + "\n"


def anchors(summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """Return, per multiple-choice set, the best configuration's accuracy beside chance, published small
    models and the aim, as a Markdown table; a set that has not run counts as not run."""
    lines = [
        "| set | chance | always the most frequent gold answer | published small models | best here "
        "| the aim | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, (chance, published, aim) in ANCHORS.items():
        if not (summary := summaries.get(name)):
            lines.append(f"| {name} | {chance} | not run | {published} | not run | ≥ {aim:.0%} | not run |")
            continue
        top = max(s["pass@1"] for s in summary.values())
        best = [c for c, s in summary.items() if s["pass@1"] == top]
        s = summary[best[0]]
        names = ", ".join(paper_name(c, summary[c]) for c in best)
        floors = s.get("answers", {}).get("floors")
        majority = f"{floors['majority_answer']}: {floors['majority']:.1%}" if floors else "—"
        lines.append(
            f"| {name} | {chance} | {majority} | {published} "
            f"| {names}: {s['solved']} / {s['tasks']} ({top:.1%}) | ≥ {aim:.0%} "
            f"| {'yes' if top >= aim else 'no'} |"
        )
    return "\n".join(lines) + "\n"
