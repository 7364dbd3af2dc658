"""`export_grammar`: a dialect's grammar for a constrained-decoding engine (SPEC 12).

One module per target; each reads the grammar's compiled records and roles and the
tools' schemas, and spells no syntax of its own (docs/export.md):

- `llguidance`: llguidance's Lark format, with `%json` for JSON values.
- `structural_tag`: the same grammar as an xgrammar structural tag (what vLLM's tool
  parsers hand to xgrammar), written as JSON.
- `regex`: a grammar file's patterns rewritten for the target's regex flavour.
- `schema`: tool schemas made safe to generate from (no closing tag in a value).

No I/O (SPEC G9): the result is a string, for the caller to hand to its engine.
"""

from __future__ import annotations

import json
from typing import Any

from toolparse._dialect import Dialect
from toolparse._dialect.loader import resolve_dialect
from toolparse._errors import ConfigTypeError, ExportError
from toolparse._export import llguidance, regex, structural_tag

__all__ = ["MODES", "TARGETS", "export_grammar"]

TARGETS = ("llguidance", "structural_tag")
"""The engines a grammar can be exported for, the first the default."""
MODES = ("auto", "required")


def export_grammar(dialect: str | Dialect, tools: Any, *, target: str = "llguidance",
                   mode: str = "auto") -> str:
    """The grammar that makes a model write `dialect`'s tool calls to `tools` (SPEC 12).

    Args:
        dialect: A bundled dialect's name or a `Dialect` (`Dialect.from_file`); not
            `"auto"`, which is several formats.
        tools: Tool definitions, as `tools=` takes them (OpenAI-style dicts, `{"name",
            "parameters"}` dicts, or openai SDK objects).
        target: `"llguidance"`: llguidance's Lark format (`%json` embeds each schema);
            `"structural_tag"`: the same grammar as an xgrammar structural tag, a JSON
            text (`{"type": "structural_tag", "format": ...}`: docs/export.md).
        mode: `"required"`: the output is one block of one or more calls; `"auto"`:
            free text that holds no block opener, then any number of blocks.

    Returns:
        The grammar's text. Whatever it lets a model write, toolparse reads back as
        calls with status `valid` (in `auto`, outside Markdown code: docs/export.md).

    Raises:
        ExportError: an unknown target or mode, `"auto"`, or what the target cannot
            express without a looser grammar (the message names the dialect and the
            construct, or the tool and the JSON pointer).
        SchemaError, ConfigTypeError: malformed tools, as for `tools=`.
    """
    if not isinstance(target, str) or target not in TARGETS:
        raise ExportError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    if not isinstance(mode, str) or mode not in MODES:
        raise ExportError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if tools is None:
        raise ConfigTypeError("export_grammar needs the tools the calls may name")
    found = resolve_dialect(dialect)
    grammars = found._grammars
    if len(grammars) != 1:
        raise ExportError(f"dialect {found.name!r} reads several formats; export one "
                          "of them by name")
    from toolparse._calls.repair.schema import check_tools  # jsonschema: on first use

    schemas = check_tools(tools)
    if not schemas:
        raise ExportError("no tools to export: a grammar of calls needs at least one tool")
    try:
        if target == "structural_tag":
            return json.dumps(structural_tag.write(grammars[0], schemas, mode),
                              ensure_ascii=True)
        return llguidance.write(grammars[0], schemas, mode)
    except regex.Unsupported as error:   # (a construct of the grammar the target lacks)
        raise ExportError(f"dialect {found.name!r}: {error}") from error
