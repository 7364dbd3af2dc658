"""What a user of the wheel gets besides the code: the licence, the specification the
docstrings cite, and the metadata an index shows (classifiers, licence expression)."""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling (test extra)")
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(folder), str(REPO)], check=True)
    (path,) = folder.glob("toolparse-*.whl")
    return zipfile.ZipFile(path)


def metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(wheel.read(name).decode("utf-8"))


def test_the_wheel_carries_the_licence(wheel: zipfile.ZipFile) -> None:
    licences = [n for n in wheel.namelist() if re.search(r"\.dist-info/licenses/LICENSE$", n)]
    assert len(licences) == 1
    text = wheel.read(licences[0]).decode("utf-8")
    assert text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    meta = metadata(wheel)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]


def test_the_wheel_carries_the_specification(wheel: zipfile.ZipFile) -> None:
    # toolparse/__init__.py tells a wheel user to look here.
    assert "toolparse/spec.md" in wheel.namelist()
    assert wheel.read("toolparse/spec.md") == (REPO / "docs" / "spec.md").read_bytes()
    import toolparse
    assert "toolparse/spec.md" in (toolparse.__doc__ or "")


def test_the_metadata_has_classifiers(wheel: zipfile.ZipFile) -> None:
    classifiers = metadata(wheel).get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    # With a licence expression (PEP 639), a licence classifier would contradict it.
    assert not [c for c in classifiers if c.startswith("License ::")]
