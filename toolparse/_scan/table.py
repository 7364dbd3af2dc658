"""The differences of a scan as a table: one row per difference, for a notebook (HTML)
or a terminal (plain text), without pandas."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["DifferenceTable", "differences_table"]

COLUMNS: Final = ("record", "id", "reason", "tool", "where", "detail")


@dataclass(frozen=True)
class DifferenceTable:
    """Rows of `COLUMNS`, one per difference (and one per record that had an error)."""

    rows: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.rows)

    def __str__(self) -> str:
        table = (COLUMNS,) + self.rows
        widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
        return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                         for row in table)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{name}</th>" for name in COLUMNS)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{html.escape(cell)}</td>"
                                        for cell in row) + "</tr>" for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def differences_table(records: Iterable[Mapping[str, Any]]) -> DifferenceTable:
    """The table of the differences (and errors) in `records`, in their order."""
    rows: list[tuple[str, ...]] = []
    for record in records:
        # The file's name, not its whole path or URL: a table for reading.
        name = (record["source"] or "").rstrip("/").rsplit("/", 1)[-1]
        where = f"{name}:{record['line']}".lstrip(":")
        ident = record["id"] or ""
        error = record["error"]
        if error is not None:
            rows.append((where, ident, "error: " + error["reason"], "", "", error["message"]))
            continue
        for difference in record["differences"] or ():
            place = f"line {difference['line']}" if difference["line"] is not None else ""
            if difference["kind"]:
                place = f"{difference['kind']}, {place}"
            rows.append((where, ident, difference["reason"], difference["name"], place,
                         difference["detail"] or ""))
    return DifferenceTable(tuple(rows))
