"""A self-hosted API reference drawn from the OpenAPI schema (no CDN, no inline script)."""

from __future__ import annotations

from typing import Any

from app.web.params import allowed_text


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return components.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


def operations(openapi: dict[str, Any]) -> list[dict[str, Any]]:
    components = openapi.get("components", {}).get("schemas", {})
    result = []
    for path, methods in openapi.get("paths", {}).items():
        for method, operation in methods.items():
            params = []
            for parameter in operation.get("parameters", []):
                schema = _resolve(parameter.get("schema", {}), components)
                params.append(
                    {
                        "name": parameter["name"],
                        "where": parameter.get("in", "query"),
                        "allowed": allowed_text(schema),
                        "default": schema.get("default"),
                        "description": parameter.get("description") or schema.get("description", ""),
                    }
                )
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                body = _resolve(body, components)
                for name, schema in body.get("properties", {}).items():
                    schema = _resolve(schema, components)
                    params.append(
                        {
                            "name": name,
                            "where": "body" + (" (required)" if name in body.get("required", []) else ""),
                            "allowed": allowed_text(schema),
                            "default": schema.get("default"),
                            "description": schema.get("description", ""),
                        }
                    )
            result.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": operation.get("summary", ""),
                    "description": operation.get("description", ""),
                    "tags": operation.get("tags", []),
                    "params": params,
                }
            )
    return result
