"""What a sentence's own words bind, from its words and the section it stands in (R17).

The RFCs declare no RFC 2119 conventions, so a statement's keyword is only as strong as its
wording (SEMANTICS R17):

- *binding*: upper-case MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT; "is an error", "is
  invalid", "schema violation", "is not an error", "is valid" (and "remain(s) valid"); a
  published schema's constraint;
- *binding by ruling*: lower-case "must" or "required" in the RFC's normative core (a
  Validation Rules section, a schema fragment, a field's definition): a statement read so
  names the ruling (``ruling: R17``);
- *advisory*: SHOULD, SHOULD NOT, RECOMMENDED (and lower-case "should", "recommended");
- *permissive*: MAY, OPTIONAL (and lower-case "may", "optional", "can");
- nothing: a sentence with none of these words, or whose lower-case "must" stands outside the
  normative core.

Lower-case words in a Summary, Motivation, Goals, Non-Goals, Alternatives, Drawbacks,
Examples, Adoption or Testing section never bind. :func:`normalized` is the form in which one
sentence is the same sentence in every source that carries it (one sentence, one
classification).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from conformance._basics.quotes import normalize

__all__ = [
    "RULING",
    "Strength",
    "Wording",
    "informative_section",
    "keywords",
    "normalized",
    "normative_core",
    "upper_case_binding",
    "upper_case_weaker",
    "wording_of",
]

Strength = Literal["binding", "advisory", "permissive", "none"]
"""The strongest thing a sentence's words can require, strongest first."""

RULING = "R17"
"""The ruling a statement names when the kit reads its lower-case wording as binding."""

# The words and phrases themselves, each written once: what binds (wording_of) and what a
# revision shows as a statement's keywords (keywords) are read with the same ones.
_UPPER_BINDING_WORDS = r"MUST(?: NOT)?|REQUIRED|SHALL(?: NOT)?"
_UPPER_ADVISORY_WORDS = r"SHOULD(?: NOT)?|(?:NOT )?RECOMMENDED"
_UPPER_PERMISSIVE_WORDS = r"MAY|OPTIONAL"
_LOWER_RFC_WORDS = r"must(?: not)?|shall(?: not)?|should(?: not)?"
_NOT_ERROR = r"is not an? (?:validation |schema )?error"
_ERROR = r"is an? (?:validation |schema )?error|is invalid|schema violation"
_VALID = r"(?:is|are)(?: still| always)? valid|remains? valid"
_WARN = r"warn"

_UPPER_BINDING = re.compile(rf"\b({_UPPER_BINDING_WORDS})\b")
_UPPER_WEAKER = re.compile(rf"\b({_UPPER_ADVISORY_WORDS}|{_UPPER_PERMISSIVE_WORDS})\b")
_PHRASE_BINDING = re.compile(rf"\b(?i:{_NOT_ERROR}|{_ERROR}|{_VALID})\b")
_LOWER_BINDING = re.compile(r"\b(?i:must(?: not)?|required|requires)\b")
_ADVISORY = re.compile(rf"\b({_UPPER_ADVISORY_WORDS})\b|\b(?i:should(?: not)?|recommended)\b")
_PERMISSIVE = re.compile(rf"\b({_UPPER_PERMISSIVE_WORDS})\b|\b(?i:may|optional|optionally|can)\b")
_KEYWORD = re.compile(
    rf"\b({_UPPER_BINDING_WORDS}|{_UPPER_ADVISORY_WORDS}|{_UPPER_PERMISSIVE_WORDS})\b"
    rf"|\b((?i:{_LOWER_RFC_WORDS}))\b"
    rf"|\b((?i:{_NOT_ERROR}))\b"
    rf"|\b((?i:{_ERROR}))\b"
    rf"|\b((?i:{_VALID}))\b"
    rf"|\b((?i:{_WARN}))\b"
)

_INFORMATIVE_SECTIONS = re.compile(
    r"^(?i:summary|motivation|goals|non-goals|alternatives|drawbacks|examples?|adoption"
    r"|testing|unresolved questions)\b"
)
_CORE_SECTIONS = re.compile(
    r"(?i:validation rules|schema changes?|definition|amendment|step kinds"
    r"|termination predicates|predicate language|reducer vocabulary|modifier vocabulary"
    r"|step input bindings)"
)


@dataclass(frozen=True)
class Wording:
    """What a sentence's words bind.

    Attributes:
        strength: the strongest wording it carries, as the section lets it count.
        markers: the words that give that strength, as written (``MUST``, ``is an error``,
            ``must``).
        ruling: :data:`RULING` when the strength is binding only by reading lower-case
            "must"/"required" in the normative core; empty otherwise.
    """

    strength: Strength
    markers: tuple[str, ...] = ()
    ruling: str = ""


def informative_section(section: str) -> bool:
    """Whether lower-case wording in ``section`` never binds (Summary, Motivation, Goals,
    Non-Goals, Alternatives, Drawbacks, Examples, Adoption, Testing, Unresolved Questions),
    judged by the section's outermost heading."""
    return bool(_INFORMATIVE_SECTIONS.match(section.strip()))


def normative_core(section: str) -> bool:
    """Whether ``section`` is the RFC's normative core, where lower-case "must"/"required"
    binds by :data:`RULING`: a Validation Rules section, a schema fragment (a JSON pointer of a
    published schema, an RFC's Schema Changes) or a field's definition."""
    if informative_section(section):
        return False
    return section.startswith("#") or bool(_CORE_SECTIONS.search(section))


def upper_case_binding(quote: str) -> tuple[str, ...]:
    """The upper-case requirement words of ``quote`` (MUST, MUST NOT, REQUIRED, SHALL, SHALL
    NOT), in order: a SHOULD or MAY statement never quotes one."""
    return tuple(m.group(0) for m in _UPPER_BINDING.finditer(quote))


def upper_case_weaker(quote: str) -> tuple[str, ...]:
    """The upper-case words of ``quote`` weaker than MUST (SHOULD, SHOULD NOT, RECOMMENDED, NOT
    RECOMMENDED, MAY, OPTIONAL), in order."""
    return tuple(m.group(0) for m in _UPPER_WEAKER.finditer(quote))


def keywords(text: str) -> tuple[str, ...]:
    """The binding words of a sentence as a revision shows them, in order: RFC 2119 keywords
    (upper case, and the older RFCs' lower-case must/shall/should), 'error', 'not-error',
    'valid', 'warning'. How strong they are where they stand is :func:`wording_of`'s to say."""
    found = []
    for match in _KEYWORD.finditer(text):
        upper, lower, not_error, error, valid, warn = match.groups()
        if upper or lower:
            found.append(" ".join((upper or lower).upper().split()))
        elif not_error:
            found.append("not-error")
        elif error:
            found.append("error")
        elif valid:
            found.append("valid")
        elif warn:
            found.append("warning")
    return tuple(found)


def wording_of(quote: str, section: str, *, schema: bool = False) -> Wording:
    """What ``quote`` binds where it stands.

    Arguments:
        quote: the sentence, as the registry quotes it.
        section: its section (a heading path, or a JSON pointer in a published schema).
        schema: the quote is a published schema's constraint (binding whatever its words).
    """
    upper = upper_case_binding(quote)
    if upper:
        return Wording("binding", upper)
    phrases = tuple(m.group(0) for m in _PHRASE_BINDING.finditer(quote))
    if phrases:
        return Wording("binding", phrases)
    if schema:
        return Wording("binding", ("schema constraint",))
    advisory = tuple(m.group(0) for m in _ADVISORY.finditer(quote))
    if any(word.isupper() for word in advisory):
        # An upper-case SHOULD says what its author meant: a lower-case "must" beside it does
        # not make the sentence binding.
        return Wording("advisory", advisory)
    lower = tuple(m.group(0) for m in _LOWER_BINDING.finditer(quote))
    if lower and normative_core(section):
        return Wording("binding", lower, RULING)
    if advisory:
        return Wording("advisory", advisory)
    permissive = tuple(m.group(0) for m in _PERMISSIVE.finditer(quote))
    if permissive:
        return Wording("permissive", permissive)
    return Wording("none", lower)


def normalized(quote: str) -> str:
    """``quote`` as one sentence is compared across sources: whitespace, Markdown emphasis,
    escapes, case and a closing full stop, comma or semicolon ignored."""
    return normalize(quote).casefold().rstrip(".,;:")
