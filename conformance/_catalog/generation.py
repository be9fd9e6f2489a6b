"""Generated cases: the standard breakers of every schema constraint, as validation cases.

In the way test262 generates tests: templates (``templates/*.yaml``, a minimal valid pack per
part of a pack, and where each schema definition sits in it) and this generator live in the
repository, the generated case files are checked in under ``cases/<area>/generated/``, and a
test fails when they are stale. For each ``keyword: schema`` statement of the published schemas
1.4.0, 1.5.1 and 1.9.0 in the kit's parts, the generator reads the constraint from the published
schema itself (``../shared/spec``, by the statement's section pointer), applies each standard
breaker (:mod:`conformance._catalog.breakers`) to the template holding that definition, checks
the result against the published schema of every version it is written for (a breaker the schema
accepts is no breaker, and a template the schema refuses is a bug here), and writes one case per
(constraint, breaker). A constraint whose value differs between versions gets a case per run of
versions that agree. The cases cite the schema statements of the constraint, and the RFC schema
fragments that state the same constraint.

Run ``python -m conformance._catalog.generation`` to regenerate, ``--check`` to compare only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import yaml

import reference
from conformance._basics.areas import BY_NAME
from conformance._basics.resources import catalog_root
from conformance._basics.spec_versions import parse_version
from conformance._catalog.breakers import KEYWORDS, Breaker, apply, breakers_for
from conformance._catalog.constraints import SCHEMAS, area_of, fragment_constraint
from conformance._catalog.statements import Registry, builtin

__all__ = [
    "FOLDER",
    "GENERATOR",
    "SCHEMAS",
    "Constraint",
    "GeneratedCase",
    "GenerationError",
    "Template",
    "constraints",
    "generate",
    "main",
    "render",
    "stale_files",
    "templates",
    "write",
]

FOLDER = "generated"
"""The folder, inside each area's folder of the catalog, holding the generated cases."""
GENERATOR = "python -m conformance._catalog.generation"
"""How the generated cases are made, as their header and ``generated.by`` say."""
SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"
"""Where the published schemas are by default: the spec folder beside the repository."""
TEMPLATES = Path(__file__).resolve().parent / "templates"


class GenerationError(Exception):
    """A template, a statement or a schema the generator cannot use: said where and why."""


# -- constraints ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constraint:
    """One constraint of the published schemas, as it stands in each version holding it.

    Attributes:
        name: the statement id without its source (``WorkflowState.max_visits.type``).
        keyword: the schema keyword (``type``).
        section: the JSON pointer of the schema node holding it.
        values: the keyword's value, by published schema version.
        statements: the statement id, by published schema version.
    """

    name: str
    keyword: str
    section: str
    values: Mapping[str, Any]
    statements: Mapping[str, str]

    @property
    def area(self) -> str:
        found = area_of(self.name)
        assert found is not None  # constraints() keeps only those of an area
        return found

    def runs(self) -> list[tuple[str, ...]]:
        """The published versions holding the constraint, in runs of consecutive versions with
        the same value (each run gets its own cases)."""
        order = [v for v in SCHEMAS if v in self.values]
        runs: list[list[str]] = []
        for version in order:
            previous = runs[-1][-1] if runs else None
            consecutive = previous is not None and _next_schema(previous) == version
            if consecutive and self.values[previous] == self.values[version]:  # type: ignore[index]
                runs[-1].append(version)
            else:
                runs.append([version])
        return [tuple(run) for run in runs]

    def governing(self, run: Sequence[str]) -> tuple[str, ...]:
        """The published versions of a run that govern some spec version of its cases (a schema
        older than the constraint's area governs none of them)."""
        start = parse_version(self.spec_versions(run).split()[0].removeprefix(">="))
        return tuple(
            v
            for v in run
            if (following := _next_schema(v)) is None or parse_version(SCHEMAS[following]) > start
        )

    def spec_versions(self, run: Sequence[str]) -> str:
        """The spec versions a run of published versions governs, as a case's range: from the
        first (or the area's first version, or for a constraint new in that schema, the version
        the RFC brought it in, when later) up to the next published schema not in the run."""
        start = SCHEMAS[run[0]]
        since = BY_NAME[self.area].since
        previous = _previous_schema(run[0])
        if parse_version(since) > parse_version(start) or (
            previous is not None
            and previous not in self.values
            and parse_version(since) > parse_version(SCHEMAS[previous])
        ):
            start = since
        following = _next_schema(run[-1])
        return f">={start}" if following is None else f">={start} <{SCHEMAS[following]}"


def _next_schema(version: str) -> str | None:
    order = list(SCHEMAS)
    index = order.index(version)
    return order[index + 1] if index + 1 < len(order) else None


def _previous_schema(version: str) -> str | None:
    order = list(SCHEMAS)
    index = order.index(version)
    return order[index - 1] if index else None


def constraints(spec: Path, registry: Registry | None = None) -> list[Constraint]:
    """The constraints of the published schemas' ``keyword: schema`` statements in the kit's
    parts, read from the schema files in ``spec``, sorted by name.

    Raises:
        GenerationError: a schema file is missing, or a statement's section or keyword is not
            in its schema.
    """
    registry = registry or builtin()
    found: dict[str, dict[str, Any]] = {}
    for version in SCHEMAS:
        schema = _schema(spec, version)
        source = registry.source(f"schema {version}")
        if source is None:
            raise GenerationError(f"the registry has no statements of schema {version}")
        prefix = f"schema-{version}."
        for statement in source.statements:
            if statement.keyword != "schema" or not statement.testable:
                continue
            name = statement.id.removeprefix(prefix)
            keyword = name.rsplit(".", 1)[-1]
            if keyword not in KEYWORDS or area_of(name) is None:
                continue
            node = _resolve(schema, statement.section, statement.id)
            if keyword not in node:
                raise GenerationError(
                    f"{statement.id}: the schema has no {keyword!r} at {statement.section}"
                )
            entry = found.setdefault(
                name, {"section": statement.section, "values": {}, "statements": {}}
            )
            entry["values"][version] = node[keyword]
            entry["statements"][version] = statement.id
    return [
        Constraint(name, name.rsplit(".", 1)[-1], e["section"], e["values"], e["statements"])
        for name, e in sorted(found.items())
    ]


@cache
def _schema_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _schema(spec: Path, version: str) -> dict[str, Any]:
    path = spec / f"promptpack-{version}.schema.json"
    if not path.is_file():
        raise GenerationError(f"the published schema {version} is not at {path}")
    schema: dict[str, Any] = json.loads(_schema_text(path))
    return schema


@cache
def _validator(spec: Path, version: str) -> Any:
    return jsonschema_rs.validator_for(_schema(spec, version))


def _resolve(schema: Any, section: str, where: str) -> Any:
    node = schema
    for part in section.removeprefix("#").split("/")[1:]:
        key: str | int = int(part) if isinstance(node, list) else part
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            raise GenerationError(f"{where}: section {section} is not in the schema") from None
    return node


# -- templates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """A minimal valid pack for one part, and where each schema definition sits in it.

    Attributes:
        name: the file's stem (``workflow``).
        description: the pack in a few words.
        pack: the pack.
        at: schema pointer (``#/$defs/WorkflowState``) -> the JSON pointer of an instance.
    """

    name: str
    description: str
    pack: Mapping[str, Any]
    at: Mapping[str, str]

    def locate(self, section: str) -> str | None:
        """The pack pointer of the schema node ``section`` (``None``: the pack has none)."""
        best = max((s for s in self.at if _within(section, s)), key=len, default=None)
        if best is None:
            return None
        pointer = self.at[best]
        rest = section[len(best) :].split("/")[1:]
        index = 0
        while index < len(rest):
            part = rest[index]
            if part == "properties" and index + 1 < len(rest):
                pointer += "/" + rest[index + 1].replace("~", "~0").replace("/", "~1")
                index += 2
            elif part in ("oneOf", "anyOf", "allOf") and index + 1 < len(rest):
                index += 2
            else:
                return None
        return pointer


def _within(section: str, prefix: str) -> bool:
    return section == prefix or section.startswith(prefix + "/")


@cache
def templates() -> tuple[Template, ...]:
    """The templates, by file name.

    Raises:
        GenerationError: a template file is malformed.
    """
    found = []
    for path in sorted(TEMPLATES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not (
            isinstance(data, dict)
            and isinstance(data.get("pack"), dict)
            and isinstance(data.get("at"), dict)
        ):
            raise GenerationError(f"{path}: a template is a mapping with description, at, pack")
        description = str(data.get("description", ""))
        found.append(Template(path.stem, description, data["pack"], data["at"]))
    return tuple(found)


_PREFERRED = {"extensions": "extensions", "providers": "providers"}
"""A definition held by several templates: the area's own template first."""


def _template_for(constraint: Constraint) -> tuple[Template, str]:
    candidates = []
    for template in templates():
        pointer = template.locate(constraint.section)
        if pointer is not None:
            best = max((s for s in template.at if _within(constraint.section, s)), key=len)
            own = _PREFERRED.get(constraint.area) == template.name
            candidates.append((len(best), own, template.name == "workflow", template, pointer))
    if not candidates:
        raise GenerationError(
            f"{constraint.name}: no template holds {constraint.section}; add it to a template's at"
        )
    *_, template, pointer = max(candidates, key=lambda c: c[:3])
    return template, pointer


# -- cases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedCase:
    """One generated case: where it goes and what it holds."""

    path: str
    """Relative to the catalog folder."""
    data: Mapping[str, Any]


def generate(spec: Path = SPEC, registry: Registry | None = None) -> list[GeneratedCase]:
    """Every generated case, sorted by path.

    Raises:
        GenerationError: a constraint without a template, a template the schema refuses, or a
            breaker the generator cannot apply (said with the template and the constraint).
    """
    registry = registry or builtin()
    fragments = _fragments(registry)
    cases: list[GeneratedCase] = []
    for constraint in constraints(spec, registry):
        template, pointer = _template_for(constraint)
        runs = constraint.runs()
        for run in runs:
            cases.extend(
                _cases(
                    spec,
                    constraint=constraint,
                    run=run,
                    several=len(runs) > 1,
                    template=template,
                    pointer=pointer,
                    fragments=fragments,
                )
            )
    return sorted(cases, key=lambda c: c.path)


def _cases(
    spec: Path,
    *,
    constraint: Constraint,
    run: tuple[str, ...],
    several: bool,
    template: Template,
    pointer: str,
    fragments: Mapping[str, list[tuple[str, str, Any]]],
) -> Iterator[GeneratedCase]:
    run = constraint.governing(run)
    for version in run:
        problems = _problems(spec, version, template.pack)
        if problems:
            raise GenerationError(
                f"template {template.name} is not valid under the published schema {version} "
                f"(for {constraint.name}): {problems[0]}"
            )
    value = constraint.values[run[0]]
    current = _at(template.pack, pointer)
    slug = _slug(constraint.name)
    if several:
        slug += "-v" + SCHEMAS[run[0]].replace(".", "-")
    versions = constraint.spec_versions(run)
    own = [constraint.statements[v] for v in run]
    for breaker in breakers_for(constraint.keyword, value, current):
        try:
            pack = apply(dict(template.pack), pointer, breaker)
        except (KeyError, IndexError, ValueError, TypeError):
            raise GenerationError(
                f"template {template.name} has no place {pointer} for {constraint.name}"
            ) from None
        if any(bool(_problems(spec, v, pack)) == breaker.valid for v in run):
            # The published schema accepts what the breaker meant to break (another oneOf
            # branch, a pattern of vendor keys), or refuses what should stay valid: no breaker.
            continue
        yield _case(
            constraint=constraint,
            run=run,
            versions=versions,
            slug=slug,
            breaker=breaker,
            template=template,
            pack=pack,
            where=pointer + breaker.inside,
            cited=own + _agreeing(constraint, value, breaker, fragments),
        )


def _case(
    *,
    constraint: Constraint,
    run: tuple[str, ...],
    versions: str,
    slug: str,
    breaker: Breaker,
    template: Template,
    pack: Mapping[str, Any],
    where: str,
    cited: Sequence[str],
) -> GeneratedCase:
    area = constraint.area
    case_id = f"{area}.generated.{slug}.{breaker.name}"
    shown = constraint.name
    if len(constraint.runs()) > 1:
        shown += f" (schema {', '.join(run)})"
    verdict = "stays valid" if breaker.valid else "is a schema error"
    validation: dict[str, Any] = {"valid": breaker.valid}
    if not breaker.valid:
        validation["errors"] = [_expected_error(pack, where)]
    data: dict[str, Any] = {
        "id": case_id,
        "description": f"Generated, {shown}: {breaker.what} {verdict}",
        "area": area,
        "level": 1,
        "requirement": "MUST",
        "statements": list(dict.fromkeys(cited)),
        "spec_versions": [versions],
        "rules": ["schema"],
        "generated": {
            "by": GENERATOR,
            "template": template.name,
            "constraint": constraint.name,
            "breaker": breaker.name,
        },
        "pack": dict(pack),
        "validation": validation,
    }
    return GeneratedCase(f"{area}/{FOLDER}/{slug}.{breaker.name}.yaml", data)


def _expected_error(pack: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The error a generated case expects: ``schema`` (R19), with the reference's more specific
    code as an alternative where it gives one instead (``schema|orchestration-invalid``); at
    ``where``, or at the deepest place above it the reference reports when it reports none
    there (a value matching no branch of a ``oneOf`` is reported at the ``oneOf``'s place).
    The pointer is the kit's pick, checked at MAY (R2)."""
    errors = [
        d for d in reference.validate(dict(pack)) if d.severity == "error" and _above(d.path, where)
    ]
    schema = [d.path for d in errors if d.code == "schema"]
    own = sorted({d.code for d in errors if d.code != "schema"})
    codes: str | list[str] = ["schema", *own] if own and not schema else "schema"
    given = schema or [d.path for d in errors]
    path = where if where in given or not given else max(given, key=len)
    return {"code": codes, "path": path}


def _above(path: str, where: str) -> bool:
    return where == path or where.startswith(path + "/")


def _problems(spec: Path, version: str, pack: Any) -> list[str]:
    return [
        f"{reference.json_pointer(*e.instance_path) or '/'}: {e.message}"
        for e in _validator(spec, version).iter_errors(pack)
    ]


def _at(pack: Any, pointer: str) -> Any:
    node = pack
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return node


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _fragments(registry: Registry) -> dict[str, list[tuple[str, str, Any]]]:
    """The RFCs' schema-fragment statements, by the place of the constraint they state
    (``WorkflowState.max_visits``; ``extensions`` for RFC 0016's slot on every definition),
    each with its keyword and value read from the quote."""
    found: dict[str, list[tuple[str, str, Any]]] = {}
    for statement in registry.statements:
        named = fragment_constraint(statement)
        if named is not None:
            name, keyword, value = named
            place = name.rsplit(".", 1)[0]
            found.setdefault(place, []).append((statement.id, keyword, value))
    return found


def _agreeing(
    constraint: Constraint,
    value: Any,
    breaker: Breaker,
    fragments: Mapping[str, list[tuple[str, str, Any]]],
) -> list[str]:
    """The RFC fragments a breaker's case cites: those at the constraint's place that judge it
    as the published schema does (R16: where they disagree, the breaker is not theirs). A
    fragment with the same keyword and value always agrees; another (``enum: [1]`` beside
    ``minimum: 1``) where it refuses the breaker's value too; a kept value or an added or
    removed key only under the very same constraint."""
    place = constraint.name.rsplit(".", 1)[0]
    candidates = list(fragments.get(place, ()))
    if place.endswith(".extensions"):
        candidates += fragments.get("extensions", ())
    found = []
    for rfc_id, keyword, rfc_value in candidates:
        same = keyword == constraint.keyword and rfc_value == value
        refuses = (
            breaker.edit == "set"
            and not breaker.valid
            and keyword in ("type", "enum", "const", "minimum", "maximum", "pattern")
            and not jsonschema_rs.is_valid({keyword: rfc_value}, breaker.value)
        )
        if same or refuses:
            found.append(rfc_id)
    return found


# -- files ------------------------------------------------------------------------------------


def render(case: GeneratedCase) -> str:
    """The text of a generated case file: the header, then the case as YAML."""
    header = (
        f"# Generated by {GENERATOR} from template {case.data['generated']['template']}; "
        "do not edit.\n"
    )
    body = yaml.safe_dump(
        dict(case.data), sort_keys=False, allow_unicode=True, width=100, default_flow_style=False
    )
    return header + body


def _generated_files(root: Path) -> Iterable[Path]:
    return sorted(root.glob(f"*/{FOLDER}/*.yaml"))


def stale_files(cases: Sequence[GeneratedCase], root: Path | None = None) -> list[str]:
    """The generated files under ``root`` (default: the built-in catalog) that differ from
    ``cases``, are missing, or are left over, relative to ``root``."""
    root = root or catalog_root()
    wanted = {c.path: render(c) for c in cases}
    stale = [
        path
        for path, text in wanted.items()
        if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text
    ]
    stale += [
        p.relative_to(root).as_posix()
        for p in _generated_files(root)
        if p.relative_to(root).as_posix() not in wanted
    ]
    return sorted(stale)


def write(cases: Sequence[GeneratedCase], root: Path | None = None) -> int:
    """Write the generated cases under ``root``, removing generated files no longer made;
    return how many files changed."""
    root = root or catalog_root()
    changed = stale_files(cases, root)
    wanted = {c.path: c for c in cases}
    for path in changed:
        target = root / path
        if path in wanted:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render(wanted[path]), encoding="utf-8")
        else:
            target.unlink()
    return len(changed)


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the generated cases (``--check``: only say whether they are stale)."""
    parser = argparse.ArgumentParser(prog=GENERATOR, description=main.__doc__)
    parser.add_argument("--spec", type=Path, default=SPEC, help="the folder of published schemas")
    parser.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    options = parser.parse_args(argv)
    try:
        cases = generate(options.spec)
    except GenerationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if options.check:
        stale = stale_files(cases)
        for path in stale:
            print(f"stale: {path}")
        return 1 if stale else 0
    changed = write(cases)
    print(f"{len(cases)} generated cases, {changed} files written or removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
