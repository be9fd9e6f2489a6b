"""Showing what the fuzzer found: the minimal example as a short diff, and as a case file.

An exported case is an ordinary catalog case (``schema/case.schema.json``): its id is
``<area>.fuzz.<hash>`` (case ids start with their area), its requirement MUST, and its
``statements`` are those of the catalog's MUST case for the rule involved.
It passes on the reference and fails on the runtime it was found on.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from conformance._basics.areas import BY_NAME
from conformance._basics.errors import CaseError
from conformance._basics.resources import catalog_root
from conformance._basics.spec_versions import KNOWN, applies, parse_version
from conformance._basics.text import terminal
from conformance._catalog.cases import Case, load_case, load_catalog
from conformance._catalog.generation import FOLDER
from conformance._catalog.statements import builtin
from conformance._catalog.steps import RunComposition, parse_step
from conformance._fuzz.judge import FuzzFinding, case_body

if TYPE_CHECKING:
    from conformance._fuzz.engine import FuzzResult

__all__ = [
    "case_document",
    "case_yaml",
    "describe_step",
    "export",
    "quote",
    "render_campaign",
    "render_finding",
    "render_summary",
    "rule_case",
]


@cache
def rule_case(case_id: str) -> Case:
    """The built-in catalog case ``case_id`` (read from its file, else found in the catalog).

    Raises:
        KeyError: no such case.
    """
    area, _, rest = case_id.partition(".")
    path = catalog_root() / area / (rest.replace(".", "-") + ".yaml")
    folder, _, generated = rest.partition(".")
    if folder == FOLDER:  # <area>.generated.<constraint>.<breaker>: a file of its own folder
        path = catalog_root() / area / FOLDER / (generated + ".yaml")
    try:
        case = load_case(path, catalog_root())
    except CaseError:
        case = None
    if case is not None and case.id == case_id:
        return case
    found = load_catalog().get(case_id)
    if found is None:
        raise KeyError(f"no catalog case {case_id!r}")
    return found


def quote(case: Case) -> str:
    """The quote of the first statement a case cites that requires something, on one line."""
    registry = builtin()
    cited = [s for i in case.statements if (s := registry.get(i)) is not None]
    binding = [s for s in cited if s.requirement() != "MAY"] or cited
    return " ".join(binding[0].quote.split()) if binding else ""


def case_document(finding: FuzzFinding, adapter: str, seed: int) -> dict[str, Any]:
    """The case file a finding gives, as data in the catalog's field order."""
    expected = finding.expected
    body = case_body(expected)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:8]
    rule = rule_case(finding.rule)
    where = _where(finding)
    notes = (
        f"Found by `ppconf fuzz --adapter {adapter} --seed {seed}` and shrunk by Hypothesis: "
        f"the reference and {adapter} differ at {where} ({finding.message}). What the case "
        f"asserts is what the RFCs require (SEMANTICS R1); the rule is the one of {rule.id}. "
        "Re-run it with `ppconf run --catalog DIR`."
    )
    return {
        "id": f"{expected.area}.fuzz.{digest}",
        "description": f"A generated {expected.area} example ({digest}) on which {adapter} "
        f"diverged from the reference at {where}",
        "area": expected.area,
        "level": rule.level,
        "requirement": "MUST",
        "statements": list(rule.statements),
        "spec_versions": list(_spec_versions((expected.area, *expected.uses), rule.spec_versions)),
        "rules": list(rule.rules),
        "notes": notes,
        **body,
    }


def _spec_versions(areas: tuple[str, ...], versions: tuple[str, ...]) -> tuple[str, ...]:
    """The spec versions of an exported case: its rule's, but never before the fields of its
    areas existed (an example's pack carries them, whatever rule it breaks)."""
    first = max((BY_NAME[area].since for area in areas), key=parse_version)
    since = parse_version(first)
    earlier = any(applies(versions, v) for v in KNOWN if parse_version(v) < since)
    return (f">={first}",) if earlier else versions


def _where(finding: FuzzFinding) -> str:
    step = finding.step
    if step is None:
        return "load" if finding.part == "load" else "validation"
    if step == 0:
        return "the start"
    if step > len(finding.expected.steps):
        return "the end of the script"
    return f"step {step}"


def case_yaml(document: dict[str, Any]) -> str:
    """A case document as YAML, leaf mappings and lists in flow style as the catalog writes
    them (``spec`` entries in block style, so their quotes read as text)."""
    return "".join(
        yaml.safe_dump(
            {key: value},
            sort_keys=False,
            default_flow_style=None if isinstance(value, dict | list) and key != "spec" else False,
            width=100,
            allow_unicode=True,
        )
        for key, value in document.items()
    )


def export(finding: FuzzFinding, directory: str | Path, adapter: str, seed: int) -> Path:
    """Write the finding's case to ``directory/<area>/<id>.yaml``; return the path."""
    document = case_document(finding, adapter, seed)
    area: str = document["area"]
    case_id: str = document["id"]
    folder = Path(directory) / area
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (case_id.replace(".", "-") + ".yaml")
    path.write_text(case_yaml(document), encoding="utf-8")
    return path


# -- text -------------------------------------------------------------------------------------


def describe_step(step: dict[str, Any]) -> str:
    """A script step in a few words, e.g. ``event Go (agent)``: as the runner names it, with a
    composition run's input, which a generated example varies."""
    parsed = parse_step(step, "")
    if isinstance(parsed, RunComposition):
        return f"{parsed.describe()} input {_flow(parsed.input)}"
    return parsed.describe()


def _flow(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _did(expect: dict[str, Any]) -> str:
    """What the reference did on a step, from its expectation."""
    if "rejection" in expect:
        codes = expect["rejection"]
        return "refused: " + (" or ".join(codes) if isinstance(codes, list) else codes)
    if "transition" in expect:
        seen = expect["transition"]
        text = f"-> {seen['to']}"
        if seen.get("redirected"):
            text += f" (redirected from {seen['original_target']})"
        return text + (f", turn {expect['turn']}" if "turn" in expect else "")
    if "composition" in expect:
        wanted = expect["composition"]["$subset"]
        return str(wanted["status"]) + (
            f", output {_flow(wanted['output'])}" if "output" in wanted else ""
        )
    if "status" in expect:
        return f"status {_flow(expect['status'])}"
    if "turn" in expect:
        return f"turn {expect['turn']}" + (
            f", reply {_flow(expect['reply'])}" if "reply" in expect else ""
        )
    if "artifacts" in expect:
        return f"artifacts {_flow(expect['artifacts']['$subset'])}"
    return ""


def render_finding(finding: FuzzFinding, *, found_after: int, shrink_runs: int) -> str:
    """The minimal example and where the runtime leaves the RFC, as a short diff."""
    expected = finding.expected
    lines = []
    kind = "DIVERGENCE" if finding.kind == "divergence" else "ADAPTER FAULT"
    workflow = expected.pack.get("workflow") or {}
    sizes = []
    if workflow:
        sizes.append(_count(len(workflow.get("states") or {}), "state"))
    if expected.valid:
        sizes.append(_count(len(expected.steps), "step"))
    lines.append(
        f"{kind} in a {expected.area} example (after {_count(found_after, 'example')}; shrunk "
        f"to {', '.join(sizes) or 'one pack'} in {_count(shrink_runs, 'more run')})"
    )
    shown = {k: v for k, v in expected.pack.items() if k in ("workflow", "compositions", "agents")}
    lines.append("  pack:")
    lines += ["    " + line for line in case_yaml(shown).rstrip().splitlines()]
    if expected.valid and expected.start is not None:
        start = {k: v for k, v in expected.start.items() if k != "rejection"}
        did = f"refused: {expected.start['rejection']}" if "rejection" in expected.start else ""
        lines.append(f"  start: {_flow(start)}" + (f"  {did}" if did else ""))
    if expected.valid and expected.steps:
        lines.append("  steps (what the reference did):")
        width = max(len(describe_step(s)) for s in expected.steps)
        for number, step in enumerate(expected.steps, start=1):
            lines.append(f"    {number}. {describe_step(step):<{width}}  {_did(step['expect'])}")
    rfc = BY_NAME[expected.area].rfc if expected.area in BY_NAME else "the RFC"
    if finding.part == "load":
        lines.append("  load:")
        lines.append(f"    expected ({BY_NAME['extensions'].rfc}, via the reference): loaded")
        lines.append(f"    got: {terminal(finding.message)}")
    elif finding.part == "validation":
        lines.append("  validation:")
        verdict = "valid" if expected.valid else "invalid"
        lines.append(f"    expected ({rfc}, via the reference): the pack is {verdict}")
        lines.append(f"    got: {terminal(finding.message)}")
    else:
        at = finding.step
        if at is None or at == 0 or at > len(expected.steps):
            label = "final" if at else "the start" if at == 0 else "the scenario"
        else:
            label = f"step {at}, {describe_step(expected.steps[at - 1])}"
        lines.append(f"  {label}:")
        want, got = _diff(finding)
        lines.append(f"    expected ({rfc}, via the reference): {want}")
        lines.append(f"    got: {terminal(got)}")
    rule = rule_case(finding.rule)
    lines.append(f"  rule: {rule.id} ({rule.requirement}): {quote(rule)}")
    return "\n".join(lines)


def _diff(finding: FuzzFinding) -> tuple[str, str]:
    message = finding.message
    if finding.kind == "fault":
        return "an answer within the adapter interface", message
    if finding.field is not None:
        shown = finding.field
        missing = finding.actual_value is None and message.endswith("(not reported)")
        return (
            f"{shown} {_flow(finding.expected_value)}",
            f"{shown} not reported" if missing else f"{shown} {_flow(finding.actual_value)}",
        )
    if finding.step == 0:
        start = finding.expected.start or {}
        refusal = start.get("rejection")
        return (f"refused: {refusal}" if refusal else "a session"), message.partition(", expected")[
            0
        ]
    step = finding.expected.steps[finding.step - 1] if finding.step else {}
    want = _did(step.get("expect", {})) or "acceptance"
    if message.startswith("expected rejection"):
        return want, "refused: " + message.rpartition(", got ")[2]
    return want, message.partition(", expected")[0]


def render_summary(result: FuzzResult, adapter: str) -> str:
    """What a run without findings exercised."""
    tally = result.tally
    share = result.running / result.seconds if result.seconds else 0.0
    lines = [
        f"no divergence in {tally.examples} examples against {adapter} (seed {result.seed}, "
        f"{result.seconds:.1f} s: {share:.0%} running, {1 - share:.0%} generating)"
    ]
    areas = ", ".join(f"{area} {count}" for area, count in sorted(tally.by_area.items()))
    near = tally.exercised.get("near-valid packs", 0)
    lines.append(f"  areas: {areas}; near-valid packs (MUST rules): {near}")
    if tally.states:
        lines.append(f"  workflow states per pack: {_spread(tally.states)}")
    if tally.steps:
        lines.append(f"  steps compared per example: {_spread(tally.steps)}")
    shown = [
        f"{name} {count}"
        for name, count in sorted(tally.exercised.items())
        if name not in ("near-valid packs", "states", "sessions")
    ]
    if shown:
        lines.append("  exercised: " + ", ".join(shown))
    if tally.unsupported:
        lines.append(
            f"  {tally.unsupported} example(s) partly skipped, unsupported by the runtime: "
            f"{tally.unsupported_reason}"
        )
    return "\n".join(lines)


def render_campaign(result: FuzzResult, exported: Mapping[int, Path]) -> str:
    """What a campaign (a run with a time limit) did, per area: examples run, what was found,
    what shrinking it took, and where each case was written (``exported``: the path of each
    exported finding, by its index in ``result.found``)."""
    seconds = result.seconds
    rate = result.tally.examples / seconds if seconds else 0.0
    lines = [
        f"campaign: {_count(result.tally.examples, 'example')} in {seconds:,.0f} s "
        f"({rate:,.1f}/s), {_count(len(result.found), 'finding')} (seed {result.seed})"
    ]
    for area in result.areas:
        found = [(i, f) for i, f in enumerate(result.found) if f.finding.expected.area == area]
        lines.append(
            f"  {area}: {_count(result.tally.by_area.get(area, 0), 'example')}, "
            f"{_count(len(found), 'finding')}"
        )
        for index, one in found:
            where = exported.get(index)
            kept = f"exported to {where}" if where is not None else "not exported"
            lines.append(
                f"    {one.finding.kind} after {_count(one.found_after, 'example')}, shrunk in "
                f"{_count(one.shrink_runs, 'run')}, {kept}"
            )
    return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _spread(counts: Counter[int]) -> str:
    total = sum(counts.values())
    mean = sum(k * v for k, v in counts.items()) / total
    return f"{min(counts)}-{max(counts)} (mean {mean:.1f})"
