"""The declared answers (app/web/answers.py) as a script author meets them: in /openapi.json, in real
answers, and in the clients two generators make from the document.

The requests asked are each operation's defaults, every example its documentation shows, and a few
moved values below that reach the keys and nulls the defaults do not (a causal mask, LongRoPE's
switch, an operator's seq_len, a config with M-RoPE).  Answers are asked once per module.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema_rs
import pytest
from fastapi.routing import APIRoute

from app.main import create_app

MOVED = {
    ("get", "/api/rope/frequencies"): [
        "rope_type=yarn&factor=4&seq_len=100",
        "rope_type=dynamic&factor=2&seq_len=100000",
        "head_dim=2&context_len=1",
    ],
    ("get", "/api/rope/spectrum"): [
        "rope_type=longrope&seq_len=65536&short_factor=1&short_factor=1&long_factor=2&long_factor=4&head_dim=4",
        "rope_type=yarn&mscale=1&mscale_all_dim=1",
        "rope_type=linear&seq_len=10",
    ],
    ("get", "/api/rope/calculator"): ["head_dim=2&seq_len=100", "seq_len=1000&original_max_position_embeddings=4096"],
    ("get", "/api/rope/precision"): ["seq_len=262144&pairs=0&pairs=10"],
    ("get", "/api/rope/scores"): ["causal=true&content=random&seq_len=64"],
    ("get", "/api/rope/offsets"): ["content=random&seeds=4&max_offset=100&columns=50"],
    ("get", "/api/learned"): ["position=10&beyond=0&last_column=62"],
    ("get", "/api/relative/alibi"): ["seq_len=4&num_heads=3"],
    ("get", "/api/model/heads"): ["surgery_rope_type=yarn&surgery_factor=2"],
    ("get", "/api/model/long-context"): ["text=python-docs"],
}
BODIES = {
    ("post", "/api/rope/frequencies"): [
        {"hidden_size": 1536, "num_attention_heads": 12, "rope_theta": 1000000.0,
         "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
        {"head_dim": 64, "rope_theta": 10000.0, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
         "original_max_position_embeddings": 4096, "mscale": 1.0, "mscale_all_dim": 1.0}},
    ],
}


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").json()


def _routes(routes):
    for route in routes:
        if hasattr(route, "original_router"):  # an included router
            yield from _routes(route.original_router.routes)
        else:
            yield route


def _json_operations(app) -> dict[tuple[str, str], str]:
    """(method, path) → description of every API operation answering JSON (not CSV)."""
    return {
        (method.lower(), route.path): route.description
        for route in _routes(app.routes)
        if isinstance(route, APIRoute) and route.include_in_schema and not route.path.endswith(".csv")
        and (route.path.startswith("/api/") or route.path == "/healthz")
        for method in sorted(route.methods or ())
    }


DESCRIPTIONS = _json_operations(create_app())  # cheap: the document itself is read from /openapi.json
OPERATIONS = list(DESCRIPTIONS)


def _answer_schema(spec, method: str, path: str) -> dict:
    return spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]


def _requests(method: str, path: str) -> list[tuple[str, dict | None]]:
    description = DESCRIPTIONS[(method, path)]
    if method == "post":
        shown = [json.loads(body) for body in re.findall(r"Example body: `(\{.*?\})`", description, re.S)]
        return [(path, body) for body in shown + BODIES.get((method, path), [])]
    shown = re.findall(re.escape(path) + r"\?([^`\s]+)`", description)
    return [(path, None), *((f"{path}?{query}", None) for query in shown + MOVED.get((method, path), []))]


@functools.cache
def _answers(client, method: str, path: str) -> list[tuple[str, object]]:
    found = []
    for url, body in _requests(method, path):
        if "{name}" in url:
            url = url.replace("{name}", "rope")
        response = client.post(url, json=body) if method == "post" else client.get(url)
        assert response.status_code == 200, (url, response.text[:300])
        found.append((url, response.json()))
    return found


def _walk(schema, where):
    """Every sub-schema with where it is."""
    yield where, schema
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    yield from _walk(sub, f"{where}.{name}")
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                yield from _walk(value, f"{where}[]")
            elif key in ("anyOf", "allOf", "oneOf"):
                for i, sub in enumerate(value):
                    yield from _walk(sub, f"{where}|{i}")


def test_every_json_operation_declares_a_named_answer(spec):
    documented = {
        (method, path)
        for path, methods in spec["paths"].items()
        for method, operation in methods.items()
        if "application/json" in operation["responses"].get("200", {}).get("content", {})
    }
    assert documented == set(OPERATIONS) and len(OPERATIONS) == 29  # 26 lesson and script operations (presets, /heads' progress, /long-context included), 2 lectures, /healthz
    for method, path in OPERATIONS:
        schema = _answer_schema(spec, method, path)
        assert set(schema) == {"$ref"}, (method, path, schema)
        model = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        assert model.get("required") and model.get("description"), (method, path)


def test_declared_answers_are_concrete(spec):
    """Integers as integer, an item type on every array, no untyped value, every model described."""
    components = spec["components"]["schemas"]
    reached, todo = set(), [_answer_schema(spec, m, p)["$ref"].rsplit("/", 1)[-1] for m, p in OPERATIONS]
    while todo:  # every model an answer uses
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += [ref.rsplit("/", 1)[-1] for ref in re.findall(r'"\$ref": "([^"]+)"', json.dumps(components[name]))]
    assert len(reached) > 80
    integers = 0
    for name in sorted(reached):
        model = components[name]
        assert model.get("description"), f"{name} has no description"
        for where, node in _walk(model, name):
            if not isinstance(node, dict) or (where.endswith("[]") and node == {}):
                continue
            if node.get("type") == "array":
                assert node.get("items"), f"{where}: an array without items"
            if node.get("type") == "integer":
                integers += 1
            typed = {"type", "$ref", "anyOf", "allOf", "oneOf", "properties", "const", "enum"} & set(node)
            assert typed or where.endswith("source") or "additionalProperties" in node, f"{where}: no type"
    assert integers > 100
    for method, path in OPERATIONS:
        answer = components[_answer_schema(spec, method, path)["$ref"].rsplit("/", 1)[-1]]
        for name, prop in answer["properties"].items():
            assert prop.get("description") or "$ref" in prop or "allOf" in prop, f"{path}: {name} is not described"


def _bare(schema: dict) -> dict:
    """A schema without the words about it (title, description, default): what it allows."""
    return {key: value for key, value in schema.items() if key not in ("title", "description", "default")}


def test_echoed_parameters_are_declared_with_the_parameters_own_type(spec):
    """An answer key echoing a parameter ("As given (or defaulted): …") allows exactly what the
    parameter allows: the same enum, bounds, multiple and item types, not a looser retyped copy."""
    components = spec["components"]["schemas"]
    echoed = 0
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            content = operation["responses"]["200"].get("content", {}).get("application/json")
            if not content:
                continue
            answer = components[content["schema"]["$ref"].rsplit("/", 1)[-1]]
            given = {parameter["name"]: parameter["schema"] for parameter in operation.get("parameters", [])}
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body and "$ref" in body:
                given.update(components[body["$ref"].rsplit("/", 1)[-1]]["properties"])
            for name, prop in answer["properties"].items():
                if not prop.get("description", "").startswith("As given (or defaulted)"):
                    continue
                assert name in given, f"{method.upper()} {path}: {name} says it echoes a parameter the operation does not take"
                assert _bare(prop) == _bare(given[name]), f"{method.upper()} {path}: {name}"
                echoed += 1
    assert echoed >= 140  # every lesson echoes its parameters


@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m.upper()} {p}" for m, p in OPERATIONS])
def test_real_answers_match_the_declared_schema(spec, client, method, path):
    root = {**_answer_schema(spec, method, path), "components": spec["components"]}
    validator = jsonschema_rs.Draft202012Validator(root)
    for url, answer in _answers(client, method, path):
        problems = list(validator.iter_errors(answer))[:5]
        assert not problems, f"{url}: " + "; ".join(f"{list(p.instance_path)[:6]}: {p.message[:120]}" for p in problems)


def test_a_wrong_answer_is_refused_by_its_schema(spec):
    """The check above can fail: a float where an integer is declared, a missing required key."""
    root = {**_answer_schema(spec, "get", "/api/sinusoidal/table"), "components": spec["components"]}
    validator = jsonschema_rs.Draft202012Validator(root)
    good = {"seq_len": 2, "dim": 2, "base": 10.0, "layout": "interleaved", "start": 0, "positions": [0, 1],
            "frequencies": [1.0], "shortest_wavelength": 6.283185307179586, "longest_wavelength": 6.283185307179586,
            "columns": ["sin", "cos"], "table": [[0.0, 1.0], [0.8, 0.5]]}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "seq_len": 2.5})
    assert not validator.is_valid({**good, "table": [[0.0, "x"]]})
    assert not validator.is_valid({key: value for key, value in good.items() if key != "table"})


# ---- generated clients ----------------------------------------------------------------------------


def _generate(tmp_path_factory, spec, *command: str) -> Path:
    out = tmp_path_factory.mktemp("generated")
    (out / "openapi.json").write_text(json.dumps(spec))
    (out / "config.yaml").write_text("post_hooks: []\n")  # the code as generated, not reformatted (ruff)
    subprocess.run([*command], cwd=out, check=True, capture_output=True, timeout=300)
    return out


def test_openapi_python_client_keeps_every_answer_model(spec, client, tmp_path_factory):
    bin_dir = Path(sys.executable).parent
    out = _generate(tmp_path_factory, spec, str(bin_dir / "openapi-python-client"), "generate", "--path", "openapi.json",
                    "--meta", "none", "--output-path", "explorer_client", "--config", "config.yaml")
    sys.path.insert(0, str(out))
    try:
        models = importlib.import_module("explorer_client.models")
        modules = {}  # (method, path) → the generated module's source
        for file in (out / "explorer_client" / "api").rglob("*.py"):
            source = file.read_text()
            found = re.search(r'"method": "(\w+)",\s*"url": "([^"]+)"', source)
            if found:
                modules[found.groups()] = source
        lost = []
        for method, path in OPERATIONS:
            source = modules[(method, path)]
            ref = _answer_schema(spec, method, path)["$ref"].rsplit("/", 1)[-1]
            if not re.search(rf"response_200 = {ref}\.from_dict\(", source):
                lost.append(f"{method.upper()} {path}")
                continue
            url, answer = _answers(client, method, path)[0]  # the defaults (the schema test reads every answer)
            parsed = getattr(models, ref).from_dict(answer)
            assert parsed.to_dict().keys() >= {k for k in answer if answer[k] is not None}, url
        assert not lost, f"the generated client has no answer model for {lost}"
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n.startswith("explorer_client")]:
            del sys.modules[name]


def test_datamodel_code_generator_models_type_and_parse_real_answers(spec, client, tmp_path_factory):
    bin_dir = Path(sys.executable).parent
    out = _generate(tmp_path_factory, spec, str(bin_dir / "datamodel-codegen"), "--input", "openapi.json",
                    "--input-file-type", "openapi", "--output", "explorer_models.py",
                    "--output-model-type", "pydantic_v2.BaseModel", "--use-annotated", "--formatters", "builtin")
    sys.path.insert(0, str(out))
    try:
        models = importlib.import_module("explorer_models")
        # Concrete types survive: a count is an int, a ladder a list of floats, a required key is required.
        ladder = models.FrequenciesAnswer.model_fields
        assert ladder["rotary_dim"].annotation is int and ladder["rotary_dim"].is_required()
        assert ladder["inv_freq"].annotation == list[float]
        assert models.ScoresAnswer.model_fields["scores"].annotation == list[list[float | None]]
        for method, path in OPERATIONS:
            ref = _answer_schema(spec, method, path)["$ref"].rsplit("/", 1)[-1]
            model = getattr(models, ref)
            assert any(field.is_required() for field in model.model_fields.values()), ref
            _url, answer = _answers(client, method, path)[0]
            model.model_validate(answer)
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("explorer_models", None)


def test_docs_show_each_answer_field_with_its_type_and_meaning(client):
    docs = client.get("/docs").text
    assert "<code>rotary_dim</code></dt><dd>integer — Dimensions that rotate" in docs
    assert "<code>scores</code></dt><dd>list of list of number or null — " in docs
    assert "<code>surgered_weights</code></dt><dd>list of list of number or null or null — " in docs
    assert "(not always present)" in docs
