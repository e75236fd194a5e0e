"""Exports of a run for external attribution tools: Who&When, MAST/MAD, OpenTelemetry spans.

- ``whowhen``: the field set of Who&When's algorithm-generated records (``history`` of utterances,
  ``mistake_agent`` / ``mistake_step`` / ``mistake_reason`` from Accord's blame), so their attribution
  methods run on Accord traces and can be compared with Accord's own.
- ``mad``: a MAST-annotated-dataset style record: the trajectory and a 0/1 annotation per MAST mode.
- ``otel``: OpenTelemetry spans (the SDK's), one per stage step and one child per ledger entry, with the
  GenAI semantic-convention attributes on LLM calls: written as OTLP/JSON or sent to an OTLP/HTTP
  collector.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, TraceFlags

from accord.accountability.blame import Blame
from accord.accountability.mast import Finding, modes
from accord.accountability.trace import Step

RESOURCE = Resource.create({"service.name": "accord"})
SCOPE = InstrumentationScope("accord")

WHOWHEN_FIELDS = (
    "is_correct",
    "question",
    "question_ID",
    "level",
    "ground_truth",
    "history",
    "mistake_agent",
    "mistake_step",
    "mistake_reason",
    "system_prompt",
)


def whowhen(
    thread: str, values: Mapping[str, Any], trace: list[Step], blame: Blame, system_prompts: Mapping[str, str]
) -> dict[str, Any]:
    """Return the run as a Who&When record; ``mistake_step`` indexes ``history`` (as a string).

    Args:
        system_prompts: each role's system prompt for its main duty (its workflow's ``system_prompts``).
    """
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
        "system_prompt": {
            role: system_prompts[role] for role in sorted({s.role for s in trace}) if role in system_prompts
        },
    }


def mad(
    thread: str, values: Mapping[str, Any], trace: list[Step], findings: list[Finding], model: str
) -> dict[str, Any]:
    """Return the run as a MAST-annotated record: trajectory, per-mode 0/1 and the findings behind them."""
    found = {f.mode for f in findings}
    return {
        "mas_name": "Accord",
        "llm_name": model,
        "benchmark_name": (values.get("task") or {}).get("level", ""),
        "trace_id": thread,
        "trace": {
            "trajectory": [
                {"step": s.step, "agent": s.role, "stage": s.stage, "round": s.round, "content": s.content()}
                for s in trace
            ],
            "status": values.get("status"),
            "reason": values.get("reason", ""),
        },
        "mast_annotation": {m["id"]: int(code in found) for code, m in modes().items()},
        "findings": [f.model_dump() for f in findings],
    }


def _id(*parts: object, bits: int = 64) -> int:
    """Return a stable id of ``bits`` bits (OTLP: 128 for a trace, 64 for a span)."""
    return int(hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[: bits // 4], 16)


def _nanos(stamp: str | None) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1e9) if stamp else 0


def spans(
    thread: str, trace: list[Step], times: Mapping[int, tuple[str | None, str | None]]
) -> list[ReadableSpan]:
    """Return a run's OpenTelemetry spans: a root for the run, a span per step, a child per ledger entry.

    ``times`` maps a step to its (start, end) ISO timestamps: the parent checkpoint's and its own. Ids are
    derived from the thread, so exporting a run twice gives the same spans.
    """
    trace_id = _id("trace", thread, bits=128)

    def context(*parts: object) -> SpanContext:
        return SpanContext(trace_id, _id(*parts), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))

    root = context("run", thread)
    made: list[ReadableSpan] = []
    for s in trace:
        start, end = (_nanos(t) for t in times.get(s.step, (None, None)))
        step = context("step", thread, s.step)
        made.append(
            ReadableSpan(
                f"{s.stage}/{s.role}",
                step,
                parent=root,
                resource=RESOURCE,
                start_time=start,
                end_time=end,
                instrumentation_scope=SCOPE,
                attributes={
                    "accord.stage": s.stage,
                    "accord.role": s.role,
                    "accord.round": s.round,
                    "accord.step": s.step,
                    "accord.outcome": str((s.verdict or {}).get("outcome", "")),
                },
            )
        )
        cursor = start
        for i, entry in enumerate(s.ledger):
            length = int(entry.get("latency_s", 0.0) * 1e9)
            attributes: dict[str, str | int | float] = {
                "accord.kind": entry["kind"],
                "accord.outcome": entry["outcome"],
                "accord.detail": entry["detail"][:200],
            }
            if entry["kind"] == "llm":
                attributes |= {
                    "gen_ai.request.model": entry.get("model") or "",
                    "gen_ai.usage.input_tokens": entry["tokens_in"],
                    "gen_ai.usage.output_tokens": entry["tokens_out"],
                    "accord.cost": float(entry["cost"]),
                }
            made.append(
                ReadableSpan(
                    f"{entry['kind']} {s.role}",
                    context("entry", thread, s.step, i),
                    parent=step,
                    resource=RESOURCE,
                    start_time=cursor,
                    end_time=cursor + length,
                    attributes=attributes,
                    instrumentation_scope=SCOPE,
                )
            )
            cursor += length
    first = min((span.start_time or 0 for span in made), default=0)
    last = max((span.end_time or 0 for span in made), default=0)
    run = ReadableSpan(
        f"accord run {thread}",
        root,
        resource=RESOURCE,
        start_time=first,
        end_time=last,
        attributes={"accord.thread": thread},
        instrumentation_scope=SCOPE,
    )
    return [run, *made]


def otel(
    thread: str, trace: list[Step], times: Mapping[int, tuple[str | None, str | None]]
) -> dict[str, Any]:
    """Return a run's spans as OTLP/JSON, encoded by the OTLP exporter's own protobuf encoder."""
    body: dict[str, Any] = _hex_ids(MessageToDict(encode_spans(spans(thread, trace, times))))
    return body


def _hex_ids(node: Any) -> Any:
    """Return ``node`` with its span and trace ids in hex: OTLP/JSON's encoding, where protobuf's JSON
    mapping writes bytes in base64."""
    if isinstance(node, list):
        return [_hex_ids(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: base64.b64decode(value).hex()
        if key in ("traceId", "spanId", "parentSpanId")
        else _hex_ids(value)
        for key, value in node.items()
    }


def send(
    thread: str, trace: list[Step], times: Mapping[int, tuple[str | None, str | None]], endpoint: str
) -> None:
    """Send a run's spans to an OTLP/HTTP collector (e.g. ``http://127.0.0.1:4318/v1/traces``).

    Raises:
        ConnectionError: the collector did not accept them.
    """
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=10)
    try:
        if exporter.export(spans(thread, trace, times)) is not SpanExportResult.SUCCESS:
            raise ConnectionError(f"the collector at {endpoint} did not accept the spans")
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
