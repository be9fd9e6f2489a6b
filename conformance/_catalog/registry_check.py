"""The statement registry's own checks: keywords that follow the wording, one classification per
sentence, and quotes that are in their texts (``ppconf cases check``).

A keyword is only as strong as the words it stands on (R17, :mod:`conformance._catalog.wording`):

- a binding keyword (MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, ``error``, ``not-error``,
  ``valid``) needs binding wording, or ``ruling: R17`` where that ruling reads weaker wording
  as binding (the normative core); a ruling the wording does not need is refused too;
- ``schema`` and ``definition`` never stand in an informative section (Summary, Motivation,
  Goals, Examples ...);
- no statement weaker than MUST quotes an upper-case MUST, and no binding one quotes an
  upper-case SHOULD or MAY as its only requirement word;
- a sentence that several sources (or sections) carry has one keyword and one testability;
- with the source texts at hand, every quote is in its text (whitespace, Markdown emphasis and
  curly quotes aside).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from conformance._basics.quotes import SOURCE_FILES, normalize
from conformance._basics.resources import catalog_root
from conformance._catalog.revision import occurrences
from conformance._catalog.statements import BINDING, Registry, Source, Statement
from conformance._catalog.wording import (
    RULING,
    informative_section,
    normalized,
    normative_core,
    upper_case_binding,
    upper_case_weaker,
    wording_of,
)

__all__ = ["WORDED", "default_texts", "quote_problems", "registry_problems"]

WORDED = frozenset(
    ("MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT", "error", "not-error", "valid")
)
"""Binding keywords that bind by their wording (``schema`` and ``definition`` bind by what the
sentence is: a schema constraint, a field's definition)."""


def default_texts() -> Path | None:
    """The project's spec texts (``../shared/spec`` beside a source checkout), when they are
    there: what ``ppconf cases check`` compares the quotes with by default."""
    folder = catalog_root().parent.parent / "shared" / "spec"
    return folder if folder.is_dir() else None


def registry_problems(registry: Registry, texts: Path | None = None) -> list[str]:
    """Every statement whose keyword its words do not bear, every sentence classified two
    ways, and (with ``texts``, a folder of the sources' texts) every quote not in its text."""
    problems = []
    for source in registry.sources:
        if source.name == "kit":
            continue  # the kit's own picks and codes: their words are the kit's, never an RFC's
        for statement in source.statements:
            problems.extend(_wording_problems(source, statement))
    problems.extend(_classification_problems(registry))
    if texts is not None:
        problems.extend(quote_problems(registry.sources, texts))
    return problems


def _where(source: Source, statement: Statement) -> str:
    line = f":{statement.line}" if statement.line is not None else ""
    return f"{source.file or source.name}{line}: statement {statement.id}"


def _wording_problems(source: Source, statement: Statement) -> list[str]:
    keyword, quote, section = statement.keyword, statement.quote, statement.section
    where = _where(source, statement)
    if statement.ruling and keyword not in WORDED:
        return [
            f"{where} names ruling {statement.ruling}, which only makes weaker wording bind: "
            f"drop it (its keyword {keyword!r} is not a binding one that needs it)"
        ]
    if keyword in WORDED:
        wording = wording_of(quote, section)
        if wording.strength == "binding" and not wording.ruling:
            if statement.ruling:
                return [
                    f"{where} names ruling {statement.ruling}, but its wording binds by itself "
                    f"({', '.join(wording.markers)}): drop the ruling"
                ]
            return []
        if statement.ruling == RULING and wording.strength != "advisory":
            if normative_core(section):
                return []
            return [
                f"{where} is {keyword} by ruling {RULING}, which reads weaker wording as "
                f"binding only in the normative core (Validation Rules, a schema fragment, a "
                f"field's definition), not in {section!r}: lower the keyword"
            ]
        found = ", ".join(repr(m) for m in wording.markers) or "no requirement word"
        how = (
            f"or name the ruling that reads it as binding (ruling: {RULING})"
            if normative_core(section) and wording.strength != "advisory"
            else "or quote the sentence that binds"
        )
        return [
            f"{where} is {keyword}, but its quote binds only as {wording.strength} ({found}): "
            f"lower the keyword, {how}"
        ]
    if keyword in BINDING:  # schema, definition
        if informative_section(section):
            return [
                f"{where} is {keyword!r} in the informative section {section!r}: a "
                "definition or schema constraint stands in the RFC's normative core; give it "
                "its kind (motivation, example, rationale, illustration ...)"
            ]
        weaker = upper_case_weaker(quote)
        if weaker and not upper_case_binding(quote):
            return [
                f"{where} is {keyword!r} but quotes an upper-case {weaker[0]} and no MUST: "
                "quote only the constraint, or give it the keyword its words carry"
            ]
        return []
    upper = upper_case_binding(quote)
    if upper and keyword != "warning":  # a warning's pack stays valid: MUST for validity (R10)
        return [
            f"{where} is {keyword!r} but quotes an upper-case {upper[0]}: a statement weaker "
            "than MUST never does; give it the binding keyword, or quote only its weaker part"
        ]
    return []


def _classification_problems(registry: Registry) -> list[str]:
    """One sentence, one classification: the same normalized quote with two keywords, or
    testable in one place and not in another."""
    by_sentence: dict[str, list[tuple[Source, Statement]]] = {}
    for source in registry.sources:
        if source.name == "kit":
            continue
        for statement in source.statements:
            by_sentence.setdefault(normalized(statement.quote), []).append((source, statement))
    problems = []
    for carried in by_sentence.values():
        kinds = {(s.keyword, s.untestable) for _, s in carried}
        if len(kinds) < 2:
            continue
        first_source, first = carried[0]
        listed = "; ".join(
            f"{s.id} ({s.keyword}, {s.untestable or 'testable'})" for _, s in carried
        )
        problems.append(
            f"{_where(first_source, first)}: one sentence, classified {len(kinds)} ways: "
            f"{listed}; give every copy the same keyword and testability"
        )
    return problems


def quote_problems(sources: Iterable[Source], texts: Path) -> list[str]:
    """Every quote of a source whose text is in the folder ``texts`` that is not in it; a
    source with no text there is said once (its quotes cannot be compared)."""
    problems = []
    for source in sources:
        name = source.text or SOURCE_FILES.get(source.name, "")
        if source.name == "kit" or not name:
            continue
        path = texts / name
        if not path.is_file():
            problems.append(
                f"{source.file or source.name}: no text {name!r} in {texts}: the quotes of "
                f"{source.name} cannot be compared; add the text, or check without --texts"
            )
            continue
        text = _text(path)
        found = [s for s in source.statements if normalize(s.quote) in text]
        for statement in source.statements:
            if statement not in found:
                problems.append(
                    f"{_where(source, statement)}: its quote is not in {path}: "
                    f"{statement.quote!r}; quote the text verbatim"
                )
        if path.suffix == ".json":
            continue  # a published schema is read pointer by pointer, not by its quotes
        counts = occurrences(found, path.read_text(encoding="utf-8"))
        for statement in found:
            if counts[statement.id] > 1:
                problems.append(
                    f"{_where(source, statement)}: its quote stands {counts[statement.id]} "
                    f"times in its section of {path}, so a change at one place would not be "
                    "found; quote more of it, up to words that tell the places apart"
                )
    return problems


@cache
def _text(path: Path) -> str:
    return normalize(path.read_text(encoding="utf-8"))
