"""What the grammar files compile to, shared by every stage that reads them.

- `files`: where the bundled grammar files are, and the on-disk cache of what is slow to
  compute from them.
- `regexp`: what a terminal's regular expression can start with, and the `regex`
  module's partial matcher.
- `dfa`: deterministic automata built from terminals, stepped over text as it arrives.

Nothing here knows a tag, a dialect or a Markdown rule: it only reads patterns.
"""
