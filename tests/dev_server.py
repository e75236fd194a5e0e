"""`langgraph dev` for tests: serve a config on a free loopback port, stop it by its process group."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from accord.runtime import model_server

ROOT = Path(__file__).parents[1]


@contextlib.contextmanager
def serve(config: Path, env: dict[str, str] | None = None, timeout_s: float = 120) -> Iterator[str]:
    """Serve ``config`` with ``langgraph dev`` on a free loopback port; yield its URL once ``/ok`` answers.

    The server is stopped by its process group when the block ends.
    """
    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert langgraph, "langgraph-cli[inmem] is a dev dependency"
    port = model_server.free_port()
    with tempfile.NamedTemporaryFile("w", prefix="langgraph-dev-", suffix=".log", delete=False) as log:
        proc = subprocess.Popen(
            [langgraph, "dev", "--config", str(config), "--port", str(port), "--no-browser", "--no-reload"],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
            env={**os.environ, "LANGSMITH_TRACING": "false", **(env or {})},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while not _ok(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"langgraph dev did not start:\n{Path(log.name).read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _ok(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ok", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
