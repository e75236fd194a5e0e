"""A program that takes a file path on its command line, asked for as a new user would (``accord run``,
defaults) on the local model: its design supplies the file its session names, and the program is checked
through its command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord import cli
from runtime import model_server

pytestmark = pytest.mark.integration

REQUEST = ("Write a command-line program that reads a text file named on its command line and prints "
           "its most frequent word and how many times it appears.")


def test_a_program_reading_a_file_named_on_its_command_line_is_built_and_played_with_it(
        server: model_server.Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "runs.sqlite"))
    monkeypatch.chdir(tmp_path)
    code = cli.main(["run", REQUEST, "--thread", "words", "--out", "out"])
    said = capsys.readouterr().err
    assert cli.main(["show", "words", "--json"]) == 0
    values = json.loads(capsys.readouterr().out)["state"]
    assert code == 0 and values["status"] == "completed", said[-2000:]

    design = values["plan"]["design"]
    assert design["interface"] == "arguments" and design["files"], design
    runs = [c for c in values["review"]["integration"]["cases"] if c["name"].startswith("run: python app.py")]
    assert runs and all(c["passed"] for c in runs)
    # The session's runs name the design's file, and the program reads its command line, not input().
    assert any(name in c["name"] for c in runs for name in design["files"])
    program = (tmp_path / "out" / "app.py").read_text()
    assert "sys.argv" in program and "input(" not in program
    assert not set(design["files"]) & set(values["code"]["files"])  # the inputs are not the program's files
