"""`toolparse.build_info()` and `toolparse --version` (docs/performance.md, "Which build
you have"): which build is installed, found from what Python imports; and the wheels
pyproject.toml's `[tool.cibuildwheel]` asks for. tests/test_compiled.py checks the
answer against the mypyc hook's list, under CI's TOOLPARSE_BUILD."""

from __future__ import annotations

import dataclasses
import itertools
import os
import subprocess
import sys
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.metadata import version
from pathlib import Path

import pytest

import toolparse
from toolparse._build import compiled_modules
from toolparse._cli import main

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = EXTENSION_SUFFIXES[0]
_packages = itertools.count()


def test_build_info_describes_this_installation() -> None:
    import lark

    info = toolparse.build_info()
    assert isinstance(info, toolparse.BuildInfo)
    assert info.version == toolparse.__version__ == version("toolparse")
    assert info.lark == lark.__version__
    assert info.python.split()[1].startswith(f"{sys.version_info.major}.{sys.version_info.minor}.")
    assert info.build == ("compiled" if info.compiled else "pure")
    assert list(info.compiled) == sorted(info.compiled)
    assert all(name.startswith("toolparse.") for name in info.compiled)
    build = os.environ.get("TOOLPARSE_BUILD")
    if build is not None:  # CI runs the suite on both builds and says which
        assert info.build == build, info


def test_the_record_is_immutable_and_its_str_is_one_line() -> None:
    info = toolparse.build_info()
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.build = "compiled"  # type: ignore[misc]
    assert not hasattr(info, "__dict__")
    assert info == toolparse.build_info() and hash(info) == hash(toolparse.build_info())
    line = str(info)
    assert "\n" not in line
    assert line.startswith(f"toolparse {info.version} ({info.build} build")
    assert info.python in line and f"lark {info.lark}" in line


def test_a_compiled_record_counts_its_modules() -> None:
    info = dataclasses.replace(toolparse.build_info(), build="compiled",
                               compiled=("toolparse._json", "toolparse._stream.engine"))
    assert "(compiled build: 2 modules compiled by mypyc)" in str(info)
    pure = dataclasses.replace(info, build="pure", compiled=())
    assert "(pure build: Python source only)" in str(pure)


def test_version_prints_the_build(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--version"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert out == f"{toolparse.build_info()}\n"
    assert out.startswith(f"toolparse {version('toolparse')} (")
    expected = os.environ.get("TOOLPARSE_BUILD", toolparse.build_info().build)
    assert f"({expected} build" in out


def _package(root: Path, files: dict[str, str]) -> str:
    """A package named afresh under `root`, made of `files` (paths under it: text)."""
    name = f"buildinfo_fake_{next(_packages)}"
    for path, text in files.items():
        file = root / name / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    return name


def test_extension_files_are_the_compiled_modules(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Extension files are looked up, never loaded, so empty ones are enough here.
    name = _package(tmp_path, {
        "__init__.py": "", "plain.py": "", f"fast{EXTENSION}": "",
        "both.py": "", f"both{EXTENSION}": "",  # Python imports the extension first
        "sub/__init__.py": "", f"sub/inner{EXTENSION}": "",
        # A folder without __init__ is a namespace package (toolparse/_markdown/blocks).
        f"space/deep/leaf{EXTENSION}": "",
        # Nothing can import these.
        f"not-a-package/looks{EXTENSION}": "", f"__pycache__/cached{EXTENSION}": "",
        f"no-module{EXTENSION}": "", f"notes{EXTENSION}.txt": "",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert compiled_modules(tmp_path / name, name) == (
            f"{name}.both", f"{name}.fast", f"{name}.space.deep.leaf", f"{name}.sub.inner")
    finally:
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_a_module_imported_from_source_stays_source(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # What counts is what Python loaded: an extension file written after the import
    # (an in-place build next to a running checkout) does not make the module compiled.
    name = _package(tmp_path, {"__init__.py": "", "late.py": "VALUE = 1\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        __import__(f"{name}.late")
        (tmp_path / name / f"late{EXTENSION}").write_text("")
        assert compiled_modules(tmp_path / name, name) == ()
    finally:
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


# ---- the published wheels ---------------------------------------------------------------

def _pyproject() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_the_wheels_are_compiled_builds_of_the_supported_pythons() -> None:
    project = _pyproject()
    wheels = project["tool"]["cibuildwheel"]  # type: ignore[index]
    # The hook's switch (pyproject.toml, [tool.hatch.build.targets.wheel.hooks.mypyc]).
    assert wheels["environment"]["HATCH_BUILD_HOOK_ENABLE_MYPYC"] == "1"
    # Each wheel proves itself the compiled build before it is kept.
    assert any("build_info()" in command and "compiled" in command
               for command in wheels["test-command"])
    lowest = project["project"]["requires-python"]  # type: ignore[index]
    assert lowest == ">=3.11" and wheels["build"][0] == "cp311-*"


@pytest.mark.parametrize("platform,prefix", [
    ("linux", "manylinux_"), ("macos", "macosx_"), ("windows", "win_")])
def test_cibuildwheel_selects_cpython_311_to_313(platform: str, prefix: str) -> None:
    # cibuildwheel reads [tool.cibuildwheel] and requires-python and prints what it
    # would build, without building (no docker, no compiler).
    listed = subprocess.run(
        [sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
         "--platform", platform], cwd=ROOT, capture_output=True, text=True, check=True,
        timeout=120).stdout.split()
    builds = {tuple(identifier.split("-", 1)) for identifier in listed}
    pythons = {python for python, _ in builds}
    assert pythons == {"cp311", "cp312", "cp313"}, listed
    tags = {tag for _, tag in builds}
    assert tags and all(tag.startswith(prefix) for tag in tags), listed
    # Every Python on every architecture the platform builds.
    assert builds == {(python, tag) for python in pythons for tag in tags}, listed
