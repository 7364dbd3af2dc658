"""The grammars ship inside the wheel, and the installed package finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import toolparse
from toolparse._syntax.files import grammars_dir

REPO = Path(__file__).resolve().parents[1]


def test_the_package_finds_its_grammars() -> None:
    found = grammars_dir()
    package = Path(toolparse.__file__).resolve().parent
    # Installed from a wheel: inside the package. Editable or source checkout: ../grammars.
    assert found in (package / "grammars", package.parent / "grammars")
    assert (found / "dialects" / "deepseek.lark").is_file()
    assert (found / "reasoning" / "think.lark").is_file()
    assert (found / "common" / "json.lark").is_file()
    assert (found / "markdown.lark").is_file()


def test_the_wheel_contains_every_grammar(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling (test extra)")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(tmp_path), str(REPO)], check=True)
    (wheel,) = tmp_path.glob("toolparse-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    grammars = sorted((REPO / "grammars").rglob("*.lark"))
    assert len(grammars) > 15   # every folder: dialects, reasoning, common
    for grammar in grammars:
        assert f"toolparse/grammars/{grammar.relative_to(REPO / 'grammars').as_posix()}" in names
    assert "toolparse/py.typed" in names
