"""Cross-field rules, declared once beside the field they limit, checked by the server and the page.

pydantic checks one field at a time (``Field(ge=…, le=…)``); a limit that depends on another
field (``hand < head_dim / 2``, ``seq_len × head_dim ≤ 131072`` with random content) has no
home there, and a page needs it *before* it asks the server: a slider must not reach a value
that will be refused.  So such a limit is written as data in the field's ``Annotated`` metadata:

    hand: Annotated[int, Field(ge=0, le=511), UI("Mark returns of hand j"),
                    Bound(le="head_dim // 2 - 1", why="the head has head_dim/2 pairs")] = 0

and one model validator (:meth:`app.web.params.Params._check_rules`) evaluates every rule after
the per-field checks, raising an error located at the field that carries it.  The same rules go
to the page (``field_specs``) as small expression trees that ``static/js/lib/rules.js``
evaluates: sliders take their dependent bounds from them, and the page never sends a value they
refuse.  Pydantic and FastAPI have no such client-visible cross-field constraint, hence this
module.

The expression language is a small, side-effect-free subset of Python whose meaning is the same
in JavaScript: numbers, strings, ``True``/``False``/``None``, field names, ``+ - * / // %``,
comparisons, ``and``/``or``/``not``, ``x if c else y``, ``in`` a literal tuple, and the calls
``len``, ``words`` (``str.split()``), ``int`` (truncation), ``min``, ``max``, ``sum`` (of a list).  Use ``//`` and ``%``
on integers only (float floor division rounds differently in the two languages).  A rule whose
expression divides by zero, or that reads a field holding ``None``, does not apply.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

# ---- expressions ---------------------------------------------------------------------------------

Tree = list  # ["op", operand, ...]: see _compile

_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}
_COMPARE = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
}
_CALLS = {"len", "words", "int", "min", "max", "sum"}


class RuleError(ValueError):
    """A rule's expression is not in the language (raised when the model class is defined)."""


@functools.cache
def compile_expression(source: str) -> Tree:
    """Parse ``source`` into a JSON-ready tree, or raise :class:`RuleError`."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        raise RuleError(f"cannot parse rule {source!r}: {exc.msg}") from exc
    return _compile(node, source)


def _compile(node: ast.AST, source: str) -> Tree:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return ["lit", node.value]
    if isinstance(node, ast.Name):
        return ["var", node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return [_BINARY[type(node.op)], _compile(node.left, source), _compile(node.right, source)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        return ["neg" if isinstance(node.op, ast.USub) else "not", _compile(node.operand, source)]
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        tree = _compile(node.values[0], source)
        for value in node.values[1:]:
            tree = [op, tree, _compile(value, source)]
        return tree
    if isinstance(node, ast.Compare):
        # a < b < c is (a < b) and (b < c)
        parts, left = [], node.left
        for compare, right in zip(node.ops, node.comparators, strict=True):
            if type(compare) not in _COMPARE:
                break
            if isinstance(compare, (ast.In, ast.NotIn)) and not isinstance(right, (ast.Tuple, ast.List)):
                raise RuleError(f"rule {source!r}: 'in' needs a literal tuple")
            parts.append([_COMPARE[type(compare)], _compile(left, source), _compile(right, source)])
            left = right
        else:
            tree = parts[0]
            for part in parts[1:]:
                tree = ["and", tree, part]
            return tree
    if isinstance(node, (ast.Tuple, ast.List)):
        return ["list", *(_compile(item, source) for item in node.elts)]
    if isinstance(node, ast.IfExp):
        return ["if", _compile(node.test, source), _compile(node.body, source), _compile(node.orelse, source)]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CALLS
        and not node.keywords
        and node.args
    ):
        return ["call", node.func.id, *(_compile(arg, source) for arg in node.args)]
    raise RuleError(f"rule {source!r}: {ast.unparse(node)!r} is not allowed in a rule")


class _NotApplicable(Exception):
    pass


def evaluate(tree: Tree, values: dict[str, Any]) -> Any:
    """Value of a compiled expression for the field ``values``; raises _NotApplicable when the
    rule does not apply (a field is None, or a division by zero)."""
    op = tree[0]
    if op == "lit":
        return tree[1]
    if op == "var":
        value = values[tree[1]]
        if value is None:
            raise _NotApplicable
        return value
    if op == "and":
        left = evaluate(tree[1], values)
        return evaluate(tree[2], values) if left else left
    if op == "or":
        left = evaluate(tree[1], values)
        return left if left else evaluate(tree[2], values)
    if op == "if":
        return evaluate(tree[2], values) if evaluate(tree[1], values) else evaluate(tree[3], values)
    if op == "not":
        return not evaluate(tree[1], values)
    if op == "neg":
        return -evaluate(tree[1], values)
    if op == "list":
        return [evaluate(item, values) for item in tree[1:]]
    if op == "call":
        args = [evaluate(arg, values) for arg in tree[2:]]
        return _FUNCTIONS[tree[1]](*args)
    left, right = evaluate(tree[1], values), evaluate(tree[2], values)
    try:
        return _OPERATORS[op](left, right)
    except ZeroDivisionError:
        raise _NotApplicable from None


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "len": len,
    "words": lambda text: len(text.split()),
    "int": lambda x: int(x),  # truncation toward zero, like Math.trunc
    "min": min,
    "max": max,
    "sum": sum,
}
_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


# ---- rules -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    """A limit on the field that carries it, computed from other fields.

    ``ge``/``gt``/``le``/``lt``: expressions for the bound.  ``when``: the bound applies only when
    this expression is true.  ``each``: the bound limits every item of a list field; ``length``:
    it limits the list's length.  ``why``: a few words of reason for the message.
    """

    ge: str | None = None
    gt: str | None = None
    le: str | None = None
    lt: str | None = None
    when: str | None = None
    each: bool = False
    length: bool = False
    why: str = ""

    def __post_init__(self) -> None:
        for source in (self.ge, self.gt, self.le, self.lt, self.when):
            if source is not None:
                compile_expression(source)
        message_parts(self.why)

    def sources(self) -> list[str]:
        return [*(s for _, s in self.limits()), *([self.when] if self.when else []), *_placeholders(self.why)]

    def limits(self) -> list[tuple[str, str]]:
        return [(op, source) for op, source in (("ge", self.ge), ("gt", self.gt), ("le", self.le), ("lt", self.lt)) if source]


@dataclass(frozen=True)
class Require:
    """A condition the field's value must meet together with other fields (``test``, an
    expression that may name the field itself), with the message shown when it does not.
    ``{expression}`` in the message is replaced by its value."""

    test: str
    message: str
    when: str | None = None

    def __post_init__(self) -> None:
        compile_expression(self.test)
        if self.when is not None:
            compile_expression(self.when)
        message_parts(self.message)  # raises RuleError for a placeholder outside the language

    def sources(self) -> list[str]:
        return [self.test, *([self.when] if self.when else []), *_placeholders(self.message)]


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _placeholders(template: str) -> list[str]:
    return _PLACEHOLDER.findall(template)


def message_parts(message: str) -> list[str | Tree]:
    """A message template as text pieces and compiled ``{expression}`` trees, in order."""
    parts: list[str | Tree] = []
    position = 0
    for match in _PLACEHOLDER.finditer(message):
        if match.start() > position:
            parts.append(message[position : match.start()])
        parts.append(compile_expression(match.group(1)))
        position = match.end()
    if position < len(message):
        parts.append(message[position:])
    return parts


def _render(message: str, values: dict[str, Any]) -> str:
    return "".join(part if isinstance(part, str) else _number(evaluate(part, values)) for part in message_parts(message))


Rule = Bound | Require

_COMPARISON_WORDS = {"ge": "at least", "gt": "greater than", "le": "at most", "lt": "less than"}
_HOLDS = {
    "ge": lambda v, b: v >= b,
    "gt": lambda v, b: v > b,
    "le": lambda v, b: v <= b,
    "lt": lambda v, b: v < b,
}


def rules_of(model: type[BaseModel]) -> list[tuple[str, Rule]]:
    """(field name, rule) for every rule in the model's field metadata, in field order."""
    return _rules_of(model)


@functools.cache
def _rules_of(model: type[BaseModel]) -> list[tuple[str, Rule]]:
    found = []
    for name, field in model.model_fields.items():
        for item in field.metadata:
            if isinstance(item, (Bound, Require)):
                found.append((name, item))
    return found


def names_in(tree: Tree) -> set[str]:
    """The field names an expression reads."""
    if tree[0] == "var":
        return {tree[1]}
    if tree[0] == "lit":
        return set()
    return set().union(*(names_in(part) for part in tree[1:] if isinstance(part, list)))


def reads(rule: Rule) -> set[str]:
    return set().union(*(names_in(compile_expression(source)) for source in rule.sources()))


def violations(model: type, values: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(field, message, offending value) for the rules of ``model`` that ``values`` break: the
    first broken rule of each field, and no rule that reads a field already found broken (its
    message would be about a value that is refused anyway)."""
    broken: list[tuple[str, str, Any]] = []
    seen: set[str] = set()
    for name, rule in rules_of(model):
        if name in seen or reads(rule) & seen:
            continue
        problem = _check(name, rule, values)
        if problem is not None:
            seen.add(name)
            broken.append((name, problem, values.get(name)))
    return broken


def _applies(when: str | None, values: dict[str, Any]) -> bool:
    return when is None or bool(evaluate(compile_expression(when), values))


def _check(name: str, rule: Rule, values: dict[str, Any]) -> str | None:
    value = values.get(name)
    if value is None:
        return None
    try:
        if not _applies(rule.when, values):
            return None
        if isinstance(rule, Require):
            return None if evaluate(compile_expression(rule.test), values) else _render(rule.message, values)
        for op, source in rule.limits():
            bound = evaluate(compile_expression(source), values)
            if isinstance(bound, float) and not math.isfinite(bound):
                continue
            reason = f" ({_render(rule.why, values)})" if rule.why else ""
            words = _COMPARISON_WORDS[op]
            if rule.length:
                if not _HOLDS[op](len(value), bound):
                    return f"{name} must hold {words} {_number(bound)} item{'s' if bound != 1 else ''} here{reason}; it has {len(value)}"
            elif rule.each:
                bad = [item for item in value if not _HOLDS[op](item, bound)]
                if bad:
                    return f"every {name} item must be {words} {_number(bound)} here{reason}; {_number(bad[0])} is not"
            elif not _HOLDS[op](value, bound):
                return f"{name} must be {words} {_number(bound)} here{reason}; got {_number(value)}"
    except _NotApplicable:
        return None
    return None


@functools.cache
def rule_specs(model: type) -> list[dict[str, Any]]:
    """The model's rules as JSON for the page (static/js/lib/rules.js reads them)."""
    specs = []
    for name, rule in rules_of(model):
        spec: dict[str, Any] = {"field": name}
        if rule.when is not None:
            spec["when"] = compile_expression(rule.when)
        if isinstance(rule, Require):
            spec.update(kind="require", test=compile_expression(rule.test), message=message_parts(rule.message))
        else:
            spec.update(
                kind="length" if rule.length else "each" if rule.each else "value",
                limits={op: compile_expression(source) for op, source in rule.limits()},
                why=message_parts(rule.why),
            )
        specs.append(spec)
    return specs


def describe(rule: Rule) -> str:
    """One line for the API documentation (OpenAPI descriptions)."""
    when = f" when {rule.when}" if rule.when else ""
    if isinstance(rule, Require):
        return f"Requires {rule.test}{when}."
    subject = "len(value)" if rule.length else "every item" if rule.each else "value"
    limits = ", ".join(f"{subject} {_SYMBOLS[op]} {source}" for op, source in rule.limits())
    return f"Also {limits}{when}" + (f" ({rule.why})" if rule.why else "") + "."


_SYMBOLS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
