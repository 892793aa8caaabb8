"""app/core must stay pure numpy: no web, validation or serialisation library."""

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "app" / "core"
FORBIDDEN = {"fastapi", "starlette", "pydantic", "jinja2", "plotly", "json", "orjson", "uvicorn", "app.web", "app.views"}


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_imports_no_web_library(path):
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    bad = {name for name in imported if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_purity_check_sees_core_modules():
    assert len(list(CORE.glob("*.py"))) >= 5
