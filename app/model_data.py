"""The shipped SmolLM2-135M data of /heads (app/data/model), loaded lazily, one text at a time.

Only meta.json is read on first use; each text's q/k arrays (float16) are read when that text is
asked for and kept in a small LRU cache, so a worker holds a few MB, not the whole folder.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data" / "model"


@lru_cache(maxsize=1)
def meta() -> dict:
    return json.loads((DATA_DIR / "meta.json").read_text())


def text_ids() -> list[str]:
    return [t["id"] for t in meta()["texts"]]


def text_meta(text_id: str) -> dict:
    for t in meta()["texts"]:
        if t["id"] == text_id:
            return t
    raise KeyError(text_id)


@lru_cache(maxsize=3)
def text_arrays(text_id: str) -> dict[str, np.ndarray]:
    """ids (T,), q (L, H, T, d) and k (L, Hkv, T, d) in float16, L = the shipped layers."""
    text_meta(text_id)
    with np.load(DATA_DIR / f"{text_id}.npz") as z:
        return {"ids": z["ids"], "q": z["q"], "k": z["k"]}
