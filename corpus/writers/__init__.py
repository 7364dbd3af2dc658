"""The generated corpus cases, by group (corpus/generate.py writes them).

    segments.py            what a case is made of: Prose, Code, Failed, Block, Thinking
    cases.py               Case (its expected records) and writing its files
    commonmark.py          the check against markdown-it-py (SPEC G3)
    deepseek_calls.py      the DeepSeek groups: prose, canonical, DSML, fences, inline code...
    deepseek_failures.py   ... malformed, failures, values, unicode, adversarial, schemas
    realistic.py           realistic answers in DeepSeek markup
    dialects/              one module per other dialect: its writer and its own group
    realistic_dialects.py  the realistic answers in every other dialect
    auto.py                dialect="auto"
    reasoning.py           reasoning regions (SPEC 11)

A new dialect is a module in `dialects/` that registers its writer: the realistic and
reasoning groups pick it up.
"""

from __future__ import annotations

from writers.cases import CASES


def define_cases() -> None:
    """Every generated case, group by group."""
    from writers import (auto, deepseek_calls, deepseek_failures, realistic,
                         realistic_dialects, reasoning)
    from writers.dialects import writers

    ds, df = deepseek_calls, deepseek_failures
    for define in (ds.prose, ds.canonical, ds.dsml_cases, ds.multiple, ds.missing_wrapper,
                   ds.fences, ds.inline_code, ds.stray_backticks, df.malformed, df.failures,
                   df.values, df.unicode, df.adversarial, df.schemas, realistic.realistic,
                   realistic_dialects.realistic_dialects):
        define()
    for writer in writers():
        writer.define()
    auto.auto()
    reasoning.reasoning()


__all__ = ["CASES", "define_cases"]
