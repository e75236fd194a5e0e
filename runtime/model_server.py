"""The local model server: ``llama_cpp.server`` with lazy grammar sampling (``runtime.llama_server``).

A server listens on a free loopback port, is started on demand and exits with the process that owns
it, or is left running by ``accord model serve`` (its pid and port kept in the cache), and is shared by
every role of a run that uses its model.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from accord.runtime.local_model import DEFAULT_MODEL, MODELS, ModelSetupError, assemble, cache_dir


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A running llama.cpp server."""

    pid: int
    port: int
    model: str
    owned: bool = True
    """Whether this process started it (and so stops it at exit)."""

    @property
    def base_url(self) -> str:
        """Return the OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def alive(self) -> bool:
        """Return whether the server answers."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                return bool(resp.status == 200)
        except OSError:
            return False

    def exists(self) -> bool:
        """Return whether the server's process is still there, busy or not (a dead child is reaped)."""
        try:
            if self.owned and os.waitpid(self.pid, os.WNOHANG)[0] == self.pid:
                return False
        except ChildProcessError:
            pass  # not our child (any more): ask the kernel below
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def listening(self) -> bool:
        """Return whether the server accepts connections (it opens its port once the model is loaded)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                return True
        except OSError:
            return False

    def answers(self, patience_s: float) -> bool:
        """Return whether the server listens within ``patience_s`` while its process lives.

        Not an HTTP health check: llama-cpp-python's server takes the model's lock for ``/v1/models`` too,
        so a server generating for another client leaves it unanswered for over 60 s; taken for dead, a
        second server would start, and two on 2 cores make a planning call take 103 s instead of 13-22 s.
        """
        deadline = time.monotonic() + patience_s
        while self.exists():
            if self.listening():
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.5)
        return False

    def stop(self) -> None:
        """Stop the server and its process group."""
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        for _ in range(50):
            try:
                os.kill(self.pid, 0)
                os.waitpid(self.pid, os.WNOHANG)
            except (ProcessLookupError, ChildProcessError):
                return
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)


KEPT_SERVER_LOGS = 8
"""Server logs kept in the cache: one per start, so without pruning they pile up run after run."""


def _age(log: Path) -> float:
    """A log's modification time; one a concurrent start pruned after the listing counts as oldest."""
    try:
        return log.stat().st_mtime
    except OSError:
        return 0.0


def server_log(port: int) -> Path:
    """Return the log path for a server on ``port``, deleting all but the newest older logs."""
    logs = sorted(cache_dir().glob("server-*.log"), key=_age, reverse=True)
    for old in logs[KEPT_SERVER_LOGS - 1 :]:
        with contextlib.suppress(OSError):  # a concurrent start may have pruned it already
            old.unlink()
    return cache_dir() / f"server-{port}.log"


def _state_file() -> Path:
    return cache_dir() / "server.json"


def detached_server() -> Server | None:
    """Return the server ``accord model serve`` started, if its process still exists (busy or not)."""
    try:
        data = json.loads(_state_file().read_text())
        os.kill(data["pid"], 0)
    except (OSError, ValueError, KeyError):
        return None
    return Server(pid=data["pid"], port=data["port"], model=data["model"], owned=False)


def running_server() -> Server | None:
    """Return the server left running by ``accord model serve``, if it listens (busy or not)."""
    server = detached_server()
    return server if server is not None and server.listening() else None


OWNER_ENV = "ACCORD_SERVER_OWNER"
"""Set for an owned server: the pid of the process it serves (``watch_owner``)."""


def watch_owner(owner: int, every_s: float = 1.0) -> None:
    """Exit this process once ``owner``, its parent, is gone, however it ended (SIGKILL included).

    Not ``PR_SET_PDEATHSIG``: that fires when the parent *thread* ends, and a server started from one of
    LangGraph's worker threads was killed after every step, then loaded again by the next call.
    """

    def watch() -> None:
        while os.getppid() == owner:  # an orphan is adopted by another process
            time.sleep(every_s)
        os._exit(0)

    threading.Thread(target=watch, name="owner-watch", daemon=True).start()


def spawn(command: list[str], log: IO[bytes], detach: bool) -> subprocess.Popen[bytes]:
    """Start a server process in a session of its own; an owned one (not ``detach``) is told its owner's
    pid, so that it does not outlive its run, however the run ends (``watch_owner``)."""
    env = {key: value for key, value in os.environ.items() if key != OWNER_ENV}
    if not detach:
        env[OWNER_ENV] = str(os.getpid())
    return subprocess.Popen(
        command,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )


def chat_format(name: str) -> str | None:
    """Return the name of Accord's chat format for embedded model ``name`` where its GGUF states none
    (``LocalModel.chat``, which ``runtime.llama_server`` registers); None: the server uses the GGUF's."""
    model = MODELS.get(name)
    return f"accord-{name}" if model and model.chat else None


def start_server(
    name: str = DEFAULT_MODEL,
    port: int | None = None,
    n_ctx: int = 8192,
    timeout_s: float = 120.0,
    detach: bool = False,
) -> Server:
    """Start a llama.cpp server for ``name`` on loopback and wait until it answers."""
    path = assemble(name)
    port = port or free_port()
    log = server_log(port).open("ab")
    try:
        proc = spawn(
            [
                sys.executable,
                "-m",
                "accord.runtime.llama_server",
                "--model",
                str(path),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(n_ctx),
                "--model_alias",
                name,
                "--n_threads",
                str(os.cpu_count() or 2),
                # Flash attention: measured 126 vs 78 prompt tokens/s for this model on 2 cores.
                "--flash_attn",
                "true",
                *(["--chat_format", own] if (own := chat_format(name)) else []),
            ],
            log,
            detach,
        )
    except OSError as exc:
        raise ModelSetupError(f"cannot start llama_cpp.server: {exc}") from exc
    server = Server(pid=proc.pid, port=port, model=name, owned=not detach)
    deadline = time.monotonic() + timeout_s
    while not server.alive():
        if proc.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise ModelSetupError(
                f"llama_cpp.server did not come up (see {log.name}); "
                "is llama-cpp-python[server] installed? (`pip install -e '.[local]'`)"
            )
        time.sleep(0.5)
    if detach:
        _state_file().write_text(json.dumps({"pid": proc.pid, "port": port, "model": name}))
    return server


_shared: dict[str, Server] = {}
_starting = threading.Lock()
"""Held while a server is found or started: parallel roles' first calls would each start one otherwise."""


BUSY_PATIENCE_S = 120.0
"""How long a live server process may take to open its port (a detached server still loading its model)."""


def ensure_server(name: str = DEFAULT_MODEL) -> Server:
    """Return a live server for ``name``: this process's, else a detached one, else a new one it owns.

    A server whose process lives is waited for, not replaced: it may be busy with another client.
    """
    with _starting:
        for server in (_shared.get(name), detached_server()):
            if server is None or server.model != name:
                continue
            if server.answers(BUSY_PATIENCE_S):
                _shared[name] = server
                return server
            if server.owned:
                server.stop()  # hung: it would go on holding the cores
        server = start_server(name)
        atexit.register(server.stop)
        _shared[name] = server
        return server


_generation = threading.Lock()
_each_model = {name: threading.Lock() for name in MODELS}


def generating(model: str, parallel: bool = False) -> contextlib.AbstractContextManager[Any]:
    """Return what a call to ``model`` holds while it generates: one lock shared by every embedded model
    (on 2 cores two servers generating at once each run at half speed or worse), or with ``parallel`` one
    lock per model (a server answers one request at a time anyway); nothing for a model behind an
    endpoint."""
    if model not in MODELS:
        return contextlib.nullcontext()
    return _each_model[model] if parallel else _generation


def stop_owned() -> None:
    """Stop every server this process started."""
    for name, server in list(_shared.items()):
        if server.owned:
            server.stop()
        del _shared[name]
