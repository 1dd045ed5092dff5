"""`--format junit`: one test case per input, for GitLab / Jenkins / any JUnit test-report reader.

    <testcase classname="qwen3doctor" name="logs/a.log">
      <failure type="vllm#34948" message="...">the plain report</failure>     a finding that fails the build
    </testcase>

A case fails (`<failure>`) when its outcome fails the build under `--fail-on`; an input named on the
command line that could not be read is an `<error>`; a skipped file (binary, in a folder scan) and an
ignored finding are `<skipped>`; anything else passes, with the diagnosis in `<system-out>` when there was
a crash. No timestamps or durations, so the same logs give the same XML.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..judge.fingerprint import FINGERPRINT_VERSION
from ..judge.summary import Outcome, Summary
from . import plain

SUITE = "qwen3doctor"
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MAX_MESSAGE = 1000


def _message(o: Outcome) -> str:
    top = o.top
    if top is not None:
        ref = top.references[0] if top.references else top.rule_id
        text = f"{ref}: {top.title} ({top.confidence} confidence, rule {top.rule_id})"
    elif o.report is not None and o.report.crash is not None:
        text = plain.headline(o.report) + (f" [{o.fingerprint.id}]" if o.fingerprint else "")
    else:
        text = o.error or (plain.headline(o.report) if o.report else o.status)
    return text[:MAX_MESSAGE]


def _type(o: Outcome) -> str:
    if o.top is not None:
        return o.top.references[0] if o.top.references else o.top.rule_id
    if o.fingerprint is not None:
        return o.fingerprint.id
    return o.status


def _body(o: Outcome) -> str:
    if o.report is None:
        return o.error or ""
    text = plain.render(o.report)
    if o.fingerprint is not None:
        text += f"fingerprint: {o.fingerprint.id}\n"
    return text


def render(summary: Summary) -> str:
    counts = {"tests": len(summary.outcomes), "failures": 0, "errors": 0, "skipped": 0}
    cases = []
    for o in summary.outcomes:
        case = ET.Element("testcase", {"classname": SUITE, "name": o.source})
        if o.status == "unreadable":
            ET.SubElement(case, "error", {"type": "unreadable", "message": _message(o)}).text = o.error or ""
            counts["errors"] += 1
        elif o.status == "skipped":
            ET.SubElement(case, "skipped", {"message": _message(o)})
            counts["skipped"] += 1
        elif o.status == "ignored":
            reason = o.ignored_by.reason if o.ignored_by and o.ignored_by.reason else "accepted"
            ET.SubElement(case, "skipped", {"message": f"ignored ({reason}): {_message(o)}"[:MAX_MESSAGE]})
            counts["skipped"] += 1
        elif summary.failing(o):
            ET.SubElement(case, "failure", {"type": _type(o), "message": _message(o)}).text = _body(o)
            counts["failures"] += 1
        elif o.report is not None and o.report.crash is not None:
            ET.SubElement(case, "system-out").text = _body(o)
        cases.append(case)
    attrs = {k: str(v) for k, v in counts.items()}
    # Jenkins' junit-10.xsd allows `skipped` on <testsuite> only, not on <testsuites>
    root = ET.Element("testsuites", {"name": SUITE, **{k: v for k, v in attrs.items() if k != "skipped"}})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **attrs})
    props = ET.SubElement(suite, "properties")
    for name, value in (("fail-on", summary.fail_on), ("exit-code", str(summary.exit_code)),
                        ("fingerprint-version", str(FINGERPRINT_VERSION)), ("verdict", summary.headline())):
        ET.SubElement(props, "property", {"name": name, "value": value})
    suite.extend(cases)
    for el in root.iter():  # XML 1.0 cannot hold most control characters, which logs do
        if el.text:
            el.text = _INVALID_XML.sub("\ufffd", el.text)
        for k, v in el.attrib.items():
            el.attrib[k] = _INVALID_XML.sub("\ufffd", v)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
