"""Table-driven cases for `repair_tool_call` (SPEC section 6).

Every row is one call: tool, raw arguments (JSON text, or a dict as the XML parser
builds it), model route, config, and the expected status, arguments, rules and reason.
jsonschema is the oracle for validity: whatever comes out `valid` or `repaired` must
validate, and a `valid` text input must come back byte for byte.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest

from toolparse import RepairConfig, repair_tool_call

READ = {"type": "object", "properties": {
    "path": {"type": "string"}, "offset": {"type": "integer", "minimum": 1},
    "limit": {"type": "integer", "minimum": 1}},
    "required": ["path"], "additionalProperties": False}
WRITE = {"type": "object", "properties": {
    "path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"], "additionalProperties": False}
BASH = {"type": "object", "properties": {
    "command": {"type": "string"}, "timeout": {"type": "number", "exclusiveMinimum": 0},
    "description": {"type": "string"}},
    "required": ["command"], "additionalProperties": False}
GREP = {"type": "object", "properties": {
    "pattern": {"type": "string"}, "path": {"type": "string"},
    "include": {"type": "array", "items": {"type": "string"}},
    "ignoreCase": {"type": "boolean"}},
    "required": ["pattern"], "additionalProperties": False}
EDIT = {"type": "object", "properties": {
    "path": {"type": "string"},
    "edits": {"type": "array", "minItems": 1, "items": {
        "type": "object", "properties": {
            "oldText": {"type": "string"}, "newText": {"type": "string"},
            "replaceAll": {"type": "boolean"}},
        "required": ["oldText", "newText"], "additionalProperties": False}}},
    "required": ["path", "edits"], "additionalProperties": False}
SEARCH = {"type": "object", "properties": {
    "query": {"type": "string", "minLength": 1},
    "site": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "max_results": {"type": ["integer", "null"], "minimum": 1},
    "region": {"type": "string", "enum": ["us", "eu", "asia"]}},
    "required": ["query"], "additionalProperties": False}
CONFIGURE = {"type": "object", "properties": {
    "name": {"type": "string"},
    "settings": {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "level": {"type": "integer"}}, "additionalProperties": False},
    "mode": {"type": ["array", "string"], "items": {"type": "string"}}},
    "required": ["name"], "additionalProperties": False}
OPEN = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
NOARGS = {"type": "object", "properties": {}, "additionalProperties": False}
REFS = {"type": "object", "$defs": {
    "paths": {"type": "array", "items": {"type": "string"}},
    "count": {"type": "integer", "minimum": 0}},
    "properties": {"files": {"$ref": "#/$defs/paths"}, "count": {"$ref": "#/$defs/count"}},
    "required": ["files"], "additionalProperties": False}

SCHEMAS = {"read": READ, "write": WRITE, "bash": BASH, "grep": GREP, "edit": EDIT,
           "web_search": SEARCH, "configure": CONFIGURE, "open": OPEN, "ping": NOARGS,
           "refs": REFS}

GLM = "zai/glm-4.6"
GLM_CONFIG = {"grammar_leak_models": ["glm"]}
READ_ALIASES = {"aliases": {"read": {"path": ["file_path", "filePath", "target_file"]}}}


@dataclass(frozen=True)
class Case:
    id: str
    tool: str
    arguments: str | dict[str, Any]
    status: str
    expected: dict[str, Any] | None = None
    rules: tuple[str, ...] = ()
    reason: str | None = None
    model: str | None = "deepseek/deepseek-chat"
    config: dict[str, Any] = field(default_factory=dict)


def ok(id: str, tool: str, arguments: str | dict[str, Any], **kw: Any) -> Case:
    expected = json.loads(arguments) if isinstance(arguments, str) else arguments
    return Case(id, tool, arguments, "valid", expected, **kw)


def fixed(id: str, tool: str, arguments: str | dict[str, Any], expected: dict[str, Any],
          *rules: str, **kw: Any) -> Case:
    return Case(id, tool, arguments, "repaired", expected, tuple(rules), **kw)


def refused(id: str, tool: str, arguments: str | dict[str, Any], reason: str,
            *rules: str, **kw: Any) -> Case:
    return Case(id, tool, arguments, "rejected", None, tuple(rules), reason, **kw)


SYNTAX = "repair_json_syntax"
PAIRS = "decode_glm_pairs"
STRIP = "strip_grammar_leaks"
ALIAS = "rename_aliases"
NULLS = "drop_optional_nulls"
STRINGIFIED = "parse_stringified_collections"

CASES = [
    # --- 1. strict parse: valid input passes untouched --------------------------------
    ok("valid-simple", "read", '{"path": "a.txt"}'),
    ok("valid-pretty", "read", '{\n  "path": "a.txt",\n  "limit": 5\n}\n'),
    ok("valid-unicode-escape", "write", '{"path": "\\u00e9.txt", "content": "\\ud83d\\ude00"}'),
    ok("valid-brackets-inside-strings", "write",
       '{"path": "x}", "content": "if (a) { b[0] = \\"]\\"; } // not a comment"}'),
    ok("valid-json-looking-string-field", "write",
       '{"path": "s.json", "content": "{\\"lookback\\": 14}"}'),
    ok("valid-nullable-optional-null-kept", "web_search",
       '{"query": "rust", "site": null, "max_results": null}'),
    ok("valid-glm-route-leaky-value-kept", "bash",
       '{"command": "<arg_value>git status</arg_value>"}', model=GLM, config=GLM_CONFIG),
    ok("valid-no-arguments", "ping", "{}"),
    ok("valid-call-with-alias-untouched", "open", '{"path": "a", "file_path": "b"}',
       config={"aliases": {"open": {"path": ["file_path"]}}}),
    ok("valid-anchors-kept", "grep", '{"pattern": "^def main$", "path": "src"}'),
    ok("valid-dict-input", "read", {"path": "a.txt", "limit": 3}),
    ok("valid-ref-schema", "refs", '{"files": ["a", "b"], "count": 2}'),

    # --- duplicate keys and NaN are errors --------------------------------------------
    refused("duplicate-key", "read", '{"path": "a", "path": "b"}', "duplicate_key"),
    refused("duplicate-key-identical", "read", '{"path": "a", "path": "a"}', "duplicate_key"),
    refused("duplicate-key-nested", "edit",
            '{"path": "a", "edits": [{"oldText": "x", "oldText": "y", "newText": "z"}]}',
            "duplicate_key"),
    refused("duplicate-key-needing-syntax-repair", "read", '{"path": "a", "path": "b",}',
            "duplicate_key"),
    refused("duplicate-key-single-quotes", "read", "{'path': 'a', 'path': 'b'}",
            "duplicate_key"),
    refused("nan", "read", '{"path": "a", "offset": NaN}', "invalid_json"),
    refused("infinity", "read", '{"path": "a", "offset": Infinity}', "invalid_json"),
    refused("minus-infinity", "read", '{"path": "a", "offset": -Infinity}', "invalid_json"),

    # --- 2. JSON syntax repair: lossless fixes ----------------------------------------
    fixed("trailing-comma-object", "read", '{"path": "a.txt",}', {"path": "a.txt"}, SYNTAX),
    fixed("trailing-comma-array", "grep", '{"pattern": "x", "include": ["*.py",]}',
          {"pattern": "x", "include": ["*.py"]}, SYNTAX),
    fixed("trailing-commas-nested", "edit",
          '{"path": "a", "edits": [{"oldText": "x", "newText": "y",},],}',
          {"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}, SYNTAX),
    fixed("trailing-comma-with-comma-brace-in-string", "write",
          '{"path": "a", "content": "x,}",\n}', {"path": "a", "content": "x,}"}, SYNTAX),
    fixed("escaped-quotes-then-trailing-comma", "write",
          '{"content": "result = call(\\"api\\", {\\"key\\": 1})", "path": "client.py",}',
          {"content": 'result = call("api", {"key": 1})', "path": "client.py"}, SYNTAX),
    fixed("line-comment", "read", '{\n  "path": "a.txt" // the file\n}', {"path": "a.txt"},
          SYNTAX),
    fixed("block-comment", "read", '{"path": "a.txt", /* 1-based */ "offset": 3}',
          {"path": "a.txt", "offset": 3}, SYNTAX),
    fixed("comment-markers-inside-string", "write",
          '{"path": "http://x/*y*/", "content": "// kept",}',
          {"path": "http://x/*y*/", "content": "// kept"}, SYNTAX),
    fixed("raw-newline-in-string", "write", '{"path": "a", "content": "line 1\nline 2"}',
          {"path": "a", "content": "line 1\nline 2"}, SYNTAX),
    fixed("brackets-inside-strings-trailing-comma", "write",
          '{"path": "[{", "content": "]}",}', {"path": "[{", "content": "]}"}, SYNTAX),
    # --- json-repair, behind the token check ------------------------------------------
    fixed("single-quotes", "read", "{'path': 'a.txt', 'limit': 2}",
          {"path": "a.txt", "limit": 2}, SYNTAX),
    fixed("single-quotes-holding-double", "write", "{'path': 'a', 'content': 'say \"hi\"'}",
          {"path": "a", "content": 'say "hi"'}, SYNTAX),
    fixed("single-quotes-escaped-apostrophe", "write", "{'path': 'a', 'content': 'it\\'s'}",
          {"path": "a", "content": "it's"}, SYNTAX),
    fixed("missing-comma", "read", '{"path": "a" "limit": 2}', {"path": "a", "limit": 2},
          SYNTAX),
    fixed("unquoted-keys", "read", '{path: "a.txt", limit: 2}', {"path": "a.txt", "limit": 2},
          SYNTAX),
    fixed("invalid-escape-windows-path", "read", '{"path": "C:\\Users\\me.txt"}',
          {"path": "C:\\Users\\me.txt"}, SYNTAX),
    fixed("syntax-then-nulls", "read", '{"path": "a", "limit": null,}', {"path": "a"},
          SYNTAX, NULLS),
    refused("syntax-repaired-still-invalid", "read", '{"path": 5,}', "schema", SYNTAX),
    refused("syntax-repair-disabled", "read", '{"path": "a.txt",}', "invalid_json",
            config={"repair_json_syntax": False}),
    # --- refusals: not balanced --------------------------------------------------------
    refused("truncated-string", "read", '{"path": "a.t', "truncated"),
    refused("truncated-object", "read", '{"path": "a.txt", "limit": 5', "truncated"),
    refused("truncated-array", "grep", '{"pattern": "x", "include": ["a", "b"', "truncated"),
    refused("truncated-string-braces-look-balanced", "write",
            '{"content": "} {", "path": "x}', "truncated"),
    refused("truncated-after-escaped-quote", "read", '{"path": "a\\"}', "truncated"),
    refused("truncated-block-comment", "read", '{"path": "a" /* note }', "truncated"),
    refused("truncated-after-colon", "read", '{"path":', "truncated"),
    refused("mismatched-closer", "edit",
            '{"path": "ci.yml", "edits": [{"oldText": "old", "newText": "new"}}]}',
            "invalid_json"),
    refused("extra-closer", "read", '{"path": "a"}}', "invalid_json"),
    refused("text-before-root", "read", 'Here you go: {"path": "a"}', "invalid_json"),
    refused("text-after-root", "read", '{"path": "a"} Done.', "invalid_json"),
    refused("markdown-fence-around-root", "read", '```json\n{"path": "a"}\n```',
            "invalid_json"),
    refused("two-concatenated-identical", "bash", '{"command": "ls"}{"command": "ls"}',
            "invalid_json"),
    refused("two-concatenated-different", "bash", '{"command": "ls"}\n{"command": "pwd"}',
            "invalid_json"),
    refused("empty-text", "ping", "", "invalid_json"),
    refused("whitespace-text", "ping", "  \n", "invalid_json"),
    # --- refusals: json-repair would change a token -------------------------------------
    refused("empty-value-invented", "read", '{"path": , "limit": 1}', "invalid_json"),
    refused("missing-value-at-end", "read", '{"path": }', "invalid_json"),
    refused("dangling-key", "read", '{"path": "a", "limit"}', "invalid_json"),
    refused("two-values-one-key", "read", '{"path": "a", "limit": 1 2}', "invalid_json"),
    refused("adjacent-strings", "read", '{"path": "a" "b"}', "invalid_json"),
    refused("python-literal", "grep", '{"pattern": "x", "ignoreCase": True}', "invalid_json"),
    refused("leading-zero", "read", '{"path": "a", "limit": 05}', "invalid_json"),
    refused("hex-escape-decoded-by-json-repair", "read", '{"path": "\\x41",}', "invalid_json"),
    refused("apostrophe-in-single-quoted", "write", "{'path': 'a', 'content': 'it's'}",
            "truncated"),
    # --- non-object roots ----------------------------------------------------------------
    refused("root-string", "read", '"/etc/passwd"', "schema"),
    refused("root-array", "read", '[{"path": "a"}]', "schema"),
    refused("root-number", "read", "42", "schema"),
    fixed("root-double-encoded-object", "read", '"{\\"path\\": \\"a.txt\\"}"',
          {"path": "a.txt"}, STRINGIFIED),

    # --- 2. GLM key/value pairs (configured routes only) ------------------------------
    fixed("glm-pairs-single", "bash", "<arg_key>command</arg_key>\n<arg_value>ls -la /srv"
          "</arg_value>", {"command": "ls -la /srv"}, PAIRS, model=GLM, config=GLM_CONFIG),
    fixed("glm-pairs-typed-by-schema", "bash",
          "<arg_key>command</arg_key><arg_value>sleep 1</arg_value>\n"
          "<arg_key>timeout</arg_key><arg_value>30</arg_value>\n",
          {"command": "sleep 1", "timeout": 30}, PAIRS, model=GLM, config=GLM_CONFIG),
    fixed("glm-pairs-string-property-keeps-digits", "write",
          "<arg_key>path</arg_key><arg_value>123</arg_value>"
          "<arg_key>content</arg_key><arg_value>line\n</arg_value>",
          {"path": "123", "content": "line\n"}, PAIRS, model=GLM, config=GLM_CONFIG),
    fixed("glm-pairs-array-value", "grep",
          '<arg_key>pattern</arg_key><arg_value>x</arg_value>'
          '<arg_key>include</arg_key><arg_value>["*.rs", "*.toml"]</arg_value>',
          {"pattern": "x", "include": ["*.rs", "*.toml"]}, PAIRS, model=GLM, config=GLM_CONFIG),
    refused("glm-pairs-truncated-value", "bash",
            "<arg_key>command</arg_key><arg_value>ls -", "truncated", model=GLM,
            config=GLM_CONFIG),
    refused("glm-pairs-truncated-inside-token", "bash",
            "<arg_key>command</arg_key>\n<arg_val", "truncated", model=GLM, config=GLM_CONFIG),
    refused("glm-pairs-non-glm-route", "bash",
            "<arg_key>command</arg_key><arg_value>ls</arg_value>", "grammar_leak",
            config=GLM_CONFIG),
    refused("glm-pairs-duplicate-key", "bash",
            "<arg_key>command</arg_key><arg_value>ls</arg_value>"
            "<arg_key>command</arg_key><arg_value>pwd</arg_value>", "duplicate_key",
            model=GLM, config=GLM_CONFIG),
    refused("glm-pairs-text-after", "bash",
            "<arg_key>command</arg_key><arg_value>ls</arg_value> thanks", "grammar_leak",
            model=GLM, config=GLM_CONFIG),
    refused("glm-pairs-missing-required", "bash",
            "<arg_key>timeout</arg_key><arg_value>5</arg_value>", "missing_required", PAIRS,
            model=GLM, config=GLM_CONFIG),

    # --- 3. GLM boundary tokens (configured routes only) ------------------------------
    fixed("glm-key-leak-both-tokens", "bash", '{"<arg_key>command</arg_key>": "git log"}',
          {"command": "git log"}, STRIP, model=GLM, config=GLM_CONFIG),
    fixed("glm-key-leak-open-only", "bash", '{"<arg_key>command": "ls"}', {"command": "ls"},
          STRIP, model=GLM, config=GLM_CONFIG),
    fixed("glm-key-leak-close-only", "bash", '{"command</arg_key>": "ls"}', {"command": "ls"},
          STRIP, model=GLM, config=GLM_CONFIG),
    fixed("glm-value-leak-keeps-trailing-newline", "write",
          '{"path": "n.txt", "<arg_key>content</arg_key>": "<arg_value>fixed\\n</arg_value>"}',
          {"path": "n.txt", "content": "fixed\n"}, STRIP, model="openrouter/z-ai/glm-4.7",
          config=GLM_CONFIG),
    fixed("glm-value-leak-keeps-space-next-to-token", "bash",
          '{"<arg_key>command</arg_key>": "<arg_value> ls"}', {"command": " ls"}, STRIP,
          model=GLM, config=GLM_CONFIG),
    fixed("glm-route-case-insensitive", "bash", '{"<arg_key>command</arg_key>": "ls"}',
          {"command": "ls"}, STRIP, model="ZAI/GLM-4.6", config={"grammar_leak_models": ["GlM"]}),
    fixed("glm-token-middle-of-value-untouched", "bash",
          '{"<arg_key>command</arg_key>": "echo <arg_value> done"}',
          {"command": "echo <arg_value> done"}, STRIP, model=GLM, config=GLM_CONFIG),
    fixed("glm-value-with-token-left-inside-untouched", "bash",
          '{"<arg_key>command</arg_key>": "<arg_value>a</arg_value>b</arg_value>"}',
          {"command": "<arg_value>a</arg_value>b</arg_value>"}, STRIP, model=GLM,
          config=GLM_CONFIG),
    refused("glm-token-middle-of-key", "bash", '{"com<arg_key>mand": "ls"}', "grammar_leak",
            model=GLM, config=GLM_CONFIG),
    refused("glm-key-swallowed-value", "bash", '{"command</arg_key><arg_value>ls": ""}',
            "grammar_leak", model=GLM, config=GLM_CONFIG),
    refused("glm-tokens-non-glm-route", "bash", '{"<arg_key>command</arg_key>": "ls"}',
            "grammar_leak", config=GLM_CONFIG),
    refused("glm-tokens-no-config", "bash", '{"<arg_key>command</arg_key>": "ls"}',
            "grammar_leak", model=GLM),
    refused("glm-strip-collision", "write",
            '{"path": "n.txt", "content": "clean\\n", "<arg_key>content": "leaked\\n"}',
            "grammar_leak", model=GLM, config=GLM_CONFIG),
    fixed("glm-dict-input", "bash", {"<arg_key>command</arg_key>": "ls"}, {"command": "ls"},
          STRIP, model=GLM, config=GLM_CONFIG),

    # --- 3. explicit per-tool aliases --------------------------------------------------
    fixed("alias-file-path", "read", '{"file_path": "src/index.ts", "limit": 25}',
          {"path": "src/index.ts", "limit": 25}, ALIAS, config=READ_ALIASES),
    fixed("alias-and-null", "read", '{"filePath": "go.mod", "offset": null, "limit": null}',
          {"path": "go.mod"}, ALIAS, NULLS, config=READ_ALIASES),
    fixed("alias-two-canonicals", "write",
          '{"file": "a.go", "text": "package a"}', {"path": "a.go", "content": "package a"},
          ALIAS, config={"aliases": {"write": {"path": ["file"], "content": ["text"]}}}),
    fixed("alias-keeps-key-order", "read", '{"limit": 2, "target_file": "a"}',
          {"limit": 2, "path": "a"}, ALIAS, config=READ_ALIASES),
    refused("alias-collides-with-canonical", "read", '{"path": "a", "file_path": "b"}',
            "alias_conflict", config=READ_ALIASES),
    refused("alias-canonical-null", "read", '{"path": null, "file_path": "/alias"}',
            "alias_conflict", config=READ_ALIASES),
    refused("two-aliases-at-once", "read", '{"file_path": "a", "filePath": "a"}',
            "alias_conflict", config=READ_ALIASES),
    refused("alias-case-differs", "read", '{"File_Path": "a"}', "missing_required",
            config=READ_ALIASES),
    refused("alias-for-another-tool", "read", '{"file_path": "a"}', "missing_required",
            config={"aliases": {"write": {"path": ["file_path"]}}}),
    refused("no-fuzzy-names", "read", '{"pth": "a"}', "missing_required"),

    # --- 3. optional nulls -------------------------------------------------------------
    fixed("nulls-drop-optional", "read", '{"path": "src/lib.rs", "offset": null, '
          '"limit": null}', {"path": "src/lib.rs"}, NULLS),
    fixed("null-enum-without-null-dropped", "web_search", '{"query": "x", "region": null}',
          {"query": "x"}, NULLS),
    fixed("null-nested-optional-dropped", "edit",
          '{"path": "a", "edits": [{"oldText": "x", "newText": "y", "replaceAll": null}]}',
          {"path": "a", "edits": [{"oldText": "x", "newText": "y"}]}, NULLS),
    fixed("null-ref-property-dropped", "refs", '{"files": ["a"], "count": null}',
          {"files": ["a"]}, NULLS),
    refused("null-required", "read", '{"path": null}', "schema"),
    refused("null-unknown-field-kept", "read", '{"path": "a", "extra": null}',
            "unknown_field"),
    refused("null-drop-disabled", "read", '{"path": "a", "limit": null}', "schema",
            config={"drop_optional_nulls": False}),
    refused("null-allowed-kept-other-error", "web_search", '{"query": "", "site": null}',
            "schema"),
    fixed("null-dict-input", "read", {"path": "a", "limit": None}, {"path": "a"}, NULLS),

    # --- 3. stringified arrays and objects ---------------------------------------------
    fixed("stringified-array", "grep", '{"pattern": "unsafe", "include": "[\\"*.rs\\"]"}',
          {"pattern": "unsafe", "include": ["*.rs"]}, STRINGIFIED),
    fixed("stringified-array-of-objects", "edit",
          '{"path": "app.py", "edits": "[{\\"oldText\\": \\"x\\", \\"newText\\": \\"y\\"}]"}',
          {"path": "app.py", "edits": [{"oldText": "x", "newText": "y"}]}, STRINGIFIED),
    fixed("stringified-object", "configure", '{"name": "n", "settings": "{\\"level\\": 2}"}',
          {"name": "n", "settings": {"level": 2}}, STRINGIFIED),
    fixed("stringified-array-inside-stringified-object", "configure",
          json.dumps({"name": "n", "settings": json.dumps({"tags": json.dumps(["a", "b"]),
                                                           "level": 1})}),
          {"name": "n", "settings": {"tags": ["a", "b"], "level": 1}}, STRINGIFIED),
    fixed("stringified-via-ref", "refs", '{"files": "[\\"a\\", \\"b\\"]"}',
          {"files": ["a", "b"]}, STRINGIFIED),
    fixed("stringified-dict-input", "grep", {"pattern": "x", "include": '["a"]'},
          {"pattern": "x", "include": ["a"]}, STRINGIFIED),
    refused("stringified-invalid-json", "grep", '{"pattern": "x", "include": "[\\"a\\","}',
            "schema"),
    refused("stringified-wrong-collection", "grep",
            '{"pattern": "x", "include": "{\\"a\\": 1}"}', "schema"),
    refused("stringified-duplicate-keys", "configure",
            '{"name": "n", "settings": "{\\"level\\": 1, \\"level\\": 2}"}', "schema"),
    refused("stringified-nan", "grep", '{"pattern": "x", "include": "[NaN]"}', "schema"),
    refused("stringified-disabled", "grep", '{"pattern": "x", "include": "[\\"a\\"]"}',
            "schema", config={"parse_stringified_collections": False}),
    refused("stringified-where-string-allowed", "configure",
            '{"name": 1, "mode": "[\\"a\\"]"}', "schema"),
    refused("bare-string-for-array-not-wrapped", "grep", '{"pattern": "x", "include": "*.py"}',
            "schema"),
    refused("empty-object-for-array", "grep", '{"pattern": "x", "include": {}}', "schema"),
    refused("numeric-string-not-coerced", "read", '{"path": "a.txt", "limit": "20"}',
            "schema"),

    # --- 4. re-validation reasons ------------------------------------------------------
    refused("missing-required", "read", '{"offset": 5}', "missing_required"),
    refused("unknown-field-not-dropped", "read", '{"path": "a", "verbose": true}',
            "unknown_field"),
    refused("minimum", "read", '{"path": "a", "limit": 0}', "schema"),
    refused("enum", "web_search", '{"query": "x", "region": "mars"}', "schema"),
    refused("nested-required", "edit", '{"path": "a", "edits": [{"oldText": "x"}]}',
            "missing_required"),
    refused("dict-input-rejected", "read", {"path": 3}, "schema"),
    refused("all-rules-then-still-invalid", "read",
            '{"<arg_key>file_path</arg_key>": "a", "limit": null, "offset": "7"}', "schema",
            STRIP, ALIAS, NULLS, model=GLM, config={**GLM_CONFIG, **READ_ALIASES}),
    fixed("all-rules-in-order", "grep",
          '{"<arg_key>pattern</arg_key>": "<arg_value>x</arg_value>", "dir": "src", '
          '"ignoreCase": null, "include": "[\\"*.c\\"]"}',
          {"pattern": "x", "path": "src", "include": ["*.c"]}, STRIP, ALIAS, NULLS, STRINGIFIED,
          model=GLM, config={**GLM_CONFIG, "aliases": {"grep": {"path": ["dir"]}}}),
]


def run(case: Case):
    config = RepairConfig.from_mapping(case.config) if case.config else None
    return repair_tool_call(case.tool, case.arguments, SCHEMAS[case.tool], model=case.model,
                            config=config)


def test_table_is_big_and_ids_unique() -> None:
    assert len(CASES) >= 80
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    outcome = run(case)
    assert (outcome.status, outcome.reason, outcome.rules) == (
        case.status, case.reason, case.rules)
    if case.status == "rejected":
        assert outcome.arguments is None
        assert outcome.hint and outcome.hint.endswith(".")
        assert outcome.errors
        return
    assert outcome.arguments == case.expected
    assert outcome.reason is None and outcome.hint is None and outcome.errors == ()
    jsonschema.validate(outcome.arguments, SCHEMAS[case.tool])
    assert json.loads(outcome.text) == outcome.arguments
    if case.status == "valid" and isinstance(case.arguments, str):
        assert outcome.text is case.arguments
    else:
        assert outcome.text == json.dumps(outcome.arguments, ensure_ascii=False,
                                          separators=(",", ":"))


def test_every_rule_and_reason_is_covered() -> None:
    rules = Counter(rule for case in CASES for rule in case.rules)
    reasons = Counter(case.reason for case in CASES if case.reason)
    assert set(rules) == {SYNTAX, PAIRS, STRIP, ALIAS, NULLS, STRINGIFIED}
    assert set(reasons) == {"truncated", "invalid_json", "duplicate_key", "missing_required",
                            "unknown_field", "alias_conflict", "grammar_leak", "schema"}
