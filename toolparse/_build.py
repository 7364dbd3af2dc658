"""Which build of toolparse is installed: `toolparse.build_info()` and `toolparse --version`.

The same source installs two ways (docs/performance.md, "The compiled build"): the
pure-Python wheel, the reference and the fallback, and the compiled build, whose hot
modules mypyc turned into C extensions (pyproject.toml's mypyc hook lists them). Their
speed differs, so a bug report or a benchmark must say which one ran.

The answer is read from what Python imports, not from how the package was built: a
module is compiled when the import system loads it from an extension module. Python's
path finder tries extension suffixes before `.py`, so an extension file beside a
module's source is what `import` loads; `importlib.util.find_spec` confirms it (for a
module already imported, it returns that module's own spec). Only the extension files
found in the package's folders are looked up, so the pure build costs one walk of the
folders (a few milliseconds, the corpus's included) and imports nothing.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Literal

__all__ = ["BuildInfo", "build_info"]

Build = Literal["compiled", "pure"]

_SUFFIXES = tuple(EXTENSION_SUFFIXES)
"""The file endings of extension modules on this interpreter (`.cpython-311-...so`,
`.pyd`, `.abi3.so` ...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildInfo:
    """The installed toolparse, as `toolparse.build_info()` finds it. `str()` of it is one
    line, the one `toolparse --version` prints."""

    version: str
    """toolparse's version (`toolparse.__version__`)."""
    build: Build
    """`compiled` when modules of the package run as mypyc-compiled extension modules,
    `pure` when every module is Python source."""
    compiled: tuple[str, ...]
    """The dotted names of the compiled modules, sorted; empty in the pure build."""
    python: str
    """The interpreter: its implementation and version, e.g. `CPython 3.11.7`."""
    platform: str
    """The operating system and machine, e.g. `Linux x86_64`."""
    lark: str
    """The version of Lark that compiles the grammars (the grammar cache is keyed by it)."""

    def __str__(self) -> str:
        if self.build == "compiled":
            build = f"compiled build: {len(self.compiled)} modules compiled by mypyc"
        else:
            build = "pure build: Python source only"
        return (f"toolparse {self.version} ({build}), {self.python} on {self.platform}, "
                f"lark {self.lark}")


def build_info() -> BuildInfo:
    """Which toolparse is installed: its version, whether it is the compiled build (and
    which modules are compiled), the Python it runs on and the Lark it uses."""
    import platform   # (here, not at import: 2.4 ms of start-up that only this needs)

    import lark

    import toolparse

    compiled = compiled_modules(Path(toolparse.__file__).parent, "toolparse")
    return BuildInfo(
        version=toolparse.__version__,
        build="compiled" if compiled else "pure",
        compiled=compiled,
        python=f"{platform.python_implementation()} {platform.python_version()}",
        platform=f"{platform.system()} {platform.machine()}",
        lark=lark.__version__,
    )


def compiled_modules(package: Path, name: str) -> tuple[str, ...]:
    """The modules of the package `name` (its directory `package`) that Python loads
    from extension modules, as sorted dotted names."""
    found: list[str] = []
    for folder, subfolders, files in os.walk(package):
        # Any folder named like a module is a package (`_markdown/blocks` has no
        # `__init__`: a namespace package); the others cannot be imported.
        subfolders[:] = [sub for sub in subfolders
                         if sub.isidentifier() and sub != "__pycache__"]
        dotted = ".".join([name, *Path(folder).relative_to(package).parts])
        modules = (_extension_module(dotted, file) for file in files)
        found.extend(module for module in modules
                     if module is not None and _loads_extension(module))
    return tuple(sorted(found))


def _extension_module(package: str, file: str) -> str | None:
    """The module an extension file in the folder of `package` would be
    (`toolparse._stream.engine` for `engine.cpython-311-x86_64-linux-gnu.so`), or None
    for any other file."""
    for suffix in _SUFFIXES:
        if file.endswith(suffix):
            module = file.removesuffix(suffix)
            if not module.isidentifier():
                return None
            return package if module == "__init__" else f"{package}.{module}"
    return None


def _loads_extension(module: str) -> bool:
    """Whether the import system loads `module` (or loaded it) from an extension module."""
    spec = importlib.util.find_spec(module)
    return spec is not None and str(spec.origin).endswith(_SUFFIXES)
