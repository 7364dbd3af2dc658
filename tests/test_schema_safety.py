"""Safety of tool schemas (SPEC 6.1, G9): nothing is fetched, references stay inside the
tool's own definition, and every refusal happens when the tools are given.

Stalls are caught by `bounded`, a test-level timeout run in a daemon thread: a call
that never returns fails the test instead of hanging the run. Nothing here measures
speed."""

from __future__ import annotations

import os
import socket
import socketserver
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse import SchemaError, repair_tool_call
from toolparse._calls.repair import check_tools

STALL_SECONDS = 30.0


def bounded(function: Callable[[], Any], seconds: float = STALL_SECONDS) -> Any:
    """Run `function` in a daemon thread; its result or its exception, or a test failure
    if it has not returned after `seconds` (a stall, not a slow run)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"stalled: still running after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def tool(parameters: Any, name: str = "t") -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": parameters}}]


def with_ref(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {"$ref": ref}}}


CALL = '<tool_calls><invoke name="t"><parameter name="a">1</parameter></invoke></tool_calls>'


# --- A local server that counts every connection ------------------------------------------

class _Counting(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: Any = self.server
        with server.lock:
            server.connections += 1
        self.request.settimeout(2)
        try:
            self.request.recv(4096)
            body = b'{"type": "integer"}'
            self.request.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        except OSError:
            pass


@pytest.fixture()
def counting_server() -> Iterator[Any]:
    server: Any = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Counting)
    server.daemon_threads = True
    server.connections = 0
    server.lock = threading.Lock()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def silent_server() -> Iterator[int]:
    """A port that accepts connections (the kernel completes them) and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    """A named pipe: opening it to read blocks until a writer comes, so any attempt to
    read a `file:` reference would stall (and `bounded` would catch it)."""
    path = tmp_path / "schema.json"
    os.mkfifo(path)
    return path


def remote_refs(port: int, fifo_path: Path) -> list[str]:
    return [f"http://127.0.0.1:{port}/x.json", f"https://127.0.0.1:{port}/x.json",
            f"http://127.0.0.1:{port}/x.json#/definitions/a", fifo_path.as_uri(),
            "urn:example:schema", "other.json", "/abs/path.json", "//127.0.0.1/x"]


def test_the_counting_server_counts(counting_server: Any) -> None:
    # The control: a real fetch is seen, so zero below means nothing was fetched.
    port = counting_server.server_address[1]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/x.json", timeout=5) as answer:
        assert answer.read() == b'{"type": "integer"}'
    assert counting_server.connections == 1


def test_no_reference_is_ever_fetched(counting_server: Any, fifo: Path) -> None:
    port = counting_server.server_address[1]
    for ref in remote_refs(port, fifo):
        for schema in (with_ref(ref), {"$ref": ref},
                       {"$id": f"http://127.0.0.1:{port}/root.json", "$ref": ref},
                       {"type": "object", "$defs": {"x": {"$ref": ref}}}):
            with pytest.raises(SchemaError, match=r"'t'.*\$ref.*outside"):
                bounded(lambda: toolparse.StreamParser(tools=tool(schema)))
            with pytest.raises(SchemaError, match="outside"):
                bounded(lambda: toolparse.parse(CALL, tools=tool(schema)))
            with pytest.raises(SchemaError, match="outside"):
                bounded(lambda: repair_tool_call("t", '{"a": 1}', schema))
            with pytest.raises(SchemaError, match="outside"):
                bounded(lambda: repair_tool_call("t", {"a": 1}, schema))
    assert counting_server.connections == 0


def test_a_server_that_never_answers_stalls_nothing(silent_server: int) -> None:
    ref = f"http://127.0.0.1:{silent_server}/x.json"
    with pytest.raises(SchemaError, match="outside"):
        bounded(lambda: toolparse.parse(CALL, tools=tool(with_ref(ref))))
    with pytest.raises(SchemaError, match="outside"):
        bounded(lambda: repair_tool_call("t", '{"a": 1}', with_ref(ref)))
    # A nested $id naming that server is only a base URI: '#...' stays inside.
    schema = {"$id": f"http://127.0.0.1:{silent_server}/root.json", "type": "object",
              "$defs": {"n": {"type": "integer"}},
              "properties": {"a": {"$ref": "#/$defs/n"}}}
    result = bounded(lambda: toolparse.parse(CALL, tools=tool(schema)))
    assert result.calls[0].status == "valid"


def test_refused_reference_names_tool_pointer_and_reference() -> None:
    schema = {"type": "object", "properties": {"a": {"items": {"$ref": "urn:example:x"}}}}
    with pytest.raises(SchemaError) as caught:
        toolparse.StreamParser(tools=tool(schema, name="fetch_it"))
    message = str(caught.value)
    assert "'fetch_it'" in message and "/properties/a/items/$ref" in message
    assert "urn:example:x" in message


def test_unresolvable_urn_is_refused_at_construction_not_at_feed() -> None:
    with pytest.raises(SchemaError, match="urn:x"):
        toolparse.StreamParser(tools=tool(with_ref("urn:x")))
    # A parser that was built never raises on content, whatever the call says.
    parser = toolparse.StreamParser(tools=tool({"type": "object"}))
    events = parser.feed("before " + CALL + " after") + parser.close()
    assert "".join(e.raw for e in events) \
        == "before " + CALL + " after"


@pytest.mark.parametrize("ref, why", [
    ("#/$defs/missing", "points at nothing"),
    ("#/properties/b", "points at nothing"),
    ("#nowhere", "points at nothing"),
    ("#/$defs/n/0", "points at nothing"),
])
def test_unresolvable_local_reference_is_refused(ref: str, why: str) -> None:
    schema = {"type": "object", "$defs": {"n": {"type": "integer"}},
              "properties": {"a": {"$ref": ref}}}
    with pytest.raises(SchemaError, match=why):
        toolparse.StreamParser(tools=tool(schema))
    with pytest.raises(SchemaError, match=why):
        repair_tool_call("t", "{}", schema)


@pytest.mark.parametrize("defs, cycle, at", [
    ({"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
     "#/$defs/a -> #/$defs/b -> #/$defs/a", "/$defs/b/$ref"),
    ({"a": {"$ref": "#/$defs/a"}}, "#/$defs/a -> #/$defs/a", "/$defs/a/$ref"),
    ({"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"type": "string"},
                                                            {"$ref": "#/$defs/a"}]}},
     "#/$defs/a -> #/$defs/b -> #/$defs/a", "/$defs/b/anyOf/1/$ref"),
    ({"a": {"not": {"$ref": "#/$defs/c"}}, "b": {"$ref": "#/$defs/a"},
      "c": {"if": {"$ref": "#/$defs/b"}}},
     "#/$defs/a -> #/$defs/c -> #/$defs/b -> #/$defs/a", "/$defs/b/$ref"),
])
def test_reference_cycles_are_named(defs: dict[str, Any], cycle: str, at: str) -> None:
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a"}}}
    with pytest.raises(SchemaError) as caught:
        toolparse.StreamParser(tools=tool(schema, name="loop"))
    message = str(caught.value)
    assert "'loop'" in message and cycle in message and f"at {at} " in message
    with pytest.raises(SchemaError, match="cycle"):
        repair_tool_call("loop", "{}", schema)


def test_root_self_reference_is_a_cycle() -> None:
    with pytest.raises(SchemaError, match="# -> #"):
        check_tools(tool({"type": "object", "allOf": [{"$ref": "#"}]}))


TREE = {"type": "object", "properties": {
    "name": {"type": "string"},
    "children": {"type": "array", "items": {"$ref": "#"}}}, "required": ["name"]}


def test_recursive_schemas_that_move_into_the_value_are_fine() -> None:
    check_tools(tool(TREE))
    value = '{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}'
    assert repair_tool_call("t", value, TREE).status == "valid"
    broken = '{"name": "a", "children": [{"children": []}]}'
    assert repair_tool_call("t", broken, TREE).reason == "missing_required"
    linked = {"$defs": {"node": {"type": "object", "properties": {
        "next": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}}}},
        "type": "object", "properties": {"head": {"$ref": "#/$defs/node"}}}
    assert repair_tool_call("t", '{"head": {"v": 1, "next": {"v": 2}}}', linked).status == "valid"
    assert repair_tool_call("t", '{"head": {"next": {"v": "x"}}}', linked).reason == "schema"


def test_anchors_and_nested_ids_inside_the_definition_resolve() -> None:
    schema = {
        "$id": "https://tools.example/root.json",
        "type": "object",
        "$defs": {
            "count": {"$anchor": "count", "type": "integer"},
            "inner": {"$id": "inner.json", "type": "object",
                      "properties": {"k": {"$ref": "#/$defs/leaf"}},
                      "$defs": {"leaf": {"type": "string"}}},
        },
        "properties": {"n": {"$ref": "#count"}, "i": {"$ref": "#/$defs/inner"}},
    }
    assert repair_tool_call("t", '{"n": 1, "i": {"k": "x"}}', schema).status == "valid"
    assert repair_tool_call("t", '{"n": "1"}', schema).reason == "schema"
    # Inside the nested resource, '#' is that resource: its $defs, not the root's.
    assert repair_tool_call("t", '{"i": {"k": 1}}', schema).reason == "schema"
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "definitions": {"n": {"$id": "#num", "type": "integer"}},
              "properties": {"a": {"$ref": "#num"}, "b": {"$ref": "#/definitions/n"}}}
    assert repair_tool_call("t", '{"a": 1, "b": 2}', draft7).status == "valid"
    assert repair_tool_call("t", '{"a": "x"}', draft7).reason == "schema"


def test_a_reference_in_data_is_not_a_reference() -> None:
    # `default`, `enum`, `const` and `examples` hold values, not schemas.
    schema = {"type": "object", "properties": {"a": {
        "default": {"$ref": "http://127.0.0.1:1/x"}, "enum": [{"$ref": "urn:x"}, 1]}}}
    assert repair_tool_call("t", '{"a": 1}', schema).status == "valid"


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(SchemaError, match=r"\$schema"):
        check_tools(tool({"$schema": "http://127.0.0.1:1/meta", "type": "object"}))
    with pytest.raises(SchemaError, match=r"/properties/a/\$schema"):
        check_tools(tool({"type": "object", "properties": {
            "a": {"$schema": "urn:unknown", "type": "string"}}}))


def test_a_property_named_like_a_keyword_is_a_name() -> None:
    # In `properties` (and the other maps of names), "$schema" and "enum" are names.
    schema = {"type": "object", "properties": {
        "$schema": {"type": "null"},
        "enum": {"type": "object", "properties": {"x": {"$schema": 5}}}}}
    with pytest.raises(SchemaError, match=r"/properties/enum/properties/x/\$schema"):
        check_tools(tool(schema))
    del schema["properties"]["enum"]
    assert repair_tool_call("t", '{"$schema": null}', schema).status == "valid"
    assert repair_tool_call("t", '{"$schema": 1}', schema).reason == "schema"


def test_deep_schema_documents_are_refused_not_overflowed() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5_000):
        deep = {"type": "object", "properties": {"x": deep}}
    with pytest.raises(SchemaError, match="nests deeper than 64"):
        bounded(lambda: check_tools(tool(deep)))
    chain: dict[str, Any] = {"$defs": {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}]}
                                       for i in range(200)}}
    chain["$defs"]["d200"] = {"type": "integer"}
    chain.update({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}})
    with pytest.raises(SchemaError, match="chain of more than 64"):
        bounded(lambda: check_tools(tool(chain)))


def test_non_string_reference_is_refused() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"a": {"$ref": 5}}}
    with pytest.raises(SchemaError, match="must be a string"):
        check_tools(tool(schema))
