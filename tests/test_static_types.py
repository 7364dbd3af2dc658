"""The package is typed (py.typed) and mypy --strict clean, so users' type checkers can
trust its annotations."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mypy import api

import toolparse


def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    # Check a copy: mypy run on a package inside site-packages takes site-packages for a
    # source root and trips over the modules beside it.
    package = Path(toolparse.__file__).resolve().parent
    copy = tmp_path / "toolparse"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "grammars",
                                                                 "_corpus"))
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        stdout, stderr, status = api.run(["--strict", "--no-incremental", "--no-error-summary",
                                          "toolparse"])
    finally:
        os.chdir(cwd)
    assert status == 0, stdout + stderr


def test_the_package_says_it_is_typed() -> None:
    assert (Path(toolparse.__file__).resolve().parent / "py.typed").is_file()
