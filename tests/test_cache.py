"""The caches of what is built from grammar files (toolparse's own and Lark's tables)
live in a directory only this user can write; anything else means building again."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import toolparse
from toolparse._syntax import files
from toolparse._syntax.files import cache_dir, cached_json, grammar_path

CALL = '<tool_calls><invoke name="f"><parameter name="a">1</parameter></invoke></tool_calls>'


@pytest.fixture
def use_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    def use(path: Path) -> Path | None:
        monkeypatch.setenv("TOOLPARSE_CACHE_DIR", str(path))
        cache_dir.cache_clear()
        return cache_dir()
    yield use
    monkeypatch.delenv("TOOLPARSE_CACHE_DIR", raising=False)
    cache_dir.cache_clear()


def _copy_grammar(tmp_path: Path) -> Path:
    grammar = tmp_path / "mine.lark"
    grammar.write_text(grammar_path("dialects/deepseek.lark").read_text(encoding="utf-8")
                       + "\n// a copy\n", encoding="utf-8")
    return grammar


def test_the_cache_directory_is_private_and_holds_larks_tables(tmp_path: Path, use_dir) -> None:
    found = use_dir(tmp_path / "cache")
    assert found == tmp_path / "cache"
    assert stat.S_IMODE(found.stat().st_mode) & 0o077 == 0
    dialect = toolparse.Dialect.from_file(_copy_grammar(tmp_path))
    assert [c.name for c in toolparse.parse(CALL, dialect=dialect).calls] == ["f"]
    assert list(found.glob("lark_*.pickle")), "Lark's tables are cached in the private directory"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_directory_others_can_write_is_not_used(tmp_path: Path, use_dir) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert use_dir(shared) is None
    # Without a cache everything is built again, and parses the same.
    dialect = toolparse.Dialect.from_file(_copy_grammar(tmp_path))
    assert [c.name for c in toolparse.parse(CALL, dialect=dialect).calls] == ["f"]
    assert list(shared.iterdir()) == []
    assert cached_json("probe", "x", lambda: [1, 2]) == [1, 2]
    assert list(shared.iterdir()) == []


def test_a_symlink_in_place_of_the_directory_is_not_used(tmp_path: Path, use_dir) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    assert use_dir(tmp_path / "link") is None


def test_a_broken_cache_file_is_built_again(tmp_path: Path, use_dir) -> None:
    found = use_dir(tmp_path / "cache")
    built: list[int] = []

    def build() -> dict[str, list[int]]:
        built.append(1)
        return {"a": [1, 2, 3]}

    assert cached_json("probe", "source", build) == {"a": [1, 2, 3]}
    assert cached_json("probe", "source", build) == {"a": [1, 2, 3]} and len(built) == 1
    (cache_file,) = found.glob("probe_*.marshal")
    cache_file.write_bytes(b"\xff not marshal data")
    assert cached_json("probe", "source", build) == {"a": [1, 2, 3]} and len(built) == 2
    assert cached_json("probe", "source", build) == {"a": [1, 2, 3]} and len(built) == 2


def test_an_unwritable_cache_location_means_no_cache(tmp_path: Path, use_dir) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert use_dir(blocker / "cache") is None
    assert files.cached_json("probe", "y", lambda: "built") == "built"


def test_a_pattern_interegular_refuses_is_cached_as_refused(tmp_path: Path, use_dir) -> None:
    from toolparse._syntax import dfa

    found = use_dir(tmp_path / "cache")
    dfa.dfa_for.cache_clear()
    try:
        assert dfa.dfa_for(r"(a)\1") is None  # interegular cannot read it: re-match instead
        assert dfa.dfa_for(r"ab+c") is not None
    finally:
        dfa.dfa_for.cache_clear()
    assert len(list(found.glob("dfa_*.marshal"))) == 2


def test_a_failure_of_ours_is_loud_and_never_cached(tmp_path: Path, use_dir,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A bug past interegular (as in a broken build) must not leave a cached "no
    # automaton" behind for every later run with the same pattern and Lark.
    from toolparse._syntax import dfa

    found = use_dir(tmp_path / "cache")

    import interegular

    class Broken:  # what interegular hands over, read by a buggy toolparse
        def to_fsm(self) -> Broken:
            return self

        @property
        def alphabet(self) -> object:
            raise TypeError("a bug")

    # Patched on interegular, not on `dfa`: the compiled build calls its own
    # functions directly, past any patch of the module's attributes.
    monkeypatch.setattr(interegular, "parse_pattern", lambda pattern: Broken())
    dfa.dfa_for.cache_clear()
    try:
        with pytest.raises(TypeError, match="a bug"):
            dfa.dfa_for(r"ab+c")
        assert not list(found.glob("dfa_*.marshal"))
        monkeypatch.undo()
        use_dir(tmp_path / "cache")
        assert dfa.dfa_for(r"ab+c") is not None
    finally:
        dfa.dfa_for.cache_clear()
