"""Cross-field rules (app/web/rules.py): the expression language, the model validator, the schema."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field, ValidationError

from app.web.params import Params
from app.web.rules import Bound, Require, RuleError, compile_expression, evaluate, rule_specs
from app.web.views import REGISTRY, discover


@pytest.mark.parametrize(
    ("source", "values", "expected"),
    [
        ("head_dim // 2 - 1", {"head_dim": 128}, 63),
        ("7 // 2", {}, 3),
        ("-7 // 2", {}, -4),  # floor, not truncation
        ("-7 % 3", {}, 2),  # sign of the divisor
        ("int(-2.5)", {}, -2),  # truncation
        ("int(head_dim * f)", {"head_dim": 64, "f": 0.3}, 19),
        ("4096 if content == 'random' else 131072", {"content": "random"}, 4096),
        ("4096 if content == 'random' else 131072", {"content": "repeated"}, 131072),
        ("len(bases)", {"bases": (1.0, 2.0, 3.0)}, 3),
        ("words(s)", {"s": "  dog  bites\tman "}, 3),
        ("rope_type not in ('dynamic', 'ntk') or r > 2", {"rope_type": "dynamic", "r": 2}, False),
        ("rope_type not in ('dynamic', 'ntk') or r > 2", {"rope_type": "yarn", "r": 2}, True),
        ("(beta or 32)", {"beta": 0.0}, 32),
        ("1 < x <= 3", {"x": 3}, True),
        ("min(a, b) + max(a, b)", {"a": 2, "b": 5}, 7),
    ],
)
def test_expressions_mean_what_python_means(source, values, expected):
    assert evaluate(compile_expression(source), values) == expected


@pytest.mark.parametrize("source", ["__import__('os')", "x.attr", "[i for i in x]", "x[0]", "lambda: 1", "f(x)", "x ** 2", "x in y"])
def test_anything_outside_the_language_is_refused_when_declared(source):
    with pytest.raises(RuleError):
        compile_expression(source)


class _Model(Params):
    size: Annotated[int, Field(ge=1, le=100)] = 10
    mode: str = "small"
    part: Annotated[int, Field(ge=0, le=100), Bound(le="size - 1", why="parts are numbered below size = {size}")] = 0
    cap: Annotated[int, Field(ge=1, le=100), Bound(le="50", when="mode == 'big'")] = 1
    items: Annotated[
        tuple[int, ...],
        Field(max_length=8),
        Bound(le="size - 1", each=True),
        Bound(le="100 // size", length=True),
    ] = ()
    even: Annotated[int, Field(ge=0, le=100), Require("(even + size) % 2 == 0", "even + size = {even + size} must be even", when="even > 0")] = 0


def _errors(**values):
    with pytest.raises(ValidationError) as caught:
        _Model(**values)
    return {error["loc"]: error["msg"] for error in caught.value.errors()}


def test_a_broken_rule_is_an_error_at_the_field_that_carries_it():
    assert _errors(size=10, part=10) == {("part",): "part must be at most 9 here (parts are numbered below size = 10); got 10"}
    assert _Model(size=11, part=10).part == 10


def test_when_limits_a_rule_to_some_settings():
    assert _Model(cap=80).cap == 80
    assert ("cap",) in _errors(mode="big", cap=80)


def test_list_rules_limit_items_and_length():
    assert _errors(size=5, items=(1, 7)) == {("items",): "every items item must be at most 4 here; 7 is not"}
    assert ("items",) in _errors(size=20, items=(1, 2, 3, 4, 5, 6))
    assert _Model(size=20, items=(1, 2, 3, 4, 5)).items == (1, 2, 3, 4, 5)


def test_require_renders_its_message_with_the_values():
    assert _errors(size=10, even=3) == {("even",): "even + size = 13 must be even"}


def test_no_rule_reports_on_a_field_already_refused():
    # size=0 is refused by its own Field; nothing then speaks of the rules that read size.
    errors = _errors(size=0, part=50)
    assert list(errors) == [("size",)]


def test_a_rule_naming_an_unknown_field_fails_at_class_definition() -> None:
    with pytest.raises(RuleError):

        class _Broken(Params):
            value: Annotated[int, Bound(le="missing - 1")] = 0


def test_rules_are_stated_in_the_openapi_description():
    description = _Model.model_fields["part"].description
    assert "value ≤ size - 1" in description


def test_every_view_rule_compiles_for_the_page_and_reads_only_its_model():
    discover()
    for view in REGISTRY.values():
        for model in (view.params, view.display):
            for spec in rule_specs(model):
                assert spec["field"] in model.model_fields
