"""An endpoint that echoes its API key — in a reply, in an error — leaves the key in no byte of what Accord
keeps or shows: the checkpoint database, the ledger, an export, the run's page, the CLI's output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.cli import main
from accord.state import secrets
from tests.conftest import STUB
from tests.endpoint import FakeEndpoint, Status, Text

KEY = "sk-accord-ECHOED-0123456789abcdef"


def test_redaction_replaces_every_configured_secret(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("ACCORD_DATABASE_URL", "postgresql://u:pw-0123456789@localhost/db")
    monkeypatch.setenv("ACCORD_MAX_ROUNDS", "12345678")  # not a secret by its name: left alone
    text = f"{KEY} then tok-0123456789, pw-0123456789, 12345678"
    assert secrets.redact(text) == "[redacted] then [redacted], [redacted], 12345678"
    assert secrets.redacted({"a": [KEY, ("x", KEY)]}) == {"a": ["[redacted]", ("x", "[redacted]")]}


def test_an_endpoint_echoing_its_key_leaves_it_nowhere(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    echoed = f"```python\ndef add(a, b):\n    # the key is {KEY}\n    return a - b\n```"
    script = [Text(echoed), Text(echoed), Status(400, f"this key is not valid here: {KEY}")]
    with FakeEndpoint(script) as endpoint:
        code = main(
            ["run", STUB, "--base-url", endpoint.url, "--model", "fake", "--max-candidates", "1",
             "--thread", "echo", "--out", str(tmp_path / "out")]
        )  # fmt: skip
    assert code in (1, 4)
    assert any(KEY in r for r in endpoint.prompts()) or endpoint.requests, "the endpoint was called"
    assert main(["export", "echo", "--format", "whowhen"]) == 0
    assert main(["report", "echo", "-o", str(tmp_path / "page.html")]) == 0
    assert main(["show", "echo", "--json"]) == 0
    shown = capsys.readouterr()
    kept = (tmp_path / "runs.sqlite").read_bytes() + (tmp_path / "page.html").read_bytes()
    kept += b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert KEY.encode() not in kept
    assert KEY not in shown.out and KEY not in shown.err
    ledger = json.loads(shown.out[shown.out.rindex('{\n  "thread"') :])["state"]["ledger"]
    assert ledger and KEY not in json.dumps(ledger)
    assert b"[redacted]" in kept, "the echo was recorded, redacted"


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "ACCORD_A2A_TOKEN"])
def test_a_secret_from_the_dot_env_file_is_redacted_too(tmp_path: Path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text(f"{name}=from-dot-env-0123456789\n")
    assert secrets.redact("x from-dot-env-0123456789 y") == "x [redacted] y"
