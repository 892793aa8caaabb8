"""Limits and paths.  Paths resolve from this file, never from the working directory."""

from __future__ import annotations

import os
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
# Seconds a client has to send a whole request (line, headers and body) once its connection opens
# or its first byte arrives; then the connection is closed (app/web/connections.py).  `python -m app
# --request-timeout` sets it for every worker through the environment.
REQUEST_TIMEOUT_SECONDS = float(os.environ.get("PE_REQUEST_TIMEOUT", "20"))
# Thread-pool size per worker process: requests are CPU-bound numpy on one core, so a few threads
# keep it busy while bounding how many requests hold their working memory at once.
THREADS_PER_WORKER = 4
# gzip level (ISA-L's 0-3, app/web/caching.py) for JSON and pages: 2 compresses float-heavy JSON as
# well as zlib's 4-5 do, at a fifth of zlib level 4's cost.
GZIP_LEVEL = 2
