"""Accord installs like a library: its wheel, installed in a fresh virtual environment outside the
checkout, runs ``accord doctor`` and a scripted ``accord run`` without importing anything from the
checkout, and a workflow package installed beside it registers through its entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from evals.endpoint import FakeEndpoint, Text, Tool
from tests.conftest import GOOD, PLAN, STUB, TESTS

ROOT = Path(__file__).resolve().parents[2]
CODE = ("accord", "accountability", "evals", "graphs", "nodes", "runtime", "state")
"""The code packages a wheel ships."""


def build_wheel(into: Path) -> Path:
    """Build the wheel from a copy of the tracked files (the checkout gets no build folders)."""
    source = into / "source"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in files.splitlines():
        if (ROOT / name).is_file() and not name.startswith(("evals/results/", "data/")):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(into / "dist"), str(source)], check=True, capture_output=True, timeout=300)
    return next((into / "dist").glob("accord-*.whl"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the ``bin`` folder of a fresh venv holding the wheel; its dependencies come from this venv's
    site-packages as a plain path (a path in a ``.pth`` file runs none of that folder's own ``.pth`` files,
    so the checkout's editable install stays out) instead of a second download of every package."""
    where = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(where)
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    str(wheel)], check=True, capture_output=True, timeout=300)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def clean_env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ACCORD_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "PYTHON", "VIRTUAL_ENV"))}
    return env | {"HOME": str(home), "ACCORD_DB": str(home / "runs.sqlite")}


def test_the_wheel_holds_every_package_and_the_taxonomy(installed: Path) -> None:
    wheel = next((installed.parents[1] / "dist").glob("accord-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    packages = {str(p.parent.relative_to(ROOT)) for top in CODE for p in (ROOT / top).rglob("__init__.py")}
    assert {"nodes/pipeline", "nodes/audit", "accountability"} <= packages
    assert [package for package in sorted(packages) if f"{package}/__init__.py" not in names] == []
    assert "accountability/taxonomy/mast_failure_modes.json" in names
    assert not any(name.startswith(("tests/", "evals/results/")) for name in names)


def test_the_installed_cli_imports_nothing_from_the_checkout(installed: Path, tmp_path: Path) -> None:
    code = ("import accord, accountability, evals, graphs, nodes, runtime, state, nodes.pipeline.roles; "
            "print('\\n'.join(m.__file__ for m in (accord, accountability, evals, graphs, nodes, runtime, "
            "state, nodes.pipeline.roles)))")
    files = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, env=clean_env(tmp_path),
                           capture_output=True, text=True, check=True).stdout.split()
    assert files and not any(Path(f).is_relative_to(ROOT) for f in files)
    assert all(Path(f).is_relative_to(installed.parent) for f in files)


def test_the_installed_cli_runs_doctor_and_a_scripted_run(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    doctor = subprocess.run([str(installed / "accord"), "doctor"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert "sandbox" in doctor.stdout + doctor.stderr, doctor.stderr[-2000:]
    (tmp_path / "stub.py").write_text(STUB)
    with FakeEndpoint([Tool(json.dumps(PLAN)), Text(GOOD), Text(TESTS)]) as endpoint:
        ran = subprocess.run([str(installed / "accord"), "run", "--file", "stub.py", "--thread", "w",
                              "--base-url", endpoint.url, "--model", "fake", "--max-candidates", "1",
                              "--out", "out"], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "completed" in ran.stderr and (tmp_path / "out" / "solution.py").read_text().strip()
    blamed = subprocess.run([str(installed / "accord"), "blame", "w", "--json"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert blamed.returncode == 0 and json.loads(blamed.stdout)["final_correct"] is True, blamed.stderr


def test_the_example_workflow_registers_through_its_entry_point(installed: Path, tmp_path: Path) -> None:
    example = tmp_path / "repair"
    shutil.copytree(ROOT / "examples" / "repair", example,
                    ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "dist"), str(example)], check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("accord_repair-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(installed / "python"), "install", "-q",
                    "--no-deps", str(wheel)], check=True, capture_output=True, timeout=300)
    roles = [str(installed / "accord"), "roles", "--workflow", "repair", "--json"]
    listed = subprocess.run(roles, cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [role["name"] for role in json.loads(listed.stdout)] == ["intake", "runner", "fixer", "reviewer"]
