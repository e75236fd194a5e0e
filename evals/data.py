"""Where the benchmark data lives: ``$ACCORD_DATA``, else ``shared/data`` beside the project."""

from __future__ import annotations

import os
from pathlib import Path

_PROJECT = Path(__file__).resolve().parents[1]
CANDIDATES = (_PROJECT.parent / "shared" / "data", Path("/work/shared/data"))


def data_dir() -> Path:
    """Return the benchmark data directory.

    Raises:
        FileNotFoundError: neither ``$ACCORD_DATA`` nor a ``shared/data`` beside the project exists.
    """
    if env := os.environ.get("ACCORD_DATA"):
        return Path(env)
    for path in CANDIDATES:
        if path.is_dir():
            return path
    raise FileNotFoundError("no benchmark data: set ACCORD_DATA to the shared/data directory")
