"""Where Markdown code is, decided while the text streams in (SPEC section 4).

`MarkdownTracker` is fed every character outside tool blocks and answers, at a tag
that could open a block, whether that tag sits in code (`Context`).
"""

from toolparse._markdown.tracker import Context, MarkdownTracker, Resolution

__all__ = ["Context", "MarkdownTracker", "Resolution"]
