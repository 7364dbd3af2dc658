"""The validator toolparse runs: jsonschema's, with bounded keywords (SPEC G10).

jsonschema is the oracle for validity, but three of its keywords do not keep a model's
value linear, so they are replaced here, written from the JSON Schema specification:

- `pattern`, `patternProperties` and `additionalProperties` (which must know which
  names the patterns cover) match with RE2 (`toolparse._calls.patterns`) instead of
  Python's backtracking `re`. A match that cannot be decided (a name or value that is
  not valid Unicode) fails the keyword: fail closed.
- `uniqueItems` compares canonical forms in a set, not every pair (jsonschema's
  fallback for unhashable items is quadratic: 50,000 `{}` items would take minutes).

Every keyword, jsonschema's and these, also spends one step of a budget per
evaluation. `anyOf`/`oneOf` nested through a recursive schema can otherwise make the
number of evaluations exponential in the value's depth. The budget is a count, not a
clock, so a value always gets the same answer: `steps_for(nodes)` allows
`VALIDATION_BASE_STEPS` plus `VALIDATION_STEPS_PER_VALUE` per JSON value in the
arguments, and a validation that needs more fails closed (`BudgetExceeded`). An
arithmetic error inside a keyword (`multipleOf` of a 400-digit integer by 0.5 overflows
a float) also fails that keyword rather than escaping as an exception.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from toolparse._calls.patterns import pattern_search

if TYPE_CHECKING:
    import jsonschema.protocols

__all__ = ["BudgetExceeded", "VALIDATION_BASE_STEPS", "VALIDATION_STEPS_PER_VALUE",
           "bounded_validator_class", "spending"]

VALIDATION_BASE_STEPS = 20_000
"""Keyword evaluations every validation may spend, whatever the size of the value."""
VALIDATION_STEPS_PER_VALUE = 200
"""Further keyword evaluations allowed per JSON value (object, array, scalar) in the
arguments. Ordinary schemas spend a few per value."""


class BudgetExceeded(Exception):
    """The validation spent its whole budget of keyword evaluations."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self, steps: int) -> None:
        self.left = steps


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "toolparse_validation_budget", default=None)


class spending:
    """`with spending(nodes):` runs a validation under a budget sized for a value of
    `nodes` JSON values; a validator used outside such a block has no budget."""

    __slots__ = ("_steps", "_token")

    def __init__(self, nodes: int) -> None:
        self._steps = VALIDATION_BASE_STEPS + VALIDATION_STEPS_PER_VALUE * nodes
        self._token: contextvars.Token[_Budget | None] | None = None

    def __enter__(self) -> None:
        self._token = _budget.set(_Budget(self._steps))

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _budget.reset(self._token)


Keyword = Callable[[Any, Any, Any, Any], Any]


def _counted(keyword: Keyword) -> Keyword:
    def bounded(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        budget = _budget.get()
        if budget is not None:
            budget.left -= 1
            if budget.left < 0:
                raise BudgetExceeded
        try:
            errors = keyword(validator, value, instance, schema)
            if errors is not None:
                yield from errors
        except ArithmeticError:
            from jsonschema.exceptions import ValidationError

            yield ValidationError("cannot be checked")

    bounded.__name__ = getattr(keyword, "__name__", "keyword")
    return bounded


# --- The replaced keywords (from the specification, 2020-12 section 10 and 6) -----------

def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and isinstance(pattern, str):
        if pattern_search(pattern, instance) is not True:
            from jsonschema.exceptions import ValidationError

            yield ValidationError("does not match the pattern")


def _pattern_properties(validator: Any, patterns: Any, instance: Any,
                        schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            found = pattern_search(pattern, name)
            if found is None:
                from jsonschema.exceptions import ValidationError

                yield ValidationError("a property name cannot be checked", path=[name])
            elif found:
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_names(instance: dict[str, Any], schema: Any) -> tuple[list[str], bool]:
    """The names neither `properties` nor `patternProperties` cover, and whether some
    name could not be decided (then it counts as additional: fail closed)."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    patterns = schema.get("patternProperties", {}) if isinstance(schema, dict) else {}
    extras: list[str] = []
    undecided = False
    for name in instance:
        if name in properties:
            continue
        results = [pattern_search(pattern, name) for pattern in patterns]
        if True in results:
            continue
        undecided = undecided or None in results
        extras.append(name)
    return extras, undecided


def _additional_properties(validator: Any, additional: Any, instance: Any,
                           schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras, _ = _additional_names(instance, schema)
    if validator.is_type(additional, "object"):
        for name in extras:
            yield from validator.descend(instance[name], additional, path=name)
    elif additional is False and extras:
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{len(extras)} properties are not allowed")


def _canonical(value: Any) -> Any:
    """A hashable form equal for JSON-equal values (1 and 1.0 equal, true and 1 not)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        return ("number", int(value) if isinstance(value, float) and value.is_integer()
                else value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("other", id(value))


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if unique is not True or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for item in instance:
        form = _canonical(item)
        if form in seen:
            from jsonschema.exceptions import ValidationError

            yield ValidationError("has repeated items")
            return
        seen.add(form)


_REPLACED: dict[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
}
_classes: dict[type[Any], type[Any]] = {}


def bounded_validator_class(base: type[Any]) -> type[jsonschema.protocols.Validator]:
    """`base` (a jsonschema draft's validator class) with the keywords above and every
    keyword counted against the budget; one class per draft, made once."""
    cls = _classes.get(base)
    if cls is None:
        from jsonschema import validators

        extend: Any = validators.extend   # untyped in jsonschema's stubs
        keywords = {name: _counted(_REPLACED.get(name, function))
                    for name, function in base.VALIDATORS.items()}
        cls = extend(base, validators=keywords)
        _classes[base] = cls
    return cls
