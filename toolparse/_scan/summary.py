"""The counts a scan ends with, and the table that shows them.

A `Summary` adds up output records (`add`) and other summaries (`merge`), so each
worker counts its own batches and the parent only merges: the table costs the parent
nothing per record. `table()` is the plain text the command prints at the end;
`_repr_html_` shows the same rows in a notebook.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Summary", "summarize"]


@dataclass
class Summary:
    """What a scan found, counted."""

    records: int = 0
    """Output records (one per input record)."""
    chars: int = 0
    """Characters of answer text scanned."""
    errors: Counter[str] = field(default_factory=Counter)
    """Records that could not be scanned, by `error.reason`."""
    calls: Counter[str] = field(default_factory=Counter)
    """Calls found, by status."""
    failures: Counter[str] = field(default_factory=Counter)
    """Failed blocks, by reason."""
    differences: Counter[str] = field(default_factory=Counter)
    """Differences from the recorded calls, by reason."""
    compared: int = 0
    """Records compared with recorded calls."""
    recorded: int = 0
    """Recorded calls, over the compared records."""
    differing: int = 0
    """Compared records with at least one difference."""

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one output record."""
        self.records += 1
        error = record.get("error")
        if error is not None:
            self.errors[error["reason"]] += 1
            return
        self.chars += record["chars"]
        self.calls.update(call["status"] for call in record["calls"])
        self.failures.update(failure["reason"] for failure in record["failures"])
        differences = record.get("differences")
        if differences is not None:
            self.compared += 1
            self.recorded += record["recorded"]
            self.differing += bool(differences)
            self.differences.update(d["reason"] for d in differences)

    def merge(self, other: Summary) -> None:
        """Add another summary's counts to this one."""
        for name in ("records", "chars", "compared", "recorded", "differing"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("errors", "calls", "failures", "differences"):
            getattr(self, name).update(getattr(other, name))

    def rows(self) -> list[tuple[str, int, str]]:
        """The table's rows: what, how many, and the split by reason or status."""
        rows = [("records", self.records, ""),
                ("  not scanned (error)", sum(self.errors.values()), _split(self.errors)),
                ("calls found", sum(self.calls.values()), _split(self.calls)),
                ("failed blocks", sum(self.failures.values()), _split(self.failures))]
        if self.compared:
            rows += [("records compared", self.compared, ""),
                     ("  with differences", self.differing, ""),
                     ("recorded calls", self.recorded, ""),
                     ("differences", sum(self.differences.values()), _split(self.differences))]
        return rows

    def table(self) -> str:
        """The rows as aligned plain text, one line each."""
        rows = self.rows()
        width = max(len(what) for what, _, _ in rows)
        digits = max(len(f"{count:,}") for _, count, _ in rows)
        return "\n".join(f"{what:<{width}}  {count:>{digits},}" + (f"  {split}" if split else "")
                         for what, count, split in rows)

    def _repr_html_(self) -> str:
        body = "".join(f"<tr><td style='text-align:left'>{html.escape(what.strip())}</td>"
                       f"<td>{count:,}</td><td style='text-align:left'>{html.escape(split)}</td></tr>"
                       for what, count, split in self.rows())
        return ("<table><thead><tr><th>scan</th><th>count</th><th>by reason</th></tr></thead>"
                f"<tbody>{body}</tbody></table>")

    def __str__(self) -> str:
        return self.table()


def _split(counts: Counter[str]) -> str:
    """`in_code 3, failed 1`: most common first, then by name."""
    return ", ".join(f"{key} {count:,}" for key, count in
                     sorted(counts.items(), key=lambda item: (-item[1], item[0])) if count)


def summarize(records: Iterable[Mapping[str, Any]]) -> Summary:
    """The summary of output records."""
    summary = Summary()
    for record in records:
        summary.add(record)
    return summary
