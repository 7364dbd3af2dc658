"""The corpus: model outputs next to the events the specification says they give.

A corpus is a directory tree of cases, in the manner of markdown-it-py's spec fixtures
and tomli's toml-test pairs. A case is a group directory and a file stem:

    corpus/<group>/<case>.txt             the model output, byte for byte
    corpus/<group>/<case>.expected.jsonl  the expected events, one JSON object a line:
                                          {"text": "..."},
                                          {"text": "...", "failure": reason, "at": offset}
                                          for a failed block's text (SPEC 3.2), or
                                          {"calls": [{"name", "arguments", "status"?}],
                                           "raw": "..."}
    corpus/<group>/<case>.tools.json      optional: tool definitions, passed as `tools=`
    corpus/<group>/<case>.meta.json       optional: {"dialect": ..., "description": ...}

A case is named by its path relative to the corpus root (`realistic/x.txt`); its group
is the directory that holds it. Running a case parses it whole, one character at a
time and at three random chunkings seeded from its name (so every run cuts it the same
way), and compares each outcome with the expected events: adjacent text merged, text
and raw exactly, arguments as JSON values (`true` is not `1`), and `status` only where
the expected file states it. A failure renders as a diff that names the chunkings.

This module is shared by the `toolparse corpus` command, the test suite and anyone with
a corpus of their own (docs/corpus.md describes the format and the command):

    cases = toolparse.corpus.find_cases("my-corpus")
    results = [toolparse.corpus.run_case(case) for case in cases]
    print(toolparse.corpus.summary_table(results))
"""

from __future__ import annotations

import difflib
import json
import random
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolparse._dialect import Dialect
from toolparse._arguments import require, require_args, require_items, require_path
from toolparse._errors import DialectTypeError, ToolparseError
from toolparse._events import (
    ArgumentsDelta, BlockFailure, CallsAborted, CallStarted, Event, Reasoning, Text,
    ToolCallBlock)
from toolparse._stream import StreamParser

__all__ = ["CASE_SUFFIX", "EXPECTED_SUFFIX", "META_SUFFIX", "TOOLS_SUFFIX", "Case",
           "CaseResult", "CorpusError", "Outcome", "Update", "bundled_corpus",
           "chunkings", "random_chunks", "split_at", "event_records", "find_cases",
           "load_case", "records_match", "render_records", "run_case", "summary_table",
           "update_case"]

CASE_SUFFIX: Final = ".txt"
"""The model output of a case: `<case>.txt`."""

EXPECTED_SUFFIX: Final = ".expected.jsonl"
"""The expected events beside it: `<case>.expected.jsonl`."""

TOOLS_SUFFIX: Final = ".tools.json"
"""Optional tool definitions, passed as `tools=`: `<case>.tools.json`."""

META_SUFFIX: Final = ".meta.json"
"""Optional dialect and description: `<case>.meta.json`."""

RANDOM_CHUNKINGS: Final = 3
"""How many seeded random chunkings each case runs at, besides whole and 1-char."""

RANDOM_CHUNK_SIZES: Final = (1, 12)
"""Random chunk lengths lie in this range (inclusive): short, like model deltas, so
that tags and markers are split in many places."""

DEFAULT_DIALECT: Final = "deepseek"
"""The dialect of a case whose meta file names none."""

_CORPUS_DIRS: Final = (
    Path(__file__).resolve().parent / "_corpus",          # inside an installed wheel
    Path(__file__).resolve().parent.parent / "corpus",    # a source checkout
)


class CorpusError(ToolparseError, ValueError):
    """A corpus path or case file cannot be read, or a file has the wrong shape; the
    message names the file and, for a JSON file, the line."""


_CASE: Final = "a toolparse.corpus.Case"
_EVENTS: Final = (Text, ToolCallBlock, Reasoning, CallStarted, ArgumentsDelta, CallsAborted)

Record = dict[str, Any]
"""One expected-file line: `{"text": ...}`, `{"text": ..., "failure": ..., "at": ...}` or
`{"calls": [...], "raw": ...}`."""


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What one or more chunkings of a case gave, when it was not what was expected."""

    chunkings: tuple[str, ...]
    """The chunkings that gave this outcome (`whole`, `1-char`, `random-<seed>`)."""

    records: tuple[Record, ...] | None
    """The events they gave, as expected-file records; None if the parser raised."""

    error: str | None = None
    """The exception the parser raised (content must never raise, SPEC G8)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """The verdict on one case."""

    case: Case
    """The case that ran."""

    mismatches: tuple[Outcome, ...] = ()
    """Outcomes that differ from the expected events, one per distinct output."""

    problem: str | None = None
    """A defect of the case itself (no expected file, expected events that do not give
    back the text), which fails it before any comparison."""

    @property
    def passed(self) -> bool:
        """True when every chunking gave the expected events and the case is sound."""
        return not self.mismatches and self.problem is None

    def report(self) -> str:
        """A readable account of the verdict: `PASS <id>`, or `FAIL <id>` with the
        case's problem or a unified diff of expected and actual events per distinct
        outcome, naming the chunkings that gave it."""
        if self.passed:
            return f"PASS {self.case.id}"
        lines = [f"FAIL {self.case.id}" + (f": {self.case.description}" if self.case.description else "")]
        if self.problem is not None:
            lines.append(f"  {self.problem}")
        expected = render_records(self.case.expected or (), with_status=_expected_has_status(self.case))
        for outcome in self.mismatches:
            label = ", ".join(outcome.chunkings)
            if outcome.error is not None:
                lines.append(f"  chunkings {label}: the parser raised {outcome.error}")
                continue
            assert outcome.records is not None
            got = render_records(outcome.records, with_status=_expected_has_status(self.case))
            lines.extend(difflib.unified_diff(
                expected, got, fromfile=f"expected ({self.case.expected_path.name})",
                tofile=f"got (chunkings: {label})", lineterm=""))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class Update:
    """What `update_case` did to one case's expected file."""

    case: Case
    """The case whose expected file was checked."""

    changed: bool
    """The expected file was written (it was missing or said something else)."""

    diff: str
    """The change, as a unified diff of the rendered events ("" when unchanged)."""

    unstable: tuple[str, ...] = ()
    """Chunkings whose events differ from the whole-text parse. The expected file
    records the whole-text parse; these chunkings will still fail (SPEC G2)."""


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


# ---- running ---------------------------------------------------------------------------

def chunkings(case: Case) -> list[tuple[str, list[str]]]:
    """The chunkings a case runs at.

    Args:
        case: The case.

    Returns:
        `(label, chunks)` pairs: `whole`, `1-char`, and `RANDOM_CHUNKINGS` random ones
        (`random-<seed>`) seeded from the case's id, so every run cuts it the same way.
    """
    require_args("chunkings", ("case", case, Case, _CASE))
    text = case.text
    runs = [("whole", [text]), ("1-char", list(text) or [""])]
    for n in range(1, RANDOM_CHUNKINGS + 1):
        seed = zlib.crc32(f"{case.id}#{n}".encode())
        runs.append((f"random-{seed:08x}", random_chunks(text, seed, *RANDOM_CHUNK_SIZES)))
    return runs


def random_chunks(text: str, seed: int, shortest: int = 1, longest: int = 9) -> list[str]:
    """`text` cut into pieces of random lengths, the same for the same seed.

    Args:
        text: The text to cut.
        seed: The seed of the random lengths.
        shortest: The shortest piece (the last may be shorter).
        longest: The longest piece.

    Returns:
        The pieces, in order; an empty text is one empty chunk.
    """
    require_args("random_chunks", ("text", text, str, "a str"), ("seed", seed, int, "an int"),
                 ("shortest", shortest, int, "an int"), ("longest", longest, int, "an int"))
    rnd = random.Random(seed)
    pieces, i = [], 0
    while i < len(text):
        size = rnd.randint(shortest, longest)
        pieces.append(text[i:i + size])
        i += size
    return pieces or [""]


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    """`text` cut at the given offsets.

    Args:
        text: The text to cut.
        cuts: Offsets into `text`; out-of-range and repeated ones are ignored.

    Returns:
        The pieces, in order; they join to `text`.
    """
    require_args("split_at", ("text", text, str, "a str"))
    points = sorted({c for c in require_items(cuts, int, "split_at: cuts", "offsets", "an int")
                     if 0 < c < len(text)})
    pieces, last = [], 0
    for c in points:
        pieces.append(text[last:c])
        last = c
    pieces.append(text[last:])
    return pieces


def event_records(events: Iterable[Event], *, with_status: bool = False) -> list[Record]:
    """Events as expected-file records.

    Adjacent text with the same failure (or none) is merged and empty text dropped. A
    failed block's text is `{"text", "failure", "at"}` (its reason code and failing
    offset); a block is `{"calls", "raw"}`. (`toolparse parse --format jsonl` writes a
    richer record, with offsets, ids and reasons: see docs/cli.md.)

    Args:
        events: Events of one stream, in order (any chunking's).
        with_status: Give each call its `status` too.

    Returns:
        The records, in order.
    """
    records: list[Record] = []
    last_failure: BlockFailure | None = None
    for event in require_items(events, _EVENTS, "event_records: events", "events", "an event"):
        if isinstance(event, Reasoning) or (isinstance(event, Text) and event.raw != event.text):
            # A reasoning piece, or framing markup (SPEC 11): merged with the last record
            # of the same kind, so that every chunking gives the same records.
            key = "reasoning" if isinstance(event, Reasoning) else "text"
            last = records[-1] if records else {}
            if set(last) == {key, "raw"}:
                records[-1] = {key: last[key] + event.text, "raw": last["raw"] + event.raw}
            else:
                records.append({key: event.text, "raw": event.raw})
            last_failure = None
            continue
        if isinstance(event, Text):
            if not event.text:
                continue
            if records and "text" in records[-1] and last_failure == event.failure:
                records[-1] = {**records[-1], "text": records[-1]["text"] + event.text}
                continue
            record: Record = {"text": event.text}
            if event.failure is not None:
                record["failure"] = event.failure.reason
                record["at"] = event.failure.at
            records.append(record)
            last_failure = event.failure
        elif isinstance(event, ToolCallBlock):
            calls = []
            for call in event.calls:
                entry: dict[str, Any] = {"name": call.name, "arguments": _as_json(call.arguments)}
                if with_status:
                    entry["status"] = call.status
                calls.append(entry)
            records.append({"calls": calls, "raw": event.raw})
            last_failure = None
    return records


def run_case(case: Case, dialect: str | Dialect | None = None) -> CaseResult:
    """Run `case` at every chunking and compare with its expected events.

    An exception from the parser is a mismatch of its chunking, not an error here:
    content must never raise (SPEC G8).

    Args:
        case: The case.
        dialect: A dialect to use instead of the case's own (to run a corpus against an
            edited grammar). None: the case's.

    Returns:
        The verdict; `passed` when every chunking gave the expected events.
    """
    _check_case("run_case", case, dialect)
    if case.expected is None:
        return CaseResult(case=case, problem=(
            f"no expected file ({case.expected_path.name}); `toolparse corpus --update` writes one"))
    if "".join(_source(record) for record in case.expected) != case.text:
        return CaseResult(case=case, problem=(
            "the expected events do not give back the case text (SPEC G1); "
            "fix the expected file"))
    with_status = _expected_has_status(case)
    mismatches: dict[str, tuple[list[str], tuple[Record, ...] | None, str | None]] = {}
    for label, chunks in chunkings(case):
        try:
            records: tuple[Record, ...] | None = tuple(event_records(
                _stream(case, chunks, dialect), with_status=with_status))
            error = None
        except Exception as e:  # content must never raise (SPEC G8): a failure to report
            records, error = None, f"{type(e).__name__}: {e}"
        if error is None and records is not None and records_match(case.expected, records):
            continue
        key = error if error is not None else json.dumps(records, ensure_ascii=False)
        mismatches.setdefault(key, ([], records, error))[0].append(label)
    return CaseResult(case=case, mismatches=tuple(
        Outcome(chunkings=tuple(labels), records=records, error=error)
        for labels, records, error in mismatches.values()))


def _check_case(function: str, case: object, dialect: object) -> None:
    require_args(function, ("case", case, Case, _CASE))
    require(dialect, (str, Dialect, type(None)), f"{function}: dialect",
            "a dialect name or a toolparse.Dialect", DialectTypeError)


def _stream(case: Case, chunks: Sequence[str], dialect: str | Dialect | None) -> list[Event]:
    parser = StreamParser(dialect if dialect is not None else case.dialect, tools=case.tools,
                          reasoning=case.reasoning, in_reasoning=case.in_reasoning)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def _source(record: Record) -> str:
    """The source text of an event record: its raw text when it has one, else its text."""
    return str(record["raw"] if "raw" in record else record["text"])


def _expected_has_status(case: Case) -> bool:
    if case.expected is None:
        return case.tools is not None
    return any("status" in call for r in case.expected for call in r.get("calls", ()))


# ---- comparing -------------------------------------------------------------------------

def records_match(expected: Sequence[Record], got: Sequence[Record]) -> bool:
    """Whether `got` gives the `expected` events.

    Text, failures and raw must be equal exactly, call names too; arguments compare as
    JSON values (`1` equals `1.0`, `true` is not `1`); `status` only where `expected`
    states it.

    Args:
        expected: The expected records.
        got: The records a run gave.

    Returns:
        True when they match.
    """
    for name, records in (("expected", expected), ("got", got)):
        require_items(records, dict, f"records_match: {name}", "records", "a dict")
    if len(expected) != len(got):
        return False
    for want, have in zip(expected, got):
        if "reasoning" in want or "reasoning" in have or want.keys() == {"text", "raw"}:
            if want != have:
                return False
            continue
        if "text" in want or "text" in have:
            if any(want.get(key) != have.get(key) for key in ("text", "failure", "at")):
                return False
            continue
        if want["raw"] != have["raw"] or len(want["calls"]) != len(have["calls"]):
            return False
        for want_call, have_call in zip(want["calls"], have["calls"]):
            if want_call["name"] != have_call["name"]:
                return False
            if not _json_equal(want_call["arguments"], have_call["arguments"]):
                return False
            if "status" in want_call and want_call["status"] != have_call.get("status"):
                return False
    return True


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value (1 == 1.0), but a boolean is no number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _as_json(value: Any) -> Any:
    """`value` as plain JSON data (tuples become lists), so records compare and print."""
    return json.loads(json.dumps(value, ensure_ascii=False))


# ---- rendering -------------------------------------------------------------------------

def render_records(records: Iterable[Mapping[str, Any]], *, with_status: bool = True) -> list[str]:
    """Events as lines for reading and diffing.

    Each line of source text is on its own line, JSON-quoted, so that a difference
    shows up where it is.

    Args:
        records: Expected-file records.
        with_status: Show each call's status where the record has one.

    Returns:
        The lines, without line endings.
    """
    lines: list[str] = []
    for record in require_items(records, Mapping, "render_records: records", "records",
                                "a mapping"):
        if "reasoning" in record or record.keys() == {"text", "raw"}:
            lines.append("reasoning" if "reasoning" in record else "framing")
            lines.extend(_quoted_lines("  text ", record.get("reasoning", record.get("text", ""))))
            lines.extend(_quoted_lines("  raw ", record["raw"]))
            continue
        if "text" in record:
            if "failure" in record:
                lines.append(f"failed block ({record['failure']} at {record['at']})")
            lines.extend(_quoted_lines("text ", record["text"]))
            continue
        lines.append(f"block with {len(record['calls'])} call(s)")
        for call in record["calls"]:
            status = f"  [{call['status']}]" if with_status and "status" in call else ""
            lines.append(f"  call {call['name']} "
                         f"{json.dumps(call['arguments'], ensure_ascii=False, sort_keys=True)}{status}")
        lines.extend(_quoted_lines("  raw ", record["raw"]))
    return lines


def _quoted_lines(label: str, text: str) -> Iterator[str]:
    pad = " " * len(label)
    for i, line in enumerate(text.splitlines(keepends=True) or [""]):
        yield (label if i == 0 else pad) + json.dumps(line, ensure_ascii=False)


def summary_table(results: Sequence[CaseResult]) -> str:
    """A plain-text table of cases, passed and failed per group, and a total line.

    Args:
        results: Verdicts from `run_case`.

    Returns:
        The table, lines joined by newlines (no final newline).
    """
    groups: dict[str, list[int]] = {}
    for result in require_items(results, CaseResult, "summary_table: results",
                                "CaseResults", "a CaseResult"):
        counts = groups.setdefault(result.case.group or ".", [0, 0])
        counts[0 if result.passed else 1] += 1
    rows = [(group, p + f, p, f) for group, (p, f) in sorted(groups.items())]
    total = ("total", len(results), sum(r[2] for r in rows), sum(r[3] for r in rows))
    width = max([len("group"), len(total[0])] + [len(r[0]) for r in rows])
    line = f"{{:<{width}}}  {{:>5}}  {{:>6}}  {{:>6}}"
    out = [line.format("group", "cases", "passed", "failed")]
    out += [line.format(*row) for row in rows]
    out.append(line.format(*total))
    return "\n".join(out)


# ---- rewriting -------------------------------------------------------------------------

def update_case(case: Case, dialect: str | Dialect | None = None, *, write: bool = True) -> Update:
    """Make the case's expected file say what the parser does now (its whole-text parse).

    The file is rewritten only when it is missing or says something else, so a
    hand-formatted file that still holds stays as it is. `status` is written when the
    case has tools, or when a call is not `unchecked` without them (a rejected JSON
    body).

    Args:
        case: The case.
        dialect: A dialect to use instead of the case's own. None: the case's.
        write: False to write nothing: the Update then says what would change.

    Returns:
        What changed, as a diff, and the chunkings whose events differ from the
        whole-text parse (a SPEC G2 bug the expected file cannot fix).
    """
    _check_case("update_case", case, dialect)
    events = _stream(case, [case.text], dialect)
    whole = event_records(events, with_status=True)
    with_status = case.tools is not None or any(
        call["status"] != "unchecked" for record in whole for call in record.get("calls", ()))
    if not with_status:
        whole = event_records(events)
    unstable = []
    for label, chunks in chunkings(case)[1:]:
        if not records_match(whole, event_records(_stream(case, chunks, dialect), with_status=with_status)):
            unstable.append(label)
    if case.expected is not None and records_match(case.expected, whole):
        return Update(case=case, changed=False, diff="", unstable=tuple(unstable))
    before = render_records(case.expected or (), with_status=with_status)
    after = render_records(whole, with_status=with_status)
    diff = "\n".join(difflib.unified_diff(
        before, after, fromfile=f"{case.id} (before)" if case.expected is not None else "/dev/null",
        tofile=f"{case.id} (after)", lineterm=""))
    if write:
        content = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in whole)
        case.expected_path.write_bytes(content.encode("utf-8"))
    return Update(case=case, changed=True, diff=diff, unstable=tuple(unstable))
