"""The compiled build (pyproject.toml's mypyc hook, docs/performance.md): the modules
it lists exist, and an installed toolparse is either the pure-Python reference or the
whole compiled build, never a mix. CI runs the suite on both; there TOOLPARSE_BUILD
says which one must be running, so that the compiled run cannot pass on pure code.
Which build is installed is `toolparse.build_info()`'s answer (tests/test_build_info.py
tests how it finds it)."""

from __future__ import annotations

import importlib
import os
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import toolparse

ROOT = Path(__file__).resolve().parent.parent


def compiled_modules() -> list[str]:
    """The modules the mypyc hook compiles, as dotted names."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        hook = tomllib.load(f)["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["mypyc"]
    assert hook["enable-by-default"] is False  # the pure-Python wheel is the default
    return [path.removesuffix(".py").replace("/", ".") for path in hook["include"]]


def is_compiled(module: str) -> bool:
    return str(importlib.import_module(module).__file__).endswith(tuple(EXTENSION_SUFFIXES))


def test_the_hook_lists_modules_of_the_package() -> None:
    modules = compiled_modules()
    assert modules and len(set(modules)) == len(modules)
    for module in modules:
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module
    # The public class stays pure Python: it is what users' type checkers read, and
    # what checks the options before the compiled engine sees them.
    assert "toolparse._stream.parser" not in modules
    assert "toolparse._stream.engine" in modules


def test_the_installed_build_is_all_pure_or_all_compiled() -> None:
    info = toolparse.build_info()
    hook = set(compiled_modules())
    assert set(info.compiled) in (set(), hook), sorted(set(info.compiled) ^ hook)
    assert info.build == ("compiled" if info.compiled else "pure")
    build = os.environ.get("TOOLPARSE_BUILD")
    if build is not None:
        assert build in ("pure", "compiled"), build
        assert info.build == build, info
    # build_info's answer is what the import system loaded: each listed module imported
    # from an extension module, every other one from its source.
    for module in hook:
        assert is_compiled(module) == (module in info.compiled), module
    # The modules left out are never compiled.
    assert not is_compiled("toolparse._stream.parser")
    assert toolparse.StreamParser.__module__ == "toolparse._stream.parser"
