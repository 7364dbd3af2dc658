"""Corpus cases: where they are, how their files are read, what they hold (the format
docs/corpus.md describes)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolparse._arguments import require_path
from toolparse._errors import ToolparseError
from toolparse.corpus.records import Record

__all__ = ["CASE_SUFFIX", "DEFAULT_DIALECT", "EXPECTED_SUFFIX", "META_SUFFIX", "TOOLS_SUFFIX",
           "Case", "CorpusError", "bundled_corpus", "find_cases", "load_case"]

CASE_SUFFIX: Final = ".txt"
"""The model output of a case: `<case>.txt`."""

EXPECTED_SUFFIX: Final = ".expected.jsonl"
"""The expected events beside it: `<case>.expected.jsonl`."""

TOOLS_SUFFIX: Final = ".tools.json"
"""Optional tool definitions, passed as `tools=`: `<case>.tools.json`."""

META_SUFFIX: Final = ".meta.json"
"""Optional dialect and description: `<case>.meta.json`."""

DEFAULT_DIALECT: Final = "deepseek"
"""The dialect of a case whose meta file names none."""

_PACKAGE: Final = Path(__file__).resolve().parent.parent   # toolparse/
_CORPUS_DIRS: Final = (
    _PACKAGE / "_corpus",          # inside an installed wheel
    _PACKAGE.parent / "corpus",    # a source checkout
)


class CorpusError(ToolparseError, ValueError):
    """A corpus path or case file cannot be read, or a file has the wrong shape; the
    message names the file and, for a JSON file, the line."""



@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One corpus case, read from its files."""

    path: Path
    """The model output file (`<case>.txt`)."""

    id: str
    """The path relative to the corpus root, with `/` separators (`realistic/x.txt`)."""

    group: str
    """The directory holding the case, relative to the corpus root ("" at the root)."""

    text: str
    """The model output, exactly as stored (CRLF and a byte-order mark stay)."""

    expected: tuple[Record, ...] | None
    """The expected events, or None when the case has no expected file yet."""

    tools: list[Any] | None
    """The tool definitions from `<case>.tools.json`, or None."""

    dialect: str
    """The bundled dialect the case is written for (`meta.json`, default deepseek)."""

    description: str
    """One line saying what the case shows (`meta.json`), or ""."""

    reasoning: str | None = "auto"
    """The reasoning format to read the case with (`meta.json`; SPEC 11): `"auto"`, the
    dialect's own (the default), a bundled format's name, or None for no regions."""

    in_reasoning: bool = False
    """The stream starts inside a reasoning region (`meta.json`): the prompt opened it."""

    @property
    def expected_path(self) -> Path:
        """Where the expected events are (or will be written)."""
        return _sibling(self.path, EXPECTED_SUFFIX)


# ---- finding and reading cases -----------------------------------------------------------

def bundled_corpus() -> Path:
    """The corpus that ships with toolparse.

    Returns:
        Its root directory: inside an installed wheel, or the checkout's `corpus/`.

    Raises:
        CorpusError: Neither is there.
    """
    for candidate in _CORPUS_DIRS:
        if candidate.is_dir():
            return candidate
    raise CorpusError(
        "no bundled corpus found (looked in " + " and ".join(str(p) for p in _CORPUS_DIRS)
        + "); pass the path of a corpus")


def find_cases(*paths: str | Path) -> list[Case]:
    """Every case under `paths`, in path order, each read once.

    Cases are named from the corpus root, so a case has the same name (and the same
    random chunkings) whichever path found it: a directory that holds case files itself
    is a group, named from its parent; a case file given alone is named
    `<its directory>/<its file>`.

    Args:
        *paths: Corpus directories (searched recursively), group directories or `.txt`
            case files. None: the bundled corpus.

    Returns:
        The cases found; an empty list when a directory holds none.

    Raises:
        CorpusError: A path does not exist, is a file that is not a `.txt` case, or a
            case's files cannot be read or have the wrong shape.
    """
    roots = [require_path(p, "find_cases: path") for p in paths] or [bundled_corpus()]
    seen: set[Path] = set()
    cases: list[Case] = []
    for root in roots:
        if root.is_file():
            if not root.name.endswith(CASE_SUFFIX):
                raise CorpusError(f"{root}: a case file ends in {CASE_SUFFIX}")
            found = [root]
        elif root.is_dir():
            found = [p for p in sorted(root.rglob("*" + CASE_SUFFIX)) if p.is_file()]
        else:
            raise CorpusError(f"{root}: no such file or directory")
        root_dir = root.resolve()
        for path in found:
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            in_subgroup = root.is_dir() and resolved.parent != root_dir
            cases.append(load_case(path, root=root_dir if in_subgroup else resolved.parent.parent))
    return cases


def load_case(path: str | Path, *, root: str | Path | None = None) -> Case:
    """Read one case from its `.txt` file and the files beside it.

    Args:
        path: The case's `.txt` file.
        root: The corpus root the case is named from. Default: two levels up, so the
            name is `<group>/<file>`.

    Returns:
        The case, with `expected` None when it has no expected file yet.

    Raises:
        CorpusError: A file cannot be read, is not UTF-8 or valid JSON, or has the
            wrong shape; or `path` is not inside `root`.
    """
    path = require_path(path, "load_case: path")
    resolved = path.resolve()
    base = (require_path(root, "load_case: root").resolve() if root is not None
            else resolved.parent.parent)
    if not resolved.is_relative_to(base):
        raise CorpusError(f"{path}: not inside the corpus root {base}")
    case_id = resolved.relative_to(base).as_posix()
    group = resolved.parent.relative_to(base).as_posix()
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise CorpusError(f"{path}: cannot read: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: not UTF-8 (byte {e.start})") from e
    expected_path = _sibling(path, EXPECTED_SUFFIX)
    tools_path = _sibling(path, TOOLS_SUFFIX)
    meta_path = _sibling(path, META_SUFFIX)
    meta = _read_json(meta_path) if meta_path.exists() else {}
    if not isinstance(meta, dict) or set(meta) - _META_KEYS:
        raise CorpusError(f"{meta_path}: expected an object with the keys "
                          f"{', '.join(sorted(_META_KEYS))}")
    reasoning = meta.get("reasoning", "auto")
    if reasoning is not None and not isinstance(reasoning, str):
        raise CorpusError(f"{meta_path}: reasoning is a format name or null")
    if not isinstance(meta.get("in_reasoning", False), bool):
        raise CorpusError(f"{meta_path}: in_reasoning is true or false")
    tools = _read_json(tools_path) if tools_path.exists() else None
    if tools is not None and not isinstance(tools, list):
        raise CorpusError(f"{tools_path}: expected a JSON array of tool definitions")
    return Case(
        path=path, id=case_id, group="" if group == "." else group, text=text,
        expected=_read_expected(expected_path) if expected_path.exists() else None,
        tools=tools, dialect=str(meta.get("dialect", DEFAULT_DIALECT)),
        description=str(meta.get("description", "")), reasoning=reasoning,
        in_reasoning=bool(meta.get("in_reasoning", False)),
    )


_META_KEYS = frozenset({"dialect", "description", "reasoning", "in_reasoning"})
"""What a case's `.meta.json` may say."""


def _sibling(case_path: Path, suffix: str) -> Path:
    """The case's file with `suffix` in place of `.txt`."""
    return case_path.with_name(case_path.name[:-len(CASE_SUFFIX)] + suffix)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CorpusError(f"{path}: cannot read: {e}") from e
    except json.JSONDecodeError as e:
        raise CorpusError(f"{path}: line {e.lineno}: {e.msg}") from e


def _read_expected(path: Path) -> tuple[Record, ...]:
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise CorpusError(f"{path}: cannot read: {e}") from e
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise CorpusError(f"{path}: line {number}: {e.msg}") from e
        problem = _record_problem(record)
        if problem:
            raise CorpusError(f"{path}: line {number}: {problem}")
        records.append(record)
    return tuple(records)


def _record_problem(record: Any) -> str | None:
    """Why `record` is not an expected-file event, or None."""
    if not isinstance(record, dict):
        return "an event is a JSON object"
    if set(record) == {"text"}:
        return None if isinstance(record["text"], str) else '"text" is a string'
    if set(record) in ({"reasoning", "raw"}, {"text", "raw"}):
        if all(isinstance(value, str) for value in record.values()):
            return None
        return 'reasoning (or framing text) has "reasoning" (or "text") and "raw", strings'
    if set(record) == {"text", "failure", "at"}:
        if (isinstance(record["text"], str) and isinstance(record["failure"], str)
                and isinstance(record["at"], int)):
            return None
        return 'a failed text has "text" and "failure" (strings) and "at" (an offset)'
    if set(record) != {"calls", "raw"}:
        return ('an event has the keys "text" (and "failure", "at", or "raw"), "reasoning" '
                'and "raw", or "calls" and "raw"')
    if not isinstance(record["raw"], str) or not isinstance(record["calls"], list):
        return '"raw" is a string and "calls" a list'
    for call in record["calls"]:
        if (not isinstance(call, dict) or not {"name", "arguments"} <= set(call)
                or set(call) - {"name", "arguments", "status"} or not isinstance(call["name"], str)):
            return 'a call has "name" (a string), "arguments" and optionally "status"'
    return None

