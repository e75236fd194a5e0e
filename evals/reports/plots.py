"""The eval plots: SEMAP's failures per round by category (its Figure 2), the accountability paper's
accuracy against cost, latency as colour, with the Pareto frontier (its Figure 3), and, for labelled
verdicts, each voter's accuracy."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from accord.accountability.mast import CATEGORIES


def failures_per_round(summary: Mapping[str, Any], path: Path) -> None:
    """Plot MAST failures per task in each round, one panel per category, one line per configuration."""
    # A Figure of its own, not pyplot's: no display backend and no global state.
    fig = Figure(figsize=(13, 3.8))
    axes = fig.subplots(1, len(CATEGORIES), sharey=True)
    rounds = sorted({int(r) for s in summary.values() for r in s["mast"]["by_round"]} or {1})
    for ax, category in zip(axes, CATEGORIES, strict=True):
        for name, s in summary.items():
            ys = [s["mast"]["by_round"].get(str(r), {}).get(category, 0) / max(1, s["tasks"]) for r in rounds]
            ax.plot(rounds, ys, marker="o", label=name)
        ax.set_title(category)
        ax.set_xlabel("round")
        ax.set_xticks(rounds)
    axes[0].set_ylabel("failures per task")
    axes[-1].legend(fontsize=8)
    fig.suptitle("MAST failures per round by category and configuration")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def pareto(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Return the points no other point beats on both lower cost (x) and higher accuracy (y), by cost."""
    frontier: list[tuple[float, float]] = []
    for x, y in sorted(points, key=lambda p: (p[0], -p[1])):
        if not frontier or y > frontier[-1][1]:
            frontier.append((x, y))
    return frontier


def accuracy_cost(summary: Mapping[str, Any], path: Path) -> None:
    """Plot pass@1 against cost per task (USD, or tokens when the model is free), latency as colour."""
    priced = any(s["cost"] > 0 for s in summary.values())
    xs = [s["cost"] / max(1, s["tasks"]) if priced else s["tokens_per_task"] for s in summary.values()]
    ys = [s["pass@1"] * 100 for s in summary.values()]
    latency = [s["median_latency_s"] for s in summary.values()]
    fig = Figure(figsize=(6.5, 4.5))
    ax = fig.subplots()
    dots = ax.scatter(xs, ys, c=latency, cmap="viridis", s=70, zorder=3)
    for name, x, y in zip(summary, xs, ys, strict=True):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    front = pareto(list(zip(xs, ys, strict=True)))
    ax.plot(
        [p[0] for p in front], [p[1] for p in front], "--", color="grey", label="Pareto frontier", zorder=2
    )
    fig.colorbar(dots, label="median latency per task (s)")
    ax.margins(x=0.2, y=0.15)  # room for the labels
    ax.set_xlabel("cost per task (USD)" if priced else "tokens per task (local model: no price)")
    ax.set_ylabel("pass@1 (%)")
    ax.legend(fontsize=8)
    ax.set_title("Accuracy against cost")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def role_accuracy(summary: Mapping[str, Any], path: Path) -> None:
    """Plot each voter's accuracy against the labels, first round and final, one group per configuration."""
    labelled = {
        name: s["classification"]["role_accuracy"] for name, s in summary.items() if "classification" in s
    }
    bars = [
        (f"{name}\n{role}", a["first"] or 0.0, a["final"] or 0.0)
        for name, roles in labelled.items()
        for role, a in roles.items()
    ]
    fig = Figure(figsize=(max(6.0, 0.9 * len(bars)), 4.2))
    ax = fig.subplots()
    xs = range(len(bars))
    ax.bar([x - 0.2 for x in xs], [b[1] * 100 for b in bars], width=0.4, label="first round")
    ax.bar([x + 0.2 for x in xs], [b[2] * 100 for b in bars], width=0.4, label="final")
    ax.set_xticks(list(xs), [b[0] for b in bars], fontsize=7)
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)  # a coin on a balanced set
    ax.set_ylabel("accuracy against the labels (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    ax.set_title("Each voter's accuracy")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
