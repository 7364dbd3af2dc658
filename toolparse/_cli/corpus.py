"""`toolparse corpus`: run the corpus regression suite, update or check it."""

from __future__ import annotations

import argparse
from typing import Any

from toolparse import corpus
from toolparse._cli.common import UsageError, add_dialect_options, chosen_dialect
from toolparse._dialect import Dialect

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    run_corpus = commands.add_parser(
        "corpus", help="run the corpus regression suite",
        description="Run corpus cases (the bundled corpus by default) whole, one character "
                    "at a time and at three seeded random chunkings; print the diffs of "
                    "failures and a summary table. Exit status 1 on any failure.")
    run_corpus.add_argument("paths", nargs="*", metavar="PATH",
                            help="corpus directories, group directories or .txt case files")
    mode = run_corpus.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true",
                      help="write the expected files from the current behaviour; print what changed")
    mode.add_argument("--check", action="store_true",
                      help="fail (status 1) if --update would change any expected file")
    add_dialect_options(run_corpus, default_help="each case's own dialect (meta.json)")
    run_corpus.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    dialect = chosen_dialect(args)
    cases = corpus.find_cases(*args.paths)
    if not cases:
        raise UsageError("no corpus cases (*.txt) found in " + (", ".join(args.paths) or "the bundled corpus"))
    if args.update or args.check:
        return _update_corpus(cases, dialect, write=args.update)
    results = [corpus.run_case(case, dialect) for case in cases]
    failures = [r for r in results if not r.passed]
    for result in failures:
        print(result.report(), end="\n\n")
    print(corpus.summary_table(results))
    return 1 if failures else 0


def _update_corpus(cases: list[corpus.Case], dialect: Dialect | None, *, write: bool) -> int:
    updates = [corpus.update_case(case, dialect, write=write) for case in cases]
    changed = [u for u in updates if u.changed]
    unstable = [u for u in updates if u.unstable]
    for update in changed:
        print(update.diff, end="\n\n")
    for update in unstable:
        print(f"{update.case.id}: chunkings {', '.join(update.unstable)} give other events "
              "than the whole text (SPEC G2); the expected file records the whole-text parse")
    verb = "updated" if write else "out of date"
    print(f"{len(cases)} cases, {len(changed)} expected files {verb}"
          + (f", {len(unstable)} with chunking-dependent events" if unstable else ""))
    if write:
        return 1 if unstable else 0
    return 1 if changed or unstable else 0
