"""The audit graph on scripted models: parallel analysts, the vote, deliberation, contracts, bad input."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from accord.graphs.audit import LIFECYCLE, build_graph, label_oracle, verdict
from accord.nodes.audit.roles import ANALYSTS, analyse
from accord.state.context import Context
from tests.scripted import ScriptedChatModel

FIXTURES = Path(__file__).parent.parent / "fixtures"
OVERFLOW = (FIXTURES / "overflow.c").read_text()
VULNERABLE = {
    "vulnerable": True,
    "cwe": "CWE-120",
    "lines": [7],
    "confidence": 0.8,
    "evidence": "strcpy copies name into a 16-byte buffer without a length check",
}
SAFE = {"vulnerable": False, "evidence": "the copy is bounded", "confidence": 0.6}
MALFORMED = "I think it is fine."
"""No tool call: a finding that breaks the role's contract."""


def critique(finding: dict[str, Any]) -> dict[str, Any]:
    return {"unsafe_case": "a long name overflows the buffer", "safe_case": "callers may check", **finding}


class Audit:
    """Runs the audit graph with scripted analysts and keeps what happened."""

    def __init__(self, auditor: list[Any], critic: list[Any], tester: list[Any], label: bool = True):
        self.models = {
            "auditor": ScriptedChatModel(script=auditor, repeat_last=True),
            "critic": ScriptedChatModel(script=critic, repeat_last=True),
            "tester": ScriptedChatModel(script=tester, repeat_last=True),
        }
        self.graph = build_graph(self.models, InMemorySaver(), oracle=label_oracle(label))
        self.config = {"configurable": {"thread_id": "audit"}}

    def __call__(self, request: str = OVERFLOW, **inputs: Any) -> dict[str, Any]:
        context = Context(**inputs.pop("context", {}))
        return dict(
            self.graph.invoke(
                {"request": request, "source": "overflow.c", **inputs}, self.config, context=context
            )
        )

    def stages(self, values: dict[str, Any]) -> list[str]:
        return [v["target"] for v in values["verdicts"] if v["target"]]


def test_consensus_completes_after_one_parallel_round():
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit()
    assert values["status"] == "completed" and audit.stages(values) == ["analysing", "completed"]
    assert verdict(values) is True and values["verdicts"][-1]["outcome"] == "consensus"
    scheduled = [set(s.next) for s in audit.graph.get_state_history(audit.config)]
    assert {f"analysing.{role}" for role in ANALYSTS} in scheduled  # one super-step, all three
    assert sorted(values["findings"]["by_role"]) == sorted(ANALYSTS)


def test_a_split_vote_earns_one_deliberation_round_where_each_reads_the_others():
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [SAFE, VULNERABLE])
    values = audit()
    assert audit.stages(values) == ["analysing", "deliberating", "completed"]
    assert [v["outcome"] for v in values["verdicts"] if v["role"] == "vote"] == ["split", "consensus"]
    second = audit.models["tester"].prompts[1]
    assert "The other analysts judged" in second and "strcpy copies name" in second
    assert "the copy is bounded" in second  # its own first finding
    sent = [(m["sender"], m["receiver"]) for m in values["handoffs"] if m["payload"][0]["kind"] == "findings"]
    assert ("auditor", "tester") in sent and ("tester", "tester") not in sent


def test_deliberation_is_bounded_by_the_round_budget():
    split = Audit([VULNERABLE], [critique(SAFE)], [SAFE])
    values = split()
    assert split.stages(values) == ["analysing", "deliberating", "completed"]
    assert values["verdicts"][-1]["outcome"] == "decided" and verdict(values) is False  # 2–1 for safe
    longer = Audit([VULNERABLE], [critique(SAFE)], [SAFE])
    values = longer(context={"max_rounds": 3})
    assert longer.stages(values) == ["analysing", "deliberating", "deliberating", "completed"]


def test_a_deliberation_that_reverses_its_verdict_on_the_same_evidence_keeps_the_standing_finding():
    flipped = {**SAFE, "vulnerable": True}  # its own evidence for safe, copied under the other verdict
    audit = Audit([VULNERABLE], [critique(SAFE)], [SAFE, flipped])
    values = audit()
    assert audit.models["tester"].calls == 2
    assert values["findings"]["by_role"]["tester"]["vulnerable"] is False and verdict(values) is False
    kept = [e for e in values["ledger"] if e["role"] == "tester" and e["outcome"] == "kept"]
    assert len(kept) == 1 and kept[0]["stage"] == "deliberating"
    argued = Audit([VULNERABLE], [critique(SAFE)], [SAFE, {**flipped, "evidence": "name has no bound"}])
    values = argued()
    assert values["findings"]["by_role"]["tester"]["vulnerable"] is True and verdict(values) is True


def test_a_broken_finding_is_retried_then_abstains_and_a_tie_counts_as_vulnerable():
    audit = Audit([VULNERABLE], [critique(SAFE)], [MALFORMED])
    values = audit()
    tester_votes = [v["outcome"] for v in values["verdicts"] if v["role"] == "tester"]
    assert tester_votes == ["fail", "fail"]  # both rounds: retried with feedback, then the stage's fail
    assert audit.models["tester"].calls == 2 * (1 + Context().max_output_retries)
    assert "rejected" in audit.models["tester"].prompts[1]
    assert values["status"] == "completed" and verdict(values) is True
    assert "tester" not in values["findings"]["by_role"]


def test_too_few_findings_fail_the_audit():
    values = Audit([MALFORMED], [MALFORMED], [VULNERABLE])()
    assert values["status"] == "failed" and "1 of 3 analysts reached a finding" in values["reason"]


def test_first_round_findings_are_withheld_from_every_analyst():
    assert "findings" not in analyse("critic").accepts()
    planted = {"kind": "findings", "by_role": {"auditor": {**VULNERABLE, "evidence": "PLANTED"}}}
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    audit(findings=planted)
    first_prompts = [model.prompts[0] for model in audit.models.values()]
    assert all("PLANTED" not in prompt for prompt in first_prompts)


def test_a_missing_analyser_is_reported_and_the_tester_judges_without_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, path=None: None)
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit()
    tools = values["findings"]["by_role"]["tester"]["tools"]
    assert [(t["tool"], t["available"]) for t in tools] == [("cppcheck", False), ("flawfinder", False)]
    assert "No static analyser could run here" in audit.models["tester"].prompts[0]


def test_the_tester_cites_what_the_analysers_report():
    if shutil.which("cppcheck") is None:
        pytest.fail("cppcheck is not installed (apt-get install cppcheck)")
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit()
    reports = {t["tool"]: t for t in values["findings"]["by_role"]["tester"]["tools"]}
    assert reports["flawfinder"]["available"] and any(
        "strcpy" in i and "line 7" in i for i in reports["flawfinder"]["issues"]
    )
    assert "flawfinder" in audit.models["tester"].prompts[0]
    actions = [e["detail"] for e in values["ledger"] if e["kind"] == "action" and e["role"] == "tester"]
    assert {d.split(":")[0] for d in actions} >= {"cppcheck", "flawfinder", "ToolFindingDraft"}


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        ("", "empty"),
        ("int f(void) {\x00}", "binary"),
        ("please check my login page", "not C, C++ or Python"),
        ("x" * 30_000, "limit"),
    ],
)
def test_bad_input_is_refused_before_any_model_call(request_, reason):
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit(request_, source="")
    assert values["status"] == "failed" and reason in values["reason"]
    assert all(model.calls == 0 for model in audit.models.values())


def test_a_function_is_picked_out_of_a_file_with_its_line_numbers():
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [VULNERABLE])
    values = audit(OVERFLOW, function="greet")
    task = values["audit_task"]
    assert task["first_line"] == 4 and task["code"].startswith("void greet") and task["language"] == "c"
    assert "\n7 |     strcpy(buffer, name);" in audit.models["auditor"].prompts[0]


def test_every_finding_and_vote_is_judged_against_the_label():
    audit = Audit([VULNERABLE], [critique(VULNERABLE)], [SAFE, VULNERABLE], label=True)
    values = audit()
    judged = [(j["stage"], j["role"], j["correct"]) for j in values["judgments"]]
    assert ("analysing", "tester", False) in judged and ("analysing", "vote", True) in judged
    assert ("deliberating", "tester", True) in judged and judged[-1] == ("deliberating", "vote", True)


def test_the_lifecycle_table_is_the_graph():
    drawn = {(e.source, e.target) for e in build_graph().get_graph().edges}
    assert ("analysing.vote", "deliberating") in drawn and ("deliberating.vote", "deliberating") in drawn
    assert {t.target for t in LIFECYCLE.transitions if t.source == "analysing"} == {
        "completed",
        "deliberating",
        "failed",
    }
