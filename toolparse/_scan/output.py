"""Where a scan's output goes: never over one of its inputs, never half-written over an
old file.

`check_not_an_input` refuses an output that is one of the inputs, by identity (device
and inode, as `os.path.samestat` compares them): any spelling of the path, a symbolic
or hard link, or standard input or output redirected to or from that file. It runs
before anything is opened, since opening the output for writing would truncate the
input before a line of it was read.

`replacing(path)` gives the name of a new, empty file beside `path` (same folder, a
hidden name); when the block ends normally the file is renamed over `path` in one step,
and when it ends with an error or an interrupt it is removed. So a reader of `path`
sees the old file or the whole new one, never a part, and a scan that stops half way
leaves the old output as it was. A symbolic link at `path` stays, and its target is
replaced; a path that exists and is not a regular file (`/dev/null`, a pipe) is written
in place, as there is nothing to replace.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from toolparse._scan.options import ScanOptionError

__all__ = ["check_not_an_input", "replacing"]

_STANDARD_STREAM = "-"


def check_not_an_input(output: str, inputs: Iterable[str]) -> None:
    """Raise `ScanOptionError` (one line) when `output` is the same file as one of `inputs`
    (`-` is standard output as an output and standard input as an input)."""
    written = _identity(output, sys.stdout)
    if written is None:
        return
    for name in inputs:
        read = _identity(name, sys.stdin)
        if read is not None and os.path.samestat(written, read):
            shown = "standard output" if output == _STANDARD_STREAM else f"the output {output}"
            source = "standard input" if name == _STANDARD_STREAM else name
            raise ScanOptionError(f"{shown} is the input {source}: writing it would destroy the "
                             "input before it is read; write the scan to another file")


def _identity(name: str, stream: IO[Any]) -> os.stat_result | None:
    """The file `name` is (a standard stream for `-`), if it is an existing regular
    file; None otherwise (a missing file, a pipe, a terminal, a device)."""
    try:
        found = os.fstat(stream.fileno()) if name == _STANDARD_STREAM else os.stat(name)
    except (OSError, ValueError):
        return None
    return found if stat.S_ISREG(found.st_mode) else None


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[str]:
    """The name of a new file to write `path`'s new contents to: renamed over `path`
    when the block ends normally, removed when it raises (see the module's header).
    `OSError` if the file cannot be made (a missing folder, no permission, `path` is a
    folder)."""
    target = Path(os.path.realpath(path))
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(21, "it is a directory")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        yield str(path)       # a device or a pipe: nothing to replace
        return
    temporary = _new_file_beside(target)
    try:
        yield str(temporary)
        if existing is not None:
            os.chmod(temporary, stat.S_IMODE(existing.st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _new_file_beside(target: Path) -> Path:
    """An empty file in `target`'s folder under a hidden name no other file has, made
    with the permissions a plain `open(target, "w")` would give a new file."""
    while True:
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(6)}.part")
        try:
            descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:     # 48 random bits taken: try another name
            continue
        os.close(descriptor)
        return candidate
