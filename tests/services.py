"""A throwaway Redis server for tests: Debian's binary, loopback only, nothing persisted."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator

from accord.runtime.model_server import free_port


def redis_binary() -> str | None:
    """Return the redis-server executable, if installed."""
    return shutil.which("redis-server")


@contextlib.contextmanager
def redis_server(timeout_s: float = 30.0) -> Iterator[str]:
    """Start redis-server on a free loopback port; yield its URL; stop it."""
    binary = redis_binary()
    if binary is None:
        raise FileNotFoundError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout_s
        while (
            subprocess.run(
                ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True
            ).stdout.strip()
            != "PONG"
        ):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)
