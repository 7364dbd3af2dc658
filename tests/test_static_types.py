"""The package is typed (py.typed) and mypy --strict clean, so users' type checkers can
trust its annotations."""

from __future__ import annotations

from pathlib import Path

from mypy import api

import toolparse


def test_mypy_strict_is_clean() -> None:
    package = Path(toolparse.__file__).resolve().parent
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "--no-error-summary",
                                      str(package)])
    assert status == 0, stdout + stderr


def test_the_package_says_it_is_typed() -> None:
    assert (Path(toolparse.__file__).resolve().parent / "py.typed").is_file()
