"""``accord report --serve``: the run store's pages over HTTP, read-only, rendered afresh per request.

The index lists every thread, newest first; ``/thread/ID`` is that thread's page (``accountability.page``),
which reloads itself while the run is still going. Only GET is answered, and the server binds to loopback
unless told otherwise.
"""

from __future__ import annotations

from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, unquote

from accord.accountability import page
from accord.accountability.account import outcome
from accord.graphs import store
from accord.graphs.catalog import blame_oracle, thread_workflow
from accord.state.graph_state import ENDED
from accord.state.history import from_graph

LIVE_REFRESH_S = 5
"""How often a page of a run still going reloads itself."""


def index() -> str:
    """Return the list of threads in the run store, newest first, each linking to its page."""
    rows = []
    with store.checkpointer() as saver:
        for thread in store.thread_ids(saver):
            graph = thread_workflow(saver, thread).build(checkpointer=saver)
            info = outcome(dict(graph.get_state(store.config(thread)).values))
            rows.append(
                f"<tr><td><a href='/thread/{quote(thread, safe='')}'>{escape(thread)}</a></td>"
                f"<td>{escape(str(info['status']))}</td><td>{escape(str(info['stage']))}</td>"
                f"<td class=n>{info['round']}</td><td class=n>{info['llm_calls']}</td></tr>"
            )
    head = "<tr><th>thread</th><th>status</th><th>stage</th><th>round</th><th>LLM calls</th></tr>"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Runs · Accord</title>"
        f"<style>{page.STYLE}</style></head><body><h1>Runs</h1><table>{head}{''.join(rows)}</table>"
        "</body></html>\n"
    )


def thread_page(thread: str) -> str | None:
    """Return a thread's page from the run store as it is now; None for a thread it does not hold."""
    with store.checkpointer() as saver:
        workflow = thread_workflow(saver, thread)
        chain = from_graph(workflow.build(checkpointer=saver), thread)
    if not chain:
        return None
    live = chain[-1].values.get("status") not in ENDED
    return page.of_branch(
        thread,
        chain,
        workflow.lifecycle,
        blame_oracle(chain[-1].values),
        refresh_s=LIVE_REFRESH_S if live else None,
    )


class Pages(BaseHTTPRequestHandler):
    """Answers GET / and GET /thread/ID; anything else is not found."""

    def do_GET(self) -> None:  # http.server's name for the GET handler
        if self.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, index())
        elif self.path.startswith("/thread/") and (html := thread_page(unquote(self.path[8:]))) is not None:
            self._send(HTTPStatus.OK, html)
        else:
            self._send(HTTPStatus.NOT_FOUND, f"<p>no such page: {escape(self.path)}</p>")

    def _send(self, status: HTTPStatus, html: str) -> None:
        body = html.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # http.server's signature
        pass  # requests are not logged: a page view is not an event of a run


def server(host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    """Return the pages' server bound to ``host``:``port`` (port 0: any free one), not yet serving."""
    return ThreadingHTTPServer((host, port), Pages)
