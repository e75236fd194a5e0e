"""The lifecycle drawings in the docs, generated from the compiled graphs.

A document marks each drawing with the graph it shows::

    <!-- lifecycle: development -->
    ```mermaid
    ...
    ```
    <!-- /lifecycle -->

``python -m accord.graphs.diagram`` (``make diagram``) redraws every marked one in the README and ``docs/``;
``--check`` only lists the documents whose drawing differs from the compiled graph (a test runs it).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from accord.graphs.catalog import workflows

ROOT = Path(__file__).resolve().parents[1]
MARKED = re.compile(r"(<!-- lifecycle: (?P<name>\w+) -->\n)(?P<body>.*?)(<!-- /lifecycle -->)", re.S)


def mermaid(name: str) -> str:
    """Return the fenced mermaid drawing of the graph ``name``, as LangGraph draws it, each working stage
    labelled with the role that works in it (its trace metadata left to the traces)."""
    graph = workflows()[name].build().get_graph()
    for key, node in graph.nodes.items():
        role = (node.metadata or {}).get("accord_role")
        graph.nodes[key] = node._replace(name=f"{node.name} · {role}" if role else node.name, metadata=None)
    return f"```mermaid\n{graph.draw_mermaid().rstrip()}\n```\n"


def render(text: str) -> str:
    """Return ``text`` with every marked drawing redrawn."""
    return MARKED.sub(lambda m: m.group(1) + mermaid(m["name"]) + m.group(4), text)


def documents(root: Path = ROOT) -> list[Path]:
    """Return the documents that may hold drawings: the README and every page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    """Redraw the marked drawings, or with ``--check`` list the stale documents (exit 1 when any)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report documents whose drawing is stale")
    args = parser.parse_args(argv)
    stale = []
    for doc in documents():
        if doc.exists() and (new := render(doc.read_text())) != doc.read_text():
            stale.append(doc)
            if not args.check:
                doc.write_text(new)
    verb = "differs from the compiled graph" if args.check else "redrawn"
    for doc in stale:
        print(f"{doc.relative_to(ROOT)}: a lifecycle drawing {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
