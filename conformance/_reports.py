"""Reports of a run: the level table, JSON Lines (streamed), JUnit XML and Markdown.

Reports carry no timings or dates, so two runs of the same runtime diff cleanly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from xml.etree import ElementTree

from conformance._adapter import Capabilities
from conformance._levels import LevelReport, describe_level
from conformance._runner import CaseResult
from conformance._tables import render_table

REPORT_FORMAT = "ppconf-report/1"


def level_rows(levels: LevelReport, claims: Mapping[str, int]) -> list[list[str]]:
    """One row per area: level, top, MUST/SHOULD/MAY counts, the runtime's claim."""
    rows = []
    for area in levels.areas:
        percent = area.should_percent
        should = f"{area.should[0]}/{area.should[1]}"
        if percent is not None:
            should += f" ({percent:.0f}%)"
        claim = claims.get(area.area)
        rows.append(
            [
                area.area,
                describe_level(area.level),
                str(area.top),
                f"{area.must[0]}/{area.must[1]}",
                should,
                f"{area.may[0]}/{area.may[1]}",
                "-" if claim is None else str(claim),
            ]
        )
    return rows


LEVEL_HEADERS = ["area", "level", "top", "MUST", "SHOULD (advisory)", "MAY", "claimed"]


def render_levels(levels: LevelReport, capabilities: Capabilities) -> str:
    """The level table and headline, as printed at the end of a run."""
    table = render_table(LEVEL_HEADERS, level_rows(levels, capabilities.claims))
    lines = [table, f"headline level: {describe_level(levels.headline)}"]
    for area in levels.areas:
        if area.level is not None and area.blocking:
            lines.append(f"{area.area}: {area.reason}")
    return "\n".join(lines)


def summary_counts(results: Sequence[CaseResult]) -> dict[str, int]:
    """How many cases ended in each outcome."""
    counts = {"passed": 0, "failed": 0, "errored": 0, "skipped": 0, "timeout": 0}
    for result in results:
        counts[result.outcome] += 1
    return counts


def levels_data(levels: LevelReport) -> dict[str, Any]:
    """The levels as JSON-able data."""
    return {
        "headline": levels.headline,
        "areas": [
            {
                "area": a.area,
                "level": a.level,
                "top": a.top,
                "blocking": list(a.blocking),
                "reason": a.reason,
                "must": list(a.must),
                "should": list(a.should),
                "may": list(a.may),
            }
            for a in levels.areas
        ],
    }


class JsonLinesReport:
    """A JSON Lines report written as the run goes, flushed after every case.

    Line 1 describes the run, then one line per case, then (if the run finishes) a summary
    line with the levels. An interrupted run leaves every case result it finished.
    """

    def __init__(self, path: str | Path, capabilities: Capabilities, selection: Mapping[str, Any]):
        self._stream: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
        self._write(
            {
                "type": "run",
                "format": REPORT_FORMAT,
                "runtime": {
                    "name": capabilities.name,
                    "version": capabilities.version,
                    "language": capabilities.language,
                    "claims": dict(capabilities.claims),
                },
                "selection": dict(selection),
            }
        )

    def _write(self, record: Mapping[str, Any]) -> None:
        self._stream.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
        self._stream.flush()

    def add(self, result: CaseResult, expected_failure: str | None = None) -> None:
        record = {"type": "case", **_without_duration(result.to_dict())}
        if expected_failure is not None:
            record["expected_failure"] = expected_failure
        self._write(record)

    def finish(
        self, levels: LevelReport, results: Sequence[CaseResult], extra: Mapping[str, Any]
    ) -> None:
        self._write(
            {
                "type": "summary",
                "counts": summary_counts(results),
                "levels": levels_data(levels),
                **extra,
            }
        )

    def close(self) -> None:
        self._stream.close()


def _without_duration(data: dict[str, Any]) -> dict[str, Any]:
    data.pop("duration", None)
    return data


def write_junit(path: str | Path, results: Sequence[CaseResult], complete: bool) -> None:
    """A JUnit XML file: one testsuite per area, one testcase per case part."""
    root = ElementTree.Element("testsuites", name="ppconf")
    if not complete:
        root.set("incomplete", "true")
    suites: dict[str, ElementTree.Element] = {}
    for result in results:
        case = result.case
        suite = suites.get(case.area)
        if suite is None:
            suite = suites[case.area] = ElementTree.SubElement(root, "testsuite", name=case.area)
        for part in result.parts:
            element = ElementTree.SubElement(
                suite, "testcase", classname=case.id, name=part.part, file=case.source
            )
            properties = ElementTree.SubElement(element, "properties")
            for key, value in (
                ("level", str(case.level)),
                ("requirement", case.requirement),
            ):
                ElementTree.SubElement(properties, "property", name=key, value=value)
            if part.outcome == "failed":
                ElementTree.SubElement(element, "failure", message=part.message).text = part.message
            elif part.outcome in ("errored", "timeout"):
                ElementTree.SubElement(element, "error", message=part.message).text = part.message
            elif part.outcome == "skipped":
                ElementTree.SubElement(element, "skipped", message=part.message)
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
    ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def write_markdown(
    path: str | Path,
    levels: LevelReport,
    capabilities: Capabilities,
    results: Sequence[CaseResult],
    complete: bool,
) -> None:
    """A Markdown summary (for a CI step summary): the level table and the failures."""
    lines = [f"# ppconf: {capabilities.name} {capabilities.version}".rstrip(), ""]
    if not complete:
        lines += ["**The run did not finish; these are the results it has.**", ""]
    lines += [
        f"Headline level: **{describe_level(levels.headline)}**",
        "",
        "| " + " | ".join(LEVEL_HEADERS) + " |",
        "|" + "---|" * len(LEVEL_HEADERS),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in level_rows(levels, capabilities.claims)]
    counts = summary_counts(results)
    lines += ["", ", ".join(f"{n} {outcome}" for outcome, n in counts.items()), ""]
    failing = [r for r in results if not r.passed]
    if failing:
        lines += ["## Cases that did not pass", ""]
        for result in failing:
            case = result.case
            lines.append(f"- `{case.id}` ({case.area}, level {case.level}, {case.requirement}):")
            for part in result.failures():
                message = part.message.replace("\n", " ")
                lines.append(f"  - {part.part}: {part.outcome}: {message}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
