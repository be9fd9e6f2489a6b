"""Mutants of a module's source: small AST edits, numbered in a stable order.

Each mutation point is one node the operators below can change; a mutant is one point changed
one way. The points are found by walking the module's syntax tree in a fixed order, so a
mutant's id (``module:line:column:operator``) names the same change on every run of the same
source. Docstrings, type annotations, ``assert`` statements (defensive by definition) and
``__all__`` are left alone: changing them changes nothing a runtime author could observe.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

__all__ = ["Mutant", "apply", "mutants"]

_COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_ARITHMETIC_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
}
_WORD = re.compile(r"[A-Za-z0-9_.$/:-]{1,40}")
"""A string constant worth changing: a code, a status, a key or a field name. Sentences are
messages, which no check reads."""


@dataclass(frozen=True)
class Mutant:
    """One change to one module.

    Attributes:
        module: the dotted module name (``reference._workflow.session``).
        index: the mutant's position in the module's stable order.
        line: the line of the changed node.
        column: its column.
        operator: the kind of change (``compare``, ``boolop``, ``not``, ``number``, ``bool``,
            ``string``, ``arithmetic``, ``delete``, ``return``).
        description: what changed, for a reader (``< -> <=``).
        repeat: how many mutants before this one have the same module, line, column and
            operator (0 for nearly all).
        end_line: the last line of the changed node (a multi-line expression or statement);
            not part of the id.
        start_line: the first line whose execution can show the change: the changed node's
            own line, or the ``def`` line of a generator function whose only ``yield`` the
            change deletes (the function is then a plain one, which changes every call of it,
            whether or not the ``yield`` line runs); not part of the id.
    """

    module: str
    index: int
    line: int
    column: int
    operator: str
    description: str
    repeat: int = 0
    end_line: int = 0
    start_line: int = 0

    @property
    def id(self) -> str:
        """Stable across runs of the same source: ``module:line:column:operator``, with a
        ``#n`` suffix for the n-th repeat of one such name."""
        name = f"{self.module}:{self.line}:{self.column}:{self.operator}"
        return f"{name}#{self.repeat}" if self.repeat else name


@dataclass(frozen=True)
class _Point:
    node: ast.AST
    operator: str
    description: str
    variant: int = 0


def _skipped_nodes(tree: ast.Module) -> set[int]:
    """The ids of nodes no mutant touches: docstrings, annotations, asserts, ``__all__``."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            skip(body[0])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip(node.returns)
            for argument in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs):
                skip(argument.annotation)
            skip(node.args.vararg)
            skip(node.args.kwarg)
        if isinstance(node, ast.AnnAssign):
            skip(node.annotation)
        if isinstance(node, ast.Assert):
            skip(node)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            skip(node)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip(node)  # an attribute's docstring
        if isinstance(node, ast.JoinedStr):
            skip(node)  # a message
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            skip(node)
        if isinstance(node, ast.ImportFrom | ast.Import):
            skip(node)
        if isinstance(node, ast.Subscript) and _names(node.value, "Literal"):
            skip(node)  # a type
        if isinstance(node, ast.Call) and _names(node.func, "cast", "TypeVar"):
            skip(node.args[0] if node.args else None)
    return skipped


def _names(node: ast.expr, *names: str) -> bool:
    """Whether ``node`` is one of the names, bare or as an attribute (``typing.Literal``)."""
    return (isinstance(node, ast.Name) and node.id in names) or (
        isinstance(node, ast.Attribute) and node.attr in names
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _points(tree: ast.Module) -> Iterator[_Point]:
    """Every change the operators make to the tree, in the order of a walk of it."""
    skipped = _skipped_nodes(tree)
    for node in _ordered(tree):
        if id(node) in skipped:
            continue
        yield from _changes(node)


def _ordered(tree: ast.Module) -> list[ast.AST]:
    """The tree's nodes by position (line, column), then by walk order: a stable order."""
    nodes = list(ast.walk(tree))
    order = {id(n): i for i, n in enumerate(nodes)}
    return sorted(
        nodes,
        key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0), order[id(n)]),
    )


def _changes(node: ast.AST) -> Iterator[_Point]:
    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            swap = _COMPARE_SWAPS.get(type(op))
            if swap is not None:
                yield _Point(
                    node, "compare", f"{_symbol(op)} -> {_symbol(swap())}", variant=position
                )
    elif isinstance(node, ast.BoolOp):
        other = "or" if isinstance(node.op, ast.And) else "and"
        yield _Point(node, "boolop", f"{_symbol(node.op)} -> {other}")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _Point(node, "not", "not x -> x")
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC_SWAPS:
        flipped = _ARITHMETIC_SWAPS[type(node.op)]
        yield _Point(node, "arithmetic", f"{_symbol(node.op)} -> {_symbol(flipped())}")
    elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITHMETIC_SWAPS:
        flipped = _ARITHMETIC_SWAPS[type(node.op)]
        yield _Point(node, "arithmetic", f"{_symbol(node.op)}= -> {_symbol(flipped())}=")
    elif isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            yield _Point(node, "bool", f"{value} -> {not value}")
        elif isinstance(value, int) and not isinstance(value, bool):
            yield _Point(node, "number", f"{value} -> {value + 1}")
        elif isinstance(value, str) and _WORD.fullmatch(value):
            yield _Point(node, "string", f"{value!r} -> {value + 'X'!r}")
    if isinstance(node, ast.Expr | ast.AugAssign | ast.Raise | ast.Continue | ast.Break) or (
        isinstance(node, ast.Assign)
        and all(isinstance(t, ast.Attribute | ast.Subscript) for t in node.targets)
    ):
        yield _Point(node, "delete", f"{type(node).__name__.lower()} -> pass")
    if (
        isinstance(node, ast.Return)
        and node.value is not None
        and not (isinstance(node.value, ast.Constant) and node.value.value is None)
    ):
        yield _Point(node, "return", "return x -> return None")


_SYMBOLS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.And: "and",
    ast.Or: "or",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Div: "/",
}


def _symbol(op: ast.AST) -> str:
    return _SYMBOLS.get(type(op), type(op).__name__)


def mutants(module: str, source: str) -> list[Mutant]:
    """Every mutant of ``source`` (the text of ``module``), in its stable order."""
    tree = ast.parse(source)
    generators = _generator_of(tree)
    found = []
    seen: dict[str, int] = {}
    for index, point in enumerate(_points(tree)):
        node = point.node
        end = getattr(node, "end_lineno", None)
        line = getattr(node, "lineno", 0)
        start = line
        if point.operator == "delete":
            yields = _yields(node)
            function = generators.get(id(yields[0])) if yields else None
            if function is not None and len(yields) == len(_yields(function)):
                start = min([function.lineno, *(d.lineno for d in function.decorator_list)])
        mutant = Mutant(
            module,
            index,
            line,
            getattr(node, "col_offset", 0) + point.variant,
            point.operator,
            point.description,
            end_line=end if isinstance(end, int) else line,
            start_line=start,
        )
        repeat = seen.get(mutant.id, 0)
        seen[mutant.id] = repeat + 1
        found.append(mutant if not repeat else replace(mutant, repeat=repeat))
    return found


def _yields(node: ast.AST) -> list[ast.AST]:
    """The ``yield`` and ``yield from`` expressions of ``node`` outside nested functions."""
    found: list[ast.AST] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Yield | ast.YieldFrom):
            found.append(current)
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                pending.append(child)
    return found


def _generator_of(tree: ast.Module) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The function each ``yield`` belongs to, by the ``yield`` node's id."""
    owner: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for body in node.body:
                for found in _yields(body):
                    owner[id(found)] = node
    return owner


def apply(source: str, mutant: Mutant) -> ast.Module:
    """The syntax tree of ``source`` with ``mutant``'s one change made."""
    tree = ast.parse(source)
    points = list(_points(tree))
    if mutant.index >= len(points):
        raise ValueError(f"{mutant.module} has {len(points)} mutants, not {mutant.index + 1}")
    point = points[mutant.index]
    _change(tree, point)
    return ast.fix_missing_locations(tree)


def _change(tree: ast.Module, point: _Point) -> None:
    node = point.node
    if point.operator == "compare":
        assert isinstance(node, ast.Compare)
        old = node.ops[point.variant]
        node.ops[point.variant] = _COMPARE_SWAPS[type(old)]()
    elif point.operator == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif point.operator == "arithmetic":
        assert isinstance(node, ast.BinOp | ast.AugAssign)
        node.op = _ARITHMETIC_SWAPS[type(node.op)]()
    elif point.operator == "bool":
        assert isinstance(node, ast.Constant)
        node.value = not node.value
    elif point.operator == "number":
        assert isinstance(node, ast.Constant)
        assert isinstance(node.value, int)
        node.value = node.value + 1
    elif point.operator == "string":
        assert isinstance(node, ast.Constant)
        assert isinstance(node.value, str)
        node.value = node.value + "X"
    else:
        _replace(tree, node, point)


def _replace(tree: ast.Module, node: ast.AST, point: _Point) -> None:
    """Put the node's replacement where the node is, in its parent."""
    if point.operator == "not":
        assert isinstance(node, ast.UnaryOp)
        replacement: ast.AST = node.operand
    elif point.operator == "delete":
        replacement = ast.Pass()
        ast.copy_location(replacement, node)
    else:  # return
        replacement = ast.Return(value=ast.Constant(value=None))
        ast.copy_location(replacement, node)
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is node:
                setattr(parent, name, replacement)
                return
            if isinstance(value, list):
                for position, item in enumerate(value):
                    if item is node:
                        value[position] = replacement
                        return
    raise ValueError(f"no parent holds the node of {point.operator} ({point.description})")
