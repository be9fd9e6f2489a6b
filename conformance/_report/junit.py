"""The JUnit XML view of a run: one testsuite per area, one testcase per case part.

Each testsuite's properties say the area's level, its top level and why it is at its level
(``reason``); the testsuites element carries the headline level. Every string from the runtime
or the report goes through :func:`conformance._basics.text.xml_text`, so the file stays well-formed
XML whatever a runtime answered (CI tools refuse the whole file otherwise).
"""

from __future__ import annotations

from xml.etree import ElementTree

from conformance._basics.text import xml_text as _x
from conformance._judging.levels import describe_level
from conformance._judging.records import Report

__all__ = ["render_junit"]


def render_junit(report: Report) -> bytes:
    """JUnit XML; findings (failed SHOULD/MAY checks of passing parts) go to system-out, and
    in a strict run, where every check counts, they are also the part's failure."""
    levels = report.levels()
    root = ElementTree.Element(
        "testsuites",
        name="ppconf",
        spec_version=_x(report.header.selection.spec_version),
        headline_level=describe_level(levels.headline),
    )
    if levels.partial:
        root.set("partial", "true")
    if not report.complete:
        root.set("incomplete", "true")
    suites: dict[str, ElementTree.Element] = {}
    for area in levels.areas:
        suites[area.area] = ElementTree.SubElement(root, "testsuite", name=area.area)
        properties = ElementTree.SubElement(suites[area.area], "properties")
        for key, value in (
            ("level", describe_level(area.level)),
            ("top", str(area.top)),
            ("reason", _x(area.reason)),
            ("must", f"{area.must[0]}/{area.must[1]}"),
            ("should", f"{area.should[0]}/{area.should[1]}"),
            ("may", f"{area.may[0]}/{area.may[1]}"),
        ):
            ElementTree.SubElement(properties, "property", name=key, value=value)
    for record in report.records:
        if record.area not in suites:  # an area the levels do not know (another spec version)
            suites[record.area] = ElementTree.SubElement(root, "testsuite", name=record.area)
        suite = suites[record.area]
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=_x(record.case),
            name=_x(record.part),
            file=_x(record.file),
            time=f"{record.duration:.6f}",
        )
        properties = ElementTree.SubElement(element, "properties")
        for key, value in (("level", str(record.level)), ("requirement", record.requirement)):
            ElementTree.SubElement(properties, "property", name=key, value=value)
        shown = _x(record.message)
        findings = record.findings
        if findings and report.header.strict:
            # Every check counts in a strict run: a finding fails the part for CI tools too.
            shown = "; ".join(
                f"strict: {c.requirement} check {_x(c.id)} failed: {_x(c.message)}"
                for c in findings
            )
            ElementTree.SubElement(element, "failure", message=shown).text = shown
        elif record.outcome == "failed":
            ElementTree.SubElement(element, "failure", message=shown).text = shown
        elif record.outcome in ("errored", "timeout", "flaky"):
            message = f"{record.outcome}: {shown}"
            ElementTree.SubElement(element, "error", message=message).text = message
        elif record.outcome == "skipped":
            ElementTree.SubElement(element, "skipped", message=shown)
        if findings:
            ElementTree.SubElement(element, "system-out").text = "\n".join(
                f"finding ({c.requirement}) {_x(c.id)}: {_x(c.message)}" for c in findings
            )
    for suite in suites.values():
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        for tag, attribute in (
            ("failure", "failures"),
            ("error", "errors"),
            ("skipped", "skipped"),
        ):
            suite.set(attribute, str(sum(1 for c in cases if c.find(tag) is not None)))
    ElementTree.indent(root)
    text: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return text + b"\n"
