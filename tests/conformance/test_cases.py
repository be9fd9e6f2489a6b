"""Case files and catalogs: loading, the case model, and errors naming file, line and field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance import CaseError, Catalog, load_case, load_catalog
from conformance._catalog.cases import Selection, case_files

WriteCatalog = Callable[[Mapping[str, str]], Path]
CaseText = Callable[..., str]


def load_error(path: Path, root: Path | None = None) -> CaseError:
    with pytest.raises(CaseError) as caught:
        load_case(path, root)
    return caught.value


def line_of(path: Path, fragment: str) -> int:
    """The 1-based line of the first line of ``path`` containing ``fragment``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if fragment in line:
            return number
    raise AssertionError(f"{fragment!r} not in {path}")


# -- a well-formed case -------------------------------------------------------------------------

FULL_BODY = """\
load: true
validation:
  valid: true
  errors: []
  warnings: [{code: event-name-style, path: /workflow/states/draft/on_event/Submit}]
  absent: [cycle-unbounded]
  exact: [event-name-style]
scenarios:
  - name: submit
    description: the one transition
    steps:
      - event: Submit
        source: agent
        expect: {transition: {from: draft, to: review}}
      - set_artifact: {name: notes, value: "x"}
      - tool_calls: 2
      - advance_clock: 1.5
      - snapshot_restore: true
    final: {state: review}
  - name: refused
    start: {rejection: workflow-version-unsupported}
"""


def test_a_case_loads_into_the_model(write_catalog: WriteCatalog, case_text: CaseText) -> None:
    root = write_catalog(
        {"workflow/a.yaml": case_text("workflow.test.full", level=1, body=FULL_BODY)}
    )
    case = load_case(root / "workflow" / "a.yaml", root)
    assert (case.id, case.area, case.level, case.requirement) == (
        "workflow.test.full",
        "workflow",
        1,
        "MUST",
    )
    assert case.source == "workflow/a.yaml"
    assert case.statements == ("RFC0005.def.WorkflowState.on_event.2",)
    assert case.spec_versions == (">=1.5",)
    assert case.rules == ("X4",)
    assert case.load is True
    assert case.parts == ["load", "validation", "submit", "refused"]
    assert case.validation is not None
    assert case.validation.valid
    assert [str(w) for w in case.validation.warnings] == [
        "event-name-style at /workflow/states/draft/on_event/Submit"
    ]
    assert case.validation.absent == ("cycle-unbounded",)
    assert case.validation.exact == ("event-name-style",)
    submit, refused = case.scenarios
    assert submit.description == "the one transition"
    assert [s.kind for s in submit.steps] == [
        "event",
        "set_artifact",
        "tool_calls",
        "advance_clock",
        "snapshot_restore",
    ]
    assert [dict(s.arguments) for s in submit.steps] == [
        {"event": "Submit", "source": "agent"},
        {"name": "notes", "value": "x"},
        {"count": 2},
        {"seconds": 1.5},
        {},
    ]
    assert [s.describe() for s in submit.steps] == [
        "event Submit (agent)",
        "set_artifact notes='x'",
        "tool_calls 2",
        "advance_clock 1.5",
        "snapshot_restore",
    ]
    assert submit.steps[0].expect == {"transition": {"from": "draft", "to": "review"}}
    assert submit.steps[1].expect is None
    assert submit.steps[3].pointer == "/scenarios/0/steps/3"
    assert submit.final == {"state": "review"}
    assert refused.start_rejection == ("workflow-version-unsupported",)
    assert refused.steps == ()
    assert case.codes == {"event-name-style", "workflow-version-unsupported"}


def test_an_event_step_comes_from_the_host_by_default(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog({"workflow/a.yaml": case_text()})
    [scenario] = load_case(root / "workflow" / "a.yaml", root).scenarios
    assert dict(scenario.steps[0].arguments) == {"event": "Submit", "source": "host"}
    assert scenario.steps[0].describe() == "event Submit"


def test_where_gives_file_and_line(write_catalog: WriteCatalog, case_text: CaseText) -> None:
    root = write_catalog({"workflow/a.yaml": case_text()})
    path = root / "workflow" / "a.yaml"
    case = load_case(path, root)
    assert (
        case.where("/scenarios/0/steps/0") == f"workflow/a.yaml:{line_of(path, '- event: Submit')}"
    )
    assert case.where("/scenarios/0/final") == f"workflow/a.yaml:{line_of(path, 'final:')}"
    assert case.where("/nowhere/at/all") == "workflow/a.yaml"


def test_codes_include_rejections_in_both_forms(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    body = """\
    scenarios:
      - name: two-rejections
        steps:
          - event: Nope
            expect: {rejection: unknown-event}
          - event: Nope
            expect: {rejection: {code: budget-exhausted, limit: max_tool_calls}}
    """
    root = write_catalog({"workflow/a.yaml": case_text(body=body)})
    assert load_case(root / "workflow" / "a.yaml", root).codes == {
        "unknown-event",
        "budget-exhausted",
    }


def test_an_inline_pack_reaches_runtimes_as_json(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog({"workflow/a.yaml": case_text(pack_id="inline")})
    pack = load_case(root / "workflow" / "a.yaml", root).pack
    assert pack.format == "json"
    assert json.loads(pack.text) == pack.document
    assert pack.document is not None
    assert pack.document["id"] == "inline"
    assert pack.source == "workflow/a.yaml#/pack"


PACK_FILE_CASE = """\
id: workflow.test.pack-file
description: A case whose pack lives in a pack file
area: workflow
level: 0
requirement: MUST
statements: [RFC0005.def.WorkflowState.on_event.2]
spec_versions: ["1.5"]
rules: [L1]
pack_file: PACK_FILE
load: LOAD
"""

PACK_YAML = """\
id: from-file   # the raw text goes to the runtime, comments and all
name: From file
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  main: {id: main, name: Main, version: 1.0.0, system_template: Work.}
"""


def pack_file_case(pack_file: str, load: str = "true") -> str:
    return PACK_FILE_CASE.replace("PACK_FILE", pack_file).replace("LOAD", load)


def test_a_pack_file_reaches_runtimes_as_written(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "workflow/a.yaml": pack_file_case("../packs/p.yaml"),
            "packs/p.yaml": PACK_YAML,
            "packs/q.json": json.dumps({"id": "json-pack"}),
        }
    )
    case = load_case(root / "workflow" / "a.yaml", root)
    assert case.pack.text == PACK_YAML
    assert case.pack.format == "yaml"
    assert case.pack.document is not None
    assert case.pack.document["id"] == "from-file"
    assert case.pack.source == "packs/p.yaml"
    # Files under packs/ are pack files, not cases.
    assert case_files(root) == [root / "workflow" / "a.yaml"]


def test_a_pack_file_the_kit_cannot_parse_is_allowed_only_when_it_must_be_refused(
    write_catalog: WriteCatalog,
) -> None:
    duplicate = "id: a\nid: b\n"
    root = write_catalog(
        {
            "workflow/refuse.yaml": pack_file_case("../packs/dup.yaml", load="false"),
            "loops/load.yaml": pack_file_case("../packs/dup.yaml")
            .replace("workflow.test", "loops.test")
            .replace("area: workflow", "area: loops"),
            "packs/dup.yaml": duplicate,
        }
    )
    refused = load_case(root / "workflow" / "refuse.yaml", root)
    assert refused.load is False
    assert refused.pack.document is None
    assert refused.pack.text == duplicate
    error = load_error(root / "loops" / "load.yaml", root)
    assert str(error).startswith(f"{root / 'loops' / 'load.yaml'}:")
    assert error.location.pointer == "/pack_file"
    assert "the pack file cannot be loaded" in str(error)


# -- malformed cases: one error naming file, line and field -------------------------------------


def test_bad_yaml(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("id: workflow.test.bad\ndescription: [unclosed\narea: workflow\n", "utf-8")
    error = load_error(path)
    assert error.location.file == str(path)
    assert error.location.line == 3
    assert str(error).startswith(f"{path}:3:")
    assert "invalid YAML" in str(error)


def test_duplicate_keys_in_a_case(tmp_path: Path, case_text: CaseText) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(case_text() + "level: 1\n", "utf-8")
    error = load_error(path)
    assert str(error).startswith(f"{path}:{len(case_text().splitlines()) + 1}:")
    assert "duplicate key 'level'" in str(error)


@pytest.mark.parametrize("text", ["", "- a list\n", "just text\n"])
def test_a_case_file_is_a_mapping(tmp_path: Path, text: str) -> None:
    path = tmp_path / "not-a-mapping.yaml"
    path.write_text(text, "utf-8")
    error = load_error(path)
    assert str(error).startswith(str(path))
    assert "a case file is a mapping" in str(error)


@pytest.mark.parametrize(
    "field",
    ["id", "description", "area", "level", "requirement", "statements", "spec_versions", "rules"],
)
def test_a_missing_field_is_named(tmp_path: Path, case_text: CaseText, field: str) -> None:
    lines = [line for line in case_text().splitlines() if not line.startswith(f"{field}:")]
    path = tmp_path / "missing.yaml"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    error = load_error(path)
    assert f'"{field}" is a required property' in error.message
    assert error.location.file == str(path)
    assert error.location.line == 1


def test_a_case_needs_a_pack(tmp_path: Path, case_text: CaseText) -> None:
    text = case_text(body="load: true\n")
    path = tmp_path / "no-pack.yaml"
    path.write_text(text.split("pack:\n")[0] + "load: true\n", "utf-8")
    error = load_error(path)
    assert str(error).startswith(f"{path}:1:1 at /:")


@pytest.mark.parametrize(
    "change",  # (old text, new text, JSON pointer, words of the message)
    [
        ("level: 2", "level: two", "/level", '"two" is not of type "integer"'),
        ("level: 2", "level: 4", "/level", "4 is greater than the maximum of 3"),
        ("requirement: MUST", "requirement: must", "/requirement", '"must"'),
        ("rules: [X4]", "rules: X4", "/rules", '"X4" is not of type "array"'),
        ('spec_versions: [">=1.5"]', "spec_versions: [1.5]", "/spec_versions/0", "1.5"),
        ('spec_versions: [">=1.5"]', 'spec_versions: ["1.5+"]', "/spec_versions/0", "1.5+"),
        ("area: workflow", "area: workflows", "/area", '"workflows"'),
        (
            "          transition:",
            "          transition: 3\n          x:",
            "/scenarios/0/steps/0/expect",
            "",
        ),
    ],
)
def test_a_wrong_type_or_value_names_the_field_and_its_line(
    tmp_path: Path, case_text: CaseText, change: tuple[str, str, str, str]
) -> None:
    old, new, pointer, words = change
    text = case_text()
    assert old in text
    path = tmp_path / "wrong.yaml"
    path.write_text(text.replace(old, new, 1), "utf-8")
    error = load_error(path)
    assert error.location.pointer is not None
    assert error.location.pointer.startswith(pointer)
    assert f"field {error.location.pointer}:" in error.message
    assert words in error.message
    assert error.location.line == line_of(path, new.split("\n", maxsplit=1)[0].strip())
    assert str(error).startswith(f"{path}:{error.location.line}:")
    assert error.hint == "see schema/case.schema.json for the case format"


def test_an_unknown_step_key_names_the_step(tmp_path: Path, case_text: CaseText) -> None:
    path = tmp_path / "step.yaml"
    path.write_text(
        case_text().replace("      - event: Submit\n", "      - event: Submit\n        wait: 3\n"),
        "utf-8",
    )
    error = load_error(path)
    assert error.location.pointer == "/scenarios/0/steps/0"
    assert error.location.line == line_of(path, "- event: Submit")
    assert "'wait' was unexpected" in error.message


def test_an_unknown_top_level_key_is_named(tmp_path: Path, case_text: CaseText) -> None:
    path = tmp_path / "extra.yaml"
    path.write_text(case_text() + "expectations: {}\n", "utf-8")
    error = load_error(path)
    assert "'expectations' was unexpected" in error.message


def test_the_id_must_start_with_the_area(tmp_path: Path, case_text: CaseText) -> None:
    path = tmp_path / "area.yaml"
    path.write_text(case_text("loops.test.misfiled", area="workflow"), "utf-8")
    error = load_error(path)
    assert error.location.pointer == "/id"
    assert error.location.line == 1
    assert str(error) == f"{path}:1:5 at /id: the id must start with its area, 'workflow'"


def test_a_pack_file_outside_the_catalog_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(PACK_YAML, "utf-8")
    root = tmp_path / "catalog"
    (root / "workflow").mkdir(parents=True)
    path = root / "workflow" / "escape.yaml"
    path.write_text(pack_file_case("../../outside.yaml"), "utf-8")
    error = load_error(path, root)
    assert error.location.pointer == "/pack_file"
    assert error.location.line == line_of(path, "pack_file:")
    assert "pack_file '../../outside.yaml' points outside the catalog" in error.message
    assert error.hint == "keep pack files inside the catalog folder"
    # Without a catalog root, the case's own folder is the boundary.
    (root / "packs").mkdir()
    (root / "packs" / "p.yaml").write_text(PACK_YAML, "utf-8")
    path.write_text(pack_file_case("../packs/p.yaml"), "utf-8")
    assert load_case(path, root).pack.source == "packs/p.yaml"
    assert "points outside the catalog" in str(load_error(path))


def test_a_symlinked_pack_file_cannot_escape(tmp_path: Path) -> None:
    (tmp_path / "outside.yaml").write_text(PACK_YAML, "utf-8")
    root = tmp_path / "catalog"
    (root / "packs").mkdir(parents=True)
    (root / "packs" / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    path = root / "case.yaml"
    path.write_text(pack_file_case("packs/link.yaml"), "utf-8")
    assert "points outside the catalog" in str(load_error(path, root))


def test_a_missing_pack_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(pack_file_case("packs/nowhere.yaml"), "utf-8")
    error = load_error(path)
    assert error.location.pointer == "/pack_file"
    assert "cannot read pack_file" in error.message
    assert "nowhere.yaml" in error.message


@pytest.mark.parametrize("pack_file", ["/etc/passwd.yaml", "pack.txt"])
def test_pack_file_paths_are_relative_yaml_or_json(tmp_path: Path, pack_file: str) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(pack_file_case(pack_file), "utf-8")
    assert load_error(path).location.pointer == "/pack_file"


# -- the catalog --------------------------------------------------------------------------------


def test_a_duplicate_id_across_two_files_names_both(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog(
        {
            "workflow/one.yaml": case_text(
                "workflow.test.same", description="The first description"
            ),
            "workflow/two.yaml": case_text(
                "workflow.test.same", description="The second description"
            ),
        }
    )
    with pytest.raises(CaseError) as caught:
        load_catalog(root)
    text = str(caught.value)
    assert text.startswith(f"{root / 'workflow' / 'two.yaml'}:1:5 at /id: ")
    assert f"id 'workflow.test.same' is already used by {root / 'workflow' / 'one.yaml'}" in text


def test_a_duplicate_description_is_refused(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog(
        {
            "workflow/one.yaml": case_text("workflow.test.one", description="Said the same way"),
            "loops/two.yaml": case_text("loops.test.two", description="Said the same way"),
        }
    )
    with pytest.raises(CaseError, match=r"description 'Said the same way' is already used by"):
        load_catalog(root)


def test_a_catalog_with_one_broken_case_fails_naming_it(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    root = write_catalog(
        {
            "workflow/good.yaml": case_text("workflow.test.good"),
            "workflow/broken.yaml": case_text("workflow.test.broken").replace(
                "level: 2", "level: -1"
            ),
        }
    )
    with pytest.raises(
        CaseError, match=re.escape(str(root / "workflow" / "broken.yaml")) + ":4:8 at /level"
    ):
        load_catalog(root)


@pytest.fixture
def small_catalog(write_catalog: WriteCatalog, case_text: CaseText) -> Catalog:
    root = write_catalog(
        {
            "workflow/b.yaml": case_text("workflow.exec.b", level=2),
            "workflow/a.yaml": case_text("workflow.load.a", level=0, body="load: true\n"),
            "loops/c.yaml": case_text("loops.exec.c", level=1, requirement="SHOULD"),
            "loops/packs/not-a-case.yaml": "id: [this is not a case\n",
        }
    )
    return load_catalog(root)


def test_a_catalog_is_sorted_by_id(small_catalog: Catalog) -> None:
    assert [c.id for c in small_catalog.cases] == [
        "loops.exec.c",
        "workflow.exec.b",
        "workflow.load.a",
    ]
    assert small_catalog.get("workflow.exec.b") is not None
    assert small_catalog.get("workflow.exec") is None


@pytest.mark.parametrize(
    ("filters", "ids"),
    [
        ({}, ["loops.exec.c", "workflow.exec.b", "workflow.load.a"]),
        ({"areas": ("workflow",)}, ["workflow.exec.b", "workflow.load.a"]),
        ({"levels": (0, 1)}, ["loops.exec.c", "workflow.load.a"]),
        ({"requirements": ("SHOULD",)}, ["loops.exec.c"]),
        ({"ids": ("*.exec.*",)}, ["loops.exec.c", "workflow.exec.b"]),
        ({"ids": ("workflow.load.a", "loops.*")}, ["loops.exec.c", "workflow.load.a"]),
        ({"areas": ("workflow",), "levels": (2,)}, ["workflow.exec.b"]),
        ({"areas": ("compositions",)}, []),
        ({"spec_version": "1.4"}, []),
    ],
)
def test_select_filters(small_catalog: Catalog, filters: dict[str, Any], ids: list[str]) -> None:
    selection = Selection(**filters)
    assert [c.id for c in small_catalog.select(selection)] == ids
    assert selection.partial == any(key != "spec_version" for key in filters)


def test_spec_versions_decide_which_runs_take_a_case(
    write_catalog: WriteCatalog, case_text: CaseText
) -> None:
    def case(case_id: str, versions: str) -> str:
        return case_text(case_id).replace('spec_versions: [">=1.5"]', f"spec_versions: {versions}")

    root = write_catalog(
        {
            "workflow/a.yaml": case("workflow.v.since-1-3", '[">=1.3"]'),
            "workflow/b.yaml": case("workflow.v.only-1-5", '["1.5"]'),
            "workflow/c.yaml": case("workflow.v.until-1-8", '[">=1.4.1 <1.8"]'),
        }
    )
    catalog = load_catalog(root)

    def ids(version: str) -> list[str]:
        return [c.id for c in catalog.select(Selection(spec_version=version))]

    assert ids("1.3") == ["workflow.v.since-1-3"]
    assert ids("1.4") == ["workflow.v.since-1-3"]
    assert ids("1.4.1") == ["workflow.v.since-1-3", "workflow.v.until-1-8"]
    assert ids("1.5") == ["workflow.v.only-1-5", "workflow.v.since-1-3", "workflow.v.until-1-8"]
    assert ids("1.5.2") == ids("1.5")
    assert ids("1.8") == ["workflow.v.since-1-3"]


def test_scenario_names_are_unique_and_not_part_names(tmp_path: Path, case_text: CaseText) -> None:
    twice = """\
scenarios:
  - name: go
    steps: [{event: Submit}]
  - name: go
    steps: [{event: Submit}]
"""
    path = tmp_path / "twice.yaml"
    path.write_text(case_text(body=twice), "utf-8")
    with pytest.raises(
        CaseError, match=r"twice.yaml:\d+:\d+ at /scenarios/1/name: scenario name 'go'"
    ):
        load_case(path)
    for reserved in ("load", "validation"):
        path.write_text(case_text(body=twice.replace("go", reserved, 1)), "utf-8")
        with pytest.raises(CaseError, match="/scenarios/0/name"):
            load_case(path)


SAME_AS = """\
scenarios:
  - name: go
    steps:
      - event: Submit
        expect:
          any_of:
            - {state: review, visit_counts: {draft: 1, review: {$same_as: /draft}}}
            - {state: review, visit_counts: {draft: 1, review: {$same_as: POINTER}}}
"""


def test_a_same_as_pointer_to_nothing_names_its_file_and_line(
    tmp_path: Path, case_text: CaseText
) -> None:
    path = tmp_path / "same.yaml"
    path.write_text(case_text(body=SAME_AS.replace("POINTER", "/reviews")), "utf-8")
    error = load_error(path)
    line = line_of(path, "/reviews")
    assert str(error).startswith(f"{path}:{line}:"), str(error)
    assert "at /scenarios/0/steps/0/expect/any_of/1/visit_counts/review/$same_as" in str(error)
    assert "'/reviews' names 'reviews' at the top, which the expectation does not hold" in str(
        error
    )
    assert "docs/cases.md" in str(error)
    path.write_text(case_text(body=SAME_AS.replace("POINTER", "/review")), "utf-8")
    assert "holding this $same_as itself" in str(load_error(path))
    path.write_text(case_text(body=SAME_AS.replace("POINTER", "/draft")), "utf-8")
    assert load_case(path).scenarios[0].steps[0].expect is not None
    path.write_text(case_text(body=SAME_AS.replace("POINTER", "draft")), "utf-8")
    assert "/$same_as" in str(load_error(path))  # the schema's pattern


def test_the_built_in_catalog_loads(catalog: Catalog) -> None:
    assert catalog.cases
    assert len({c.id for c in catalog.cases}) == len(catalog.cases)
    assert all(c.id.startswith(c.area + ".") for c in catalog.cases)
    assert all(c.source and not Path(c.source).is_absolute() for c in catalog.cases)
