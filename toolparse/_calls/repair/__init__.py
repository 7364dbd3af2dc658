"""Schema-guided argument repair (SPEC section 6).

Theory of operation
-------------------
A call's arguments arrive as JSON text (OpenAI's `function.arguments`) or as a dict the
XML parser built. `repair_tool_call` runs the rules of SPEC 6 in their fixed order and
stops at the first point where the arguments validate against the tool's schema:

1. `strict_parse`: JSON with duplicate keys or NaN/Infinity is not JSON. A parsed object
   that validates is `valid`, and the original text is returned byte for byte.
2. Only when the text does not parse: `decode_glm_pairs` (configured model routes) or
   `repair_json_syntax` (balanced text only; lossless fixes, then json-repair, then a
   check that every key and value token of the input survived, in order, in place).
3. Only when the result is still invalid: `strip_grammar_leaks` (configured routes),
   `rename_aliases`, `drop_optional_nulls`, `parse_stringified_collections`.
4. Re-validation: `repaired`, else `rejected` with a stable reason, error paths and a
   one-sentence hint for the model.

Each rule is one function below whose docstring states its precondition. A rule that
cannot act without guessing raises `_Reject`: nothing is invented, no field is dropped
unless the schema says it may be absent, no name is matched loosely, no key conflict is
settled by picking a winner, no text around the root is discarded.

Nothing here ever puts an argument value into an error, a hint or a log record: error
paths name only properties the schema declares (other segments are `*`), and messages
are built from the schema, never from the instance.

Bounds: every rule is linear in the size of the arguments (one regex tokenisation, one
schema walk), except json-repair, which only sees text up to `MAX_JSON_REPAIR_CHARS`.
Nesting deeper than `MAX_DEPTH` is refused (`too_deep`) rather than recursed into;
validation matches patterns with RE2 and spends from a budget of keyword evaluations
(`keywords`); at most `MAX_ERRORS` errors are reported; the validator cache holds
`VALIDATOR_CACHE_SIZE` schemas (the least recently used goes first). Schemas are checked
for safety once, when they are first seen (`safety`: no reference leaves the definition,
nothing is fetched, no cycle, no pattern RE2 cannot run).
"""

from toolparse._calls.repair.base import (
    MAX_DEPTH, MAX_ERRORS, MAX_JSON_REPAIR_CHARS, RULE_NAMES, VALIDATOR_CACHE_SIZE,
)
from toolparse._calls.repair.config import RepairConfig
from toolparse._calls.repair.outcome import RepairOutcome
from toolparse._calls.repair.run import repair_tool_call
from toolparse._calls.repair.schema import check_tools, validator_for_schema

__all__ = ["MAX_DEPTH", "MAX_ERRORS", "MAX_JSON_REPAIR_CHARS", "RULE_NAMES", "RepairConfig",
           "RepairOutcome", "VALIDATOR_CACHE_SIZE", "check_tools", "repair_tool_call",
           "validator_for_schema"]
