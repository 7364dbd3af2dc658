"""`typing=attribute`: values are text, typed as SPEC 3 reads them (the deepseek family).

Without tools a value's text is read: `string="true"` keeps the text, `string="false"`
makes it the JSON value it spells, and otherwise a JSON number, `true`, `false`,
`null`, array or object is that value and anything else the text
(`_calls/values.py`). DSML's `string=` attribute is read from the parameter's opening
tag (`build.py`). A value streams only when `string="true"` says it is a string. With
tools the schema types it (SPEC 6). How the text reads is the header's `value_edges=`.
"""

from __future__ import annotations

from typing import Final

from toolparse._dialect.syntaxes.base import TYPING, ValueSyntax

__all__ = ["ATTRIBUTE"]

ATTRIBUTE: Final = ValueSyntax("attribute", TYPING, guesses=True)
