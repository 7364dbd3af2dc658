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

from toolparse.corpus.cases import (
    CASE_SUFFIX, EXPECTED_SUFFIX, META_SUFFIX, TOOLS_SUFFIX, Case, CorpusError, bundled_corpus,
    find_cases, load_case)
from toolparse.corpus.records import event_records, records_match, render_records
from toolparse.corpus.run import (
    CaseResult, Outcome, Update, chunkings, random_chunks, run_case, split_at, summary_table,
    update_case)

__all__ = ["CASE_SUFFIX", "EXPECTED_SUFFIX", "META_SUFFIX", "TOOLS_SUFFIX", "Case",
           "CaseResult", "CorpusError", "Outcome", "Update", "bundled_corpus",
           "chunkings", "random_chunks", "split_at", "event_records", "find_cases",
           "load_case", "records_match", "render_records", "run_case", "summary_table",
           "update_case"]

