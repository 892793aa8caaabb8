"""Limits and paths.  Paths resolve from this file, never from the working directory."""

from __future__ import annotations

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
# Cache-Control for GET API responses: each is a pure function of its URL and the app version.
API_CACHE_SECONDS = 3600
# Total size of the response bodies kept in memory for repeated requests (per worker).
RESPONSE_CACHE_BYTES = 64 * 1024 * 1024
# gzip level for JSON and pages: 4 compresses float-heavy JSON ~4x at a fifth of level 9's cost.
GZIP_LEVEL = 4
