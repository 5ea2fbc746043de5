"""The distribution a user installs: a wheel built from this checkout installs into a clean
virtualenv and runs with no repository around (what `pipx install` / `uv tool install`
do), under a name of its own on PyPI while the command stays `engram`."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_installs_in_a_clean_virtualenv_and_runs_the_demo(tmp_path):
    pip = [sys.executable, "-m", "pip"]
    built = subprocess.run([*pip, "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    assert wheel.name.startswith(name.replace("-", "_") + "-")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert any(n.startswith("engram/dashboard/static/") for n in names)  # package data
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)],
                               capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "PYTHON"))}
    env.update(ENGRAM_HOME=str(tmp_path / "home"), HOME=str(tmp_path))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    demo = subprocess.run([str(venv / "bin" / "engram"), "demo"], env=env, cwd=outside,
                          capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "[REDACTED" in demo.stdout  # the demo ran to its end (its secret redacted)
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import engram; print(engram.__file__)"], env=env, cwd=outside,
                           capture_output=True, text=True, timeout=60)
    assert where.stdout.startswith(str(venv))  # the wheel's code, not this checkout's


def test_the_distribution_name_is_not_the_unrelated_engram_on_pypi():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] != "engram"  # `pip install engram` is a rendering library
    assert project["scripts"] == {"engram": "engram.cli:main"}
