"""Published model configs as data: ``GET /api/rope/presets``, and the preset links of /spectrum.

Every preset is read from its config.json (``app.core.presets``) by ``app.core.hf_config``, exactly
like a pasted config.  Each entry gives the parameters of the primary RoPE setting under the query
names that ``/api/rope/frequencies`` and ``/api/rope/spectrum`` share, with the same default for each
name on both, and links that carry every one of them, so a link drawn for one endpoint is the same
configuration on the other.  Not a lesson: it registers no view.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Query
from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from app.core.hf_config import rope_settings_from_hf
from app.core.presets import PRESETS
from app.views.ladder import family_query, spectrum_query
from app.web.answers import Answer
from app.web.caching import cached_response
from app.web.params import Params, per_process
from app.web.responses import dumps
from app.web.routing import API_CACHE_CONTROL
from app.web.views import route

PRESETS_PATH = "/api/rope/presets"
LIST_NAMES = ("short_factor", "long_factor")


class PresetsQuery(Params):
    """No parameters: an unknown one is refused by name, as on every other endpoint."""


class PresetSetting(Answer):
    """One RoPE setting of a config (a model may have one per layer type)."""

    layer_type: str | None = Field(description="The layer type this setting is for (transformers' layer_types), or null when one setting serves every layer.")
    where: str = Field(description="Where in the config.json the setting was read (e.g. rope_scaling, rope_local_base_freq).")
    rope_type: str = Field(description="The setting's rope_type after standardisation.")
    rope_theta: float = Field(description="The setting's base.")
    query: list[list[str]] = Field(description="The setting as query items of /api/rope/frequencies and /api/rope/spectrum.")


class PresetLinks(Answer):
    """The pages and API calls showing the preset, every parameter in the URL."""

    spectrum: str = Field(description="The /spectrum page with every parameter of the primary setting.")
    frequencies: str = Field(description="GET /api/rope/frequencies with the same parameters.")
    spectrum_api: str = Field(description="GET /api/rope/spectrum with the same parameters.")
    mrope: str | None = Field(description="The M-RoPE lesson, for configs with mrope_section; null otherwise.")


class Preset(Answer):
    """A published model's config.json, read: its parameters under the shared query names, notes and links."""

    name: str = Field(description="The model, as the page names it.")
    repo: str = Field(description="The Hugging Face hub repository of the config.json.")
    file: str = Field(description="The file inside the repository.")
    source: str = Field(description="What the values are and where they come from.")
    verified: str = Field(description="What each value was checked against.")
    config: dict[str, Any] = Field(description="The RoPE-relevant part of the config.json, as published; POST it to /api/rope/frequencies to read it again.")
    parameters: dict[str, int | float | str | bool | list[float]] = Field(
        description="Every parameter the primary RoPE setting sets, by query name (the same names on /api/rope/frequencies "
        "and /api/rope/spectrum): head_dim, base, partial_rotary_factor, rope_type, the lengths, seq_len (the context "
        "the model advertises) and the fields its rope_type reads; short_factor and long_factor are lists."
    )
    query: list[list[str]] = Field(description="The same parameters as query items (a list repeats its name), in the order of the links.")
    rope_type: str = Field(description="rope_type of the primary setting (the full-attention layers', or the only one).")
    head_dim: int = Field(description="Dimensions of one head that RoPE sees (qk_rope_head_dim for DeepSeek's layout).")
    rotary_dim: int = Field(description="Dimensions that rotate: int(head_dim × partial_rotary_factor).")
    rope_theta: float = Field(description="Base of the primary setting.")
    pairing: str = Field(description="The family's pairing from its rotary code: 'half' (x_j, x_(j+r/2)), GPT-NeoX style, or 'interleaved' (x_2j, x_2j+1), GPT-J style.")
    notes: list[str] = Field(description="What the reading of the config says: defaults used, NoPE layers, layer types, partial rotary, M-RoPE.")
    layers: dict[str, Any] | None = Field(description="Which layers use which setting (layer_types) and which use no RoPE (rope_layers, nope_layers), when the config says.")
    mrope: dict[str, Any] | None = Field(description="mrope_section and mrope_interleaved for M-RoPE configs; null otherwise.")
    settings: list[PresetSetting] = Field(description="Every RoPE setting of the config (Gemma 3 has two: full and sliding layers).")
    links: PresetLinks


class PresetsAnswer(Answer):
    """Every preset of the /spectrum page with its full parameters."""

    presets: list[Preset] = Field(description="Every preset, in the order of the /spectrum page's table.")


def _parameters(query: list[tuple[str, str]], rope) -> dict[str, Any]:
    """The query items as typed values (lists for the factor lists)."""
    values: dict[str, Any] = {}
    for name, _ in query:
        if name in LIST_NAMES:
            values[name] = [float(v) for v in getattr(rope, name)]
    typed = {
        "head_dim": rope.head_dim, "base": float(rope.rope_theta), "partial_rotary_factor": float(rope.partial_rotary_factor),
        "rope_type": rope.rope_type,
    }
    for name, text in query:
        if name in LIST_NAMES:
            continue
        if name in typed:
            values[name] = typed[name]
        elif text in ("true", "false"):
            values[name] = text == "true"
        elif name == "pairing":
            values[name] = text
        elif name in ("original_max_position_embeddings", "max_position_embeddings", "seq_len", "query_scale_interval", "query_scale_offset"):
            values[name] = int(text)
        else:
            values[name] = float(text)
    return values


def preset_query(config: dict[str, Any], seq_len: int | None = None) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """Every parameter of a config.json's primary setting as query items, evaluated at ``seq_len``
    (default: its max_position_embeddings, the context it advertises), and the parsed config."""
    parsed = rope_settings_from_hf(config, seq_len)
    rope = parsed["settings"][parsed["primary"]]["config"]
    length = seq_len or parsed["top"]["max_position_embeddings"] or None
    return spectrum_query(rope, length) + family_query(parsed["top"]), parsed


def spectrum_url_for(config: dict[str, Any], seq_len: int | None = None) -> str:
    """The spectrum page showing a config.json with every parameter in the link."""
    query, _ = preset_query(config, seq_len)
    return "/spectrum?" + urlencode(query)


def _preset(preset: dict[str, Any]) -> dict[str, Any]:
    query, parsed = preset_query(preset["config"])
    primary = parsed["settings"][parsed["primary"]]
    rope = primary["config"]
    length = parsed["top"]["max_position_embeddings"] or None
    text = urlencode(query)
    settings = [
        {
            "layer_type": setting["layer_type"],
            "where": setting["where"],
            "rope_type": setting["config"].rope_type,
            "rope_theta": float(setting["config"].rope_theta),
            "query": spectrum_query(setting["config"], length) + family_query(parsed["top"]),
        }
        for setting in parsed["settings"]
    ]
    return {
        "name": preset["name"],
        "repo": preset["repo"],
        "file": preset.get("file", "config.json"),
        "source": preset["source"],
        "verified": preset["verified"],
        "config": preset["config"],
        "parameters": _parameters(query, rope),
        "query": query,
        "rope_type": rope.rope_type,
        "head_dim": rope.head_dim,
        "rotary_dim": rope.rotary_dim,
        "rope_theta": float(rope.rope_theta),
        "pairing": parsed["top"]["pairing"],
        "notes": parsed["notes"] + primary["notes"],
        "layers": parsed["top"]["layers"],
        "mrope": parsed["top"]["mrope"],
        "settings": settings,
        "links": {
            "spectrum": "/spectrum?" + text,
            "frequencies": "/api/rope/frequencies?" + text,
            "spectrum_api": "/api/rope/spectrum?" + text,
            "mrope": "/mrope" if parsed["top"]["mrope"] is not None else None,
        },
    }


@per_process
def presets_answer() -> dict[str, Any]:
    """Every preset (depends on the code alone: built once per process)."""
    return {"presets": [_preset(preset) for preset in PRESETS]}


def preset_links() -> list[dict[str, Any]]:
    """The rows of the /spectrum page's table of real models; ``url`` carries every parameter."""
    return [{**entry, "url": entry["links"]["spectrum"]} for entry in presets_answer()["presets"]]


@route(
    PRESETS_PATH,
    answer=PresetsAnswer,
    models=(PresetsQuery,),
    response_description="Every preset with its full parameters.",
    summary="Published model configs and their parameters",
    description=(
        "Every preset of the /spectrum page: the published config.json (its RoPE part) with its source, and the "
        "parameters it sets under the query names that `/api/rope/frequencies` and `/api/rope/spectrum` share (each "
        "name has the same default on both), as typed values (`parameters`) and as query items (`query`), with links "
        "that carry every one of them.  `notes`, `layers`, `mrope` and `settings` say what the config's reading "
        "found: defaults used, NoPE layers, layer types and the setting of each, M-RoPE sections.  No parameters."
    ),
)
def list_presets(request: Request, params: Annotated[PresetsQuery, Query()]) -> Response:
    return cached_response(request, ("operation", PRESETS_PATH), lambda: dumps(presets_answer()), "application/json", "json",
                           cache_control=API_CACHE_CONTROL)

