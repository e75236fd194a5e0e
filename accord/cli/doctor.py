"""``accord doctor``: whether this machine can run Accord safely, and the fix for each thing that is not."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import httpx
from rich.console import Console

from accord.graphs import store
from accord.runtime import local_model, sandbox
from accord.state.settings import settings

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it stands, and what to do about it."""

    name: str
    level: Level
    detail: str
    fix: str = ""


def python() -> Check:
    """Report the interpreter (the package's ``requires-python`` refuses one it does not support)."""
    return Check("python", "ok", f"{'.'.join(map(str, sys.version_info[:3]))} ({sys.executable})")


def isolation() -> Check:
    """Check that model-written code can run in bubblewrap's namespaces."""
    try:
        mode = sandbox.isolation()
    except sandbox.SandboxUnavailable as exc:
        return Check("sandbox", "fail", str(exc).partition(": install")[0], sandbox.FIX)
    if mode == "rlimits":
        return Check(
            "sandbox",
            "warn",
            f"{sandbox.MODE_VARIABLE}={sandbox.UNSAFE}: model-written code runs with rlimits only",
            f"unset {sandbox.MODE_VARIABLE} once bubblewrap works here",
        )
    return Check("sandbox", "ok", f"bubblewrap {sandbox.bubblewrap()}, namespaces created")


def process_limit() -> Check:
    """Check that a sandboxed program's process count is bounded (a pids cgroup when running as root)."""
    if sandbox.process_limit_enforced():
        where = sandbox.pids_hierarchy()
        return Check("process limit", "ok", f"pids cgroup {where}" if where else "RLIMIT_NPROC (not root)")
    return Check(
        "process limit",
        "warn",
        "root without a writable pids cgroup: a fork bomb is bounded only by the timeout",
        "run as a normal user, or delegate the pids controller to this cgroup",
    )


def models() -> list[Check]:
    """Check each assembled local model's size and SHA-256 (the default team's must be there)."""
    found = []
    for name, model in local_model.MODELS.items():
        path = local_model.gguf_path(name)
        if not path.exists():
            if name in local_model.default_team():
                found.append(
                    Check(
                        f"model {name}",
                        "warn",
                        f"not assembled at {path}",
                        f"accord model setup --name {name}",
                    )
                )
            continue
        digest = hashlib.sha256()
        with path.open("rb") as gguf:
            while chunk := gguf.read(1 << 22):
                digest.update(chunk)
        if digest.hexdigest() != model.sha256:
            found.append(
                Check(
                    f"model {name}",
                    "fail",
                    f"{path}: SHA-256 {digest.hexdigest()[:16]}…, not the pinned {model.sha256[:16]}…",
                    f"rm {path} && accord model setup --name {name}",
                )
            )
        else:
            found.append(Check(f"model {name}", "ok", f"{path} (SHA-256 verified)"))
    return found


def endpoint() -> Check:
    """Check the model endpoint roles use by default: ``OPENAI_BASE_URL``, OpenAI, or the local model."""
    found = settings()
    key = found.openai_api_key.get_secret_value() if found.openai_api_key else None
    if base_url := found.openai_base_url:
        try:
            status = httpx.get(
                f"{base_url.rstrip('/')}/models",
                timeout=5.0,
                headers={"Authorization": f"Bearer {key or 'none'}"},
            ).status_code
        except httpx.HTTPError as exc:
            return Check(
                "endpoint",
                "fail",
                f"{base_url}: {type(exc).__name__}",
                "start the server, or unset OPENAI_BASE_URL to use the local model",
            )
        level: Level = "ok" if status < 400 else "fail"
        return Check(
            "endpoint",
            level,
            f"{base_url}/models answered HTTP {status}",
            "" if level == "ok" else "check the URL and OPENAI_API_KEY",
        )
    if key:
        return Check("endpoint", "ok", "OpenAI (OPENAI_API_KEY is set)")
    if importlib.util.find_spec("llama_cpp") is None:
        return Check(
            "endpoint",
            "fail",
            "no endpoint set and llama-cpp-python is not installed",
            "pip install -e '.[local]' (make setup), or set OPENAI_BASE_URL",
        )
    return Check("endpoint", "ok", "the embedded local model (started on demand)")


def database() -> Check:
    """Check that the run store opens."""
    url = store.database_url()
    where = store.redacted(url) if url else str(store.db_path())
    try:
        with store.checkpointer():
            pass
    except (store.RunStoreError, OSError) as exc:
        return Check("run store", "fail", str(exc), f"fix {store.DATABASE_URL} or ACCORD_DB")
    return Check("run store", "ok", where)


def require_sandbox(console: Console) -> None:
    """Stop before any model call unless model-written code can run isolated, or the user accepted the risk.

    Raises:
        SandboxUnavailable: bubblewrap is missing or cannot create its namespaces; the CLI exits with 6.
    """
    if sandbox.isolation() == "rlimits":
        console.print(
            f"[yellow bold]{sandbox.MODE_VARIABLE}={sandbox.UNSAFE}: model-written code runs "
            "with rlimits only, without filesystem, network or process isolation[/]"
        )


CHECKS: tuple[Callable[[], Check | list[Check]], ...] = (
    python,
    isolation,
    process_limit,
    models,
    endpoint,
    database,
)


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print every check; return 1 when any failed."""
    found: list[Check] = []
    for check in CHECKS:
        result = check()
        found += result if isinstance(result, list) else [result]
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    for item in found:
        print(
            f"{marks[item.level]}  {item.name:<26} {item.detail}"
            + (f"\n      fix: {item.fix}" if item.fix else "")
        )
    return 1 if any(item.level == "fail" for item in found) else 0


def add_doctor_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``accord doctor``."""
    doctor = sub.add_parser("doctor", help="check the sandbox, the models, the endpoint and the run store")
    doctor.set_defaults(func=cmd_doctor)
