"""Tests of ``reference.validate`` on compositions (SEMANTICS.md section 4, docs section 4).

Every composition code has tests that trigger it, with the exact list of errors expected as
``(code, path)`` (so a violation reported twice, or also as ``schema``, fails), and near misses
that must stay silent. Then: determinism, hostile compositions (cycles, 5,000 steps, deep
predicates and nesting, self references), and the four RFC 0010 examples of ``examples/rfc/``.

Packs are built by :func:`make_pack`: prompts ``work`` (with a prompt-level eval ``tone``) and
``judge``, tools ``lookup``, ``search``, ``finish`` and ``kb.lookup``, a pack-level eval
``quality``, and a one-state workflow running composition ``c``; each test writes ``c``.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import reference
from reference import Diagnostic
from reference._diagnostics import sort_key

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "rfc"

_BASE_PACK = """\
id: composition-test
name: Composition test
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  work:
    id: work
    name: Work
    version: 1.0.0
    system_template: Do the work.
    evals: [{id: tone, type: llm_judge, trigger: every_turn}]
  judge:
    id: judge
    name: Judge
    version: 1.0.0
    system_template: Judge the work.
tools:
  lookup: {name: lookup, description: Look something up}
  search: {name: search, description: Search}
  finish: {name: finish, description: Finish the loop}
  kb.lookup: {name: kb_lookup, description: Look a term up in the knowledge base}
evals:
  - {id: quality, type: llm_judge, trigger: every_turn}
workflow:
  version: 1
  entry: main
  states:
    main: {orchestration: composition, composition: c, terminal: true}
"""

C = "/compositions/c"
S = f"{C}/steps"


def load_yaml(text: str) -> Any:
    return reference.parse_document(textwrap.dedent(text), format="yaml").data


def make_pack(composition: str | Any, *, name: str = "c") -> dict[str, Any]:
    """The base pack with composition ``name`` (YAML text, or a value used as is)."""
    pack = reference.load_pack_string(_BASE_PACK)
    value = load_yaml(composition) if isinstance(composition, str) else composition
    pack["compositions"] = {name: value}
    return pack


def check(composition: str | Any) -> list[Diagnostic]:
    return reference.validate(make_pack(composition))


def errors(diagnostics: list[Diagnostic]) -> list[tuple[str, str]]:
    """``(code, path)`` of every error, in reported order."""
    return [(d.code, d.path) for d in diagnostics if d.severity == "error"]


def warnings(diagnostics: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(d.code, d.path) for d in diagnostics if d.severity == "warning"]


def steps(*items: str) -> str:
    """A version-1 composition whose steps are the given YAML flow mappings."""
    return "version: 1\nsteps:\n" + "".join(f"  - {item}\n" for item in items)


def edit(text: str, old: str, new: str) -> str:
    """Replace the one occurrence of ``old`` (so a typo cannot go unnoticed)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


PROMPT = "{id: s, kind: prompt, prompt_task: work}"
TOOL = "{id: t, kind: tool, tool: lookup}"


def parallel(*branches: str, pid: str = "p", reduce: str = "{strategy: append, into: all}") -> str:
    return f"{{id: {pid}, kind: parallel, branches: [{', '.join(branches)}], reduce: {reduce}}}"


# A valid composition using every kind, a vendor kind, modifiers, references, a join and output.
BASELINE = """
version: 1
description: Classify, route, fan out, report.
input_schema: schemas/in.json
output_schema: schemas/out.json
output: report
engine: {vendor: {anything: true}}
steps:
  - id: classify
    kind: prompt
    prompt_task: work
    input: "${input.text}"
    output_schema: schemas/type.json
  - id: route
    kind: branch
    predicate:
      any_of:
        - {path: "${classify.output.type}", op: equals, value: paper}
        - {not: {path: "${classify.output.score}", exists: true}}
        - all_of:
            - {path: "${classify.output.score}", op: greater_than, value: 7}
            - {path: "${classify.output.tags}", op: in, value: [[a], [b]]}
    then: deep
    else: quick
  - id: deep
    kind: agent
    prompt_task: work
    input: {text: "${input.text}", type: "${classify.output.type}"}
    tools: [lookup, search, kb.lookup]
    termination: {max_steps: 3, tool_called: finish}
    modifiers: {retry: {max_attempts: 2}, eval: [quality]}
  - id: quick
    kind: tool
    tool: lookup
    args: {q: "${classify.output.type}", extra: [1, {deep: "${input.text}"}]}
  - id: fan
    kind: parallel
    depends_on: [deep, quick]
    branches:
      - {id: a, kind: prompt, prompt_task: judge, input: "${classify.output}"}
      - {id: b, kind: ppconf.upper, input: "${input.text}"}
      - {id: c, kind: tool, tool: search, args: {q: "${quick.output.hits}"}}
    reduce: {strategy: barrier, into: views}
  - id: report
    kind: prompt
    prompt_task: judge
    depends_on: [fan]
    input: "Views: ${fan.output.views}; first: ${a.output}"
    modifiers: {eval: [quality]}
"""


# -- baselines ------------------------------------------------------------------------------------


def test_baseline_composition_is_clean() -> None:
    assert check(BASELINE) == []


def test_baseline_is_invalid_once_a_prompt_is_removed() -> None:
    """The base pack really is validated: the fixture can produce errors."""
    pack = make_pack(BASELINE)
    del pack["prompts"]["judge"]
    assert errors(reference.validate(pack)) == [
        ("step-prompt-task-unknown", f"{S}/4/branches/0/prompt_task"),
        ("step-prompt-task-unknown", f"{S}/5/prompt_task"),
    ]


# -- errors: one trigger or more per code, exact errors -------------------------------------------

TRIGGERS = [
    # composition-version-unsupported
    pytest.param(
        edit(steps(PROMPT), "version: 1", "version: 2"),
        [("composition-version-unsupported", f"{C}/version")],
        id="version-2",
    ),
    pytest.param(
        edit(steps(PROMPT), "version: 1", "version: 0"),
        [("composition-version-unsupported", f"{C}/version")],
        id="version-0",
    ),
    pytest.param(
        edit(steps(PROMPT), "version: 1", "version: -1"),
        [("composition-version-unsupported", f"{C}/version")],
        id="version-negative",
    ),
    pytest.param(
        edit(BASELINE, "version: 1", "version: 2"),
        [("composition-version-unsupported", f"{C}/version")],
        id="version-2-rest-still-checked-and-clean",
    ),
    # step-id-invalid
    pytest.param(
        steps("{id: 2nd, kind: prompt, prompt_task: work}"),
        [("step-id-invalid", f"{S}/0/id")],
        id="id-starts-with-digit",
    ),
    pytest.param(
        steps("{id: my-step, kind: prompt, prompt_task: work}"),
        [("step-id-invalid", f"{S}/0/id")],
        id="id-with-dash",
    ),
    pytest.param(
        steps("{id: '', kind: prompt, prompt_task: work}"),
        [("step-id-invalid", f"{S}/0/id")],
        id="id-empty",
    ),
    pytest.param(
        steps(parallel("{id: a.b, kind: prompt, prompt_task: work}", TOOL)),
        [("step-id-invalid", f"{S}/0/branches/0/id")],
        id="id-in-parallel-branch",
    ),
    # step-id-duplicate
    pytest.param(
        steps(PROMPT, PROMPT),
        [("step-id-duplicate", f"{S}/1/id")],
        id="duplicate-top-level",
    ),
    pytest.param(
        steps(PROMPT, PROMPT, PROMPT),
        [("step-id-duplicate", f"{S}/1/id"), ("step-id-duplicate", f"{S}/2/id")],
        id="duplicate-three-times",
    ),
    pytest.param(
        steps(PROMPT, parallel("{id: s, kind: prompt, prompt_task: work}", TOOL)),
        [("step-id-duplicate", f"{S}/1/branches/0/id")],
        id="duplicate-in-parallel-branch",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL), "{id: t, kind: tool, tool: lookup, depends_on: [p]}"),
        [("step-id-duplicate", f"{S}/1/id")],
        id="duplicate-after-parallel-branch",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL), parallel(TOOL, "{id: u, kind: tool, tool: lookup}", pid="q")),
        [("step-id-duplicate", f"{S}/1/branches/0/id")],
        id="duplicate-across-parallels",
    ),
    pytest.param(
        steps(PROMPT, parallel(TOOL, TOOL, pid="s")),
        [("step-id-duplicate", f"{S}/1/branches/1/id"), ("step-id-duplicate", f"{S}/1/id")],
        id="duplicate-parallel-and-its-branches",
    ),
    # step-kind-unknown
    pytest.param(
        steps("{id: s, kind: summarize}"), [("step-kind-unknown", f"{S}/0/kind")], id="kind-bare"
    ),
    pytest.param(
        steps("{id: s, kind: Prompt, prompt_task: work}"),
        [("step-kind-unknown", f"{S}/0/kind")],
        id="kind-capitalised",
    ),
    pytest.param(
        steps("{id: s, kind: Acme.summarize}"),
        [("step-kind-unknown", f"{S}/0/kind")],
        id="kind-namespace-uppercase",
    ),
    pytest.param(
        steps("{id: s, kind: acme.}"), [("step-kind-unknown", f"{S}/0/kind")], id="kind-no-name"
    ),
    pytest.param(
        steps("{id: s, kind: .summarize}"),
        [("step-kind-unknown", f"{S}/0/kind")],
        id="kind-no-namespace",
    ),
    pytest.param(
        steps("{id: s, kind: 'acme:summarize'}"),
        [("step-kind-unknown", f"{S}/0/kind")],
        id="kind-colon",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: judge}", TOOL)),
        [("step-kind-unknown", f"{S}/0/branches/0/kind")],
        id="kind-in-parallel-branch",
    ),
    # step-field-missing
    pytest.param(
        steps("{kind: prompt, prompt_task: work}"),
        [("step-field-missing", f"{S}/0")],
        id="missing-id",
    ),
    pytest.param(steps("{id: s}"), [("step-field-missing", f"{S}/0")], id="missing-kind"),
    pytest.param(
        steps("{description: nothing}"),
        [("step-field-missing", f"{S}/0"), ("step-field-missing", f"{S}/0")],
        id="missing-id-and-kind",
    ),
    pytest.param(
        steps("{id: s, kind: prompt}"), [("step-field-missing", f"{S}/0")], id="prompt-no-task"
    ),
    pytest.param(
        steps("{id: s, kind: agent, termination: {max_steps: 2}}"),
        [("step-field-missing", f"{S}/0")],
        id="agent-no-task",
    ),
    pytest.param(steps("{id: s, kind: tool}"), [("step-field-missing", f"{S}/0")], id="tool"),
    pytest.param(
        steps("{id: s, kind: tool, args: {tool: lookup}}"),
        [("step-field-missing", f"{S}/0")],
        id="tool-name-only-inside-args",
    ),
    pytest.param(
        steps("{id: b, kind: branch, then: s}", PROMPT),
        [("step-field-missing", f"{S}/0")],
        id="branch-no-predicate",
    ),
    pytest.param(
        steps("{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}}", PROMPT),
        [("step-field-missing", f"{S}/0")],
        id="branch-no-then",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: tool}", TOOL)),
        [("step-field-missing", f"{S}/0/branches/0")],
        id="in-parallel-branch",
    ),
    # step-prompt-task-unknown
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: nope}"),
        [("step-prompt-task-unknown", f"{S}/0/prompt_task")],
        id="prompt-task-unknown",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: Work, termination: {max_steps: 1}}"),
        [("step-prompt-task-unknown", f"{S}/0/prompt_task")],
        id="agent-task-unknown-case-sensitive",
    ),
    # step-tool-unknown
    pytest.param(
        steps("{id: s, kind: tool, tool: nope}"),
        [("step-tool-unknown", f"{S}/0/tool")],
        id="tool-step",
    ),
    pytest.param(
        steps("{id: s, kind: tool, tool: kb_lookup}"),
        [("step-tool-unknown", f"{S}/0/tool")],
        id="tool-display-name-is-not-the-key",
    ),
    pytest.param(
        steps(
            "{id: s, kind: agent, prompt_task: work, tools: [lookup, nope, search, gone],"
            " termination: {max_steps: 1}}"
        ),
        [("step-tool-unknown", f"{S}/0/tools/1"), ("step-tool-unknown", f"{S}/0/tools/3")],
        id="agent-tools",
    ),
    pytest.param(
        steps(
            "{id: s, kind: agent, prompt_task: work, tools: [5, nope], termination: {max_steps: 1}}"
        ),
        [("schema", f"{S}/0/tools/0"), ("step-tool-unknown", f"{S}/0/tools/1")],
        id="agent-tools-index-kept-past-a-non-string",
    ),
    # step-eval-unknown
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, modifiers: {eval: [quality, nope]}}"),
        [("step-eval-unknown", f"{S}/0/modifiers/eval/1")],
        id="eval-unknown",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: judge, modifiers: {eval: [tone]}}"),
        [("step-eval-unknown", f"{S}/0/modifiers/eval/0")],
        id="eval-of-another-prompt",
    ),
    pytest.param(
        steps("{id: s, kind: tool, tool: lookup, modifiers: {eval: [tone]}}"),
        [("step-eval-unknown", f"{S}/0/modifiers/eval/0")],
        id="prompt-eval-on-a-tool-step",
    ),
    pytest.param(
        # RFC 0010 rule 10: the pack's evals only, not the step's own prompt's.
        steps("{id: s, kind: prompt, prompt_task: work, modifiers: {eval: [tone, quality]}}"),
        [("step-eval-unknown", f"{S}/0/modifiers/eval/0")],
        id="eval-prompt-level",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: ppconf.upper, modifiers: {eval: [Quality]}}", TOOL)),
        [("step-eval-unknown", f"{S}/0/branches/0/modifiers/eval/0")],
        id="eval-case-sensitive-in-branch",
    ),
    # step-target-unknown
    pytest.param(
        steps("{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: x}"),
        [("step-target-unknown", f"{S}/0/then")],
        id="then",
    ),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: s,"
            " else: x}",
            PROMPT,
        ),
        [("step-target-unknown", f"{S}/0/else")],
        id="else",
    ),
    pytest.param(
        steps(PROMPT, "{id: t, kind: tool, tool: lookup, depends_on: [s, ghost]}"),
        [("step-target-unknown", f"{S}/1/depends_on/1")],
        id="depends-on",
    ),
    # reference-unresolved
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${ghost.output}'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-unknown-root",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${inputs.text}'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-inputs-typo",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${t.output}'}", TOOL),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-later-step",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${s.output.x}'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-itself",
    ),
    pytest.param(
        steps(TOOL, "{id: s, kind: prompt, prompt_task: work, input: '${t}'}"),
        [("reference-unresolved", f"{S}/1/input")],
        id="ref-step-without-output-segment",
    ),
    pytest.param(
        steps(TOOL, "{id: s, kind: prompt, prompt_task: work, input: '${t.result.x}'}"),
        [("reference-unresolved", f"{S}/1/input")],
        id="ref-step-other-segment",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${}'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-empty",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${input..text}'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-empty-segment",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: '${ input.text }'}"),
        [("reference-unresolved", f"{S}/0/input")],
        id="ref-whitespace-not-trimmed",
    ),
    pytest.param(
        steps(
            "{id: s, kind: prompt, prompt_task: work,"
            " input: 'a ${input.x} b ${ghost.output} c ${gone.output}'}"
        ),
        [("reference-unresolved", f"{S}/0/input"), ("reference-unresolved", f"{S}/0/input")],
        id="ref-two-bad-in-one-string",
    ),
    pytest.param(
        steps("{id: s, kind: tool, tool: lookup, args: {a: [1, {b: 'x ${ghost.output} y'}]}}"),
        [("reference-unresolved", f"{S}/0/args/a/1/b")],
        id="ref-deep-in-args",
    ),
    pytest.param(
        steps(
            "{id: s, kind: agent, prompt_task: work, input: {k: ['${ghost.output}']},"
            " termination: {max_steps: 1}}"
        ),
        [("reference-unresolved", f"{S}/0/input/k/0")],
        id="ref-agent-input-object",
    ),
    pytest.param(
        steps("{id: s, kind: acme.summarize, input: '${ghost.output}', args: ['${gone.output}']}"),
        [("reference-unresolved", f"{S}/0/args/0"), ("reference-unresolved", f"{S}/0/input")],
        id="ref-vendor-input-and-args",
    ),
    pytest.param(
        steps(
            parallel(
                "{id: x, kind: tool, tool: lookup}",
                "{id: y, kind: prompt, prompt_task: work, input: '${x.output}'}",
            )
        ),
        [("reference-unresolved", f"{S}/0/branches/1/input")],
        id="ref-sibling-branch",
    ),
    pytest.param(
        steps(
            parallel(
                "{id: x, kind: prompt, prompt_task: work, input: '${y.output}'}",
                "{id: y, kind: tool, tool: lookup}",
            )
        ),
        [("reference-unresolved", f"{S}/0/branches/0/input")],
        id="ref-later-sibling-branch",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: prompt, prompt_task: work, input: '${p.output.all}'}", TOOL)),
        [("reference-unresolved", f"{S}/0/branches/0/input")],
        id="ref-enclosing-parallel",
    ),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: s}",
            "{id: s, kind: prompt, prompt_task: work, input: '${b.output}'}",
        ),
        [("reference-unresolved", f"{S}/1/input")],
        id="ref-branch-has-no-output",
    ),
    pytest.param(
        steps(
            parallel(PROMPT, TOOL),
            "{id: r, kind: tool, tool: lookup, depends_on: [p], args: {v: '${p.output.merged}'}}",
        ),
        [("reference-unresolved", f"{S}/1/args/v")],
        id="ref-parallel-wrong-into",
    ),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {path: '${ghost.output.x}', op: equals, value: 1},"
            " then: s}",
            PROMPT,
        ),
        [("reference-unresolved", f"{S}/0/predicate/path")],
        id="ref-in-predicate",
    ),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {not: {path: '${b.output.x}', exists: true}},"
            " then: s}",
            PROMPT,
        ),
        [("reference-unresolved", f"{S}/0/predicate/not/path")],
        id="ref-branch-reads-itself",
    ),
    # agent-termination-missing
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work}"),
        [("agent-termination-missing", f"{S}/0")],
        id="termination-absent",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {}}"),
        [("agent-termination-missing", f"{S}/0/termination")],
        id="termination-empty",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {max_step: 3}}"),
        [("agent-termination-missing", f"{S}/0/termination")],
        id="termination-typo",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: agent, prompt_task: work}", TOOL)),
        [("agent-termination-missing", f"{S}/0/branches/0")],
        id="termination-absent-in-branch",
    ),
    # parallel-branches-too-few
    pytest.param(
        steps(parallel(TOOL)),
        [("parallel-branches-too-few", f"{S}/0/branches")],
        id="one-branch",
    ),
    pytest.param(
        steps(parallel()),
        [("parallel-branches-too-few", f"{S}/0/branches")],
        id="no-branches",
    ),
    pytest.param(
        steps("{id: p, kind: parallel, reduce: {strategy: append, into: all}}"),
        [("parallel-branches-too-few", f"{S}/0")],
        id="branches-absent",
    ),
    # parallel-reduce-missing
    pytest.param(
        steps(f"{{id: p, kind: parallel, branches: [{PROMPT}, {TOOL}]}}"),
        [("parallel-reduce-missing", f"{S}/0")],
        id="reduce-absent",
    ),
    pytest.param(
        steps("{id: p, kind: parallel}"),
        [("parallel-branches-too-few", f"{S}/0"), ("parallel-reduce-missing", f"{S}/0")],
        id="bare-parallel",
    ),
    # reduce-strategy-unknown
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{strategy: merge, into: all}")),
        [("reduce-strategy-unknown", f"{S}/0/reduce/strategy")],
        id="strategy-merge",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{strategy: Append, into: all}")),
        [("reduce-strategy-unknown", f"{S}/0/reduce/strategy")],
        id="strategy-capitalised",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{strategy: Acme.join, into: all}")),
        [("reduce-strategy-unknown", f"{S}/0/reduce/strategy")],
        id="strategy-bad-namespace",
    ),
    # composition-output-unknown
    pytest.param(
        edit(steps(PROMPT), "version: 1", "version: 1\noutput: ghost"),
        [("composition-output-unknown", f"{C}/output")],
        id="output-ghost",
    ),
    pytest.param(
        edit(BASELINE, "output: report", "output: route"),
        [("composition-output-unknown", f"{C}/output")],
        id="output-names-a-branch",
    ),
]


@pytest.mark.parametrize(("composition", "expected"), TRIGGERS)
def test_error_is_reported_once_under_its_code(
    composition: str, expected: list[tuple[str, str]]
) -> None:
    assert errors(check(composition)) == expected


# -- C4: branch and parallel steps among a parallel's branches ---------------------------------

NESTED_BRANCH = "{id: x, kind: branch, predicate: {path: '${input.a}', exists: true}, then: t}"


@pytest.mark.parametrize(
    "composition",
    [
        pytest.param(steps(parallel(NESTED_BRANCH, TOOL), PROMPT), id="branch-in-parallel"),
        pytest.param(
            steps(parallel(parallel(PROMPT, TOOL, pid="q"), "{id: u, kind: tool, tool: lookup}")),
            id="parallel-in-parallel",
        ),
    ],
)
def test_a_branch_or_parallel_among_branches_is_valid_with_a_warning(composition: str) -> None:
    # R4 (C4): RFC 0010's branches are any step; the kit's lint is a MAY warning.
    found = check(composition)
    assert errors(found) == []
    assert ("parallel-member-kind", f"{S}/0/branches/0/kind") in warnings(found)


def test_only_the_outermost_nested_branch_or_parallel_warns() -> None:
    inner = parallel(PROMPT, NESTED_BRANCH, pid="r")
    found = check(
        steps(parallel(parallel(inner, TOOL, pid="q"), "{id: u, kind: tool, tool: lookup}"))
    )
    member_kinds = [w for w in warnings(found) if w[0] == "parallel-member-kind"]
    assert member_kinds == [("parallel-member-kind", f"{S}/0/branches/0/kind")]


def test_steps_inside_nested_parallels_are_checked_like_any_step() -> None:
    inner = parallel(
        "{id: s, kind: tool, tool: ghost}",
        "{id: t, kind: prompt, prompt_task: work, input: '${nope.output}'}",
        pid="q",
    )
    found = check(steps(parallel(inner, "{id: s, kind: wizard}"), PROMPT))
    deep = f"{S}/0/branches/0/branches"
    assert errors(found) == [
        ("step-tool-unknown", f"{deep}/0/tool"),
        ("reference-unresolved", f"{deep}/1/input"),
        ("step-id-duplicate", f"{S}/0/branches/1/id"),
        ("step-kind-unknown", f"{S}/0/branches/1/kind"),
        ("step-id-duplicate", f"{S}/1/id"),
    ]


PREDICATE = "{id: b, kind: branch, then: s, predicate: %s}"
P = f"{S}/0/predicate"

PREDICATE_TRIGGERS = [
    pytest.param("{path: 'classify.output.x', op: equals, value: 1}", [f"{P}/path"], id="bare"),
    pytest.param("{path: 'input.x', exists: true}", [f"{P}/path"], id="bare-exists"),
    pytest.param("{path: '${input.x} ', op: equals, value: 1}", [f"{P}/path"], id="trailing"),
    pytest.param(
        "{path: '${input.x}${input.y}', op: equals, value: 1}", [f"{P}/path"], id="two-refs"
    ),
    pytest.param("{path: 5, op: equals, value: 1}", [f"{P}/path"], id="path-number"),
    pytest.param("{path: '${input.x}', op: eq, value: 1}", [f"{P}/op"], id="op-unknown"),
    pytest.param("{path: '${input.x}', op: less_than_or_equal, value: 1}", [f"{P}/op"], id="op"),
    pytest.param("{path: '${input.x}', op: [equals], value: 1}", [f"{P}/op"], id="op-list"),
    pytest.param("{path: '${input.x}', op: in, value: 3}", [f"{P}/value"], id="in-number"),
    pytest.param("{path: '${input.x}', op: not_in, value: abc}", [f"{P}/value"], id="not-in-str"),
    pytest.param("{path: '${input.x}', op: in, value: {a: 1}}", [f"{P}/value"], id="in-object"),
    pytest.param("{path: '${input.x}', exists: 'yes'}", [f"{P}/exists"], id="exists-string"),
    pytest.param("{path: '${input.x}', op: equals, value: 1, exists: true}", [P], id="two"),
    pytest.param("{all_of: [], any_of: []}", [P], id="all-and-any"),
    pytest.param("{path: '${input.x}', value: 1}", [P], id="no-op"),
    pytest.param("{path: '${input.x}', op: equals}", [P], id="no-value"),
    pytest.param("{op: equals, value: 1}", [P], id="no-path"),
    pytest.param("{path: '${input.x}', op: equals, value: 1, note: hi}", [P], id="stray-key"),
    pytest.param("{expression: '${input.x} > 3'}", [P], id="expression"),
    pytest.param("{}", [P], id="empty-object"),
    pytest.param("'${input.x} == 1'", [P], id="a-string"),
    pytest.param("null", [P], id="null"),
    pytest.param("[{path: '${input.x}', exists: true}]", [P], id="a-list"),
    pytest.param("{all_of: {path: '${input.x}', exists: true}}", [f"{P}/all_of"], id="all-of-obj"),
    pytest.param("{any_of: null}", [f"{P}/any_of"], id="any-of-null"),
    pytest.param("{not: [{path: '${input.x}', exists: true}]}", [f"{P}/not"], id="not-list"),
    pytest.param(
        "{any_of: [{path: '${input.x}', exists: true}, {not: {all_of: [7]}}]}",
        [f"{P}/any_of/1/not/all_of/0"],
        id="nested-deep",
    ),
    pytest.param(
        "{all_of: [{op: in, path: x, value: 1}, {path: '${input.y}', op: gt, value: 2}]}",
        [f"{P}/all_of/0/path", f"{P}/all_of/0/value", f"{P}/all_of/1/op"],
        id="every-bad-node-reported",
    ),
]


@pytest.mark.parametrize(("predicate", "paths"), PREDICATE_TRIGGERS)
def test_predicate_invalid(predicate: str, paths: list[str]) -> None:
    found = errors(check(steps(PREDICATE % predicate, PROMPT)))
    assert found == [("predicate-invalid", path) for path in paths]


PREDICATE_NEAR_MISSES = [
    *(
        pytest.param(f"{{path: '${{input.x}}', op: {op}, value: 1}}", id=op)
        for op in (
            "equals",
            "not_equals",
            "less_than",
            "less_than_or_equals",
            "greater_than",
            "greater_than_or_equals",
        )
    ),
    pytest.param("{path: '${input.x}', op: in, value: []}", id="in-empty-list"),
    pytest.param("{path: '${input.x}', op: not_in, value: [1, a, null]}", id="not-in-list"),
    pytest.param("{path: '${input.x}', op: equals, value: [1, 2]}", id="equals-list"),
    pytest.param("{path: '${input.x}', op: equals, value: null}", id="equals-null"),
    pytest.param("{path: '${input.x.y.z}', exists: false}", id="exists-false"),
    pytest.param("{path: '${input}', exists: true}", id="whole-input"),
    pytest.param("{path: '${s0.output.flag}', op: equals, value: true}", id="earlier-step"),
    pytest.param("{all_of: []}", id="all-of-empty"),
    pytest.param("{any_of: []}", id="any-of-empty"),
    pytest.param("{not: {not: {path: '${input.x}', exists: true}}}", id="double-not"),
    pytest.param("{path: '${input.x}', op: less_than, value: abc}", id="ordered-op-non-number"),
]


@pytest.mark.parametrize("predicate", PREDICATE_NEAR_MISSES)
def test_predicate_near_miss(predicate: str) -> None:
    earlier = "{id: s0, kind: tool, tool: lookup}"
    assert check(steps(earlier, PREDICATE % predicate, PROMPT)) == []


NEAR_MISSES = [
    pytest.param(edit(steps(PROMPT), "version: 1", "version: 1.0"), id="version-1.0"),
    pytest.param(steps("{id: _2nd, kind: prompt, prompt_task: work}"), id="id-underscore"),
    pytest.param(steps("{id: Step_2, kind: prompt, prompt_task: work}"), id="id-mixed-case"),
    pytest.param(steps("{id: input, kind: prompt, prompt_task: work}"), id="id-input"),
    pytest.param(steps(PROMPT, TOOL), id="ids-distinct"),
    pytest.param(steps("{id: s, kind: acme.summarize}"), id="vendor-kind"),
    pytest.param(steps("{id: s, kind: ppconf.upper, input: '${input.text}'}"), id="ppconf-kind"),
    pytest.param(steps("{id: s, kind: acme-corp.text.sum_v2}"), id="vendor-kind-long"),
    pytest.param(
        steps("{id: s, kind: acme.x, prompt_task: nope, tool: nope, then: nope}"),
        id="vendor-kind-fields-unchecked",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, tool: nope, then: nope, reduce: 5}"),
        id="other-kinds-fields-ignored",
    ),
    pytest.param(steps("{id: s, kind: tool, tool: kb.lookup}"), id="tool-dotted-key"),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {tool_called: finish}}"),
        id="termination-tool-called",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {tool_called: elsewhere}}"),
        id="tool-called-not-checked-against-tools",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, tools: [], termination: {max_steps: 1}}"),
        id="agent-no-tools",
    ),
    pytest.param(
        steps("{id: s, kind: tool, tool: lookup, modifiers: {eval: [quality], retry: {}}}"),
        id="eval-pack-level-on-tool",
    ),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: s,"
            " else: s}",
            PROMPT,
        ),
        id="then-equals-else",
    ),
    pytest.param(
        steps(PROMPT, TOOL, "{id: u, kind: tool, tool: lookup, depends_on: [s, t]}"),
        id="depends-on-earlier",
    ),
    pytest.param(
        steps(
            "{id: s, kind: prompt, prompt_task: work,"
            " input: {a: '${input}', b: 'Hi ${input.name}!', c: '$input', d: '{input}', e: 5}}"
        ),
        id="references-input",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, input: {'${ghost.output}': 1}}"),
        id="keys-are-not-references",
    ),
    pytest.param(
        steps(
            TOOL,
            parallel(
                "{id: x, kind: prompt, prompt_task: work, input: '${t.output.hits}'}",
                "{id: y, kind: tool, tool: lookup, args: {q: '${input.q}', r: '${t.output}'}}",
            ),
        ),
        id="branches-read-steps-before-the-parallel",
    ),
    pytest.param(
        steps(
            parallel(PROMPT, TOOL),
            "{id: r, kind: prompt, prompt_task: work, depends_on: [p],"
            " input: {all: '${p.output.all}', whole: '${p.output}', one: '${s.output.x}'}}",
        ),
        id="after-parallel-reads-it-and-its-branches",
    ),
    pytest.param(
        steps(
            parallel(PROMPT, TOOL),
            parallel(
                "{id: x, kind: prompt, prompt_task: work, input: '${s.output}'}",
                "{id: y, kind: prompt, prompt_task: work, input: '${p.output.all.0}'}",
                pid="q, depends_on: [p]",
                reduce="{strategy: ppconf.join, into: joined}",
            ),
        ),
        id="branches-read-an-earlier-parallel",
    ),
    pytest.param(
        steps(
            parallel(
                PROMPT,
                "{id: v, kind: ppconf.upper}",
                "{id: w, kind: agent, prompt_task: work, termination: {max_steps: 2}}",
                reduce="{strategy: replace, into: last}",
            )
        ),
        id="leaf-kinds-in-parallel",
    ),
    pytest.param(edit(BASELINE, "output: report", "output: a"), id="output-parallel-branch"),
    pytest.param(edit(BASELINE, "output: report", "output: fan"), id="output-parallel"),
    pytest.param(edit(BASELINE, "output: report\n", ""), id="output-omitted"),
]


@pytest.mark.parametrize("composition", NEAR_MISSES)
def test_near_miss_is_clean(composition: str) -> None:
    assert check(composition) == []


# -- codes with a structure of their own ---------------------------------------------------------


@pytest.mark.parametrize("name", ["workflow__transition", "workflow__set_artifact"])
def test_composition_name_reserved(name: str) -> None:
    pack = make_pack(steps(PROMPT), name=name)
    pack["workflow"]["states"]["main"]["composition"] = name
    assert errors(reference.validate(pack)) == [
        ("composition-name-reserved", f"/compositions/{name}")
    ]


@pytest.mark.parametrize("name", ["workflow__transitions", "workflow_transition", "workflow__"])
def test_composition_name_reserved_near_miss(name: str) -> None:
    pack = make_pack(steps(PROMPT), name=name)
    pack["workflow"]["states"]["main"]["composition"] = name
    assert reference.validate(pack) == []


def test_composition_name_reserved_even_when_not_an_object() -> None:
    pack = make_pack([], name="workflow__transition")
    pack["workflow"]["states"]["main"]["composition"] = "workflow__transition"
    assert errors(reference.validate(pack)) == [
        ("composition-name-reserved", "/compositions/workflow__transition"),
        ("schema", "/compositions/workflow__transition"),
    ]


def test_step_ids_may_repeat_across_compositions() -> None:
    pack = make_pack(steps(PROMPT))
    pack["compositions"]["other"] = load_yaml(steps(PROMPT))
    pack["workflow"]["states"]["main"]["on_event"] = {"Next": "other"}
    pack["workflow"]["states"]["main"]["terminal"] = False
    pack["workflow"]["states"]["other"] = {
        "orchestration": "composition",
        "composition": "other",
        "terminal": True,
    }
    assert reference.validate(pack) == []


def test_targets_do_not_cross_compositions() -> None:
    pack = make_pack(steps("{id: s, kind: tool, tool: lookup, depends_on: [t]}"))
    pack["compositions"]["other"] = load_yaml(steps(TOOL))
    assert errors(reference.validate(pack)) == [("step-target-unknown", f"{S}/0/depends_on/0")]


def test_step_id_duplicate_message_names_the_first_occurrence() -> None:
    found = check(steps(PROMPT, TOOL, parallel(TOOL, PROMPT, pid="q")))
    duplicates = [d for d in found if d.code == "step-id-duplicate"]
    assert [(d.path, f"at {S}/" in d.message) for d in duplicates] == [
        (f"{S}/2/branches/0/id", True),
        (f"{S}/2/branches/1/id", True),
    ]
    assert f"at {S}/1;" in duplicates[0].message
    assert f"at {S}/0;" in duplicates[1].message


def test_an_invalid_id_is_still_an_id_for_duplicates_and_targets() -> None:
    found = check(
        steps(
            "{id: a-b, kind: tool, tool: lookup}",
            "{id: a-b, kind: tool, tool: lookup, depends_on: [a-b]}",
        )
    )
    assert errors(found) == [
        ("step-id-invalid", f"{S}/0/id"),
        ("step-id-duplicate", f"{S}/1/id"),
        ("step-id-invalid", f"{S}/1/id"),
    ]


# -- structure: wrong types are schema, never also an own code ------------------------------------

SCHEMA_CASES = [
    pytest.param(edit(steps(PROMPT), "version: 1", "version: '1'"), [f"{C}/version"], id="v-str"),
    pytest.param(edit(steps(PROMPT), "version: 1", "version: true"), [f"{C}/version"], id="v-bool"),
    pytest.param(edit(steps(PROMPT), "version: 1", "version: 1.5"), [f"{C}/version"], id="v-1.5"),
    pytest.param("steps: [{id: s, kind: prompt, prompt_task: work}]", [C], id="no-version"),
    pytest.param("version: 1", [C], id="no-steps"),
    pytest.param("version: 1\nsteps: []", [f"{C}/steps"], id="steps-empty"),
    pytest.param("version: 1\nsteps: {a: 1}", [f"{C}/steps"], id="steps-object"),
    pytest.param(edit(steps(PROMPT), "version: 1", "version: 1\ntimeout: 5"), [C], id="closed"),
    pytest.param(edit(steps(PROMPT), "version: 1", "version: 1\nengine: 5"), [f"{C}/engine"]),
    pytest.param(edit(steps(PROMPT), "version: 1", "version: 1\noutput: [s]"), [f"{C}/output"]),
    pytest.param(steps("5"), [f"{S}/0"], id="step-number"),
    pytest.param(steps("null"), [f"{S}/0"], id="step-null"),
    pytest.param(steps("{id: 5, kind: prompt, prompt_task: work}"), [f"{S}/0/id"], id="id-int"),
    pytest.param(steps("{id: null, kind: prompt, prompt_task: work}"), [f"{S}/0/id"], id="id-null"),
    pytest.param(steps("{id: s, kind: 5}"), [f"{S}/0/kind"], id="kind-int"),
    pytest.param(steps("{id: s, kind: prompt, prompt_task: 5}"), [f"{S}/0/prompt_task"]),
    pytest.param(steps("{id: s, kind: prompt, prompt_task: work, input: 5}"), [f"{S}/0/input"]),
    pytest.param(steps("{id: s, kind: tool, tool: [lookup]}"), [f"{S}/0/tool"], id="tool-list"),
    pytest.param(steps("{id: s, kind: tool, tool: lookup, args: x}"), [f"{S}/0/args"]),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: null}"),
        [f"{S}/0/termination"],
        id="termination-null",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {max_steps: 0}}"),
        [f"{S}/0/termination/max_steps"],
        id="max-steps-0",
    ),
    pytest.param(
        steps("{id: s, kind: agent, prompt_task: work, termination: {tool_called: 5}}"),
        [f"{S}/0/termination/tool_called"],
        id="tool-called-int",
    ),
    pytest.param(
        steps(
            "{id: s, kind: agent, prompt_task: work, tools: lookup, termination: {max_steps: 1}}"
        ),
        [f"{S}/0/tools"],
        id="tools-string",
    ),
    pytest.param(steps("{id: s, kind: tool, tool: lookup, depends_on: s0}"), [f"{S}/0/depends_on"]),
    pytest.param(
        steps("{id: s, kind: tool, tool: lookup, modifiers: {retry: {max_attempts: 0}}}"),
        [f"{S}/0/modifiers/retry/max_attempts"],
        id="retry-0",
    ),
    pytest.param(
        steps("{id: s, kind: tool, tool: lookup, modifiers: {eval: quality}}"),
        [f"{S}/0/modifiers/eval"],
        id="eval-string",
    ),
    pytest.param(
        steps("{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: 5}"),
        [f"{S}/0/then"],
        id="then-int",
    ),
    pytest.param(
        steps("{id: p, kind: parallel, branches: x, reduce: {strategy: append, into: all}}"),
        [f"{S}/0/branches"],
        id="branches-string",
    ),
    pytest.param(
        steps("{id: p, kind: parallel, branches: null, reduce: {strategy: append, into: all}}"),
        [f"{S}/0/branches"],
        id="branches-null",
    ),
    pytest.param(steps(parallel(PROMPT, "7")), [f"{S}/0/branches/1"], id="branch-number"),
    pytest.param(
        steps(f"{{id: p, kind: parallel, branches: [{PROMPT}, {TOOL}], reduce: null}}"),
        [f"{S}/0/reduce"],
        id="reduce-null",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{strategy: append}")),
        [f"{S}/0/reduce"],
        id="reduce-without-into",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{into: all}")), [f"{S}/0/reduce"], id="no-strategy"
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL, reduce="{strategy: 5, into: all}")),
        [f"{S}/0/reduce/strategy"],
        id="strategy-int",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: tool, tool: 5}", TOOL)),
        [f"{S}/0/branches/0/tool"],
        id="branch-field-typed",
    ),
]


@pytest.mark.parametrize(("composition", "paths"), SCHEMA_CASES)
def test_wrong_types_are_schema_only(composition: str, paths: list[str]) -> None:
    assert errors(check(composition)) == [("schema", path) for path in paths]


def test_compositions_not_a_map_is_schema() -> None:
    pack = make_pack(steps(PROMPT))
    pack["compositions"] = [load_yaml(steps(PROMPT))]
    assert errors(reference.validate(pack)) == [
        ("schema", "/compositions"),
        ("composition-unknown", "/workflow/states/main/composition"),
    ]


# -- the step graph --------------------------------------------------------------------------------

BRANCH_TO = "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: %s}"

CYCLES = [
    pytest.param(steps(PROMPT, BRANCH_TO % "s"), [f"{S}/0"], id="then-backwards"),
    pytest.param(steps(BRANCH_TO % "b"), [f"{S}/0"], id="then-itself"),
    pytest.param(
        steps(
            PROMPT,
            TOOL,
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true},"
            " then: t, else: s}",
        ),
        [f"{S}/0"],
        id="else-backwards",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, depends_on: [t]}", TOOL),
        [f"{S}/0"],
        id="depends-on-later",
    ),
    pytest.param(
        steps("{id: s, kind: prompt, prompt_task: work, depends_on: [s]}"),
        [f"{S}/0"],
        id="depends-on-itself",
    ),
    pytest.param(
        steps(
            parallel("{id: x, kind: tool, tool: lookup, depends_on: [t]}", PROMPT),
            "{id: t, kind: tool, tool: lookup, depends_on: [p]}",
        ),
        [f"{S}/0/branches/0"],
        id="branch-depends-on-step-after-its-parallel",
    ),
    pytest.param(
        steps(
            "{id: a, kind: tool, tool: lookup}",
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: a}",
            "{id: c, kind: tool, tool: lookup}",
            "{id: d, kind: tool, tool: lookup, depends_on: [e]}",
            "{id: e, kind: tool, tool: lookup}",
        ),
        [f"{S}/0", f"{S}/3"],
        id="two-cycles",
    ),
]


@pytest.mark.parametrize(("composition", "paths"), CYCLES)
def test_step_graph_cycle(composition: str, paths: list[str]) -> None:
    found = check(composition)
    assert [(c, p) for c, p in errors(found) if c != "reference-unresolved"] == [
        ("step-graph-cycle", path) for path in paths
    ]


def test_step_graph_cycle_message_lists_its_steps_in_document_order() -> None:
    found = check(
        steps(
            "{id: z, kind: tool, tool: lookup}",
            "{id: y, kind: tool, tool: lookup}",
            "{id: x, kind: branch, predicate: {path: '${input.x}', exists: true}, then: z}",
        )
    )
    (cycle,) = [d for d in found if d.code == "step-graph-cycle"]
    assert cycle.message.startswith("steps 'z', 'y', 'x' form a cycle")


GRAPH_NEAR_MISSES = [
    pytest.param(steps(BRANCH_TO % "t", PROMPT, TOOL), id="then-forward-skipping"),
    pytest.param(
        steps(parallel(PROMPT, TOOL), "{id: j, kind: tool, tool: lookup, depends_on: [s, t, p]}"),
        id="join-on-branches",
    ),
    pytest.param(
        steps(TOOL, parallel("{id: x, kind: tool, tool: lookup, depends_on: [t]}", PROMPT)),
        id="branch-depends-on-step-before",
    ),
    pytest.param(
        steps(parallel("{id: x, kind: tool, tool: lookup, depends_on: [s]}", PROMPT)),
        id="branch-depends-on-sibling",
    ),
]


@pytest.mark.parametrize("composition", GRAPH_NEAR_MISSES)
def test_step_graph_near_miss(composition: str) -> None:
    found = check(composition)
    assert errors(found) == []


# -- warnings -------------------------------------------------------------------------------------


def test_composition_unreferenced() -> None:
    pack = make_pack(steps(PROMPT))
    pack["compositions"]["spare"] = load_yaml(steps(PROMPT))
    assert [(d.severity, d.code, d.path) for d in reference.validate(pack)] == [
        ("warning", "composition-unreferenced", "/compositions/spare")
    ]


def test_composition_unreferenced_without_a_workflow() -> None:
    pack = make_pack(steps(PROMPT))
    del pack["workflow"]
    assert [(d.severity, d.code, d.path) for d in reference.validate(pack)] == [
        ("warning", "composition-unreferenced", C)
    ]


def test_composition_named_by_a_state_not_in_composition_mode_is_unreferenced() -> None:
    pack = make_pack(steps(PROMPT))
    pack["workflow"]["states"]["main"] = {"prompt_task": "work", "composition": "c"}
    found = reference.validate(pack)
    assert errors(found) == [("composition-not-allowed", "/workflow/states/main")]
    assert warnings(found) == [("composition-unreferenced", C)]


def test_composition_referenced_by_a_later_state_is_not_unreferenced() -> None:
    pack = make_pack(steps(PROMPT))
    pack["compositions"]["second"] = load_yaml(steps(TOOL))
    states = pack["workflow"]["states"]
    states["main"] = {"orchestration": "composition", "composition": "c", "on_event": {"Go": "n"}}
    states["n"] = {"orchestration": "composition", "composition": "second", "terminal": True}
    assert reference.validate(pack) == []


JOINS = [
    pytest.param(
        steps(parallel(PROMPT, TOOL), "{id: j, kind: tool, tool: lookup}"),
        [f"{S}/1"],
        id="after-parallel",
    ),
    pytest.param(
        steps(BRANCH_TO % "t", PROMPT, TOOL),
        [f"{S}/1"],
        id="after-branch-not-its-arm",
    ),
    pytest.param(
        steps(
            BRANCH_TO % "s",
            PROMPT,
            parallel(TOOL, "{id: u, kind: tool, tool: lookup}"),
            BRANCH_TO.replace("id: b", "id: b2") % "v",
            "{id: v, kind: tool, tool: lookup}",
        ),
        [f"{S}/3"],
        id="after-parallel-a-branch-is-a-step-too",
    ),
]


@pytest.mark.parametrize(("composition", "paths"), JOINS)
def test_join_without_depends_on(composition: str, paths: list[str]) -> None:
    found = check(composition)
    assert errors(found) == []
    assert warnings(found) == [("join-without-depends-on", path) for path in paths]


JOIN_NEAR_MISSES = [
    pytest.param(
        steps(parallel(PROMPT, TOOL), "{id: j, kind: tool, tool: lookup, depends_on: [p]}"),
        id="declares-depends-on",
    ),
    pytest.param(
        steps(parallel(PROMPT, TOOL), "{id: j, kind: tool, tool: lookup, depends_on: []}"),
        id="declares-empty-depends-on",
    ),
    pytest.param(steps(BRANCH_TO % "s", PROMPT), id="then-arm"),
    pytest.param(
        steps(
            "{id: b, kind: branch, predicate: {path: '${input.x}', exists: true}, then: t,"
            " else: s}",
            PROMPT,
            TOOL,
        ),
        id="else-arm",
    ),
    pytest.param(steps(PROMPT, TOOL), id="after-ordinary-step"),
    pytest.param(steps(parallel(PROMPT, TOOL)), id="parallel-last"),
]


@pytest.mark.parametrize("composition", JOIN_NEAR_MISSES)
def test_join_without_depends_on_near_miss(composition: str) -> None:
    assert check(composition) == []


# -- determinism ----------------------------------------------------------------------------------

MESSY = steps(
    "{id: 1a, kind: summarize, input: '${ghost.output}'}",
    "{id: s, kind: tool}",
    "{id: s, kind: prompt, prompt_task: nope, modifiers: {eval: [x, y]}}",
    "{kind: branch, predicate: {all_of: [7, {path: z, op: eq, value: 1}]}, then: s, else: q}",
    parallel("{id: m, kind: branch}", pid="p", reduce="{strategy: zip, into: z}"),
    "{id: g, kind: agent, prompt_task: work, tools: [a, b], depends_on: [late]}",
    "{id: late, kind: tool, tool: lookup}",
)


def test_diagnostics_are_sorted_and_stable() -> None:
    first = check(MESSY)
    assert first == sorted(first, key=sort_key)
    assert len({d.code for d in first}) >= 14
    for _ in range(3):
        assert check(MESSY) == first


def test_diagnostics_do_not_depend_on_the_order_of_compositions() -> None:
    pack = make_pack(MESSY)
    pack["compositions"]["b"] = load_yaml(edit(MESSY, "id: late", "id: later"))
    pack["compositions"]["a"] = load_yaml(BASELINE)
    found = reference.validate(pack)
    reordered = copy.deepcopy(pack)
    reordered["compositions"] = dict(reversed(list(pack["compositions"].items())))
    assert reference.validate(reordered) == found
    assert {d.path.split("/")[2] for d in found} == {"a", "b", "c"}


def test_a_composition_is_judged_alone() -> None:
    alone = [d for d in check(MESSY) if d.path.startswith(C)]
    pack = make_pack(MESSY)
    pack["compositions"]["other"] = load_yaml(MESSY)
    together = [d for d in reference.validate(pack) if d.path.startswith(C + "/") or d.path == C]
    assert together == alone


def test_the_rules_module_imports_first_without_a_cycle() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import reference._compositions.rules as r; print(r.V1_KINDS[0])"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout.strip()) == (0, "prompt"), result.stderr


# -- hostile compositions -------------------------------------------------------------------------


def long_composition(count: int) -> dict[str, Any]:
    """``count`` top-level steps: chains of prompt/tool steps with branches and parallels."""
    items: list[dict[str, Any]] = []
    previous = None
    for i in range(count):
        source = f"${{{previous}.output.value}}" if previous else "${input.text}"
        if i % 5 == 3 and i + 2 < count:
            predicate = {"path": source, "op": "in", "value": ["x"]}
            items.append(
                {"id": f"s{i}", "kind": "branch", "predicate": predicate, "then": f"s{i + 1}"}
            )
            continue
        if i % 5 == 4:
            items.append(
                {
                    "id": f"s{i}",
                    "kind": "parallel",
                    "branches": [
                        {"id": f"s{i}_{j}", "kind": "tool", "tool": "lookup", "args": {"q": source}}
                        for j in range(2)
                    ],
                    "reduce": {"strategy": "append", "into": "all"},
                }
            )
        else:
            step = {"id": f"s{i}", "kind": "prompt", "prompt_task": "work", "input": source}
            if i % 5 == 0 and i:
                step["depends_on"] = [f"s{i - 1}"]
            items.append(step)
        previous = f"s{i}" if i % 5 != 4 else None
    return {"version": 1, "steps": items}


# How fast these sizes validate is measured by benchmarks/bench_compositions.py, against its
# 1 s target; the tests check only what is found (and that nothing recurses), since wall-clock
# bounds fail at random on a busy machine.


def test_five_thousand_steps_validate() -> None:
    assert reference.validate(make_pack(long_composition(5_000))) == []


def test_a_cycle_through_five_thousand_steps_is_one_clear_error() -> None:
    composition = long_composition(5_000)
    composition["steps"][0]["depends_on"] = [composition["steps"][-1]["id"]]
    found = reference.validate(make_pack(composition))
    assert errors(found) == [("step-graph-cycle", f"{S}/0")]
    (cycle,) = found
    assert cycle.message.startswith("steps 's0', 's1', 's2', ")
    # All 5,000 steps and 2,000 parallel branches but the last parallel's two (no step after
    # it joins them), of which the message names 10.
    assert f"and {7_000 - 2 - 10:,} more form a cycle" in cycle.message
    assert len(cycle.message) < 300


def nested_predicate(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
    predicate = leaf
    for level in range(depth):
        predicate = {"not": predicate} if level % 2 else {"all_of": [predicate]}
    return predicate


def test_a_200_deep_predicate_loaded_from_json() -> None:
    """200 nested `not` (one level each) fit within the loader's 256 levels."""
    predicate: dict[str, Any] = {"path": "${input.x}", "exists": True}
    for _ in range(200):
        predicate = {"not": predicate}
    branch = {"id": "b", "kind": "branch", "then": "s", "predicate": predicate}
    pack = make_pack(
        {"version": 1, "steps": [branch, {"id": "s", "kind": "tool", "tool": "lookup"}]}
    )
    reloaded = reference.load_pack_string(json.dumps(pack))
    assert reloaded == pack
    assert reference.validate(reloaded) == []
    leaf = reloaded["compositions"]["c"]["steps"][0]["predicate"]
    for _ in range(200):
        leaf = leaf["not"]
    leaf["exists"] = "yes"
    assert errors(reference.validate(reloaded)) == [
        ("predicate-invalid", f"{S}/0/predicate" + "/not" * 200 + "/exists")
    ]


@pytest.mark.parametrize("depth", [200, 10_000])
def test_a_deep_predicate_reports_its_bad_leaf_without_recursion(depth: int) -> None:
    bad = {"path": "${input.x}", "op": "in", "value": 3}
    branch = {"id": "b", "kind": "branch", "then": "s", "predicate": nested_predicate(depth, bad)}
    composition = {"version": 1, "steps": [branch, {"id": "s", "kind": "tool", "tool": "lookup"}]}
    found = reference.validate(make_pack(composition))
    (error,) = errors(found)
    assert error[0] == "predicate-invalid"
    assert error[1].endswith("/value")
    assert error[1].count("/all_of/0") == (depth + 1) // 2
    assert error[1].count("/not") == depth // 2


def test_parallels_nested_20000_deep_give_one_warning() -> None:
    step: dict[str, Any] = {"id": "leaf", "kind": "prompt", "prompt_task": "work"}
    for i in range(20_000):
        step = {
            "id": f"p{i}",
            "kind": "parallel",
            "branches": [step, {"id": f"q{i}", "kind": "tool", "tool": "lookup"}],
            "reduce": {"strategy": "append", "into": "all"},
        }
    reader = {
        "id": "r",
        "kind": "prompt",
        "prompt_task": "work",
        "depends_on": ["leaf"],
        "input": "${q5.output}",
    }
    found = reference.validate(make_pack({"version": 1, "steps": [step, reader]}))
    # Valid (C4), walked without recursion, and one warning: the report does not grow with
    # the depth (only the outermost nested parallel warns).
    assert errors(found) == []
    assert warnings(found) == [("parallel-member-kind", f"{S}/0/branches/0/kind")]


def test_an_input_nested_10000_deep_is_walked_without_recursion() -> None:
    value: Any = "${ghost.output}"
    for _ in range(10_000):
        value = {"k": [value]}
    pack = make_pack(
        {
            "version": 1,
            "steps": [{"id": "s", "kind": "prompt", "prompt_task": "work", "input": value}],
        }
    )
    found = reference.validate(pack)
    (error,) = errors(found)
    assert error == ("reference-unresolved", f"{S}/0/input" + "/k/0" * 10_000)


SELF_REFERENCES = [
    pytest.param(
        "{id: s, kind: prompt, prompt_task: work, input: '${s.output}'}",
        [("reference-unresolved", f"{S}/0/input")],
        id="input-reads-itself",
    ),
    pytest.param(
        "{id: s, kind: tool, tool: lookup, args: {again: '${s.output.args}'}}",
        [("reference-unresolved", f"{S}/0/args/again")],
        id="args-read-itself",
    ),
    pytest.param(
        "{id: b, kind: branch, predicate: {path: '${b.output}', exists: true}, then: b}",
        [("step-graph-cycle", f"{S}/0"), ("reference-unresolved", f"{S}/0/predicate/path")],
        id="branch-on-itself-to-itself",
    ),
    pytest.param(
        "{id: s, kind: tool, tool: lookup, depends_on: [s, s]}",
        [("step-graph-cycle", f"{S}/0")],
        id="depends-on-itself-twice",
    ),
]


@pytest.mark.parametrize(("step", "expected"), SELF_REFERENCES)
def test_self_references(step: str, expected: list[tuple[str, str]]) -> None:
    assert errors(check(steps(step))) == expected


# -- the RFC 0010 examples -------------------------------------------------------------------------

RFC_EXAMPLES = {
    "rfc0010-example1-single-step.yaml": [],
    "rfc0010-example2-branch.yaml": [],
    "rfc0010-example3-parallel-agent.yaml": [
        ("join-without-depends-on", "/compositions/deep_analyze/steps/1")
    ],
    "rfc0010-example4-composite-predicate.yaml": [],
}


def test_the_rfc0010_examples_are_exactly_these() -> None:
    names = sorted(p.name for p in EXAMPLES.iterdir() if p.name.startswith("rfc0010-"))
    assert names == sorted(RFC_EXAMPLES)


@pytest.mark.parametrize("name", sorted(RFC_EXAMPLES))
def test_rfc0010_example_is_valid_with_exactly_these_warnings(name: str) -> None:
    found = reference.validate(reference.load_pack(str(EXAMPLES / name)))
    assert errors(found) == []
    assert warnings(found) == RFC_EXAMPLES[name]


@pytest.mark.parametrize(
    ("name", "remove", "expected"),
    [
        pytest.param(
            "rfc0010-example1-single-step.yaml",
            ("prompts", "doc_classifier"),
            [
                ("step-prompt-task-unknown", "/compositions/classify_document/steps/0/prompt_task"),
                ("schema", "/prompts"),  # its only prompt: prompts must not be empty
            ],
            id="example1-prompt",
        ),
        pytest.param(
            "rfc0010-example2-branch.yaml",
            ("prompts", "general_doc_extractor"),
            [("step-prompt-task-unknown", "/compositions/analyze_document/steps/3/prompt_task")],
            id="example2-prompt",
        ),
        pytest.param(
            "rfc0010-example3-parallel-agent.yaml",
            ("tools", "ref.search"),
            [("step-tool-unknown", "/compositions/deep_analyze/steps/1/tools/1")],
            id="example3-tool",
        ),
        pytest.param(
            "rfc0010-example3-parallel-agent.yaml",
            ("evals",),
            [("step-eval-unknown", "/compositions/deep_analyze/steps/1/modifiers/eval/0")],
            id="example3-eval",
        ),
        pytest.param(
            "rfc0010-example4-composite-predicate.yaml",
            ("tools", "kb.lookup"),
            [("step-tool-unknown", "/compositions/review_document/steps/2/tools/0")],
            id="example4-tool",
        ),
    ],
)
def test_rfc0010_example_needs_what_was_added(
    name: str, remove: tuple[str, ...], expected: list[tuple[str, str]]
) -> None:
    pack = reference.load_pack(str(EXAMPLES / name))
    target: Any = pack
    for key in remove[:-1]:
        target = target[key]
    del target[remove[-1]]
    assert errors(reference.validate(pack)) == expected


def test_rfc0010_example_structure_as_in_the_rfc() -> None:
    """Spot checks of the parts taken verbatim from the RFC text."""
    example2 = reference.load_pack(str(EXAMPLES / "rfc0010-example2-branch.yaml"))
    route = example2["compositions"]["analyze_document"]["steps"][1]
    assert route == {
        "id": "route",
        "kind": "branch",
        "predicate": {"path": "${classify.output.type}", "op": "equals", "value": "research_paper"},
        "then": "extract_paper",
        "else": "extract_general",
    }
    example3 = reference.load_pack(str(EXAMPLES / "rfc0010-example3-parallel-agent.yaml"))
    fan, synthesize = example3["compositions"]["deep_analyze"]["steps"]
    assert [b["id"] for b in fan["branches"]] == ["title", "keywords", "structure", "citations"]
    assert fan["reduce"] == {"strategy": "barrier", "into": "metadata"}
    assert synthesize["tools"] == ["doc.section_lookup", "ref.search", "kb.lookup"]
    example4 = reference.load_pack(str(EXAMPLES / "rfc0010-example4-composite-predicate.yaml"))
    branch = example4["compositions"]["review_document"]["steps"][1]
    assert [p["op"] for p in branch["predicate"]["any_of"]] == [
        "less_than",
        "greater_than",
        "not_equals",
    ]
    assert branch["predicate"]["any_of"][2]["value"] == []
