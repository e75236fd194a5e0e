"""One audit on the real local model: three findings, the vote and a verdict, and its blame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord import cli

pytestmark = pytest.mark.integration
FIXTURE = Path(__file__).parent.parent / "fixtures" / "overflow.c"


def test_an_audit_on_the_local_model_reaches_a_verdict(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    code = cli.main(["audit", str(FIXTURE), "--thread", "overflow", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == {"vulnerable": 3, "safe": 0}[result["verdict"]]  # a verdict, whichever it is
    assert sorted(result["findings"]) == ["auditor", "critic", "tester"]
    assert all(f["evidence"] for f in result["findings"].values())
    tools = {t["tool"]: t for t in result["findings"]["tester"]["tools"]}
    assert any("strcpy" in issue for issue in tools["flawfinder"]["issues"])
    assert any(v["role"] == "vote" for v in result["votes"]) and result["cost"]["llm_calls"] >= 3
    assert cli.main(["blame", "overflow", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["thread"] == "overflow"
