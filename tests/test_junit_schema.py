"""`--format junit` against the schema Jenkins' xUnit plugin reads it with (tests/data/junit-10.xsd): every
kind of outcome (failure, unexplained crash, pass, skipped binary, ignored, unreadable named input)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import xmlschema

from ci_fixtures import build_mixed, run_fixed
from conftest import DATA


@pytest.fixture(scope="module")
def schema():
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return build_mixed(tmp_path_factory.mktemp("junit"))


def _valid(schema, xml: str) -> ET.Element:
    errors = [str(e.reason) for e in schema.iter_errors(xml)]
    assert errors == [], errors
    return ET.fromstring(xml)


def test_a_folder_of_every_outcome_validates(schema, mixed):
    r = run_fixed("diagnose", "logs", "--format", "junit", "--ignore", "vllm#39025", cwd=mixed)
    root = _valid(schema, r.stdout)
    kinds = {tuple(child.tag for child in case) for case in root.iter("testcase")}
    assert {("failure",), ("skipped",), ()} <= kinds
    assert "skipped" not in root.attrib and root.find("testsuite").attrib["skipped"] == "2"


def test_an_unreadable_named_input_and_an_empty_one_validate(schema, mixed, tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    r = run_fixed("diagnose", str(empty), "logs/nightly-e/server.log", str(tmp_path / "gone.log"), "--format", "junit", cwd=mixed)
    assert r.returncode == 2
    root = _valid(schema, r.stdout)
    assert [c.tag for c in root.iter("testcase") if len(c)] == ["testcase"] and root.attrib["errors"] == "1"


def test_the_old_testsuites_skipped_attribute_is_what_the_schema_refuses(schema, mixed):
    """The check itself can fail: the output of before the fix (skipped= on <testsuites>) is refused."""
    r = run_fixed("diagnose", "logs", "--format", "junit", cwd=mixed)
    root = ET.fromstring(r.stdout)
    root.set("skipped", "1")
    assert any("skipped" in str(e.reason) for e in schema.iter_errors(ET.tostring(root, encoding="unicode")))
