"""Load the committed reference data (tests/reference/data, produced by torch + transformers)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "reference" / "data"


@cache
def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text())


def cases(name: str) -> list[dict]:
    return load(name)["cases"]
