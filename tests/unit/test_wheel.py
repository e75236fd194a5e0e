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

from tests.checkout import copy_tracked
from tests.conftest import GOOD, PLAN, STUB, TESTS
from tests.endpoint import FakeEndpoint, Text, Tool

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("accountability", "evals", "graphs", "nodes", "runtime", "state")
"""The layers a wheel ships inside ``accord``."""


def build_wheel(into: Path) -> Path:
    """Build the wheel from a copy of the tracked files (the checkout gets no build folders)."""
    source = copy_tracked(into / "source", skip=("data/",))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(into / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
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
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def clean_env(home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ACCORD_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_", "PYTHON", "VIRTUAL_ENV"))
    }
    return env | {"HOME": str(home), "ACCORD_DB": str(home / "runs.sqlite")}


def test_the_wheel_holds_one_top_level_package_every_layer_and_no_result_file(installed: Path) -> None:
    wheel = next((installed.parents[1] / "dist").glob("accord-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"accord"}
    layers = {str(p.parent.relative_to(ROOT)) for top in LAYERS for p in (ROOT / top).rglob("__init__.py")}
    assert {"nodes/pipeline", "nodes/audit", "accountability"} <= layers
    assert [layer for layer in sorted(layers) if f"accord/{layer}/__init__.py" not in names] == []
    assert "accord/cli/__init__.py" in names
    assert "accord/accountability/taxonomy/mast_failure_modes.json" in names
    assert not any("/results/" in name or name.endswith(("summary.json", ".jsonl")) for name in names)
    assert not any(name.endswith("endpoint.py") for name in names), "the tests' fake endpoint ships"


def stand_in(where: Path, name: str) -> Path:
    """Return the wheel of a distribution that installs the top-level package ``name``, as PyPI's
    ``evals`` and ``state`` do."""
    source = where / f"{name}-source"
    (source / name).mkdir(parents=True)
    (source / name / "__init__.py").write_text(f"OWNER = 'the {name} distribution'\n")
    (source / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "1.0"\n[tool.setuptools]\npackages = ["{name}"]\n'
    )
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*build, "-w", str(where), str(source)], check=True, capture_output=True, timeout=300)
    return next(where.glob(f"{name}-1.0-*.whl"))


def test_it_installs_beside_packages_named_like_its_layers(installed: Path, tmp_path: Path) -> None:
    wheels = [str(stand_in(tmp_path, name)) for name in ("evals", "state")]
    install = [sys.executable, "-m", "pip", "--python", str(installed / "python"), "install", "-q"]
    subprocess.run([*install, "--no-deps", *wheels], check=True, capture_output=True, timeout=300)
    code = (
        "import accord, evals, state, accord.evals.runner, accord.state.context; "
        "print(evals.OWNER); print(state.OWNER); print(accord.evals.runner.__file__)"
    )
    env = clean_env(tmp_path)
    ran = subprocess.run(
        [str(installed / "python"), "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    evals_owner, state_owner, runner = ran.stdout.split("\n")[:3]
    assert (evals_owner, state_owner) == ("the evals distribution", "the state distribution")
    assert Path(runner).is_relative_to(installed.parent) and not Path(runner).is_relative_to(ROOT)
    for command in (["doctor"], ["run", "--help"]):
        done = subprocess.run(
            [str(installed / "accord"), *command], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        assert done.returncode == 0 or command == ["doctor"], done.stderr[-2000:]
    assert "--max-rounds" in done.stdout


def test_the_installed_cli_runs_doctor_and_a_scripted_run(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    doctor = subprocess.run(
        [str(installed / "accord"), "doctor"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "sandbox" in doctor.stdout + doctor.stderr, doctor.stderr[-2000:]
    (tmp_path / "stub.py").write_text(STUB)
    with FakeEndpoint([Tool(json.dumps(PLAN)), Text(GOOD), Text(TESTS)]) as endpoint:
        ran = subprocess.run(
            [
                str(installed / "accord"),
                "run",
                "--file",
                "stub.py",
                "--thread",
                "w",
                "--base-url",
                endpoint.url,
                "--model",
                "fake",
                "--max-candidates",
                "1",
                "--out",
                "out",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "completed" in ran.stderr and (tmp_path / "out" / "solution.py").read_text().strip()
    blamed = subprocess.run(
        [str(installed / "accord"), "blame", "w", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert blamed.returncode == 0 and json.loads(blamed.stdout)["final_correct"] is True, blamed.stderr


def test_the_example_workflow_registers_through_its_entry_point(installed: Path, tmp_path: Path) -> None:
    example = tmp_path / "repair"
    shutil.copytree(
        ROOT / "examples" / "repair",
        example,
        ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(example),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next((tmp_path / "dist").glob("accord_repair-*.whl"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(installed / "python"),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    roles = [str(installed / "accord"), "roles", "--workflow", "repair", "--json"]
    listed = subprocess.run(
        roles, cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [role["name"] for role in json.loads(listed.stdout)] == ["intake", "runner", "fixer", "reviewer"]
