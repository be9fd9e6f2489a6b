"""Tests of safe loading (SEMANTICS.md section 1, L1-L5): reference/_loading/."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from reference import (
    Document,
    Limits,
    Location,
    PackLoadError,
    load_pack,
    load_pack_string,
    parse_document,
    read_document,
    read_pack,
)
from reference._loading import yaml_composer, yaml_reader

# -- helpers ----------------------------------------------------------------------------------

# Each example is read by PyYAML's own parser too, which a busy machine can make slow.
SETTINGS = settings(deadline=None)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, params=["libyaml", "pyyaml"])
def yaml_parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type:
    """Run every test with libyaml's parser and again with PyYAML's own (the fallback)."""
    if request.param == "pyyaml":
        monkeypatch.setattr(yaml_reader, "PARSER", yaml_reader.PurePythonParser)
    elif not yaml.__with_libyaml__:
        pytest.skip("this PyYAML is built without libyaml")
    return yaml_reader.PARSER


JSON_SCALARS = (str, int, float, bool, type(None))


def assert_json_compatible(value: Any, pointer: str = "") -> None:
    """Fail unless ``value`` is made only of JSON types (objects with string keys, lists ...)."""
    if isinstance(value, dict):
        for key, child in value.items():
            assert isinstance(key, str), f"non-string key {key!r} at {pointer or '/'}"
            assert_json_compatible(child, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            assert_json_compatible(child, f"{pointer}/{index}")
    else:
        assert type(value) in JSON_SCALARS, f"{type(value).__name__} at {pointer or '/'}"


def load_error(text: str | bytes, **kwargs: Any) -> PackLoadError:
    """Parse ``text`` and return the PackLoadError it must raise."""
    with pytest.raises(PackLoadError) as caught:
        parse_document(text, **kwargs)
    error = caught.value
    assert error.message, "a load error says what is wrong"
    return error


def where(error: PackLoadError) -> tuple[int | None, int | None]:
    return error.location.line, error.location.column


# A small codegen-like pack, written out three times: as Python data, YAML and JSON.
PACK: dict[str, Any] = {
    "id": "codegen",
    "name": "Codegen loop",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {
        "coder": {
            "id": "coder",
            "name": "Coder",
            "version": "1.0.0",
            "system_template": "Write code.\nLast: {{artifacts.commit_sha}}\n",
            "parameters": {"temperature": 0.2, "max_tokens": 1000, "stream": False},
            "tools": ["write_file", "read_file"],
        },
    },
    "workflow": {
        "version": 2,
        "entry": "implement",
        "engine": {"budget": {"max_total_visits": 30}},
        "states": {
            "implement": {
                "prompt_task": "coder",
                "max_visits": 3,
                "on_max_visits": "done",
                "description": None,
                "artifacts": {"commit_sha": {"type": "text/plain", "mode": "replace"}},
                "on_event": {"CodeReady": "implement", "Finished": "done"},
            },
            "done": {"prompt_task": "coder", "terminal": True},
        },
    },
}

PACK_YAML = """\
# a comment
id: codegen
name: Codegen loop
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  coder:
    id: coder
    name: 'Coder'
    version: "1.0.0"
    system_template: |
      Write code.
      Last: {{artifacts.commit_sha}}
    parameters:
      temperature: 0.2
      max_tokens: 1000
      stream: false
    tools: [write_file, read_file]
workflow:
  version: 2
  entry: implement
  engine:
    budget:
      max_total_visits: 30
  states:
    implement:
      prompt_task: coder
      max_visits: 3
      on_max_visits: done
      description: ~
      artifacts:
        commit_sha: {type: text/plain, mode: replace}
      on_event:
        CodeReady: implement
        Finished: done
    done:
      prompt_task: coder
      terminal: true
"""

PACK_JSON = """\
{
  "id": "codegen",
  "name": "Codegen loop",
  "version": "1.0.0",
  "template_engine": {"version": "v1", "syntax": "{{variable}}"},
  "prompts": {
    "coder": {
      "id": "coder",
      "name": "Coder",
      "version": "1.0.0",
      "system_template": "Write code.\\nLast: {{artifacts.commit_sha}}\\n",
      "parameters": {"temperature": 0.2, "max_tokens": 1000, "stream": false},
      "tools": ["write_file", "read_file"]
    }
  },
  "workflow": {
    "version": 2,
    "entry": "implement",
    "engine": {"budget": {"max_total_visits": 30}},
    "states": {
      "implement": {
        "prompt_task": "coder",
        "max_visits": 3,
        "on_max_visits": "done",
        "description": null,
        "artifacts": {"commit_sha": {"type": "text/plain", "mode": "replace"}},
        "on_event": {"CodeReady": "implement", "Finished": "done"}
      },
      "done": {"prompt_task": "coder", "terminal": true}
    }
  }
}
"""


# -- L1: JSON and YAML load to the same document ----------------------------------------------


def test_json_and_yaml_of_the_same_pack_load_to_equal_dicts() -> None:
    from_yaml = load_pack_string(PACK_YAML, format="yaml")
    from_json = load_pack_string(PACK_JSON, format="json")
    assert from_yaml == PACK
    assert from_json == PACK
    assert_json_compatible(from_yaml)


def test_json_and_yaml_files_load_to_equal_dicts(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(PACK_YAML, encoding="utf-8")
    (tmp_path / "pack.yml").write_text(PACK_YAML, encoding="utf-8")
    (tmp_path / "pack.json").write_text(PACK_JSON, encoding="utf-8")
    loaded = [load_pack(str(tmp_path / name)) for name in ("pack.yaml", "pack.yml", "pack.json")]
    assert loaded == [PACK, PACK, PACK]
    assert read_pack(str(tmp_path / "pack.json")).format == "json"
    assert read_pack(str(tmp_path / "pack.yaml")).format == "yaml"


def test_format_is_guessed_from_the_text_when_not_given() -> None:
    assert parse_document(PACK_JSON).format == "json"
    assert parse_document(PACK_YAML).format == "yaml"
    assert load_pack_string(PACK_JSON) == load_pack_string(PACK_YAML) == PACK


def test_a_json_file_is_read_as_json_whatever_its_content(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_text("id: codegen\n", encoding="utf-8")  # YAML, but the extension says JSON
    with pytest.raises(PackLoadError) as caught:
        read_document(path)
    assert "JSON" in caught.value.message
    assert read_document(path, format="yaml").data == {"id": "codegen"}


# JSON is YAML 1.2: the same JSON text read either way gives the same data.
# (Exponent numbers and characters beyond U+FFFF have their own test below.)
_bmp_text = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), max_size=20)
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: "e" not in repr(x))
    | _bmp_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_bmp_text, children, max_size=4)
    ),
    max_leaves=20,
)


@SETTINGS
@given(st.dictionaries(_bmp_text, _json_values, max_size=5))
def test_json_text_reads_the_same_as_json_and_as_yaml(value: dict[str, Any]) -> None:
    text = json.dumps(value)
    assert parse_document(text, format="json").data == value
    assert parse_document(text, format="yaml").data == value


@pytest.mark.parametrize(
    "text",
    [
        '{"n": 1e3}',
        '{"n": 1E-2}',
        '{"n": 1.5e10}',
        json.dumps({"s": "\U0001f600"}),  # {"s": "\ud83d\ude00"}
    ],
)
def test_json_text_with_exponents_and_astral_escapes_reads_the_same_as_yaml(text: str) -> None:
    assert parse_document(text, format="yaml").data == parse_document(text, format="json").data


# -- libyaml, and the fast reader beside the composing loader ---------------------------------


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="this PyYAML is built without libyaml")
def test_libyaml_is_the_parser_in_use_when_pyyaml_has_it(
    yaml_parser: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yaml._yaml import CParser  # noqa: PLC0415

    assert yaml_reader.libyaml_parser() is CParser
    monkeypatch.undo()  # the parser chosen at import time, whichever run this is
    assert yaml_reader.PARSER is CParser
    used: list[str] = []

    class Spy(CParser):
        def __init__(self, stream: str) -> None:
            used.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(yaml_reader, "PARSER", Spy)
    document = parse_document("a: 1\n", format="yaml")
    assert used == ["a: 1\n"]
    assert document.locate("/a").line == 1


def test_without_libyaml_pyyaml_parser_is_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml._yaml", None)  # import yaml._yaml now fails
    assert yaml_reader.libyaml_parser() is None


def _strict(value: Any) -> str:
    """JSON text that tells ``1`` from ``1.0`` and ``True``, and keeps key order."""
    return json.dumps(value, ensure_ascii=False)


def _assert_read_alike(text: str) -> bool:
    """Check that the fast reader gives the composing loader's data, or leaves it the text.

    The fast reader must never accept what the composing loader refuses. Returns whether the
    fast reader read the text itself.
    """
    parser, limits = yaml_reader.PARSER, reference.DEFAULT_LIMITS
    try:
        composed = yaml_composer.compose_and_construct(text, None, limits, parser)
    except (PackLoadError, yaml.YAMLError):
        composed = refused = PackLoadError
    try:
        fast = yaml_reader.build(parser(text), limits)
    except yaml_reader.Fallback:
        return False  # parse_document then returns what the composing loader says
    except yaml.YAMLError:
        assert composed is refused, text
        return False
    assert _strict(fast) == _strict(composed), text
    return True


def test_fast_reader_and_composing_loader_agree_on_every_catalog_and_example_file(
    yaml_parser: type,
) -> None:
    if yaml_parser is yaml_reader.PurePythonParser:
        pytest.skip("the same events as libyaml's, several times slower")
    paths = sorted([*ROOT.glob("cases/**/*.yaml"), *ROOT.glob("examples/**/*.yaml")])
    assert len(paths) > 100
    fell_back = [p for p in paths if not _assert_read_alike(p.read_text(encoding="utf-8"))]
    # Only the catalog's packs with a duplicate key need the composing loader (to refuse them).
    assert fell_back
    for path in fell_back:
        with pytest.raises(PackLoadError, match="duplicate key"):
            parse_document(path.read_text(encoding="utf-8"), format="yaml")


_PLAIN_SCALARS = st.sampled_from(
    [
        *("true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "yes", "no", "on", "off"),
        *("~", "null", "Null", "NULL", "nULL", "", "0", "-0", "+0", "017", "0o17", "0x1F"),
        *("0X1F", "-0x1F", "0b101", "1_000", "12:30", "1e3", "1E-2", "-1.5e+10", ".5", "5."),
        *("+.5", "-.5e1", ".", "1.0.0", "2024-01-01", "a", "-a", "+", "1e", "0o8", "0xG"),
        *(".inf", "-.Inf", ".NaN", "1e999", "9" * 400, "1" + "0" * 320 + ".0", "4" * 5000),
    ]
)


@SETTINGS
@given(st.lists(_PLAIN_SCALARS, min_size=1, max_size=6))
def test_fast_reader_resolves_plain_scalars_as_the_composing_loader(scalars: list[str]) -> None:
    _assert_read_alike("".join(f"k{i}: {s}\n" for i, s in enumerate(scalars)))
    _assert_read_alike("[" + ", ".join(s or "''" for s in scalars) + "]")
    _assert_read_alike("".join(f"{s or '~'}: x\n" for s in scalars))


@SETTINGS
@given(_json_values, st.sampled_from([None, True, False]))
def test_fast_reader_reads_dumped_yaml_as_the_composing_loader(
    value: Any, flow_style: bool | None
) -> None:
    _assert_read_alike(yaml.safe_dump(value, default_flow_style=flow_style, allow_unicode=True))


# -- YAML 1.2-style scalars -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scalar", "expected"),
    [
        ("yes", "yes"),
        ("Yes", "Yes"),
        ("no", "no"),
        ("on", "on"),
        ("ON", "ON"),
        ("off", "off"),
        ("y", "y"),
        ("n", "n"),
        ("true", True),
        ("True", True),
        ("false", False),
        ("FALSE", False),
        ("2024-01-01", "2024-01-01"),
        ("2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00"),
        ("~", None),
        ("null", None),
        ("42", 42),
        ("-7", -7),
        ("0.5", 0.5),
        ("1.0.0", "1.0.0"),
        ('"true"', "true"),
        ("'2024-01-01'", "2024-01-01"),
    ],
)
def test_yaml_scalars_follow_yaml_1_2(scalar: str, expected: Any) -> None:
    data = parse_document(f"value: {scalar}\n", format="yaml").data
    assert data == {"value": expected}
    assert type(data["value"]) is type(expected)


@pytest.mark.parametrize("scalar", ["12:30:00", "1:20", "="])
def test_yaml_1_1_only_scalars_stay_strings(scalar: str) -> None:
    assert parse_document(f"value: {scalar}\n", format="yaml").data == {"value": scalar}


def test_yaml_dates_stay_strings_also_as_keys_and_in_lists() -> None:
    data = parse_document("2024-01-01: [2024-01-02, yes]\n", format="yaml").data
    assert data == {"2024-01-01": ["2024-01-02", "yes"]}


# -- L4: duplicate keys -----------------------------------------------------------------------


def test_yaml_duplicate_top_level_key() -> None:
    error = load_error("id: a\nname: b\nid: c\n", format="yaml", source="pack.yaml")
    assert "'id'" in error.message
    assert "line 1" in error.message  # where the first one is
    assert error.location == Location("pack.yaml", 3, 1)
    assert error.hint


def test_yaml_duplicate_nested_key() -> None:
    text = "workflow:\n  states:\n    plan:\n      prompt_task: a\n      prompt_task: b\n"
    error = load_error(text, format="yaml")
    assert "'prompt_task'" in error.message
    assert where(error) == (5, 7)


def test_yaml_duplicate_key_in_a_flow_mapping() -> None:
    error = load_error("a: 1\nb: {x: 1, y: 2, x: 3}\n", format="yaml")
    assert "'x'" in error.message
    assert where(error) == (2, 17)


def test_yaml_duplicate_key_written_differently() -> None:
    error = load_error("a: 1\n'a': 2\n", format="yaml")
    assert "'a'" in error.message
    assert where(error) == (2, 1)


def test_json_duplicate_top_level_key() -> None:
    error = load_error('{"id": "a",\n "name": "b",\n "id": "c"}', format="json", source="p.json")
    assert "'id'" in error.message
    assert error.location == Location("p.json", 3, 2)
    assert error.hint


def test_json_duplicate_nested_key() -> None:
    text = '{"workflow": {\n  "states": {\n    "plan": {"prompt_task": "a",\n' + (
        '              "prompt_task": "b"}}}}'
    )
    error = load_error(text, format="json")
    assert "'prompt_task'" in error.message
    assert where(error) == (4, 15)


def test_json_duplicate_key_in_an_object_inside_a_list() -> None:
    text = '{"a": [{"k": 1}, {"k": 1, "j": 2,\n "k": 3}], "k": 0}'
    error = load_error(text, format="json")
    assert "'k'" in error.message
    assert where(error) == (2, 2)


def test_json_duplicate_key_written_with_an_escape() -> None:
    error = load_error('{"a": 1, "b": {"a": 2}, "\\u0061": 3}', format="json")
    assert "'a'" in error.message
    assert where(error) == (1, 25)


def test_json_key_that_repeats_only_across_objects_is_fine() -> None:
    data = parse_document('{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}', format="json").data
    assert data == {"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}


# -- keys and numbers outside JSON ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("a: 1\n1: x\n", (2, 1)),
        ("a: 1\nnull: x\n", (2, 1)),
        ("a: 1\ntrue: x\n", (2, 1)),
        ("a: 1\n1.5: x\n", (2, 1)),
        ("a:\n  ? [1, 2]\n  : x\n", (2, 5)),
        ("a: {b: {3: x}}\n", (1, 9)),
    ],
)
def test_yaml_non_string_key_is_refused(text: str, position: tuple[int, int]) -> None:
    error = load_error(text, format="yaml")
    assert "not a string" in error.message
    assert where(error) == position


def test_yaml_quoted_number_key_is_a_string() -> None:
    assert parse_document("'1': x\n", format="yaml").data == {"1": "x"}


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_refused(constant: str) -> None:
    error = load_error(f'{{"a": 1,\n "b": [{constant}]}}', format="json")
    assert constant.lstrip("-") in error.message


def test_json_nan_error_says_where() -> None:
    error = load_error('{"a": 1,\n "b": [NaN]}', format="json")
    assert where(error) == (2, 8)


@pytest.mark.parametrize("constant", [".inf", "-.inf", "+.INF", ".Inf", ".nan", ".NaN"])
def test_yaml_infinities_and_nan_are_refused(constant: str) -> None:
    error = load_error(f"a: 1\nb: [x, {constant}]\n", format="yaml")
    assert constant in error.message
    assert where(error) == (2, 8)


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('{"a": 1e999}', (1, 7)),
        ('{"s": "1e999",\n "a": [1, -1E+400]}', (2, 11)),
        ("[1e400]", (1, 2)),
        ('{"n": ' + "1" * 400 + ".0}", (1, 7)),
    ],
)
def test_json_numbers_that_overflow_to_infinity_are_refused_like_nan(
    text: str, position: tuple[int, int]
) -> None:
    error = load_error(text, format="json")
    assert "infinity" in error.message
    assert where(error) == position


def test_json_integers_past_the_digit_limit_are_refused_with_a_position() -> None:
    error = load_error('{"n": "2",\n "m": ' + "7" * (sys.get_int_max_str_digits() + 1) + "}")
    assert "digits" in error.message
    assert where(error) == (2, 7)


def test_json_numbers_near_the_float_limit_are_kept() -> None:
    assert parse_document('{"a": 1e308, "b": -1.7e308}', format="json").data == {
        "a": 1e308,
        "b": -1.7e308,
    }


@pytest.mark.parametrize("number", ["1e999", "-1E+400", "1" * 400 + ".0"])
def test_yaml_numbers_that_overflow_to_infinity_are_refused(number: str) -> None:
    error = load_error(f"a: 1\nb: {number}\n", format="yaml")
    assert "finite" in error.message
    assert where(error) == (2, 4)


def test_yaml_quoted_inf_is_a_string() -> None:
    assert parse_document("a: '.inf'\n", format="yaml").data == {"a": ".inf"}


# -- encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["json", "yaml"])
def test_invalid_utf8_gives_the_position_of_the_bad_byte(format: str) -> None:
    text = b'{"id": "a",\n "name": "b\xffc"}' if format == "json" else b"id: a\nname: b\xffc\n"
    column = 12 if format == "json" else 8
    error = load_error(text, format=format, source="bad")
    assert "UTF-8" in error.message
    assert "0xff" in error.message
    assert error.location == Location("bad", 2, column)


def test_invalid_utf8_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_bytes(b"id: a\nname: ok\ndescription: caf\xe9\n")  # Latin-1, not UTF-8
    with pytest.raises(PackLoadError) as caught:
        read_pack(str(path))
    assert caught.value.location == Location(str(path), 3, 17)


def test_truncated_utf8_sequence_at_the_end() -> None:
    error = load_error(b"id: a\nname: \xe2\x82", format="yaml")
    assert "UTF-8" in error.message
    assert where(error) == (2, 7)


@pytest.mark.parametrize("format", ["json", "yaml"])
def test_byte_order_mark_is_accepted(format: str) -> None:
    text = PACK_JSON if format == "json" else PACK_YAML
    assert load_pack_string(b"\xef\xbb\xbf" + text.encode(), format=format) == PACK
    assert load_pack_string(b"\xef\xbb\xbf" + text.encode()) == PACK  # format guessed


def test_byte_order_mark_in_files(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_bytes(b"\xef\xbb\xbf" + PACK_JSON.encode())
    (tmp_path / "p.yaml").write_bytes(b"\xef\xbb\xbf" + PACK_YAML.encode())
    assert load_pack(str(tmp_path / "p.json")) == load_pack(str(tmp_path / "p.yaml")) == PACK


def test_non_ascii_text_is_kept() -> None:
    data = parse_document("name: Café ☕ 😀\n".encode(), format="yaml").data
    assert data == {"name": "Café ☕ 😀"}


@pytest.mark.parametrize(
    ("text", "format"),
    [('{"\\ud800": 1}', "json"), ('"\\ud800": 1\n', "yaml"), ('{"a": "x\\udc00"}', "json")],
)
def test_lone_surrogate_escapes_are_refused(text: str, format: str) -> None:
    load_error(text, format=format)


@pytest.mark.parametrize(
    ("text", "position", "character"),
    [
        ("a: b\x00\n", (1, 5), "U+0000"),
        ("a: 1\nb: \x07x\n", (2, 4), "U+0007"),
        ("a: 'quoted \x1b'\n", (1, 12), "U+001B"),
        ("# a comment \x7f\na: 1\n", (1, 13), "U+007F"),
        ("a: \u00e9\x9b\n", (1, 5), "U+009B"),
        ("a: \ufffe\n", (1, 4), "U+FFFE"),
    ],
)
def test_yaml_control_characters_are_refused_with_their_position(
    text: str, position: tuple[int, int], character: str
) -> None:
    error = load_error(text.encode(), format="yaml", source="p.yaml")
    assert character in error.message
    assert where(error) == position
    assert error.hint


def test_yaml_allowed_controls_and_escaped_ones_are_read() -> None:
    text = 'a: "tab\there, escaped NUL \\0"\nb: next line \u0085\r\n'
    assert parse_document(text, format="yaml").data == {
        "a": "tab\there, escaped NUL \x00",
        "b": "next line",
    }


def test_a_nul_in_a_yaml_file_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_bytes(b"id: a\nname: b\x00c\n")
    with pytest.raises(PackLoadError) as caught:
        load_pack(str(path))
    assert caught.value.location == Location(str(path), 2, 8)


# -- documents and tags -----------------------------------------------------------------------


def test_multiple_yaml_documents_are_refused() -> None:
    error = load_error("id: a\n---\nid: b\n", format="yaml")
    assert "document" in error.message
    assert error.location.line == 2


def test_an_empty_second_yaml_document_is_refused() -> None:
    load_error("id: a\n---\n", format="yaml")


def test_one_yaml_document_with_markers_is_fine() -> None:
    assert parse_document("---\nid: a\n...\n", format="yaml").data == {"id": "a"}


def test_python_tags_are_refused_and_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payloads = [
        f"id: !!python/object/apply:os.system ['touch {marker}']\n",
        f"!!python/object/apply:os.system ['touch {marker}']\n",
        f"id: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n",
        f"id: !!python/object/new:os.system ['touch {marker}']\n",
        "id: !!python/name:os.system\n",
        "id: !!python/module:os\n",
    ]
    for payload in payloads:
        error = load_error(payload, format="yaml")
        assert "python/" in error.message, payload
    assert not marker.exists()


def test_python_tag_in_a_file_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "pack.yaml"
    path.write_text(f"id: a\nname: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(PackLoadError) as caught:
        load_pack(str(path))
    assert caught.value.location.file == str(path)
    assert caught.value.location.line == 2
    assert not marker.exists()


@pytest.mark.parametrize("tag", ["!custom", "!<tag:example.com,2024:x>", "!!nonsense"])
def test_unknown_tags_are_refused(tag: str) -> None:
    error = load_error(f"a: 1\nb: {tag} 1\n", format="yaml")
    assert error.location.line == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !!str 1", {"a": "1"}),
        ("a: !!str true", {"a": "true"}),
        ('a: !!int "7"', {"a": 7}),
        ("a: !!float 1", {"a": 1.0}),
        ("a: !!null ''", {"a": None}),
        ("a: !!map {b: 1}", {"a": {"b": 1}}),
        ("a: !!seq [1]", {"a": [1]}),
    ],
)
def test_core_schema_tags_are_honoured(text: str, expected: dict[str, Any]) -> None:
    assert parse_document(text, format="yaml").data == expected


@pytest.mark.parametrize(
    "text",
    [
        "a: !!binary aGVsbG8=",
        "a: !!set {x, y}",
        "a: !!timestamp 2024-01-01",
        "a: !!omap [x: 1, y: 2]",
        "a: !!pairs [x: 1]",
    ],
)
def test_tags_outside_the_json_data_model_are_refused(text: str) -> None:
    # bytes, sets, dates and tuples would reach tools that only handle JSON data
    error = load_error(f"id: x\n{text}\n", format="yaml")
    assert text.split()[1] in error.message
    assert where(error) == (2, 4)


# -- roots ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("", None),
        ("# only a comment\n", None),
        ("---\n...\n", None),
        ("42\n", 42),
        ("just text\n", "just text"),
        ("- a\n- b\n", ["a", "b"]),
        ("true\n", True),
    ],
)
def test_read_document_returns_any_root_but_packs_must_be_mappings(
    tmp_path: Path, text: str, data: Any
) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    assert read_document(path).data == data
    assert parse_document(text, format="yaml").data == data
    for load in (read_pack, load_pack):
        with pytest.raises(PackLoadError) as caught:
            load(str(path))
        error = caught.value
        assert "mapping" in error.message
        assert error.location.file == str(path)
        assert error.hint
    with pytest.raises(PackLoadError):
        load_pack_string(text, format="yaml")


@pytest.mark.parametrize("text", ["[1, 2]", '"text"', "3.5", "null", ""])
def test_json_non_object_roots(text: str) -> None:
    if text:
        assert parse_document(text, format="json").data == json.loads(text)
    with pytest.raises(PackLoadError):
        load_pack_string(text, format="json")


def test_root_error_names_the_type() -> None:
    with pytest.raises(PackLoadError) as caught:
        load_pack_string("- a\n", format="yaml")
    assert "list" in caught.value.message
    with pytest.raises(PackLoadError) as caught:
        load_pack_string("", format="yaml")
    assert "null" in caught.value.message


# -- L5: size, depth, aliases -----------------------------------------------------------------


def test_size_limit_on_text_and_bytes() -> None:
    limits = Limits(max_bytes=64)
    fits = "a: " + "x" * 60 + "\n"  # 64 bytes
    assert len(fits) == 64
    assert parse_document(fits, limits=limits).data == {"a": "x" * 60}
    assert parse_document(fits.encode(), limits=limits).data == {"a": "x" * 60}
    for too_big in (fits + " ", (fits + " ").encode()):
        error = load_error(too_big, limits=limits)
        assert "64" in error.message
        assert error.hint


def test_size_limit_on_files(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text('{"a": "' + "x" * 1000 + '"}', encoding="utf-8")
    with pytest.raises(PackLoadError) as caught:
        read_document(path, limits=Limits(max_bytes=100))
    assert "larger" in caught.value.message
    assert caught.value.location.file == str(path)
    with pytest.raises(PackLoadError):
        load_pack(str(path), limits=Limits(max_bytes=100))
    assert load_pack(str(path), limits=Limits(max_bytes=2000)) == {"a": "x" * 1000}


def test_default_size_limit_refuses_a_file_just_over_it(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: " + b"x" * reference.DEFAULT_LIMITS.max_bytes)
    with pytest.raises(PackLoadError) as caught:
        read_pack(str(path))
    assert "larger" in caught.value.message


def _nested(depth: int, open_: str, close: str, leaf: str = "") -> str:
    return open_ * depth + leaf + close * depth


@pytest.mark.parametrize("format", ["json", "yaml"])
def test_depth_limit_on_lists(format: str) -> None:
    limits = Limits(max_depth=10)
    assert parse_document(_nested(10, "[", "]"), format=format, limits=limits).data is not None
    error = load_error(_nested(11, "[", "]"), format=format, limits=limits)
    assert "10 levels" in error.message
    assert error.hint


@pytest.mark.parametrize("format", ["json", "yaml"])
def test_depth_limit_on_mappings(format: str) -> None:
    limits = Limits(max_depth=10)
    # nine mappings around an empty one: ten levels
    assert parse_document(_nested(9, '{"a": ', "}", "{}"), format=format, limits=limits).data
    error = load_error(_nested(10, '{"a": ', "}", "{}"), format=format, limits=limits)
    assert "10 levels" in error.message


def test_depth_error_in_json_points_at_the_first_value_too_deep() -> None:
    error = load_error(_nested(12, "[", "]"), format="json", limits=Limits(max_depth=10))
    assert error.location.pointer == "/0" * 10


def test_very_deep_json_nesting_is_refused_with_a_position() -> None:
    error = load_error(_nested(10_000, "[", "]"), format="json", source="deep")
    assert "256 levels" in error.message
    assert error.location == Location("deep", 1, 257)


def test_very_deep_yaml_flow_nesting_is_refused_at_the_flow_limit() -> None:
    # 900 levels: below the nesting limit that libyaml 0.2.6 and later keep in their own
    # scanner (1000), which scans a flow collection ahead of the events we compose.
    error = load_error(_nested(900, "[", "]"), format="yaml", source="deep")
    assert "64 levels" in error.message
    assert error.location == Location("deep", 1, 65)


def test_flow_nesting_past_any_limit_is_one_clear_error() -> None:
    """Our flow limit, or, scanning ahead, libyaml's own (0.2.6 and later): one error, line 1."""
    error = load_error(_nested(10_000, "[", "]"), format="yaml", source="deep")
    assert "64 levels" in error.message or "exceeded maximum nesting depth" in error.message
    assert error.location in (Location("deep", 1, 65), Location("deep", 1, 1001))


def test_very_deep_yaml_block_nesting_is_refused() -> None:
    error = load_error("- " * 10_000 + "x\n", format="yaml")
    assert "256 levels" in error.message
    assert error.location.line == 1


def test_very_deep_json_objects_are_refused() -> None:
    error = load_error(_nested(10_000, '{"a":', "}", "1"), format="json")
    assert "256 levels" in error.message
    assert error.location.line == 1


@pytest.mark.parametrize(
    "text", ["[[[1]]]", '{"a": {"b": {"c": 1}}}', '{"a": [["x"]]}'], ids=["list", "map", "mixed"]
)
def test_depth_limit_agrees_between_json_and_yaml(text: str) -> None:
    # max_depth counts mappings and sequences; scalars add no level
    limits = Limits(max_depth=3)
    assert parse_document(text, format="json", limits=limits).data == json.loads(text)
    assert parse_document(text, format="yaml", limits=limits).data == json.loads(text)
    deeper = f"[{text}]"
    load_error(deeper, format="json", limits=limits)
    load_error(deeper, format="yaml", limits=limits)


def test_aliases_that_make_a_structure_too_deep_are_refused() -> None:
    # Written, nothing is deeper than 5 levels; expanded, 'b' is 7 levels deep.
    text = "a: &a [[[[]]]]\nb: [[*a]]\n"
    expanded = {"a": [[[[]]]], "b": [[[[[[]]]]]]}
    assert parse_document(text, format="yaml", limits=Limits(max_depth=7)).data == expanded
    error = load_error(text, format="yaml", limits=Limits(max_depth=6))
    assert "6 levels" in error.message
    assert error.location.line is not None


def test_aliases_that_repeat_a_value_are_fine() -> None:
    text = "base: &base {type: text/plain, mode: append}\nx: *base\ny: [*base, *base]\n"
    data = parse_document(text, format="yaml").data
    base = {"type": "text/plain", "mode": "append"}
    assert data == {"base": base, "x": base, "y": [base, base]}


def test_merge_keys_are_ordinary_keys() -> None:
    # YAML 1.2 (and JSON) has no merge keys: `<<` is a key like any other.
    text = "base: &base {a: 1, b: 2}\nx:\n  <<: *base\n  b: 3\n"
    assert parse_document(text, format="yaml").data == {
        "base": {"a": 1, "b": 2},
        "x": {"<<": {"a": 1, "b": 2}, "b": 3},
    }


@pytest.mark.parametrize("text", ["a: &a [1, *a]\n", "a: &a {b: {c: *a}}\n", "&r [*r]\n"])
def test_recursive_alias_is_refused(text: str) -> None:
    error = load_error(text, format="yaml")
    assert "recursive" in error.message
    assert error.location.line == 1


def _billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['l0: &l0 ["lol"' + ', "lol"' * (width - 1) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused() -> None:
    error = load_error(_billion_laughs(), format="yaml", source="bomb.yaml")
    assert "alias" in error.message
    assert error.location.file == "bomb.yaml"
    assert error.location.line is not None
    assert error.hint


def test_alias_bomb_of_mappings_is_refused() -> None:
    lines = ["m0: &m0 {a: x, b: x, c: x, d: x, e: x, f: x, g: x, h: x}"]
    for i in range(1, 12):
        keys = ", ".join(f"{k}: *m{i - 1}" for k in "abcdefgh")
        lines.append(f"m{i}: &m{i} {{{keys}}}")
    error = load_error("\n".join(lines) + "\n", format="yaml")
    assert "alias" in error.message


def test_alias_expansion_limit_is_a_parameter() -> None:
    small = _billion_laughs(levels=2, width=3)  # expands to a few dozen values
    assert parse_document(small, format="yaml").data["l2"] == [[["lol"] * 3] * 3] * 3
    error = load_error(small, format="yaml", limits=Limits(max_nodes=10))
    assert "10 values" in error.message


def _values(data: Any) -> int:
    """The values of plain data as the limit counts them: every mapping, sequence and scalar,
    keys not among them."""
    if isinstance(data, dict):
        return 1 + sum(_values(v) for v in data.values())
    if isinstance(data, list):
        return 1 + sum(_values(v) for v in data)
    return 1


SAME_LIMIT = {
    "mapping": {"states": {f"s{i}": {"on_event": {"Go": f"s{i + 1}"}} for i in range(30)}},
    "list": {"items": [{"k": [1, "a", None, True]}, {"l": {"m": 2.5}}] * 10},
    "anchored": "a: &x {k: [1, 2, {j: 3}]}\nb: *x\nc: [*x, *x]\n",
    "tagged": "t: !!str tagged\nu: {v: [1, 2], w: {x: y}}\n",
}


@pytest.mark.parametrize("name", sorted(SAME_LIMIT))
def test_one_pack_meets_one_limit_whatever_its_format(name: str) -> None:
    """JSON and YAML (plain, and through the composing loader for anchors and tags) refuse a
    document at the same count of values, keys not counted: the limit is the pack's, not its
    format's."""
    given = SAME_LIMIT[name]
    data = yaml.safe_load(given) if isinstance(given, str) else given
    texts = {
        "json": json.dumps(data),
        "yaml": given if isinstance(given, str) else yaml.safe_dump(data),
    }
    count = _values(data)
    for format, text in texts.items():
        assert parse_document(text, format=format, limits=Limits(max_nodes=count)).data == data
        error = load_error(text, format=format, limits=Limits(max_nodes=count - 1))
        # "holds more than N values", or for aliases "expand the document past N values"
        assert f" {count - 1:,} values" in error.message, (format, error.message)


# -- Document.locate --------------------------------------------------------------------------

LOCATE_YAML = """\
id: p
workflow:
  states:
    a/b:
      on_event:
        Go: "c~d"
    "c~d":
      artifacts:
        - first
        - name: second
"""


@pytest.mark.parametrize(
    ("pointer", "line", "column"),
    [
        ("", 1, 1),
        ("/id", 1, 5),
        ("/workflow", 3, 3),
        ("/workflow/states/a~1b", 5, 7),
        ("/workflow/states/a~1b/on_event/Go", 6, 13),
        ("/workflow/states/c~0d", 8, 7),
        ("/workflow/states/c~0d/artifacts/0", 9, 11),
        ("/workflow/states/c~0d/artifacts/1/name", 10, 17),
    ],
)
def test_locate_gives_line_and_column_for_yaml(pointer: str, line: int, column: int) -> None:
    document = parse_document(LOCATE_YAML, format="yaml", source="p.yaml")
    assert document.locate(pointer) == Location("p.yaml", line, column, pointer)


@pytest.mark.parametrize(
    "pointer",
    ["/nope", "/workflow/states/a/b", "/workflow/states/c~0d/artifacts/5", "/id/deeper", "/x/0"],
)
def test_locate_without_a_match_keeps_only_file_and_pointer(pointer: str) -> None:
    document = parse_document(LOCATE_YAML, format="yaml", source="p.yaml")
    assert document.locate(pointer) == Location("p.yaml", pointer=pointer)


LOCATE_JSON = """\
{
  "id": "p",
  "workflow": {
    "states": {
      "a/b": {"on_event": {"Go": "c~d"}},
      "c~d": {"artifacts": [
        "x",
        {"name": "second"}
      ]},
      "\\u00e9t\\u00e9": [[], {}, "\\"quoted\\" and \\\\", -1.5e3, true, null]
    }
  },
  "caf\u00e9": {"": 1}, "after": [ 2 ]
}
"""


@pytest.mark.parametrize(
    ("pointer", "line", "column"),
    [
        ("", 1, 1),
        ("/id", 2, 9),
        ("/workflow", 3, 15),
        ("/workflow/states/a~1b", 5, 14),
        ("/workflow/states/a~1b/on_event/Go", 5, 34),
        ("/workflow/states/c~0d", 6, 14),
        ("/workflow/states/c~0d/artifacts/0", 7, 9),
        ("/workflow/states/c~0d/artifacts/1/name", 8, 18),
        ("/workflow/states/\u00e9t\u00e9/0", 10, 25),
        ("/workflow/states/\u00e9t\u00e9/1", 10, 29),
        ("/workflow/states/\u00e9t\u00e9/2", 10, 33),
        ("/workflow/states/\u00e9t\u00e9/3", 10, 54),
        ("/workflow/states/\u00e9t\u00e9/4", 10, 62),
        ("/workflow/states/\u00e9t\u00e9/5", 10, 68),
        ("/caf\u00e9/", 13, 16),  # columns count characters, not bytes
        ("/after/0", 13, 31),
    ],
)
def test_locate_gives_line_and_column_for_json(pointer: str, line: int, column: int) -> None:
    document = parse_document(LOCATE_JSON, format="json", source="p.json")
    assert document.locate(pointer) == Location("p.json", line, column, pointer)


@pytest.mark.parametrize(
    "pointer",
    ["/nope", "/id/deeper", "/workflow/states/c~0d/artifacts/2", "/after/-1", "/after/x", "/x/0"],
)
def test_locate_in_json_without_a_match_keeps_only_file_and_pointer(pointer: str) -> None:
    document = parse_document(LOCATE_JSON, format="json", source="p.json")
    assert isinstance(document, Document)
    assert document.locate(pointer) == Location("p.json", pointer=pointer)


def test_locate_in_json_of_a_scalar_document() -> None:
    document = parse_document('  "text"', format="json", source="p.json")
    assert document.locate("") == Location("p.json", 1, 3, "")
    assert document.locate("/0") == Location("p.json", pointer="/0")


def test_locate_follows_aliases_to_the_node_they_name() -> None:
    document = parse_document("a: &x\n  b: 1\nc: *x\nd: [*x]\n", format="yaml", source="p")
    assert document.locate("/c") == Location("p", 1, 4, "/c")
    assert document.locate("/c/b") == Location("p", 2, 6, "/c/b")
    assert document.locate("/d/0/b") == Location("p", 2, 6, "/d/0/b")
    assert document.locate("/d/1") == Location("p", pointer="/d/1")


@pytest.mark.parametrize("pointer", ["/l/-1", "/l/+1", "/l/ 1", "/l/2"])
def test_locate_takes_only_list_indexes_in_range(pointer: str) -> None:
    document = parse_document("l: [a, b]\n", format="yaml", source="p")
    assert document.locate(pointer) == Location("p", pointer=pointer)


def test_read_pack_locates_in_files(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(PACK_YAML, encoding="utf-8")
    document = read_pack(str(path))
    location = document.locate("/workflow/states/implement/max_visits")
    assert location == Location(str(path), 28, 19, "/workflow/states/implement/max_visits")


# -- files ------------------------------------------------------------------------------------


def test_missing_file_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "missing.yaml"
    for load in (read_document, read_pack, load_pack):
        with pytest.raises(PackLoadError) as caught:
            load(str(path))  # type: ignore[operator]
        error = caught.value
        assert "cannot read" in error.message
        assert "No such file" in error.message
        assert error.location == Location(str(path))
        assert error.hint
        assert str(path) in str(error)


def test_a_directory_is_not_a_pack(tmp_path: Path) -> None:
    with pytest.raises(PackLoadError) as caught:
        load_pack(str(tmp_path))
    assert "cannot read" in caught.value.message
    assert "directory" in caught.value.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_fifo_is_refused_at_once_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pack.yaml"
    os.mkfifo(fifo)
    outcome: list[Exception] = []

    def read() -> None:
        try:
            read_document(fifo)
        except Exception as error:  # the assertions below say which
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=60)  # a guard against hanging the suite, not a speed target
    assert outcome, "read_document is blocked on a FIFO"
    error = outcome[0]
    assert isinstance(error, PackLoadError)
    assert "FIFO" in error.message
    assert error.location == Location(str(fifo))


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null here")
def test_a_device_is_not_a_pack() -> None:
    with pytest.raises(PackLoadError) as caught:
        read_document("/dev/null")
    assert "character device" in caught.value.message


def test_errors_from_files_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(PackLoadError) as caught:
        load_pack(str(path))
    error = caught.value
    assert error.location.file == str(path)
    assert error.location.line is not None
    assert "YAML" in error.message
    assert str(error).startswith(f"{path}:")


def test_json_syntax_error_has_a_position() -> None:
    error = load_error('{"a": 1,\n "b": }', format="json")
    assert "JSON" in error.message
    assert where(error) == (2, 7)
