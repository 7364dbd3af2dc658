"""Properties, configuration, secrecy and conformance of the repair module (SPEC 6).

The table of individual calls is `test_repair_cases.py`; this file holds what is better
said as a property (Hypothesis), the API around `repair_tool_call` (config, tool checks,
validator cache, the unknown-tool outcome, logging) and the peer conformance cases.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import CONFORMANCE, conformance_missing

import toolparse
from toolparse import ConfigError, RepairConfig, RepairOutcome, SchemaError, repair_tool_call
from toolparse._calls import repair as _repair
from toolparse._calls.repair import schema as repair_schema
from toolparse._calls.repair import check_tools, validator_for_schema

from test_repair_cases import BASH, EDIT, GREP, READ, SEARCH, WRITE



# --- Hypothesis: valid input is returned as it came ------------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda children: (st.lists(children, max_size=4)
                      | st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=16)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=6)


def exact_schema(value: Any) -> dict[str, Any]:
    """A schema that admits `value` (and little else): types, properties, required."""
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: exact_schema(v) for k, v in value.items()},
                "required": list(value), "additionalProperties": False}
    if isinstance(value, list):
        return {"type": "array"}
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    return {"type": "string"}


serialisations = st.fixed_dictionaries({
    "indent": st.sampled_from([None, 0, 1, 2, "\t"]),
    "separators": st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : "), (",\n", ":\t")]),
    "sort_keys": st.booleans(),
    "ensure_ascii": st.booleans(),
})


@given(value=json_objects, options=serialisations,
       padding=st.sampled_from(["", " ", "\n", "\r\n\t "]))
def test_valid_object_any_serialisation_is_returned_byte_for_byte(
        value: dict[str, Any], options: dict[str, Any], padding: str) -> None:
    text = padding + json.dumps(value, **options) + padding
    outcome = repair_tool_call("tool", text, exact_schema(value))
    assert outcome.status == "valid"
    assert outcome.text is text
    assert outcome.arguments == value
    assert outcome.rules == () and outcome.reason is None


# --- Hypothesis: corrupted calls; repaired always validates, nothing is invented -------

RICH = {"type": "object", "properties": {
    "path": {"type": "string"},
    "count": {"type": "integer", "minimum": 0},
    "ratio": {"type": "number"},
    "force": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "meta": {"type": "object", "properties": {"owner": {"type": "string"},
                                              "level": {"type": "integer"}},
             "additionalProperties": False},
    "note": {"type": ["string", "null"]}},
    "required": ["path"], "additionalProperties": False}
RICH_CONFIG = RepairConfig(aliases={"rich": {"path": ["file_path"]}},
                           grammar_leak_models=("glm",))

short_text = st.text(max_size=10)
rich_values = st.fixed_dictionaries(
    {"path": short_text},
    optional={
        "count": st.integers(min_value=0, max_value=10**6),
        "ratio": st.floats(allow_nan=False, allow_infinity=False, width=32),
        "force": st.booleans(),
        "tags": st.lists(short_text, max_size=3),
        "meta": st.fixed_dictionaries({}, optional={"owner": short_text,
                                                    "level": st.integers(-5, 5)}),
        "note": st.none() | short_text,
    })


@st.composite
def corrupted_calls(draw: st.DrawFn) -> str:
    value: dict[str, Any] = dict(draw(rich_values))
    for change in draw(st.lists(st.sampled_from(
            ["null", "stringify", "alias", "glm_key", "glm_value"]), max_size=3, unique=True)):
        if change == "null":
            value[draw(st.sampled_from(["count", "ratio", "force", "tags", "meta"]))] = None
        elif change == "stringify" and isinstance(value.get("tags"), list):
            value["tags"] = json.dumps(value["tags"])
        elif change == "alias" and "path" in value:
            value["file_path"] = value.pop("path")
        elif change == "glm_key" and "path" in value:
            value["<arg_key>path</arg_key>"] = value.pop("path")
        elif change == "glm_value" and isinstance(value.get("path"), str):
            value["path"] = "<arg_value>" + value["path"] + "</arg_value>"
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(
        st.sampled_from([None, 2])))
    for edit in draw(st.lists(st.sampled_from(
            ["trailing_comma", "comment", "delete", "insert", "truncate", "quote"]),
            max_size=2)):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        if edit == "trailing_comma" and text.rstrip().endswith("}"):
            cut = text.rstrip()
            text = cut[:-1] + ",}"
        elif edit == "comment" and text.startswith("{"):
            text = "{ /* c */" + text[1:]
        elif edit == "delete":
            text = text[:at] + text[at + 1:]
        elif edit == "insert":
            text = text[:at] + draw(st.sampled_from(list("{}[],:\"'\\ /n0"))) + text[at:]
        elif edit == "truncate":
            text = text[:at]
        elif edit == "quote":
            text = text.replace('"', "'")
    return text


def appears_in(text: str, value: Any) -> bool:
    """Whether `value` is written somewhere in `text`, directly or JSON-escaped (once or
    twice, for stringified collections), or with leaked GLM tokens removed around it.
    An oracle independent of the repair code."""
    stripped = text
    for token in ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"):
        stripped = stripped.replace(token, "")
    return any(_written_in(source, value) for source in (text, stripped))


def _written_in(text: str, value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return json.dumps(value) in text
    if isinstance(value, (int, float)):
        return any((int(number) if number.lstrip("-").isdigit() else float(number)) == value
                   for number in re.findall(
            r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text))
    if value == "":
        return any(q in text for q in ('""', "''", '\\"\\"'))
    once = unescaped(text)
    return (any(value in written for written in (text, once, unescaped(once)))
            or any(value in literal for literal in string_literals(text)))


def string_literals(text: str, depth: int = 0) -> list[str]:
    """Every double-quoted JSON string literal in `text`, decoded by `json`, and those
    inside the decoded ones (stringified collections)."""
    found = []
    for literal in re.findall(r'"(?:[^"\\]|\\.)*"', text, re.DOTALL):
        try:
            decoded = json.loads(literal, strict=False)
        except ValueError:
            continue
        found.append(decoded)
        if depth < 2:
            found += string_literals(decoded, depth + 1)
    return found


_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t", "'": "'"}


def unescaped(text: str) -> str:
    """`text` with the escapes JSON (and single quoting) defines decoded, left to right;
    other backslashes stay. Surrogate pairs are joined."""
    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if len(code) == 5 else _JSON_ESCAPES[code]
    decoded = re.sub(r"\\(u[0-9a-fA-F]{4}|[\"\\/bfnrt'])", decode, text)
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def atoms(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [a for k, v in value.items() for a in [k, *atoms(v)]]
    if isinstance(value, list):
        return [a for v in value for a in atoms(v)]
    return [value]


@given(text=corrupted_calls(), model=st.sampled_from([None, "zai/glm-4.6"]))
@example(text='{"path": "a", "tags": "[\\"x\\"]", "count": null,}', model=None)
@example(text='{"file_path": "", "note": null}', model=None)
def test_repaired_always_validates_and_invents_nothing(text: str, model: str | None) -> None:
    outcome = repair_tool_call("rich", text, RICH, model=model, config=RICH_CONFIG)
    if outcome.status == "rejected":
        assert outcome.arguments is None and outcome.reason and outcome.hint
        return
    jsonschema.validate(outcome.arguments, RICH)
    assert json.loads(outcome.text) == outcome.arguments
    canonical_names = {"path"}  # the alias table's canonical name, and GLM-stripped keys
    for atom in atoms(outcome.arguments):
        assert appears_in(text, atom) or atom in canonical_names, atom


@given(text=st.text(alphabet=st.sampled_from(list('{}[],:"\'\\/*ab1 \nnulltrue<>_')),
                    max_size=40))
def test_arbitrary_text_never_raises_and_repaired_validates(text: str) -> None:
    outcome = repair_tool_call("rich", text, RICH, model="glm", config=RICH_CONFIG)
    assert outcome.status in ("valid", "repaired", "rejected")
    if outcome.status != "rejected":
        jsonschema.validate(outcome.arguments, RICH)
        for atom in atoms(outcome.arguments):
            assert appears_in(text, atom) or atom == "path", atom


# --- Fixed sizes and bounds ------------------------------------------------------------

def test_40kb_valid_call_is_returned_byte_for_byte() -> None:
    content = "".join(f"line {i}: \"quoted\" {{braces}} [x] \\ é ✓\n" for i in range(900))
    text = json.dumps({"path": "big.txt", "content": content}, ensure_ascii=False, indent=1)
    assert len(text.encode()) >= 40_000
    outcome = repair_tool_call("write", text, WRITE)
    assert outcome.status == "valid"
    assert outcome.text is text and outcome.text.encode() == text.encode()
    assert outcome.arguments == {"path": "big.txt", "content": content}


def test_deep_nesting_is_refused_without_raising() -> None:
    for text in ('{"a":' * 5000, '{"a":' + "[" * 5000 + "]" * 5000 + "}",
                 '{"a":' + "[" * 5000 + "]" * 5000 + ",}"):
        assert repair_tool_call("t", text, {"type": "object"}).status == "rejected"


def test_large_text_beyond_json_repair_bound() -> None:
    body = "x" * (_repair.MAX_JSON_REPAIR_CHARS + 10)
    lossless = repair_tool_call("write", '{"path": "a", "content": "' + body + '",}', WRITE)
    assert lossless.status == "repaired" and lossless.arguments["content"] == body
    needs_json_repair = repair_tool_call("write", "{'path': 'a', 'content': '" + body + "'}",
                                         WRITE)
    assert (needs_json_repair.status, needs_json_repair.reason) == ("rejected", "invalid_json")


# --- The API around the rules ------------------------------------------------------------

def test_outcome_is_frozen_and_slotted() -> None:
    outcome = repair_tool_call("read", '{"path": "a"}', READ)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.status = "rejected"  # type: ignore[misc]
    assert not hasattr(outcome, "__dict__")


def test_unknown_tool_outcome() -> None:
    outcome = RepairOutcome.unknown_tool("rm_rf", available=["read", "write"])
    assert (outcome.status, outcome.reason, outcome.arguments) == ("rejected", "unknown_tool", None)
    assert "'rm_rf'" in outcome.hint and "'read'" in outcome.hint
    assert RepairOutcome.unknown_tool("x").hint.endswith(".")


def test_dict_input_is_not_mutated() -> None:
    arguments = {"path": "a", "limit": None, "<arg_key>offset": 3}
    before = copy.deepcopy(arguments)
    outcome = repair_tool_call("read", arguments, READ, model="glm",
                               config=RepairConfig(grammar_leak_models=("glm",)))
    assert outcome.status == "repaired" and outcome.arguments == {"path": "a", "offset": 3}
    assert arguments == before


def test_rejected_text_is_the_input() -> None:
    text = '{"path": "a", "limit": "x"}'
    assert repair_tool_call("read", text, READ).text is text
    assert repair_tool_call("read", {"path": 1}, READ).text == '{"path":1}'


def test_schema_none_accepts_any_object() -> None:
    assert repair_tool_call("t", '{"a": 1}', None).status == "valid"
    assert repair_tool_call("t", "[1]", None).status == "rejected"


def test_wrong_argument_types_raise() -> None:
    with pytest.raises(TypeError):
        repair_tool_call("read", 42, READ)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        repair_tool_call("read", "{}", READ, config={"debug": True})  # type: ignore[arg-type]


def test_config_from_mapping_accepts_both_spellings() -> None:
    camel = RepairConfig.from_mapping({
        "grammarLeakModels": ["glm"], "repairJsonSyntax": False, "dropOptionalNulls": False,
        "parseStringifiedCollections": False, "aliases": {"read": {"path": ["file"]}},
        "debug": True})
    snake = RepairConfig.from_mapping({
        "grammar_leak_models": ["glm"], "repair_json_syntax": False,
        "drop_optional_nulls": False, "parse_stringified_collections": False,
        "aliases": {"read": {"path": ["file"]}}, "debug": True})
    assert camel == snake
    assert camel.grammar_leak_models == ("glm",)
    assert camel.aliases["read"]["path"] == ("file",)
    assert RepairConfig.from_mapping({}) == RepairConfig()
    defaults = RepairConfig()
    assert (defaults.repair_json_syntax, defaults.drop_optional_nulls,
            defaults.parse_stringified_collections, defaults.debug) == (True, True, True, False)
    assert hash(defaults) == hash(RepairConfig())


@pytest.mark.parametrize("mapping, named", [
    ({"grammarLeakModel": ["glm"]}, "grammarLeakModel"),
    ({"max_depth": 3}, "max_depth"),
    ({"grammarLeakModels": "glm"}, "grammarLeakModels"),
    ({"grammar_leak_models": [1]}, "grammar_leak_models"),
    ({"repairJsonSyntax": "yes"}, "repairJsonSyntax"),
    ({"drop_optional_nulls": 1}, "drop_optional_nulls"),
    ({"debug": None}, "debug"),
    ({"aliases": ["path"]}, "aliases"),
    ({"aliases": {"read": {"path": "file"}}}, "aliases"),
    ({"aliases": {"read": {"path": ["path"]}}}, "aliases"),
    ({"aliases": {"read": {"path": ["f"], "name": ["f"]}}}, "aliases"),
    ({"aliases": {"read": {"path": ["name"], "name": ["n"]}}}, "aliases"),
    ({"debug": True, "debug ": True}, "debug "),
    ({"repairJsonSyntax": True, "repair_json_syntax": True}, "repair_json_syntax"),
])
def test_config_errors_name_the_key(mapping: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError, match=repr(named)[1:-1].replace("[", r"\[")):
        RepairConfig.from_mapping(mapping)


def test_config_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        RepairConfig(debug="no")  # type: ignore[arg-type]


def test_check_tools_accepts_both_shapes() -> None:
    tools = [
        {"type": "function", "function": {"name": "read", "parameters": READ}},
        {"name": "write", "parameters": WRITE},
        {"type": "function", "function": {"name": "ping"}},
    ]
    schemas = check_tools(tools)
    assert list(schemas) == ["read", "write", "ping"]
    assert schemas["read"] is READ
    assert repair_tool_call("ping", "{}", schemas["ping"]).status == "valid"
    assert repair_tool_call("ping", '{"x": 1}', schemas["ping"]).reason == "unknown_field"


@pytest.mark.parametrize("tools, named", [
    ([{"name": "bad", "parameters": {"type": "objekt"}}], "'bad'"),
    ([{"name": "bad", "parameters": {"type": "object", "required": "path"}}], "'bad'"),
    ([{"name": "bad", "parameters": {"type": "string"}}], "'bad'"),
    ([{"name": "bad", "parameters": ["not", "a", "schema"]}], "'bad'"),
    ([{"name": "bad", "parameters": {"properties": {"a": {"$ref": "#/$defs/nope"}}}}], "'bad'"),
    ([{"name": "dup", "parameters": READ}, {"name": "dup", "parameters": WRITE}], "'dup'"),
    ([{"type": "function", "function": {"parameters": READ}}], "tool #0"),
    ([{"name": "ok", "parameters": READ}, "read"], "tool #1"),
    ([{"type": "retrieval", "function": {"name": "x"}}], "tool #0"),
    ([{"type": "function", "function": "read"}], "tool #0"),
])
def test_check_tools_errors_name_the_tool(tools: Any, named: str) -> None:
    with pytest.raises(SchemaError, match=named):
        check_tools(tools)


def test_invalid_schema_raises_naming_the_tool() -> None:
    with pytest.raises(SchemaError, match="'broken'"):
        repair_tool_call("broken", "{}", {"type": 5})
    with pytest.raises(SchemaError, match="'unjson'"):
        repair_tool_call("unjson", "{}", {"type": "object", "default": {1, 2}})


def test_remote_ref_raises_before_anything_is_validated() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/s"}}}
    with pytest.raises(SchemaError, match=r"'remote'.*/properties/a/\$ref.*outside"):
        repair_tool_call("remote", '{"a": 1}', schema)


def test_validators_are_cached_by_canonical_schema() -> None:
    first = validator_for_schema(READ, "read")
    reordered = dict(reversed(list(copy.deepcopy(READ).items())))
    assert validator_for_schema(reordered, "other_name") is first
    mutable = copy.deepcopy(WRITE)
    cached = validator_for_schema(mutable, "write")
    mutable["required"] = ["nothing"]
    assert cached.schema["required"] == ["path", "content"]


def test_validator_cache_is_bounded() -> None:
    for i in range(_repair.VALIDATOR_CACHE_SIZE + 20):
        validator_for_schema({"type": "object", "maxProperties": i}, "t")
    assert len(repair_schema._validators) <= _repair.VALIDATOR_CACHE_SIZE


def test_declared_draft_is_used() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"a": {"type": "integer"}}}
    # The validator classes are jsonschema's drafts with toolparse's bounded keywords.
    assert (validator_for_schema(draft7, "t").META_SCHEMA
            == jsonschema.Draft7Validator.META_SCHEMA)
    assert (validator_for_schema(READ, "t").META_SCHEMA
            == jsonschema.Draft202012Validator.META_SCHEMA)
    # Draft 7 ignores the siblings of $ref; 2020-12 applies them.
    siblings = {"$defs": {"n": {"type": "integer"}}, "type": "object",
                "properties": {"a": {"$ref": "#/$defs/n", "minimum": 5}}}
    assert repair_tool_call("t", '{"a": 1}', siblings).reason == "schema"


# --- Secrets never reach logs, hints or errors -------------------------------------------

SECRET = "sk-live-S3CR3T-7f9a"
GLM_ROUTE = RepairConfig(grammar_leak_models=("glm",), debug=True,
                         aliases={"read": {"path": ["file_path"]}})
MAP_SCHEMA = {"type": "object", "properties": {
    "env": {"type": "object", "additionalProperties": {"type": "string"}},
    "mode": {"type": "string", "enum": ["a", "b"]},
    "code": {"type": "string", "pattern": "^[0-9]+$"},
    "pin": {"const": "0000"}},
    "additionalProperties": False}
SECRET_CALLS: list[tuple[str, Any, dict[str, Any], str | None]] = [
    # (tool, arguments, schema, model); every status, rule and reason
    ("read", json.dumps({"path": SECRET}), READ, None),
    ("read", '{"path": "' + SECRET + '",}', READ, None),
    ("read", "{'path': '" + SECRET + "'}", READ, None),
    ("bash", f"<arg_key>command</arg_key><arg_value>{SECRET}</arg_value>", BASH, "glm"),
    ("bash", json.dumps({"<arg_key>command</arg_key>": f"<arg_value>{SECRET}</arg_value>"}),
     BASH, "glm"),
    ("read", json.dumps({"file_path": SECRET, "limit": None}), READ, None),
    ("grep", json.dumps({"pattern": SECRET, "include": json.dumps([SECRET])}), GREP, None),
    ("read", '{"path": "' + SECRET, READ, None),
    ("read", '{"path": "' + SECRET + '"} ' + SECRET, READ, None),
    ("read", json.dumps({"path": SECRET})[:-1] + ', "path": "' + SECRET + '"}', READ, None),
    ("read", json.dumps({"limit": 1, "note": SECRET}), READ, None),
    ("read", json.dumps({"path": "a", SECRET: SECRET}), READ, None),
    ("read", json.dumps({"path": SECRET, "file_path": SECRET}), READ, None),
    ("bash", json.dumps({f"<arg_key>{SECRET}": SECRET}), BASH, None),
    ("write", json.dumps({"path": "a", "content": SECRET, "<arg_key>content": SECRET}),
     WRITE, "glm"),
    ("read", json.dumps({"path": "a", "limit": SECRET}), READ, None),
    ("web_search", json.dumps({"query": SECRET, "region": SECRET}), SEARCH, None),
    ("edit", json.dumps({"path": "a", "edits": [{SECRET: SECRET}]}), EDIT, None),
    ("map", json.dumps({"env": {SECRET: 5}, "mode": SECRET, "code": SECRET, "pin": SECRET}),
     MAP_SCHEMA, None),
    ("map", {"env": {SECRET: 5}, "mode": SECRET}, MAP_SCHEMA, None),
    ("read", '{"path": "' + SECRET + '", "limit": NaN}', READ, None),
    ("read", '{"path": , "x": "' + SECRET + '"}', READ, None),
    ("read", json.dumps(json.dumps({"path": SECRET})), READ, None),
]


def test_secrets_stay_out_of_logs_hints_and_errors(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolparse.repair")
    seen = set()
    for tool, arguments, schema, model in SECRET_CALLS:
        outcome = repair_tool_call(tool, arguments, schema, model=model, config=GLM_ROUTE)
        seen.add(outcome.status)
        seen.update(outcome.rules)
        if outcome.reason:
            seen.add(outcome.reason)
        assert SECRET not in (outcome.hint or "")
        assert SECRET not in repr(outcome.errors)
    assert SECRET not in caplog.text
    assert len([r for r in caplog.records if "status=" in r.getMessage()]) == len(SECRET_CALLS)
    assert seen >= {"valid", "repaired", "rejected", *_repair.RULE_NAMES, "truncated",
                    "invalid_json", "duplicate_key", "missing_required", "unknown_field",
                    "alias_conflict", "grammar_leak", "schema"}


def test_log_record_names_tool_route_status_rules_reason_paths_and_sizes(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolparse.repair")
    text = '{"path": "a", "limit": "x", "offset": null}'
    repair_tool_call("read", text, READ, model="deepseek/deepseek-chat")
    message = caplog.records[-1].getMessage()
    for part in ("tool='read'", "model=deepseek/deepseek-chat", "status=rejected",
                 "rules=drop_optional_nulls", "reason=schema", "paths=/limit",
                 f"in={len(text)}"):
        assert part in message


def test_no_log_records_when_debug_logging_is_off(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="toolparse.repair")
    repair_tool_call("read", '{"path": "a",}', READ, config=RepairConfig(debug=True))
    assert not caplog.records


def test_error_paths_name_only_declared_properties() -> None:
    outcome = repair_tool_call("map", {"env": {"SECRET_NAME": 5}}, MAP_SCHEMA)
    assert outcome.errors == (("/env/*", "type", "must be string"),)
    nested = repair_tool_call("edit", '{"path": "a", "edits": [{"oldText": 1, "newText": "b"}]}',
                              EDIT)
    assert nested.errors == (("/edits/0/oldText", "type", "must be string"),)
    missing = repair_tool_call("write", '{"path": "a"}', WRITE)
    assert missing.errors == (("/content", "required", "missing required property 'content'"),)
    assert missing.hint == ("The call to 'write' lacks the required argument 'content'; call it "
                            "again with it filled in.")


# --- Peer conformance (the maintainers' repair_peer.jsonl) --------------------------------

CAMEL_RULES = {"repairJsonSyntax": "repair_json_syntax", "decodeGlmPairs": "decode_glm_pairs",
               "stripGrammarLeaks": "strip_grammar_leaks", "renameAliases": "rename_aliases",
               "dropOptionalNulls": "drop_optional_nulls",
               "parseStringifiedCollections": "parse_stringified_collections"}


def peer_cases() -> list[Any]:
    path = CONFORMANCE / "repair_peer.jsonl"
    missing = conformance_missing("repair_peer.jsonl")
    if missing is not None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=missing))]
    with open(path, encoding="utf-8") as lines:
        cases = [json.loads(line) for line in lines if line.strip()]
    assert cases, f"no cases in {path}"
    return [pytest.param(case, id=case["id"]) for case in cases]


@pytest.mark.parametrize("case", peer_cases())
def test_peer_conformance(case: dict[str, Any]) -> None:
    # The rule of check.py's check_repair: status, and arguments unless rejected.
    config = toolparse.RepairConfig.from_mapping(case["config"]) if case["config"] else None
    outcome = toolparse.repair_tool_call(case["tool"], case["arguments"], case["schema"],
                                         model=case["model"], config=config)
    assert outcome.status == case["expected_status"]
    if case["expected_status"] != "rejected":
        assert json.loads(json.dumps(outcome.arguments)) == case["expected_arguments"]
    assert outcome.rules == tuple(CAMEL_RULES[r] for r in case["rules"])
