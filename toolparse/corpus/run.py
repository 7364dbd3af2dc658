"""Running corpus cases at every chunking, and writing their expected files."""

from __future__ import annotations

import difflib
import json
import random
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from toolparse._arguments import require, require_args, require_items
from toolparse._dialect import Dialect
from toolparse._errors import DialectTypeError
from toolparse._events import Event
from toolparse._stream import StreamParser
from toolparse.corpus.cases import Case
from toolparse.corpus.records import Record, event_records, records_match, render_records

__all__ = ["CaseResult", "Outcome", "RANDOM_CHUNKINGS", "RANDOM_CHUNK_SIZES", "Update",
           "chunkings", "random_chunks", "run_case", "split_at", "summary_table",
           "update_case"]

_CASE: Final = "a toolparse.corpus.Case"

RANDOM_CHUNKINGS: Final = 3
"""How many seeded random chunkings each case runs at, besides whole and 1-char."""

RANDOM_CHUNK_SIZES: Final = (1, 12)
"""Random chunk lengths lie in this range (inclusive): short, like model deltas, so
that tags and markers are split in many places."""


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
