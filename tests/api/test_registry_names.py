"""The scaling registry (app.core.scaling.METHODS) is the one list of method names and fields."""

from __future__ import annotations

import pytest

from app.core import scaling
from app.core.hf_config import HF_KEYS


@pytest.mark.parametrize("path", ["/api/rope/frequencies", "/api/rope/spectrum"])
def test_rope_type_choices_are_the_registrys(client, path):
    spec = client.get("/openapi.json").json()
    (parameter,) = [p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == "rope_type"]
    schema = parameter["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    assert schema["enum"] == list(scaling.METHODS)
    assert all(method.title in parameter.get("description", schema.get("description", "")) for method in scaling.METHODS.values())


def test_config_keys_are_the_registrys_fields():
    fields = {name for method in scaling.METHODS.values() for name in (*method.required, *method.optional)}
    assert fields | set(scaling.COMMON_KEYS) | {"type"} == HF_KEYS
    assert fields <= set(scaling.FIELD_NAMES)
