"""/heads: SmolLM2-135M's own attention heads from shipped pre-rotation q and k, and RoPE surgery on them."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, model_validator

from app import model_data
from app.core import heads, scaling
from app.core.gguf_llama import rope_theta
from app.web.csv_format import Columns
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

_META = model_data.meta()
TextId = Literal[tuple(model_data.text_ids())]  # type: ignore[valid-type]
HALF = _META["head_dim"] // 2
# A select of the shipped layers (the query string carries them as text; compared as numbers below).
LayerId = Literal[tuple(str(layer) for layer in _META["layers"])]  # type: ignore[valid-type]


class HeadsParams(Params):
    text: Annotated[TextId, Field(description="Which shipped text the model read."), UI("Text")] = "random-repeated"
    layer: Annotated[LayerId, Field(description=f"Layer (shipped: {', '.join(map(str, _META['layers']))})."), UI("Layer")] = "3"
    head: Annotated[int, Field(ge=0, le=_META["n_head"] - 1, description="Query head."), UI("Head")] = 0
    rope_type: Annotated[
        Literal["none", "default", "linear", "dynamic", "yarn", "llama3"],
        Field(description="Surgery through the scaling registry: 'none' keeps the model's RoPE."),
        UI("Surgery method"),
    ] = "none"
    base: Annotated[float, Field(ge=2.0, le=1e9, description="RoPE base for the surgery."), UI("Surgery base", kind="log")] = 100000.0
    factor: Annotated[float, Field(ge=1.0, le=64.0, description="Scaling factor (linear, dynamic, yarn, llama3)."), UI("Factor")] = 4.0
    band_lo: Annotated[int, Field(ge=-1, le=HALF - 1, description="First pair of the band (-1: no band)."), UI("Band from pair")] = -1
    band_hi: Annotated[
        int, Field(ge=0, le=HALF - 1, description="Last pair of the band (at least band_lo)."), UI("Band to pair"),
        Bound(ge="band_lo", why="the band runs from band_lo to band_hi"),
    ] = 0
    band_mode: Annotated[Literal["unrotated", "dropped"], Field(description="What the band's pairs do."), UI("Band")] = "unrotated"

    @model_validator(mode="after")
    def _check(self):
        if self.rope_type not in ("none",):
            try:
                scaling.validate(self.rope_config(), None)
            except scaling.ScalingError as exc:
                raise ValueError(str(exc)) from exc
        return self

    def rope_config(self) -> scaling.RopeConfig | None:
        if self.rope_type == "none":
            return None
        extra: dict[str, Any] = {}
        if self.rope_type != "default":
            extra["factor"] = self.factor
        if self.rope_type in ("yarn", "llama3"):
            extra["original_max_position_embeddings"] = 8192
        if self.rope_type == "llama3":
            extra.update(low_freq_factor=1.0, high_freq_factor=4.0)
        return scaling.RopeConfig(
            rope_type=self.rope_type, rope_theta=self.base, head_dim=_META["head_dim"], max_position_embeddings=8192, **extra
        )

    @property
    def surgery(self) -> bool:
        return self.rope_type != "none" or self.band_lo >= 0


def _null_upper(w: np.ndarray) -> np.ndarray:
    """The causal weights as float64 with NaN above the diagonal (serialised as null)."""
    return np.where(np.tri(len(w), dtype=bool), w.astype(np.float64), np.nan)


@lru_cache(maxsize=64)
def _layer_heads(text: str, layer: str) -> tuple[tuple[dict[str, Any], ...], np.ndarray]:
    """Every head's class and pair energy in one layer of one text: the same whatever the surgery,
    so a slider on the rotary settings does not recompute them (the shipped texts and layers bound it)."""
    arr = model_data.text_arrays(text)
    li = _META["layers"].index(int(layer))
    H, Hk = _META["n_head"], _META["n_kv_head"]
    inv = rope_theta(_META["head_dim"], _META["rope_base"])
    q_all = arr["q"][li].astype(np.float32)
    k_all = arr["k"][li].astype(np.float32)
    classes, energy = [], []
    for h in range(H):
        kh = k_all[heads.kv_head(h, H, Hk)]
        wh = heads.attention(q_all[h], kh, inv)
        classes.append({"head": h, "class": heads.classify(wh), **heads.mass(wh)})
        energy.append(heads.pair_energy(q_all[h], kh))
    return tuple(classes), np.array(energy)


def compute_heads(params: HeadsParams) -> dict[str, Any]:
    arr = model_data.text_arrays(params.text)
    li = _META["layers"].index(int(params.layer))
    H, Hk = _META["n_head"], _META["n_kv_head"]
    inv = rope_theta(_META["head_dim"], _META["rope_base"])
    q_all = arr["q"][li].astype(np.float32)
    k_all = arr["k"][li].astype(np.float32)
    T = q_all.shape[1]
    q, k = q_all[params.head], k_all[heads.kv_head(params.head, H, Hk)]
    w = heads.attention(q, k, inv)
    classes, energy = _layer_heads(params.text, params.layer)
    out: dict[str, Any] = {
        **params.model_dump(),
        "token_ids": arr["ids"].tolist(),
        "tokens": model_data.text_meta(params.text)["tokens"],
        "n_tokens": T,
        "theta": inv,
        "weights": _null_upper(w),
        "pair_energy": energy[params.head],
        "layer_pair_energy": energy,
        "offset_scores": heads.offset_scores(q, k, inv),
        "head_classes": [dict(item) for item in classes],
        "mass": heads.mass(w),
        "divergence": 0.0,
        "source": {key: _META[key] for key in ("model", "source", "license", "gguf_sha256")},
    }
    if params.surgery:
        band = (params.band_lo, params.band_hi) if params.band_lo >= 0 else None
        inv2, att, keep = heads.surgery_inv_freq(inv, params.rope_config(), band, params.band_mode, T)
        w2 = heads.surgered_attention(q, k, inv2, att, keep)
        out.update(
            surgered_theta=inv2,
            surgered_weights=_null_upper(w2),
            divergence=float(heads.js_divergence(w, w2).mean()),
            surgered_mass=heads.mass(w2),
        )
    return out


def heads_csv(data: dict[str, Any]):
    header = ["pair j", "theta_j", "pair energy E_j"]
    return header, Columns(np.arange(len(data["theta"])), np.column_stack([data["theta"], data["pair_energy"]]))


register(
    View(
        name="heads",
        title="Inside a trained model: SmolLM2-135M's heads",
        short_title="Real heads",
        summary="A real model's attention heads: which rotary pairs they use, positional heads, and RoPE surgery.",
        section="Rotary",
        order=95,
        api_path="/api/model/heads",
        params=HeadsParams,
        compute=compute_heads,
        csv=heads_csv,
        api_description=(
            "From SmolLM2-135M-Instruct's stored pre-rotation q and k: `weights` (T×T causal softmax, null above the "
            "diagonal), `theta` per adjacent pair, `pair_energy` E_j = mean over positions of ‖q_j‖·‖k_j‖, "
            "`offset_scores` (mean score per offset), `head_classes` for the layer's heads by attention mass. "
            "Surgery (rope_type, base, factor, band_lo/band_hi/band_mode) adds `surgered_weights` and `divergence` "
            "(mean Jensen–Shannon divergence over queries)."
        ),
        examples=("text=dog-bites-man&layer=0&head=0", "text=long-256&rope_type=yarn&factor=4", "band_lo=0&band_hi=7"),
    )
)
