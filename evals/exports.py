"""Exports of a run for external attribution tools: Who&When, MAST/MAD, OpenTelemetry spans.

- ``whowhen``: the field set of Who&When's algorithm-generated records (``history`` of utterances,
  ``mistake_agent`` / ``mistake_step`` / ``mistake_reason`` from Accord's blame), so their attribution
  methods run on Accord traces and can be compared with Accord's own.
- ``mad``: a MAST-annotated-dataset style record: the trajectory and a 0/1 annotation per MAST mode.
- ``otel``: OTLP/JSON resource spans, one span per stage step and one child per ledger entry, with the
  GenAI semantic-convention attributes on LLM calls.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from evals.blame import Blame
from evals.mast import Finding, modes
from evals.trace import Step
from nodes import coder, debugger, planner, reviewer

SYSTEM_PROMPTS = {"planner": planner.SYSTEM, "coder": coder.SYSTEM, "debugger": debugger.SYSTEM,
                  "reviewer": reviewer.SYSTEM}
WHOWHEN_FIELDS = ("is_correct", "question", "question_ID", "level", "ground_truth", "history",
                  "mistake_agent", "mistake_step", "mistake_reason", "system_prompt")


def whowhen(thread: str, values: Mapping[str, Any], trace: list[Step], blame: Blame) -> dict[str, Any]:
    """Return the run as a Who&When record; ``mistake_step`` indexes ``history`` (as a string)."""
    history = [{"content": str(values.get("request", "")), "role": "human"}]
    history += [{"content": s.content(), "role": "assistant", "name": s.role} for s in trace]
    origin = blame.origin
    index = next((i for i, s in enumerate(trace, 1) if origin and s.step == origin.step), None)
    oracle = blame.stages[-1].oracle if blame.stages else "no oracle"
    return {
        "is_correct": bool(blame.final_correct),
        "question": str(values.get("request", "")),
        "question_ID": thread,
        "level": (values.get("task") or {}).get("level", ""),
        "ground_truth": f"the final code passes the {oracle}",
        "history": history,
        "mistake_agent": origin.role if origin else "",
        "mistake_step": str(index) if index is not None else "",
        "mistake_reason": origin.evidence if origin else "",
        "system_prompt": {role: SYSTEM_PROMPTS[role] for role in sorted({s.role for s in trace})
                          if role in SYSTEM_PROMPTS},
    }


def mad(thread: str, values: Mapping[str, Any], trace: list[Step], findings: list[Finding],
        model: str) -> dict[str, Any]:
    """Return the run as a MAST-annotated record: trajectory, per-mode 0/1 and the findings behind them."""
    found = {f.mode for f in findings}
    return {
        "mas_name": "Accord",
        "llm_name": model,
        "benchmark_name": (values.get("task") or {}).get("level", ""),
        "trace_id": thread,
        "trace": {"trajectory": [{"step": s.step, "agent": s.role, "stage": s.stage, "round": s.round,
                                  "content": s.content()} for s in trace],
                  "status": values.get("status"), "reason": values.get("reason", "")},
        "mast_annotation": {m["id"]: int(code in found) for code, m in modes().items()},
        "findings": [f.model_dump() for f in findings],
    }


def _id(*parts: object, size: int = 16) -> str:
    """Return a stable hex id of ``size`` characters (OTLP: 32 for a trace, 16 for a span)."""
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:size]


def _attr(key: str, value: object) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _nanos(stamp: str | None) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1e9) if stamp else 0


def otel(thread: str, trace: list[Step],
         times: Mapping[int, tuple[str | None, str | None]]) -> dict[str, Any]:
    """Return OTLP/JSON spans: a root for the run, a span per step, a child per ledger entry.

    ``times`` maps a step to its (start, end) ISO timestamps: the parent checkpoint's and its own.
    """
    trace_id = _id("trace", thread, size=32)
    root = _id("run", thread)
    spans: list[dict[str, Any]] = []
    for s in trace:
        start, end = (_nanos(t) for t in times.get(s.step, (None, None)))
        span_id = _id("step", thread, s.step)
        spans.append({"traceId": trace_id, "spanId": span_id, "parentSpanId": root,
                      "name": f"{s.stage}/{s.role}", "kind": 1, "startTimeUnixNano": str(start),
                      "endTimeUnixNano": str(end),
                      "attributes": [_attr("accord.stage", s.stage), _attr("accord.role", s.role),
                                     _attr("accord.round", s.round), _attr("accord.step", s.step),
                                     _attr("accord.outcome", (s.verdict or {}).get("outcome", ""))]})
        cursor = start
        for i, entry in enumerate(s.ledger):
            length = int(entry.get("latency_s", 0.0) * 1e9)
            attributes = [_attr("accord.kind", entry["kind"]), _attr("accord.outcome", entry["outcome"]),
                          _attr("accord.detail", entry["detail"][:200])]
            if entry["kind"] == "llm":
                attributes += [_attr("gen_ai.request.model", entry.get("model") or ""),
                               _attr("gen_ai.usage.input_tokens", entry["tokens_in"]),
                               _attr("gen_ai.usage.output_tokens", entry["tokens_out"]),
                               _attr("accord.cost", float(entry["cost"]))]
            spans.append({"traceId": trace_id, "spanId": _id("entry", thread, s.step, i),
                          "parentSpanId": span_id, "name": f"{entry['kind']} {s.role}", "kind": 1,
                          "startTimeUnixNano": str(cursor), "endTimeUnixNano": str(cursor + length),
                          "attributes": attributes})
            cursor += length
    first = min((int(s["startTimeUnixNano"]) for s in spans), default=0)
    last = max((int(s["endTimeUnixNano"]) for s in spans), default=0)
    spans.insert(0, {"traceId": trace_id, "spanId": root, "name": f"accord run {thread}", "kind": 1,
                     "startTimeUnixNano": str(first), "endTimeUnixNano": str(last),
                     "attributes": [_attr("accord.thread", thread)]})
    return {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "accord")]},
                               "scopeSpans": [{"scope": {"name": "accord"}, "spans": spans}]}]}
