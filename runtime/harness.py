"""Checks whose verdict the checked code cannot write: a pass is a completion record, never an exit code.

A check runs as a harness script in the sandbox, beside the code it checks. The script is no file the code
can read: it reaches the interpreter through a pipe (``/proc/self/fd/N``), drained before the checked code
is imported. Before that, too, the harness reads a fresh secret from a second pipe and closes it; no file,
argument or environment variable holds the secret. When the last check has run, the harness writes its
record, the secret, a sequence number and the checks' value, on a third pipe, and ends the process at
once (no ``atexit`` hook, no ``finally`` of the checked code runs after it); a harness may ``keep`` a
provisional record before a last phase that may not finish (a later record supersedes it). The host
accepts only records numbered 1, 2, … in order, each carrying the secret, and reads the last: a missing
record (the program ended, hung or was killed before its checks finished), a repeated or unnumbered
record, or any other byte on that pipe fails the check, whatever the exit status.

The record's value is rebuilt from exact built-in types before it is written (``str`` subclasses,
objects with their own ``__repr__`` or ``__eq__`` cannot shape it) and read back with
``ast.literal_eval``. What stays out of reach of this design: code that reads the harness's memory from
inside the process (its frames hold the secret while the checks run), or that alters state the checks
share with it (a module both import); docs/reliability.md says so.
"""

from __future__ import annotations

import ast
import contextlib
import os
import secrets
import select
import textwrap
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accord.runtime import sandbox

JUDGE = "completion record"
"""The judge a result row's verdict came from (rows without the field came from exit statuses)."""
RECORD_LIMIT = 4 << 20
"""Bytes the host reads from the record pipe; more fails the check (no harness writes that much)."""

_PROLOGUE = '''
def _accord_run(_body, _script_fd, _secret_fd, _report_fd):
    import builtins, linecache, os, sys, traceback
    secret = os.read(_secret_fd, 256)
    os.close(_secret_fd)
    os.close(_script_fd)  # read to its end already: the interpreter reads a script before running it
    sys.path[0] = os.getcwd()  # the script came through a pipe: import the workspace's modules
    write, exit_now, exact, join, text_of = os.write, os._exit, type, str.__add__, repr
    plain_scalars = (bool, int, float, complex, str, bytes, type(None))

    def is_plain(value, depth=0):
        """Whether ``value`` is data of exact built-in types, whose comparison no code can redefine."""
        kind = exact(value)
        if kind in plain_scalars:
            return True
        if depth > 50:
            return False
        if kind in (list, tuple, set, frozenset):
            return all(is_plain(v, depth + 1) for v in value)
        if kind is dict:
            return all(is_plain(k, depth + 1) and is_plain(v, depth + 1) for k, v in value.items())
        return False

    def rebuilt(value, depth=0):
        """The record's value in exact built-in types; anything else becomes a marker string."""
        kind = exact(value)
        if kind is str:
            return join("", value)
        if kind in (bool, int, float, type(None)):
            return value
        if depth < 50 and kind in (list, tuple):
            return [rebuilt(v, depth + 1) for v in value]
        if depth < 50 and kind is dict:
            return {join("", k) if exact(k) is str else "?": rebuilt(v, depth + 1) for k, v in value.items()}
        return "<not plain data>"

    written = [0]

    def keep(value):
        """Write a record now; a later one supersedes it, and it stands if the checks die after it."""
        written[0] += 1
        data = join(text_of(rebuilt(value)), "\\n").encode("utf-8", "replace")
        record = secret + b" " + str(written[0]).encode() + b" " + data
        while record:
            record = record[write(_report_fd, record):]

    def shown(name, source):
        """Keep a check's source for its tracebacks: a failed ``assert`` then names its line."""
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)

    shown("<accord checks>", _body)
    namespace = {"__name__": "__accord_checks__", "shown": shown, "__builtins__": builtins,
                 "is_plain": is_plain,
                 "BUILTINS": dict(builtins.__dict__), "keep": lambda value: keep({"value": value})}
    try:
        exec(compile(_body, "<accord checks>", "exec"), namespace)
        value = {"value": namespace["checks"]()}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from the checked code too
        try:
            where = traceback.extract_tb(exc.__traceback__)
            said = f"{exc}" or "at " + ((where[-1].line if where else "") or "?")
            value = {"error": f"{exact(exc).__name__}: {said}"[-1500:],
                     "traceback": traceback.format_exc()[-2000:]}
        except BaseException:
            value = {"error": "the checks raised an exception that cannot be shown"}
    keep(value)
    exit_now(0)
'''


@dataclass(frozen=True)
class Checked:
    """How a harness ended: the sandbox's account of the process, and the record its checks left."""

    result: sandbox.SandboxResult
    value: Any = None
    """What ``checks()`` returned (plain data); None when there is no valid record or the checks raised."""
    error: str = ""
    """Why there is no value: the checks raised (its message), or the record is missing or forged."""
    traceback: str = ""

    @property
    def completed(self) -> bool:
        """Whether the checks ran to their end and left their one record."""
        return not self.error


def run_checks(
    body: str,
    files: Mapping[str, str],
    limits: sandbox.Limits,
    stdin: str | None = None,
) -> Checked:
    """Run the harness ``body`` beside ``files`` and return what its checks recorded.

    ``body`` is Python source defining ``checks()``, which imports the checked code and returns the
    checks' value as plain data. It may use ``is_plain(value)`` (exact built-in types only),
    ``shown(name, source)`` (source it compiles as ``name`` shows in tracebacks),
    ``BUILTINS`` (the built-ins as they were before the checked code ran) and ``keep(value)`` (a
    provisional record, standing if the checks die after it).

    Raises:
        sandbox.SandboxUnavailable: nothing has run.
    """
    secret = secrets.token_hex(32).encode()
    script_r, script_w = os.pipe()
    secret_r, secret_w = os.pipe()
    report_r, report_w = os.pipe()
    script = textwrap.dedent(_PROLOGUE) + f"\n_accord_run({body!r}, {script_r}, {secret_r}, {report_w})\n"
    os.write(secret_w, secret)  # 64 bytes: within any pipe's buffer
    os.close(secret_w)
    writer = threading.Thread(target=_write_all, args=(script_w, script.encode()), daemon=True)
    reader = _Reader(report_r)
    writer.start()
    reader.start()
    try:
        result = sandbox.run(
            sandbox.python(f"/proc/self/fd/{script_r}"),
            files,
            limits,
            stdin=stdin,
            pass_fds=(script_r, secret_r, report_w),
        )
    finally:
        for fd in (script_r, secret_r, report_w):
            os.close(fd)
        received = reader.finish()
        writer.join(timeout=1)
    return _parse(result, received, secret)


_SCRIPT = """
def checks():
    scope = {"__name__": "__main__", "__builtins__": BUILTINS, "is_plain": is_plain}
    shown("<check>", SOURCE)
    exec(compile(SOURCE, "<check>", "exec"), scope)
    return RAN
"""
RAN = "the check ran to its end"


def run_script(source: str, files: Mapping[str, str], limits: sandbox.Limits) -> Checked:
    """Run the check script ``source`` (which imports the checked code) as a harness: it passes when its
    record says it ran to its end (``passed``), and fails, with what stopped it, on anything else — an
    exception (a failed ``assert``, ``SystemExit`` at any status), a hang, a kill, a forged record. The
    script may call ``is_plain(value)`` before it compares a value the checked code returned.

    Raises:
        sandbox.SandboxUnavailable: nothing has run.
    """
    return run_checks(f"SOURCE = {source!r}\nRAN = {RAN!r}\n{_SCRIPT}", files, limits)


def passed(checked: Checked) -> bool:
    """Return whether a ``run_script`` check ran to its end."""
    return checked.completed and checked.value == RAN


def _write_all(fd: int, data: bytes) -> None:
    # The interpreter reads its script to the end before it runs any of it; a program that never
    # starts leaves the pipe unread, and closing it ends this thread.
    with contextlib.suppress(OSError):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    with contextlib.suppress(OSError):
        os.close(fd)


class _Reader(threading.Thread):
    """Reads the record pipe while the program runs (a record larger than the pipe's buffer would
    otherwise block its writer), and stops when told, even if a stray process still holds the pipe."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.data, self.stop = fd, bytearray(), threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and len(self.data) <= RECORD_LIMIT:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return
                self.data += chunk

    def finish(self) -> bytes:
        self.stop.set()
        self.join()
        os.set_blocking(self.fd, False)
        with contextlib.suppress(BlockingIOError):
            while len(self.data) <= RECORD_LIMIT and (chunk := os.read(self.fd, 65536)):
                self.data += chunk
        os.close(self.fd)
        return bytes(self.data)


def _parse(result: sandbox.SandboxResult, received: bytes, secret: bytes) -> Checked:
    ended = f"{result.ending}, exit status {result.exit_code}"
    if not received:
        return Checked(result, error=f"no completion record: the checks did not finish ({ended})")
    forged = Checked(
        result,
        error="the record channel held something besides the harness's records: a forged or repeated record",
    )
    if len(received) > RECORD_LIMIT or not received.endswith(b"\n"):
        return forged
    lines = received[:-1].split(b"\n")
    for number, line in enumerate(lines, start=1):  # records 1, 2, … in order, each with the secret
        if not line.startswith(secret + b" " + str(number).encode() + b" "):
            return forged
    body = lines[-1].split(b" ", 2)[2]
    if secret in body:
        return forged
    try:
        record = ast.literal_eval(body.decode("utf-8"))
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        return forged
    if not isinstance(record, dict):
        return forged
    if "error" in record:
        return Checked(result, error=str(record["error"]), traceback=str(record.get("traceback", "")))
    return Checked(result, value=record.get("value"))
