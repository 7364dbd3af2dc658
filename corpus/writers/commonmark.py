"""The check against markdown-it-py: each tag in a `Code` segment lies inside code, each
`Block` starts outside it (SPEC G3)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from writers.segments import Block, Code, Framing, Thinking

if TYPE_CHECKING:
    from writers.cases import Case

# ---- the CommonMark check -------------------------------------------------------------------

_TAG_NAME = re.compile(
    r"</?((?:[|｜]{0,2}[Dd][Ss][Mm][Ll][|｜]{0,2}|[|｜]{1,2})[ _]?)?"
    r"(tool_calls|tool-calls|toolcalls|function_calls|calls|invoke|parameter)(?=[\s/>])")
# The other bundled dialects' tag names (docs/dialects.md), after the DeepSeek ones are
# swapped: `<tool_call>`, `<function=`, `<|tool_call_begin|>`, `<arg_key>`, ...
_OTHER_TAG_NAME = re.compile(
    r"</?\|?(tool_calls_section_begin|tool_calls_section_end|tool_call_argument_begin|"
    r"tool_call_begin|tool_call_end|minimax:tool_call|seed:tool_call|tool_call|function|"
    r"parameter|arg_key|arg_value)(?=[\s/>=|])")
_CODE_TOKENS = {"fence", "code_block", "code_inline"}


class _StandIns:
    """Same-shaped, unique stand-ins for tag names: letters stay letters, `_` and `-`
    stay, so HTML-tag validity and line layout do not change."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, name: str) -> str:
        self.count += 1
        n, letters = self.count, []
        for _ in range(sum(c.isalpha() for c in name) - 2):
            letters.append(chr(ord("a") + n % 26))
            n //= 26
        assert n == 0, "too many tags in one case for the stand-in scheme"
        pool = iter("zq" + "".join(reversed(letters)))
        return "".join(next(pool) if c.isalpha() else c for c in name)


def _writers_tag_names() -> list[re.Pattern[str]]:
    """The tag-name patterns the dialect writers add (`DialectWriter.tag_names`)."""
    from writers.dialects import writers

    return [re.compile(w.tag_names) for w in writers() if w.tag_names]


def _mark(text: str, stand_in: _StandIns, found: list[str]) -> str:
    def swapper(group: int) -> Any:
        def swap(m: re.Match[str]) -> str:
            marker = stand_in(m.group(group))
            found.append(marker)
            return m.group(0)[:m.start(group) - m.start(0)] + marker
        return swap
    text = _OTHER_TAG_NAME.sub(swapper(1), _TAG_NAME.sub(swapper(2), text))
    for pattern in _writers_tag_names():
        text = pattern.sub(swapper(1), text)
    return text


def commonmark_disagreements(c: Case) -> list[str]:
    """Where the case's segments disagree with markdown-it-py about code."""
    from markdown_it import MarkdownIt

    stand_in = _StandIns()
    in_code: list[str] = []
    outside: list[str] = []
    pieces: list[str] = []
    documents: list[list[str]] = []
    for s in c.segments:
        if isinstance(s, Code):
            found: list[str] = []
            pieces.append(_mark(s.text, stand_in, found))
            assert found, f"{c.group}/{c.name}: a Code segment without a tag"
            in_code += found
        elif isinstance(s, (Thinking, Framing)):
            if isinstance(s, Thinking) and not documents:
                assert not "".join(pieces).strip(), "a region opens at the start (SPEC 11)"
                pieces = []   # the whitespace before it is no Markdown
            # A region or a message boundary: a fresh document after it.
            documents.append(pieces)
            pieces = []
        elif isinstance(s, Block):
            first_line = re.split(r"\r\n|\r|\n", s.raw, maxsplit=1)[0]
            found = []
            pieces.append(_mark(first_line, stand_in, found))
            assert found, (f"{c.group}/{c.name}: a Block whose first line holds no tag the "
                           "check knows (give the dialect's writer its tag_names)")
            outside.append(found[0])
        else:
            pieces.append(s.text)
    documents.append(pieces)
    kinds: dict[str, set[str]] = {m: set() for m in in_code + outside}

    def visit(token: Any) -> None:
        kind = "code" if token.type in _CODE_TOKENS else "text"
        if token.type not in ("inline", "image"):
            for m in kinds:
                if m in token.content or (token.type == "fence" and m in token.info):
                    kinds[m].add(kind)
        for value in (token.attrs or {}).values():
            for m in kinds:
                if isinstance(value, str) and m in value:
                    kinds[m].add("text")
        for child in token.children or []:
            visit(child)

    for document in documents:
        for token in MarkdownIt("commonmark").parse("".join(document)):
            visit(token)
    problems = []
    for m in in_code:
        if kinds[m] != {"code"}:
            problems.append(f"a tag in a Code segment is not in code ({sorted(kinds[m]) or 'missing'})")
    for m in outside:
        if kinds[m] != {"text"}:
            problems.append(f"a Block starts inside code ({sorted(kinds[m]) or 'missing'})")
    return problems


