"""A model's shipped head data (/heads): pre-rotation q and k of a few texts, loaded lazily.

Only meta.json is read on first use; each text's q/k arrays (float16) are read when that text is
asked for and kept in a small LRU cache, so a worker holds a few MB, not the whole folder.
scripts/extract_model_heads.py writes the folder.
"""

from __future__ import annotations

import json
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np


class HeadsData:
    """The folder of one model's shipped texts: ``meta.json`` and one ``<text id>.npz`` per text."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # per instance (an lru_cache on the method would keep every instance alive)
        self.text_arrays = lru_cache(maxsize=3)(self._text_arrays)

    @cached_property
    def meta(self) -> dict[str, Any]:
        """The model's shape (layers kept, heads, head_dim, RoPE base), its source and the texts."""
        meta: dict[str, Any] = json.loads((self.folder / "meta.json").read_text())
        return meta

    def text_ids(self) -> list[str]:
        return [t["id"] for t in self.meta["texts"]]

    def text_meta(self, text_id: str) -> dict[str, Any]:
        for t in self.meta["texts"]:
            if t["id"] == text_id:
                return dict(t)
        raise KeyError(text_id)

    def _text_arrays(self, text_id: str) -> dict[str, np.ndarray]:
        """ids (T,), q (L, H, T, d) and k (L, Hkv, T, d) in float16, L = the shipped layers."""
        self.text_meta(text_id)
        with np.load(self.folder / f"{text_id}.npz") as z:
            return {"ids": z["ids"], "q": z["q"], "k": z["k"]}
