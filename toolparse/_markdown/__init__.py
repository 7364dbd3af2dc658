"""Where Markdown code is, decided while the text streams in (SPEC section 4).

`MarkdownTracker` is fed every character outside tool blocks and answers, at a tag
that could open a block, whether that tag sits in code (`Context`). The package is laid
out by rule, as markdown-it-py's `rules_block/` and `rules_inline/` and commonmark.js's
block table are (docs/markdown.md has the table of rules, files and grammar terminals):

    tracker.py      the public API, dispatch between modes, the line-start driver
    state.py        the modes, leaf kinds and every legal move between modes
    syntax.py       what is read from grammars/markdown.lark
    line_start.py   the resumable line-start machine and the table of block starts
    lines.py        the whole-line shortcut, built from the same rules
    copies.py       the tracker's copy of itself (`fork`), which a compiled build can make
    blocks/         container (block quote, list item), fence, indented, html_block,
                    leaf (ATX and setext headings, thematic break, paragraph)
    inlines/        code_span (and escapes), raw_html (and autolinks), links (and
                    definitions), tickets (SPEC 4.3), views, runner, state
"""

from toolparse._markdown.tracker import Context, MarkdownTracker, Resolution

__all__ = ["Context", "MarkdownTracker", "Resolution"]
