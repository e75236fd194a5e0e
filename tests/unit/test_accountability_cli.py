"""accord cost | blame | history | fork | export on threads in the SQLite checkpoint database."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from accord import cli
from accord.accountability import mast
from accord.accountability.mast import modes
from accord.accountability.trace import steps
from accord.evals.paths import data_dir
from accord.graphs import store
from accord.graphs.development import LIFECYCLE, build_graph
from accord.state.history import from_graph
from tests.conftest import APPROVE, BAD, GOOD, PLAN, script_cli
from tests.scripted import ScriptedChatModel


@pytest.fixture
def failed_thread(workdir, monkeypatch, capsys):
    """A run that fails: the coder's error is never repaired (the fix repeats it)."""
    script_cli(monkeypatch, planner=[PLAN], coder=[BAD], debugger=[BAD], reviewer=[APPROVE])
    assert (
        cli.main(["run", "--file", "stub.py", "--thread", "f", "--max-rounds", "1", "--max-candidates", "1"])
        == 1
    )
    capsys.readouterr()
    return "f"


def _json(capsys, *argv: str):
    assert cli.main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_cost_sums_the_ledger_per_role_model_and_stage(failed_thread, capsys):
    result = _json(capsys, "cost", failed_thread, "--json")
    shown = _json(capsys, "show", failed_thread, "--json")
    assert result["total"]["tokens_in"] == shown["tokens_in"] > 0
    assert set(result["by_role"]) >= {"planner", "coder", "tester", "debugger", "reviewer"}
    # The Debugger drew its repeated fix three times.
    assert sum(r["llm_calls"] for r in result["by_stage"].values()) == shown["llm_calls"] == 7
    assert list(result["by_model"]) == ["scripted"]
    assert result["by_stage"]["testing"]["sandbox_s"] > 0
    assert cli.main(["cost", failed_thread]) == 0
    assert "by role" in capsys.readouterr().out


def test_blame_names_the_origin_and_the_failures(failed_thread, capsys):
    result = _json(capsys, "blame", failed_thread, "--json")
    assert result["final_correct"] is False
    assert result["origin"]["stage"] == "implementing" and result["origin"]["role"] == "coder"
    assert "add(1, 2) returned -1" in result["origin"]["evidence"]
    assert [f["mode"] for f in result["failures"]] == ["FM-1.3"]
    assert result["failure_summary"]["by_category"] == {"Specification Issues": 1}
    assert cli.main(["blame", failed_thread]) == 0
    text = capsys.readouterr().out
    assert "error origin: step" in text
    assert "failures (MAST): 1; Specification Issues: 1 (round 1: 1)" in text


def test_history_lists_every_checkpoint_with_its_stage_and_verdict(failed_thread, capsys):
    assert cli.main(["history", failed_thread]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("step  -1") and "input" in lines[0]
    shown = _json(capsys, "show", failed_thread, "--json")
    assert len(lines) == len(shown["path"]) + 2  # input and start checkpoints, then one per stage
    assert any("implementing" in line and "coder" in line and line.endswith("wrong") for line in lines)
    assert "failed" in lines[-1]


def test_fork_from_the_plan_runs_a_new_branch(failed_thread, monkeypatch, capsys):
    assert cli.main(["history", failed_thread]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    checkpoint = next(row[2] for row in rows if row[3] == "planning")
    script_cli(monkeypatch, coder=[GOOD], reviewer=[APPROVE])
    assert (
        cli.main(["fork", failed_thread, checkpoint, "--set", 'reason="forked"', "--max-candidates", "1"])
        == 0
    )
    capsys.readouterr()
    result = _json(capsys, "blame", failed_thread, "--json")
    assert result["final_correct"] is True and result["origin"] is None
    assert cli.main(["fork", failed_thread, "no-such-checkpoint"]) == 2


def test_export_whowhen_has_the_who_and_when_field_set(failed_thread, capsys):
    reference = json.loads((data_dir() / "who_and_when" / "Algorithm-Generated" / "1.json").read_text())
    record = _json(capsys, "export", failed_thread, "--format", "whowhen")
    assert set(record) == set(reference)
    assert all(set(h) <= {"content", "role", "name"} for h in record["history"])
    assert record["is_correct"] is False and record["mistake_agent"] == "coder"
    step = record["history"][int(record["mistake_step"])]
    assert step["name"] == "coder" and "[implementing, round 1]" in step["content"]
    assert "coder" in record["system_prompt"]


def test_export_mad_and_otel(failed_thread, capsys, workdir):
    record = _json(capsys, "export", failed_thread, "--format", "mad")
    assert set(record["mast_annotation"]) == {m["id"] for m in modes().values()}
    assert record["mast_annotation"]["1.3"] == 1 and sum(record["mast_annotation"].values()) == 1
    assert cli.main(["export", failed_thread, "--format", "otel", "-o", "spans.json"]) == 0
    spans = json.loads((workdir / "spans.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ids = {s["spanId"] for s in spans}
    assert all(s.get("parentSpanId") in ids for s in spans[1:])
    llm = [s for s in spans if s["name"].startswith("llm ")]
    assert len(llm) == 7 and all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    assert any(a["key"] == "gen_ai.usage.input_tokens" for a in llm[0]["attributes"])
    assert all(int(s["endTimeUnixNano"]) >= int(s["startTimeUnixNano"]) for s in spans)


def test_export_sends_the_same_spans_to_an_otlp_collector(failed_thread, capsys, workdir):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: list[bytes] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()
            self.wfile.write(b"")

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
        assert cli.main(["export", failed_thread, "--format", "otel", "--collector", url]) == 0
    finally:
        server.shutdown()
    request = ExportTraceServiceRequest.FromString(received[0])
    sent = [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    assert cli.main(["export", failed_thread, "--format", "otel", "-o", "spans.json"]) == 0
    written = json.loads((workdir / "spans.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert [s.span_id.hex() for s in sent] == [s["spanId"] for s in written]
    assert sum(s.name.startswith("llm ") for s in sent) == 7


def test_unknown_thread_is_a_clear_error(workdir, capsys):
    assert cli.main(["blame", "nope"]) == 2
    assert "no thread 'nope'" in capsys.readouterr().out


def test_an_llm_judge_adds_findings_marked_judged(failed_thread):
    with store.checkpointer() as saver:
        chain = from_graph(build_graph(checkpointer=saver), failed_thread)
    trace = steps(chain, LIFECYCLE)
    reviewing = next(s for s in trace if s.stage == "reviewing")
    judge_model = ScriptedChatModel(
        script=[
            {"failures": [{"mode": "FM-2.5", "step": reviewing.step, "evidence": "approved failing code"}]}
        ]
    )
    found = mast.classify(trace, chain[-1].values, mast.llm_judge(judge_model))
    assert [(f.mode, f.judged) for f in found] == [("FM-1.3", False), ("FM-2.5", True)]
    assert found[1].role == "reviewer" and found[1].category == "Inter-Agent Misalignment"
    prompt = judge_model.prompts[0]
    assert "FM-2.5 Ignored Other Agent's Input" in prompt and "FM-1.3 Step" not in prompt


def test_a_bad_fork_value_is_refused_before_any_branch_exists(failed_thread, capsys):
    assert cli.main(["history", failed_thread]) == 0
    before = capsys.readouterr().out
    checkpoint = next(
        row[2] for row in (line.split() for line in before.splitlines()) if row[3] == "planning"
    )
    for bad, said in (
        ("plan={not json", "--set plan: not a plan"),
        ('plan={"subtasks": "none"}', "--set plan: not a plan"),
        ("no_such_key=1", "--set no_such_key: the thread's state has no key 'no_such_key'"),
    ):
        assert cli.main(["fork", failed_thread, checkpoint, "--set", bad]) == 2
        assert said in capsys.readouterr().err
    with pytest.raises(SystemExit) as ended:
        cli.main(["fork", failed_thread, checkpoint, "--max-rounds", "0"])
    assert ended.value.code == 2 and "max_rounds must be at least 1, not 0" in capsys.readouterr().err
    assert cli.main(["history", failed_thread]) == 0
    assert capsys.readouterr().out == before  # no branch was written
