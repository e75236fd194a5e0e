"""A scripted OpenAI-compatible endpoint (chats and completions) on loopback: replies and faults on cue.

Tests and the load benchmark point Accord's real client at it (``Context(base_url=endpoint.url)``) to see
what the whole stack does with 500s, hangs, dropped connections and malformed output.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    """A plain assistant reply."""

    content: str


@dataclass(frozen=True)
class Tool:
    """A call of the request's first tool with these raw arguments (which need not be valid JSON)."""

    arguments: str


@dataclass(frozen=True)
class Status:
    """An HTTP error, with the message its body carries."""

    code: int
    message: str = "injected fault"


@dataclass(frozen=True)
class Hang:
    """No answer for this many seconds (then a reply nobody waits for)."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """The connection closes with no reply, as when the server dies mid-request."""


Reply = Text | Tool | Status | Hang | Drop


class FakeEndpoint:
    """Serve ``script`` one reply per request (the last repeats), or ask it for each request's reply;
    keep every request body."""

    def __init__(self, script: list[Reply] | Callable[[dict[str, Any]], Reply]) -> None:
        self.script = script if callable(script) else list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeEndpoint:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def prompts(self) -> list[str]:
        """Return each request's messages as one text."""
        return [
            "\n".join(str(m.get("content")) for m in body["messages"])
            if "messages" in body
            else str(body.get("prompt"))
            for body in self.requests
        ]

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            count = len(self.requests)
        if callable(self.script):
            return self.script(body)  # outside the lock: it may take its time, as a server would
        return self.script[min(count, len(self.script)) - 1]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                reply = endpoint._next(body)
                if isinstance(reply, Drop):
                    self.close_connection = True
                    return
                if isinstance(reply, Hang):
                    time.sleep(reply.seconds)
                    reply = Text("late")
                if isinstance(reply, Status):
                    self._send(reply.code, {"error": {"message": reply.message, "type": "server_error"}})
                    return
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if not self.path.endswith("/chat/completions"):  # a completion: text in, its continuation out
                    self._send(
                        200,
                        {
                            "id": "x",
                            "object": "text_completion",
                            "created": 0,
                            "model": body.get("model", "fake"),
                            "usage": usage,
                            "choices": [
                                {
                                    "index": 0,
                                    "text": getattr(reply, "content", ""),
                                    "finish_reason": "stop",
                                    "logprobs": None,
                                }
                            ],
                        },
                    )
                    return
                message: dict[str, Any] = {"role": "assistant", "content": None}
                if isinstance(reply, Tool):
                    name = body["tools"][0]["function"]["name"]
                    message["tool_calls"] = [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": name, "arguments": reply.arguments},
                        }
                    ]
                else:
                    message["content"] = reply.content
                self._send(
                    200,
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": "tool_calls" if isinstance(reply, Tool) else "stop",
                            }
                        ],
                        "usage": usage,
                    },
                )

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a hang past its timeout)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
