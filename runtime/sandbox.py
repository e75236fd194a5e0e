"""The one way model-written code runs: bubblewrap, rlimits, a timeout, a process-group kill.

Inside bubblewrap the program sees a read-only system (``/usr``, the Python installation), a private
writable ``/workspace`` holding only the files it was given, an empty ``/tmp``, no network, no other
process, no capabilities, and a scrubbed environment; the user's home, the project and its checkpoint
database are not mounted at all. rlimits bound CPU time, address space and file size; stdout and stderr
go to files capped by the file-size limit, so a flood ends the program instead of filling memory. A
pids cgroup of its own bounds the processes it may create (RLIMIT_NPROC alone does not bind uid 0, as
which CI runs) and lets every one of them be killed when the run ends, detached or not.

Where bubblewrap is missing or cannot create its namespaces, nothing runs: ``SandboxUnavailable`` names
the fix. Only ``ACCORD_SANDBOX=unsafe-rlimits`` runs programs with rlimits and the cgroup alone, which
leaves the network, the home directory and the project open to them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from accord.state.context import Context
from accord.state.settings import Settings

log = logging.getLogger(__name__)

WORKSPACE = "/workspace"
Ending = Literal["exited", "timeout", "cpu_limit", "memory_limit", "file_limit", "disk_limit", "killed"]
Isolation = Literal["bubblewrap", "rlimits"]


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed program."""

    timeout_s: float = Context.sandbox_timeout_s
    cpu_s: int = 10
    memory_mb: int = 1024
    """Address space of each process (RLIMIT_AS)."""
    total_memory_mb: int = 2048
    """Memory of all its processes together, where a memory cgroup can be made (``hierarchy``)."""
    processes: int = 32
    """New processes (threads included) the program may create."""
    file_mb: int = 16
    """Largest file it may write, its captured output included."""
    output_chars: int = 20_000
    """How much of stdout and stderr each is kept (head and tail)."""
    disk_mb: int = 64
    """What it may write in all: the size of its ``/tmp`` and ``/dev/shm``, and of its workspace (the
    program is stopped when the workspace grows past it)."""
    files_back: int = 200
    """Workspace files the host reads back after the run, at most."""
    bytes_back: int = 2 << 20
    """Bytes of workspace files the host reads back after the run, at most."""


@dataclass(frozen=True)
class SandboxResult:
    """How a sandboxed program ended and what it printed."""

    exit_code: int | None
    ending: Ending
    stdout: str
    stderr: str
    duration_s: float
    isolation: Isolation
    files: dict[str, str]
    """Text files in the workspace after the run (what the program wrote)."""
    truncated: bool = False
    process_limit_hit: bool = False
    """Whether the program tried to create more processes than its limit allowed."""
    memory_limit_hit: bool = False
    """Whether its processes together reached ``total_memory_mb`` (and the kernel killed one of them)."""
    disk_limit_hit: bool = False
    """Whether it ran out of room to write (its ``/tmp``, ``/dev/shm`` or its workspace)."""
    files_cut: str = ""
    """What of the workspace was not read back (over ``files_back`` or ``bytes_back``); '' when all was."""

    @property
    def ok(self) -> bool:
        """Return whether the program exited with status 0."""
        return self.ending == "exited" and self.exit_code == 0


class SandboxError(ValueError):
    """Raised for a request the sandbox refuses (e.g. a file path outside the workspace)."""


class SandboxUnavailable(RuntimeError):
    """Model-written code cannot run isolated here, and running it unisolated was not accepted."""


MODE_VARIABLE = "ACCORD_SANDBOX"
UNSAFE = "unsafe-rlimits"
"""The opt-in to run model-written code with rlimits alone: no filesystem, network or process isolation."""
FIX = (
    f"install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed, or accept the "
    f"risk of running model-written code unisolated with {MODE_VARIABLE}={UNSAFE}"
)


def chosen_mode() -> str:
    """Return the sandbox mode asked for. Unsafe mode counts only from the process environment (or the
    CLI's flag, which sets it there): a ``.env`` file in the working directory asking for it is ignored,
    with a warning, so no file lying in a folder can turn the sandbox off."""
    mode = Settings().sandbox
    if mode == UNSAFE and os.environ.get(MODE_VARIABLE) != UNSAFE:
        _warn_once(
            f"ignoring {MODE_VARIABLE}={UNSAFE} from a .env file: set it in the environment to accept "
            "running model-written code unisolated"
        )
        return "bubblewrap"
    return mode


def bubblewrap() -> str | None:
    """Return the bubblewrap executable, or None when it is not installed."""
    return shutil.which("bwrap")


@functools.cache
def namespaces_refused(bwrap: str) -> str:
    """Return why bubblewrap cannot create its namespaces here ("" when it can)."""
    try:
        probe = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return "" if probe.returncode == 0 else (probe.stderr.strip() or f"exit status {probe.returncode}")


def isolation() -> Isolation:
    """Return how model-written code runs here: ``bubblewrap``, or ``rlimits`` when the user opted in.

    Raises:
        SandboxUnavailable: bubblewrap is missing or cannot create its namespaces (the message names the
            fix), or ``ACCORD_SANDBOX`` holds an unknown mode.
    """
    mode = chosen_mode()
    if mode == UNSAFE:
        _warn_once(
            f"{MODE_VARIABLE}={UNSAFE}: model-written code runs with rlimits only (no filesystem, "
            "network or process isolation)"
        )
        return "rlimits"
    if mode != "bubblewrap":
        raise SandboxUnavailable(
            f"{MODE_VARIABLE}={mode!r} is not a sandbox mode: use bubblewrap (the default) or {UNSAFE}"
        )
    bwrap = bubblewrap()
    if bwrap is None:
        raise SandboxUnavailable(
            f"bubblewrap is not installed, so model-written code cannot run isolated: {FIX}"
        )
    if reason := namespaces_refused(bwrap):
        raise SandboxUnavailable(f"bubblewrap cannot create its namespaces here ({reason[:200]}): {FIX}")
    return "bubblewrap"


def _safe_path(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise SandboxError(f"file path {name!r} is outside the workspace")
    return path


def _tasks_of_current_user() -> int:
    """Count the tasks (threads) of this uid, which RLIMIT_NPROC counts against."""
    uid, count = os.getuid(), 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return count


BWRAP_PROCESSES = 3
"""Tasks in the cgroup besides the program's children: bubblewrap's monitor, its init, the program."""


def hierarchy(controller: str) -> Path | None:
    """Return the writable cgroup directory of this process for ``controller`` (``pids``, ``memory``), or
    None where there is none."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):  # cgroup v1
            base = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
        elif controllers == "" and controller in _read(Path("/sys/fs/cgroup/cgroup.subtree_control")).split():
            base = Path("/sys/fs/cgroup") / path.lstrip("/")  # cgroup v2 with the controller delegated
        else:
            continue
        if os.access(base, os.W_OK):
            return base
    return None


def pids_hierarchy() -> Path | None:
    """Return the writable pids-cgroup directory of this process, or None where there is none."""
    return hierarchy("pids")


@contextlib.contextmanager
def _memory_cgroup(limit: int) -> Iterator[Path | None]:
    """Yield a fresh memory cgroup capped at ``limit`` bytes for all of a program's processes together,
    or None where this process may make none (then RLIMIT_AS bounds each process alone)."""
    base, group = hierarchy("memory"), None
    if base is not None:
        with contextlib.suppress(OSError):
            group = Path(tempfile.mkdtemp(prefix="accord-sbx-", dir=base))
            v1 = (group / "memory.limit_in_bytes").exists()
            (group / ("memory.limit_in_bytes" if v1 else "memory.max")).write_text(str(limit))
            if not v1:
                with contextlib.suppress(OSError):  # no swap to spill into, where swap is accounted
                    (group / "memory.swap.max").write_text("0")
    try:
        yield group
    finally:
        if group is not None:
            _empty_and_remove(group)


def _hit_memory_limit(group: Path | None) -> bool:
    if group is None:
        return False
    if (group / "memory.failcnt").exists():  # v1: the limit was reached; an OOM kill follows it
        return "under_oom 1" in _read(group / "memory.oom_control") or _read(
            group / "memory.failcnt"
        ).strip() not in ("", "0")
    return any(
        line.split()[0] == "oom_kill" and line.split()[1] != "0"
        for line in _read(group / "memory.events").splitlines()
        if len(line.split()) == 2
    )


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def process_limit_enforced() -> bool:
    """Return whether the process limit binds here (RLIMIT_NPROC for a normal user, a cgroup for root)."""
    return os.getuid() != 0 or pids_hierarchy() is not None


@contextlib.contextmanager
def _pids_cgroup(max_tasks: int) -> Iterator[Path | None]:
    """Yield a fresh pids cgroup capped at ``max_tasks``; on exit kill what is left in it and remove it."""
    base = pids_hierarchy()
    group = None
    if base is not None:
        with contextlib.suppress(OSError):
            group = Path(tempfile.mkdtemp(prefix="accord-sbx-", dir=base))
            (group / "pids.max").write_text(str(max_tasks))
    if group is None and os.getuid() == 0:
        _warn_once(
            "running as root without a writable pids cgroup: sandboxed programs have no process "
            "limit (RLIMIT_NPROC does not bind uid 0)"
        )
    try:
        yield group
    finally:
        if group is not None:
            _empty_and_remove(group)


@functools.cache
def _warn_once(message: str) -> None:
    log.warning(message)


def _empty_and_remove(group: Path) -> None:
    for _ in range(100):
        pids = _read(group / "cgroup.procs").split()
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.01)
    for _ in range(100):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # the last killed processes are still being reaped
            time.sleep(0.01)
    log.warning("could not remove the sandbox cgroup %s", group)


def _hit_process_limit(group: Path | None) -> bool:
    for line in _read(group / "pids.events").splitlines() if group else ():
        name, _, count = line.partition(" ")
        if name == "max" and count.strip() != "0":
            return True
    return False


def _rlimits(limits: Limits, nproc: int, *groups: Path | None):  # type: ignore[no-untyped-def]
    def apply() -> None:
        for group in groups:  # join the cgroups before exec, so every descendant is counted
            if group is not None:
                (group / "cgroup.procs").write_text(str(os.getpid()))
        mb = 1 << 20
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * mb, limits.memory_mb * mb))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * mb, limits.file_mb * mb))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _bwrap_argv(bwrap: str, workspace: Path, disk_mb: int = Limits.disk_mb) -> list[str]:
    # Run as root (as CI does), bwrap keeps the caller's capabilities inside the sandbox, and with
    # CAP_SYS_ADMIN a program could remount its read-only views writable: drop every one.
    argv = [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/usr",
        "/usr",
        "--proc",
        "/proc",
        # Sized tmpfs mounts (they live in memory), and a read-only /dev around its device nodes.
        "--dev",
        "/dev",
        "--size",
        str(disk_mb << 20),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--size",
        str(disk_mb << 20),
        "--tmpfs",
        "/tmp",
        "--bind",
        str(workspace),
        WORKSPACE,
        "--chdir",
        WORKSPACE,
    ]
    for link in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink(f"/{link}"):
            argv += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    for path in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"):
        argv += ["--ro-bind-try", path, path]
    # The interpreter and its packages, and nothing else of the home or the project around them.
    for prefix in sorted({sys.base_prefix, sys.prefix}):
        argv += ["--ro-bind", prefix, prefix]
    # bwrap's own root (where it made /root/... for the binds above) goes read-only last.
    return [*argv, "--remount-ro", "/"]


def _clean_env(home: str) -> dict[str, str]:
    path = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
    return {
        "PATH": path,
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
    }


def _read_capped(path: Path, limit: int) -> tuple[str, bool]:
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    if len(text) <= limit:
        return text, False
    half = limit // 2
    return f"{text[:half]}\n... [{len(text) - limit} characters cut] ...\n{text[-half:]}", True


def _workspace_files(root: Path, limits: Limits, largest: int = 200_000) -> tuple[dict[str, str], str]:
    """Return the workspace's text files (each at most ``largest`` bytes), within ``limits.files_back``
    files and ``limits.bytes_back`` bytes in all, and what was left unread ('' when nothing)."""
    files: dict[str, str] = {}
    total, left = 0, 0
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > largest:
            continue
        size = path.stat().st_size
        if len(files) >= limits.files_back or total + size > limits.bytes_back:
            left += 1
            continue
        try:
            files[path.relative_to(root).as_posix()] = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        total += size
    cut = (
        f"{left} workspace files not read back (the host reads at most {limits.files_back} files, "
        f"{limits.bytes_back:,} bytes)"
        if left
        else ""
    )
    return files, cut


def _size(root: Path) -> int:
    total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


NO_SPACE = "No space left on device"
"""How a write past a sized tmpfs fails (ENOSPC)."""


def _watch_workspace(
    workspace: Path, limit: int, pid: int, done: threading.Event, full: threading.Event
) -> None:
    """Stop the program once its workspace (a folder of the host's disk) holds more than ``limit`` bytes."""
    while not done.wait(0.1):
        if _size(workspace) > limit:
            full.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            return


def run(
    argv: Sequence[str],
    files: Mapping[str, str],
    limits: Limits = Limits(),
    stdin: str | None = None,
    pass_fds: Sequence[int] = (),
) -> SandboxResult:
    """Run ``argv`` in a fresh workspace holding ``files`` and return how it ended.

    ``argv`` runs with the workspace as its working directory; use ``python()`` for the interpreter.
    ``pass_fds`` stay open in the program under the same numbers (a harness's pipes, ``runtime.harness``).

    Raises:
        SandboxUnavailable: see ``isolation()``; nothing has run.
    """
    mode = isolation()
    paths = {_safe_path(name): content for name, content in files.items()}
    with tempfile.TemporaryDirectory(prefix="accord-sbx-") as tmp:
        root = Path(tmp)
        workspace, out, err = root / "ws", root / "stdout", root / "stderr"
        workspace.mkdir()
        for rel, content in paths.items():
            (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
            (workspace / rel).write_text(content)
        bwrap = bubblewrap()
        if mode == "bubblewrap" and bwrap:
            env = _clean_env(WORKSPACE)
            setenv = [arg for key, value in env.items() for arg in ("--setenv", key, value)]
            command, cwd = [*_bwrap_argv(bwrap, workspace, limits.disk_mb), *setenv, *argv], None
        else:
            command, cwd, env = list(argv), str(workspace), _clean_env(str(workspace))
        nproc = _tasks_of_current_user() + limits.processes
        start = time.monotonic()
        with (
            out.open("wb") as stdout,
            err.open("wb") as stderr,
            _pids_cgroup(limits.processes + BWRAP_PROCESSES) as group,
            _memory_cgroup(limits.total_memory_mb << 20) as memory,
        ):
            proc = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=tuple(pass_fds),
                preexec_fn=_rlimits(limits, nproc, group, memory),
            )
            timed_out, done, full = False, threading.Event(), threading.Event()
            watch = threading.Thread(
                target=_watch_workspace,
                args=(workspace, limits.disk_mb << 20, proc.pid, done, full),
                daemon=True,
            )
            watch.start()
            try:
                proc.communicate(stdin.encode() if stdin is not None else None, timeout=limits.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                done.set()
                watch.join()
                # The whole group goes: with bubblewrap, killing its init ends every process inside.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            process_limit_hit = _hit_process_limit(group)
            memory_limit_hit = _hit_memory_limit(memory)
        duration = time.monotonic() - start
        code = proc.returncode
        ending: Ending = "exited"
        if full.is_set():
            ending = "disk_limit"
        elif memory_limit_hit and (code is None or code < 0 or code >= 128):
            ending = "memory_limit"
        elif timed_out:
            ending = "timeout"
        elif code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            ending = "cpu_limit"
        elif (
            code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ)
            or max(out.stat().st_size, err.stat().st_size) >= limits.file_mb << 20
        ):
            # Python ignores SIGXFSZ and fails the write instead, so judge by the capped size too.
            ending = "file_limit"
        elif code is not None and (code < 0 or code == 128 + signal.SIGKILL):
            ending = "killed"
        stdout_text, cut_out = _read_capped(out, limits.output_chars)
        stderr_text, cut_err = _read_capped(err, limits.output_chars)
        files, files_cut = _workspace_files(workspace, limits)
        return SandboxResult(
            exit_code=None if timed_out else code,
            ending=ending,
            stdout=stdout_text,
            stderr=stderr_text,
            duration_s=duration,
            isolation=mode,
            files=files,
            truncated=cut_out or cut_err,
            process_limit_hit=process_limit_hit,
            memory_limit_hit=memory_limit_hit,
            disk_limit_hit=ending == "disk_limit" or NO_SPACE in stderr_text or NO_SPACE in stdout_text,
            files_cut=files_cut,
        )


def python(*args: str) -> list[str]:
    """Return argv that runs this interpreter (and its installed packages) inside the sandbox."""
    return [sys.executable, "-B", *args]
