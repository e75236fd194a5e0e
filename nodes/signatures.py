"""What the names in a planned program mean to the code around them: the storage functions every
application plan has, parameters that pick an item or name a file, and a signature's parameter names.

The Planner writes them into plans; the Coder's writing and the interface read them back.
"""

from __future__ import annotations

import re

STORAGE_NAMES = frozenset({"load_items", "save_items", "main"})
PICKS = re.compile(r"(^|_)(id|index|idx|number|num|no|position|pos)$")
"""Parameter names that pick an item (``task_id``, ``index``): the interface passes the user's 1-based
number as a Python index."""
FILE_PARAMETERS = frozenset({"path", "file", "filename", "file_path", "filepath"})
SIGNATURE = r'^(def )?[A-Za-z_][A-Za-z0-9_]*\([^()"\\\n]*\):?$'
"""A function's name and parameters, ``add_item(items, text='')`` (``def`` and the colon allowed): a draft's
schema holds a planned function to it, and the local server's grammar with it, so that the local model
writes a signature where it wrote the unit's description."""


def bare(signature: str) -> str:
    """Return a ``SIGNATURE`` without its ``def`` and colon: ``def add(a, b):`` gives ``add(a, b)``."""
    return signature.strip().removeprefix("def ").rstrip(":")


def parameters(signature: str) -> list[str]:
    """Return the parameter names of a signature like ``add_item(items, text='')``."""
    inside = signature.partition("(")[2].rpartition(")")[0]
    return [p.split("=")[0].split(":")[0].strip().lstrip("*") for p in inside.split(",") if p.strip()]
