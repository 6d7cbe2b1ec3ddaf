"""The code stays ``ruff`` clean (lint rules and formatting from pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.parametrize(
    "args",
    [["check", "lib", "tests", "notebooks"], ["format", "--check", "lib", "tests"]],
    ids=["check", "format"],
)
def test_ruff_clean(args: list[str]) -> None:
    assert RUFF is not None, "ruff is missing: run make setup (it installs the dev extras)"
    done = subprocess.run([RUFF, *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
