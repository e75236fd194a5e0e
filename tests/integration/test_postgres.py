"""``ACCORD_DATABASE_URL``: runs, resume, show and blame against a real PostgreSQL server."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest

from accord import cli
from tests import pg
from tests.conftest import APPROVE, BAD, GOOD, PLAN, script_cli

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def postgres():
    if pg.binaries() is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    with pg.server() as url:
        yield url


@pytest.fixture
def store(postgres, workdir, monkeypatch):
    """A fresh database as the run store."""
    url = pg.fresh_database(postgres, f"accord_{uuid.uuid4().hex[:12]}")
    monkeypatch.setenv("ACCORD_DATABASE_URL", url)
    return url


def _json(capsys, *argv: str):
    assert cli.main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_live_in_postgres_and_every_command_reads_them(store, workdir, monkeypatch, capsys):
    script_cli(monkeypatch, planner=[PLAN, PLAN], coder=[GOOD, BAD], debugger=[BAD], reviewer=[APPROVE])
    assert cli.main(["run", "--file", "stub.py", "--thread", "good", "--max-candidates", "1"]) == 0
    assert (
        cli.main(
            ["run", "--file", "stub.py", "--thread", "bad", "--max-candidates", "1", "--max-rounds", "1"]
        )
        == 1
    )
    capsys.readouterr()

    assert not (workdir / ".accord").exists()  # nothing went to SQLite
    with psycopg.connect(store) as conn:
        rows = conn.execute("SELECT thread_id, count(*) FROM checkpoints GROUP BY thread_id").fetchall()
    counts = dict(rows)
    assert set(counts) == {"good", "bad"} and min(counts.values()) > 5

    assert cli.main(["runs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["bad", "good"]
    assert _json(capsys, "show", "good", "--json")["status"] == "completed"
    verdict = _json(capsys, "blame", "bad", "--json")
    assert verdict["origin"]["stage"] == "implementing" and verdict["origin"]["role"] == "coder"
    assert _json(capsys, "cost", "bad", "--json")["total"]["llm_calls"] > 0


def test_an_interrupted_run_resumes_from_postgres(store, workdir, monkeypatch, capsys):
    models = script_cli(monkeypatch, planner=[PLAN], coder=[BAD], debugger=[GOOD], reviewer=[APPROVE])

    def crash(messages):
        raise KeyboardInterrupt  # Ctrl-C while the debugger's model is working

    models["debugger"].script = [crash, GOOD]
    assert cli.main(["run", "--file", "stub.py", "--thread", "t", "--max-candidates", "1"]) == 130
    assert cli.main(["resume", "t", "--out", "out"]) == 0
    assert models["planner"].calls == models["coder"].calls == 1  # finished steps are not redone
    assert "return a + b" in (workdir / "out" / "solution.py").read_text()


def test_first_openers_racing_on_a_fresh_database_all_get_the_store(store):
    """Eval workers open a fresh store at once; creating its tables must not fail any of them."""
    from concurrent.futures import ThreadPoolExecutor

    from accord.graphs.store import checkpointer, thread_ids

    def open_store(_: int) -> list[str]:
        with checkpointer() as saver:
            return thread_ids(saver)

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(open_store, range(8))) == [[]] * 8
