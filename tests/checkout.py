"""A copy of the checkout's tracked files, as a fresh clone would lay them out (symlinks stay symlinks)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_tracked(into: Path, skip: tuple[str, ...] = ()) -> Path:
    """Copy every tracked file not under a prefix in ``skip`` into ``into``; return ``into``."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in files.splitlines():
        source, target = ROOT / name, into / name
        if name.startswith(skip) or not (source.is_symlink() or source.is_file()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            target.write_bytes(source.read_bytes())
    return into
