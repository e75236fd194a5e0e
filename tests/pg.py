"""A throwaway PostgreSQL server for tests: Debian's binaries, a temporary data directory, loopback only."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from accord.runtime.model_server import free_port


def binaries() -> Path | None:
    """Return the directory holding ``initdb`` and ``postgres`` (newest Debian version first), if any."""
    found = sorted(
        (p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(p.parent.name),
        reverse=True,
    )
    if found:
        return found[0]
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@contextlib.contextmanager
def server(timeout_s: float = 60.0) -> Iterator[str]:
    """Start a server and yield its URL (user ``postgres``, no password); stop it and delete its data."""
    bindir = binaries()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL is not installed (apt-get install postgresql)")
    # initdb refuses to run as root: run the server as the package's `postgres` user then.
    user = "postgres" if os.getuid() == 0 else None
    data = Path(tempfile.mkdtemp(prefix="accord-pg-"))
    if user:
        shutil.chown(data, user)
    port = free_port()
    subprocess.run(
        [bindir / "initdb", "-D", data / "db", "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        user=user,
        check=True,
        capture_output=True,
    )
    proc = subprocess.Popen(
        [
            bindir / "postgres",
            "-D",
            data / "db",
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-k",
            data,
            "-c",
            "fsync=off",
        ],
        user=user,
        stdout=subprocess.DEVNULL,
        stderr=(data / "server.log").open("wb"),
    )
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        deadline = time.monotonic() + timeout_s
        while (
            subprocess.run(
                [bindir / "pg_isready", "-h", "127.0.0.1", "-p", str(port)], capture_output=True
            ).returncode
            != 0
        ):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start: {(data / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(data, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """Create database ``name`` on the server at ``url``; return its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + f"/{name}"
