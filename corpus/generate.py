#!/usr/bin/env python3
"""Write the generated corpus cases (the hand-written ones are committed as written).

    .venv/bin/python corpus/generate.py          # rewrite the generated cases
    .venv/bin/python corpus/generate.py --list   # print their names and descriptions
    .venv/bin/python corpus/generate.py --out D  # write them under D instead (to compare)

A case is built from segments whose meaning the generator knows, and its expected
events are written from those segments, never from the parser:

* `Prose`: text with no call in it: prose, markup that fails to parse (SPEC G4).
* `Code`: text holding tags that a CommonMark renderer places inside code (SPEC G3).
* `Block`: a real tool-call block, rendered from calls whose arguments are stated next
  to the markup that writes them (SPEC 3), so a value's expected form is never derived
  by code that could share the parser's mistakes.

markdown-it-py (the CommonMark reference port, in the test extra) checks every case as
it is written: each tag opening in a `Code` segment must lie inside code, and each
`Block` must start outside code. A block is opaque to Markdown (SPEC G3a); the check
stands in its first line, with the tag names swapped for same-shaped stand-ins, so
that backticks inside a block's later lines change nothing. A case whose segments
disagree with markdown-it-py is not written: the generator stops and names it.

The other bundled dialects (SPEC 5.2) have a group each, named after the dialect, and
realistic answers in `realistic/` named after it too: their blocks are written by one
small writer per dialect, next to the calls they mean, and their `.meta.json` names
the dialect the case runs with.

The cases are defined in `writers/` (its `__init__` lists the groups); a dialect's are
in `writers/dialects/<dialect>.py`.

Cases this script wrote carry no marker; it rewrites exactly the cases it defines and
leaves every other file alone. Renaming a case here leaves the old files behind:
delete them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

CORPUS = Path(__file__).resolve().parent
sys.path.insert(0, str(CORPUS))

from writers import CASES, define_cases  # noqa: E402
from writers.cases import write  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the cases; write nothing")
    parser.add_argument("--out", type=Path, default=CORPUS,
                        help="write the cases under this directory (default: the corpus)")
    args = parser.parse_args(argv)
    define_cases()
    if args.list:
        for c in CASES:
            print(f"{c.group}/{c.name}: {c.description}")
        return 0
    write(CASES, args.out)
    groups: dict[str, int] = {}
    for c in CASES:
        groups[c.group] = groups.get(c.group, 0) + 1
    print(f"wrote {len(CASES)} cases: " + ", ".join(f"{g} {n}" for g, n in sorted(groups.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
