"""Accord's MCP server: static analysis of a file map with ruff and bandit (``python -m
accord.runtime.mcp_server``).

Served over stdio, or over streamable HTTP with ``--http PORT`` (at ``http://127.0.0.1:PORT/mcp``); a role
calls it as an MCP_TOOL action through the executor, by command or by URL. The code is only read by
the analysers, never run, in a fresh temporary directory that holds nothing but the given files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath

from mcp.server.fastmcp import FastMCP

server = FastMCP("accord-static-analysis", log_level="WARNING")
TIMEOUT_S = 60
BREAKING = {"F821", "F822", "F823", "F706", "F704"}
"""ruff rules whose finding means the code fails when it runs (undefined names, misplaced return/yield)."""


def _workspace(files: dict[str, str], root: Path) -> None:
    for name, content in files.items():
        path = PurePosixPath(name)
        if path.is_absolute() or ".." in path.parts or not path.parts:
            raise ValueError(f"file path {name!r} is outside the workspace")
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)


def _tool(*argv: str, cwd: Path) -> str:
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S
    ).stdout


@server.tool()
def analyse(files: dict[str, str]) -> dict[str, list[dict[str, object]]]:
    """Lint Python files with ruff (errors, undefined names, bugbear) and bandit (security).

    Returns ``{"findings": [...]}``, one per problem: tool, rule, severity, file, line and message.
    """
    findings: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="accord-mcp-") as tmp:
        root = Path(tmp)
        _workspace(files, root)
        ruff = _tool(
            "ruff", "check", "--output-format", "json", "--select", "E9,F,B", "--no-cache", ".", cwd=root
        )
        for item in json.loads(ruff or "[]"):
            broken = item["code"].startswith("E9") or item["code"] in BREAKING
            findings.append(
                {
                    "tool": "ruff",
                    "rule": item["code"],
                    "severity": "major" if broken else "minor",
                    "file": Path(item["filename"]).relative_to(root).as_posix(),
                    "line": item["location"]["row"],
                    "message": item["message"],
                }
            )
        bandit = _tool("bandit", "-q", "-r", "-f", "json", ".", cwd=root)
        for item in json.loads(bandit or "{}").get("results", []):
            findings.append(
                {
                    "tool": "bandit",
                    "rule": item["test_id"],
                    "severity": str(item["issue_severity"]).lower(),
                    "file": PurePosixPath(item["filename"]).as_posix().removeprefix("./"),
                    "line": item["line_number"],
                    "message": item["issue_text"],
                }
            )
    return {"findings": findings}


def main(argv: list[str] | None = None) -> None:
    """Serve over stdio, or over streamable HTTP on loopback with ``--http PORT``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m accord.runtime.mcp_server", description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on this port")
    parser.add_argument("--host", default="127.0.0.1", help="with --http: the address (default: loopback)")
    args = parser.parse_args(argv)
    if args.http is None:
        server.run("stdio")
        return
    server.settings.host, server.settings.port = args.host, args.http
    server.run("streamable-http")


if __name__ == "__main__":
    main()
