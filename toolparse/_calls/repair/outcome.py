"""`RepairOutcome`: what repair decided about one call, and why."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from toolparse._calls.repair.base import (
    MAX_DEPTH, ErrorEntry, Reason, Status, name_list, quote, too_deep_hint,
)

# --- The outcome ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class RepairOutcome:
    """The result of checking and repairing one call's arguments."""

    status: Status
    """`valid` (untouched), `repaired` (rules fired, now valid) or `rejected`."""

    arguments: dict[str, Any] | None
    """The arguments to execute with; None when rejected."""

    text: str | None
    """The JSON text to forward: the original text, byte for byte, when valid; a fresh
    compact serialisation when repaired or when the input was a dict; for a rejected
    call the input as given (the original text, or the dict serialised), None when
    there is none (an unknown tool)."""

    rules: tuple[str, ...] = ()
    """Names of the rules that changed the arguments, in the order they fired."""

    reason: Reason | None = None
    """Stable code when rejected (see `docs/repair.md`), else None."""

    errors: tuple[ErrorEntry, ...] = ()
    """(JSON-pointer path, schema keyword, message) triples; never argument values.
    Path segments the schema does not name are shown as `*`."""

    hint: str | None = None
    """When rejected: one sentence a gateway can send the model, saying what to
    regenerate. Never contains argument values."""

    @classmethod
    def unknown_tool(cls, name: str, available: Iterable[str] = ()) -> RepairOutcome:
        """The outcome for a call to a tool that was not given (SPEC 6)."""
        names = list(dict.fromkeys(available))
        listed = f"; call one of: {name_list(names)}" if names else "; call one of the given tools"
        return cls(status="rejected", arguments=None, text=None, reason="unknown_tool",
                   errors=(("", "name", "no tool of this name was given"),),
                   hint=f"There is no tool named {quote(name)}{listed}.")

    @classmethod
    def not_a_call(cls, text: str | None) -> RepairOutcome:
        """The outcome for a JSON value written where a call goes that is no call (an
        array element without a name: SPEC 5.3 e). Its text is the value as written."""
        return cls(status="rejected", arguments=None, text=text, reason="not_a_call",
                   errors=(("", "not_a_call", "the value is not a call of this format"),),
                   hint="Write each call as one JSON object holding the tool's name and its "
                        "arguments, as the tool-call format says.")

    @classmethod
    def too_deep(cls, name: str, pointers: Iterable[str], text: str | None = None
                 ) -> RepairOutcome:
        """The outcome for a call whose values at `pointers` nest deeper than
        `MAX_DEPTH` levels where the schema wants JSON there (SPEC G10)."""
        return cls(status="rejected", arguments=None, text=text, reason="too_deep",
                   errors=tuple((pointer, "too_deep", f"nested deeper than {MAX_DEPTH} levels")
                                for pointer in pointers),
                   hint=too_deep_hint(name))

    @classmethod
    def invalid_body(cls, text: str, reason: Reason) -> RepairOutcome:
        """The outcome for a JSON invoke body that is not one JSON object, with no
        schema to repair it by (SPEC 3.1): `invalid_json`, `not_object`, or `too_deep`
        (nested deeper than strict JSON reads)."""
        if reason == "too_deep":
            return cls(status="rejected", arguments=None, text=text, reason=reason,
                       errors=(("", reason, f"nested deeper than {MAX_DEPTH} levels"),),
                       hint=f"The arguments text is nested more than {MAX_DEPTH} levels "
                            f"deep; write the arguments as one flatter JSON object.")
        what = ("is not valid JSON" if reason == "invalid_json"
                else "is valid JSON but not an object")
        return cls(status="rejected", arguments=None, text=text, reason=reason,
                   errors=(("", reason, f"the arguments text {what}"),),
                   hint=f"The arguments text {what}; write the arguments as one JSON object.")
