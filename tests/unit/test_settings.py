"""Settings live in one place: Context declares the run defaults, ACCORD_* variables override them, the CLI's
options are generated from the same fields, and the lifecycle table's counter limits hold unless set."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from accord import cli
from accord.cli import running
from accord.graphs.development import LIFECYCLE
from accord.state.context import Context
from accord.state.settings import PREFIX, Settings, run_defaults

ROOT = Path(__file__).resolve().parents[2]


def test_environment_variables_override_the_declared_defaults() -> None:
    context = run_defaults(
        {
            "ACCORD_MAX_ROUNDS": "2",
            "ACCORD_TEMPERATURE": "0.3",
            "ACCORD_ROLE_MODELS": '{"coder": {"model": "big"}}',
            "ACCORD_MODEL": "small",
        }
    )
    assert (context.max_rounds, context.temperature, context.model) == (2, 0.3, "small")
    assert context.model_for("coder").model == "big" and context.model_for("planner").model == "small"
    assert run_defaults({}) == Context()


def test_run_defaults_read_a_dotenv_file_under_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ACCORD_MAX_ROUNDS=3\nACCORD_MAX_TESTS=7\n")
    monkeypatch.setenv("ACCORD_MAX_TESTS", "5")
    context = run_defaults()
    assert (context.max_rounds, context.max_tests) == (3, 5)


def test_a_bad_environment_value_names_its_variable() -> None:
    with pytest.raises(ValueError, match="ACCORD_MAX_ROUNDS='many'"):
        run_defaults({"ACCORD_MAX_ROUNDS": "many"})


def test_the_cli_has_an_option_for_every_scalar_context_field() -> None:
    generated = [f.name for f in dataclasses.fields(Context) if f.name not in running.ROLE_OPTIONS]
    unset = cli.parser().parse_args(["run", "task"])
    assert all(getattr(unset, name) is None for name in generated)
    given = cli.parser().parse_args(["run", "task", "--max-rounds", "3", "--max-cost", "0.5", "--parallel"])
    assert (given.max_rounds, given.max_cost, given.parallel) == (3, 0.5, True)
    assert running.run_context(given).parallel is True and running.run_context(unset).parallel is False
    assert run_defaults({"ACCORD_PARALLEL": "true"}).parallel is True


def test_options_override_the_environment_which_overrides_the_defaults(monkeypatch) -> None:
    monkeypatch.setenv("ACCORD_MAX_CANDIDATES", "2")
    monkeypatch.setenv("ACCORD_MAX_TESTS", "3")
    args = cli.parser().parse_args(["run", "task", "--max-tests", "7", "--model", "coder=qwen2.5-coder-1.5b"])
    context = running.run_context(args)
    assert (context.max_candidates, context.max_tests, context.max_rounds) == (2, 7, None)
    assert context.role_models == {"coder": {"model": "qwen2.5-coder-1.5b"}}


def test_a_mix_casts_each_role_and_a_model_no_endpoint_serves_is_refused(monkeypatch, capsys) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)

    def context(*options: str) -> Context:
        return running.run_context(cli.parser().parse_args(["run", "task", *options]))

    assert context("--mix", "ABC").role_models == {
        "planner": {"model": "gemma3-270m"},
        "executor": {"model": "qwen2.5-coder-0.5b"},
        "critic": {"model": "qwen2.5-coder-1.5b"},
    }
    assert context("--mix", "critic=C,executor=qwen2.5-coder-0.5b").role_models == {
        "critic": {"model": "qwen2.5-coder-1.5b"},
        "executor": {"model": "qwen2.5-coder-0.5b"},
    }
    for bad, said in (
        ("ABD", "no model 'D'"),
        ("AB", "one letter per role"),
        ("planner=", "ROLE=MODEL"),
        ("critic=gpt-4o", "'gpt-4o' is not an embedded model"),
    ):
        with pytest.raises(SystemExit):
            context("--mix", bad)
        assert said in capsys.readouterr().err
    assert context("--model", "C").model == "qwen2.5-coder-1.5b"
    assert context("--model", "critic=A").role_models == {"critic": {"model": "gemma3-270m"}}
    with pytest.raises(SystemExit):
        context("--model", "big")
    assert context("--model", "big", "--base-url", "http://localhost:1/v1").model == "big"


def test_the_lifecycle_table_limits_hold_unless_the_context_sets_them() -> None:
    table = {c.name: c.limit for c in LIFECYCLE.counters}
    assert Context().counter_limits() == {}
    assert {**table, **Context(max_rounds=2).counter_limits()} == {**table, "round": 2}


def test_env_example_lists_exactly_the_settings() -> None:
    listed = set(re.findall(r"^# (ACCORD_\w+)=", (ROOT / ".env.example").read_text(), re.M))
    declared = {PREFIX + name.upper() for name in Settings.model_fields if not name.startswith("openai")}
    declared |= {PREFIX + f.name.upper() for f in dataclasses.fields(Context)}
    assert listed == declared


def test_settings_read_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ACCORD_DB", str(tmp_path / "x.sqlite"))
    monkeypatch.setenv("ACCORD_DATABASE_URL", "postgresql://u:secret@h/db")
    found = Settings()
    assert found.db == tmp_path / "x.sqlite"
    assert "secret" not in repr(found) and found.database_url is not None
