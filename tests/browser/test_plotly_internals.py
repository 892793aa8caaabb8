"""static/js/lib/plotly-internals.js reads Plotly's private fields, written against one plotly
version: this fails when the installed plotly (the Python package that ships plotly.min.js) or
the plotly.js the app serves is another version, so that a new Plotly is checked against what
that file reads before it ships (then update the file, its version and the pin in pyproject.toml).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import plotly
import pytest

ROOT = Path(__file__).resolve().parents[2]
INTERNALS = ROOT / "static" / "js" / "lib" / "plotly-internals.js"


def written_against() -> tuple[str, str]:
    text = INTERNALS.read_text(encoding="utf-8")
    js = re.search(r'PLOTLY_JS_VERSION = "([^"]+)"', text)
    header = re.search(r"plotly\.js (\S+) \(the bundle of the Python package plotly (\S+) ", text)
    assert js and header, "plotly-internals.js states the versions it was written against"
    assert header.group(1) == js.group(1)
    return header.group(2), js.group(1)


def test_the_installed_plotly_is_the_one_the_internals_were_written_against():
    python_version, _ = written_against()
    assert plotly.__version__ == python_version, (
        f"plotly {plotly.__version__} installed; plotly-internals.js was written against {python_version}"
    )


def test_pyproject_pins_that_plotly_exactly():
    python_version, _ = written_against()
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert f"plotly=={python_version}" in [dep.replace(" ", "") for dep in dependencies]


@pytest.mark.browser
def test_the_served_plotly_js_is_the_one_the_internals_were_written_against(page, base_url):
    _, js_version = written_against()
    page.goto(f"{base_url}/scores")
    page.wait_for_function("() => window.Plotly")
    assert page.evaluate("() => Plotly.version") == js_version
