"""The page and the server read the cross-field rules the same way.

Every rule of every view (app/web/rules.py) is evaluated on random values of the fields it reads,
once by the server's evaluator and once by the page's (static/js/lib/rules.js, in Chromium); the
answers must agree exactly, including where a rule does not apply (a division by zero, a missing
value).  A disagreement would let a slider offer a value the server refuses, or refuse one it
accepts.
"""

from __future__ import annotations

import random

import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.rules import _check, _NotApplicable, compile_expression, evaluate, names_in, reads, rule_specs, rules_of
from app.web.templating import field_specs
from app.web.views import REGISTRY, discover

pytestmark = pytest.mark.browser

WORDS = ["dog", "bites", "man", "the", "cat", "saw", "a", "it's"]


def _value(spec: dict, rng: random.Random):
    kind = spec["type"]
    if spec.get("nullable") and rng.random() < 0.1:
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if "enum" in spec:
        return rng.choice(spec["enum"])
    if kind in ("integer", "number"):
        low = spec.get("minimum", spec.get("exclusiveMinimum", 0))
        high = spec.get("maximum", spec.get("exclusiveMaximum", 1e6))
        # Small values, the edges and the whole range: where rules bite.
        pick = rng.choice([low, high, low + 1, rng.uniform(low, min(high, low + 64)), rng.uniform(low, high)])
        if kind == "integer":
            step = spec.get("multipleOf", 1)
            return int(round(pick / step) * step)
        return float(pick)
    if kind.startswith("list:"):
        item = {"type": kind[5:], **spec.get("items", {})}
        return [_value(item, rng) for _ in range(rng.randint(0, 5))]
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))


def _python(tree, values):
    try:
        return evaluate(tree, values)
    except _NotApplicable:
        return None


def _cases(count_per_rule: int = 40):
    rng = random.Random(20261201)
    cases = []
    for view in REGISTRY.values():
        for model in (view.params, view.display):
            specs = {spec["name"]: spec for spec in field_specs(model, "any")}
            for name, rule in rules_of(model):
                sources = rule.sources()
                trees = [compile_expression(source) for source in sources]
                reads = set().union(*(names_in(tree) for tree in trees))
                for _ in range(count_per_rule):
                    values = {field: _value(specs[field], rng) for field in reads}
                    for tree in trees:
                        cases.append({"where": f"{view.name}.{name}", "tree": tree, "values": values, "python": _python(tree, values)})
    return cases


def _same(python, page_value) -> bool:
    """Equal values of the same kind (JSON has one number type: 10000.0 and 10000 are the same
    number, but true and 1 are not the same answer)."""
    if isinstance(python, list) or isinstance(page_value, list):
        return isinstance(python, list) and isinstance(page_value, list) and len(python) == len(page_value) and all(
            _same(a, b) for a, b in zip(python, page_value, strict=True)
        )
    if isinstance(python, bool) or isinstance(page_value, bool):
        return type(python) is type(page_value) and python == page_value
    return python == page_value


def test_server_and_page_evaluate_every_rule_alike(page, base_url):
    discover()
    cases = _cases()
    page.goto(f"{base_url}/scores")
    page_answers = page.evaluate(
        """async (cases) => {
          const { evaluateOr } = await import('/static/js/lib/rules.js');
          return cases.map((c) => { const v = evaluateOr(c.tree, c.values, null); return v === undefined ? null : v; });
        }""",
        [{"tree": case["tree"], "values": case["values"]} for case in cases],
    )
    disagreements = [
        (case["where"], case["tree"], case["values"], case["python"], answer)
        for case, answer in zip(cases, page_answers, strict=True)
        if not _same(case["python"], answer)
    ]
    assert len(cases) > 500
    assert disagreements == [], disagreements[:5]


def test_page_and_server_word_every_broken_rule_alike(page, base_url):
    """Every rule, broken on random values, gives the same sentence on the page as in the 422: its
    message template (and ``why``) renders alike in both languages, placeholders included."""
    discover()
    rng = random.Random(20261202)
    cases = []
    for view in REGISTRY.values():
        for model in (view.params, view.display):
            specs = {spec["name"]: spec for spec in field_specs(model, "any")}
            compiled = rule_specs(model)  # in the order of rules_of
            for index, (name, rule) in enumerate(rules_of(model)):
                wanted = reads(rule) | {name}
                for _ in range(400):  # random values until the rule is broken
                    values = {field: _value(specs[field], rng) for field in wanted}
                    message = _check(name, rule, values)
                    if message:
                        cases.append({"where": f"{view.name}.{name}", "rule": compiled[index], "field": name, "values": values, "python": message})
                        break
    page.goto(f"{base_url}/scores")
    page_messages = page.evaluate(
        """async (cases) => {
          const { ruleProblem } = await import('/static/js/lib/rules.js');
          return cases.map((c) => ruleProblem([c.rule], c.field, c.values));
        }""",
        cases,
    )
    assert len(cases) > 20  # most rules are broken within the tries
    different = [(case["where"], case["python"], answer) for case, answer in zip(cases, page_messages, strict=True) if case["python"] != answer]
    assert different == [], different[:5]
