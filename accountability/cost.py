"""The cost ledger summed per role, per model and per stage: tokens, cost, latency."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

GROUPS = ("role", "model", "stage")


def _empty() -> dict[str, Any]:
    return {"llm_calls": 0, "tokens_in": 0, "tokens_out": 0, "cost": 0.0, "llm_s": 0.0, "sandbox_s": 0.0}


def _add(row: dict[str, Any], entry: Mapping[str, Any]) -> None:
    if entry["kind"] == "llm":
        row["llm_calls"] += 1
        row["tokens_in"] += entry["tokens_in"]
        row["tokens_out"] += entry["tokens_out"]
        row["cost"] = round(row["cost"] + entry["cost"], 8)
        row["llm_s"] = round(row["llm_s"] + entry["latency_s"], 3)
    elif entry["kind"] in ("sandbox", "oracle"):
        row["sandbox_s"] = round(row["sandbox_s"] + entry["latency_s"], 3)


def breakdown(ledger: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the ledger's totals and its sums per role, per model (LLM calls only) and per stage."""
    result: dict[str, Any] = {"total": _empty(), **{f"by_{g}": {} for g in GROUPS}}
    for entry in ledger:
        _add(result["total"], entry)
        for group in GROUPS:
            key = entry.get(group)
            if group == "model" and entry["kind"] != "llm":
                continue
            _add(result[f"by_{group}"].setdefault(str(key), _empty()), entry)
    return result


def table(rows: Mapping[str, Mapping[str, Any]], title: str) -> str:
    """Return one group of a breakdown as aligned text."""
    lines = [
        f"{title:<22} {'calls':>5} {'tokens in':>10} {'tokens out':>10} {'cost':>10} "
        f"{'LLM s':>8} {'sandbox s':>9}"
    ]
    for key, r in sorted(rows.items(), key=lambda kv: -kv[1]["tokens_in"] - kv[1]["tokens_out"]):
        lines.append(
            f"{key[:22]:<22} {r['llm_calls']:>5} {r['tokens_in']:>10,} {r['tokens_out']:>10,} "
            f"{r['cost']:>10.4f} {r['llm_s']:>8.1f} {r['sandbox_s']:>9.1f}"
        )
    return "\n".join(lines)
