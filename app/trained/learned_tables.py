"""Where the learned position tables of /learned come from: the one shipped with the app, and a
server operator's own.

* Shipped: all-MiniLM-L6-v2's ``embeddings.position_embeddings.weight`` (512 × 384 float32,
  Apache-2.0) in ``app/data/learned/all-minilm-l6-v2/`` (``table.npy`` with ``source.json``,
  ``LICENSE`` and ``NOTICE``; made by scripts/extract_learned_table.py).  Its bytes are checked
  against the sha256 recorded beside it when it is loaded.
* A safetensors file named on the server's command line (``--learned-table PATH[:TENSOR]``) or in
  ``PE_EXPLORER_LEARNED_TABLES`` (a JSON list of such strings, which the command line fills in
  for the worker processes).  Without ``:TENSOR`` the first tensor with a known position-table
  name is taken (``wpe.weight`` for GPT-2, ``…embeddings.position_embeddings.weight`` for BERT,
  ``…embed_positions.weight`` for OPT/BART).
* With ``--hf-cache [DIR]`` (``PE_EXPLORER_HF_CACHE=1`` or ``=DIR``): every model in the local
  Hugging Face hub cache whose safetensors weights hold such a tensor.  Only files already on
  disk are read; nothing is downloaded.

Files are read with the ``safetensors`` numpy API (``safe_open(..., framework="np")``), which
reads the one tensor asked for, not the whole checkpoint.  A table that cannot be used (missing
file, no such tensor, not 2-D, too large, a dtype numpy cannot hold) raises :class:`TableError`
with a sentence saying why, which the command line prints before any worker starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app import settings

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "learned"
SHIPPED = ("all-minilm-l6-v2",)
DEFAULT_TABLE = "all-minilm-l6-v2"


# What a table may be: the statistics of the whole table (principal components, similarity by
# offset) are computed once per worker before it takes traffic, and a request then works on a
# window of at most 512 positions plus one row against every row.  MAX_VALUES keeps both inside the
# README's budget on one core, nearly: measured on a loaded 2-core machine, one thread, a 2048 × 2048
# table takes 9.1 s of CPU at start and its largest request (512 × 512 window, the cliff 8192 past
# the end, a 9 MB answer) ~70 ms; 8192 × 512 takes 3.7 s and ~57 ms; the shipped 512 × 384 ~28 ms.
MAX_ROWS = 8192
MAX_COLUMNS = 4096
MAX_VALUES = 4 * 1024 * 1024
MIN_ROWS = 2
# The hub cache can hold many models; at most this many are looked at.
MAX_CACHED_MODELS = 500

# Tensor names of learned position tables, most specific first (a suffix match: "bert." and
# "transformer." prefixes are common).
KNOWN_SUFFIXES = ("wpe.weight", "embeddings.position_embeddings.weight", "embed_positions.weight")
# Models whose table reserves rows before position 0: RoBERTa-style tables start at
# padding_idx + 1, OPT's and BART's learned positional embedding adds an offset of 2.
PADDING_OFFSET_TYPES = {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer", "data2vec-text"}
OFFSET_TWO_TYPES = {"opt", "bart", "mbart"}
SAFETENSORS_DTYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64}


class TableError(ValueError):
    """A learned table that cannot be shown, with the reason."""


@dataclass(frozen=True, eq=False)
class LearnedTable:
    name: str
    """The value of ``model`` in URLs: lower case, letters, digits and ``. _ / -``."""
    title: str
    tensor: str
    origin: str
    """``shipped``, ``file`` (the command line) or ``hf-cache``."""
    file: str
    """The file's name only: answers never show where on the server it lies."""
    table: np.ndarray = field(repr=False)
    """The rows as stored (float32 or float64; float16 is widened to float32, exactly), read-only."""
    stored_dtype: str
    first_position_row: int
    """Rows before this one are reserved (RoBERTa, OPT); position p is row p + first_position_row."""
    sha256: str
    """sha256 of the tensor's bytes as stored (little-endian)."""
    license: str | None = None
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def max_len(self) -> int:
        return self.table.shape[0] - self.first_position_row

    @property
    def dim(self) -> int:
        return self.table.shape[1]

    @property
    def positions(self) -> np.ndarray:
        """The rows of positions 0 … max_len − 1, ``(max_len, dim)``."""
        return self.table[self.first_position_row :]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "tensor": self.tensor,
            "origin": self.origin,
            "file": self.file,
            "shape": list(self.table.shape),
            "dtype": self.stored_dtype,
            "first_position_row": self.first_position_row,
            "max_len": self.max_len,
            "dim": self.dim,
            "sha256": self.sha256,
            "license": self.license,
            **({"source": self.source} if self.source else {}),
        }


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def _check_shape(shape: tuple[int, ...], where: str, offset: int = 0) -> None:
    if len(shape) != 2:
        raise TableError(f"{where}: a position table has 2 dimensions (positions × features), this tensor has shape {list(shape)}")
    rows, columns = shape
    if rows - offset < MIN_ROWS or rows > MAX_ROWS or columns < 2 or columns > MAX_COLUMNS:
        raise TableError(
            f"{where}: shape {list(shape)} is outside what /learned shows "
            f"({MIN_ROWS}–{MAX_ROWS} positions × 2–{MAX_COLUMNS} features)"
        )
    if rows * columns > MAX_VALUES:
        raise TableError(
            f"{where}: shape {list(shape)} has {rows * columns:,} values, more than the {MAX_VALUES:,} /learned can "
            "serve within its per-request budget (e.g. 8192 × 512, 4096 × 1024 or 2048 × 2048)"
        )


def slug(text: str) -> str:
    value = re.sub(r"[^a-z0-9._/-]+", "-", text.lower()).strip("-/")
    return value or "table"


# ---- the shipped table -----------------------------------------------------------------------


def load_shipped(name: str) -> LearnedTable:
    folder = DATA_DIR / name
    source = json.loads((folder / "source.json").read_text())
    table = np.load(folder / "table.npy", allow_pickle=False)
    digest = hashlib.sha256(np.ascontiguousarray(table, dtype="<f4").tobytes()).hexdigest()
    if digest != source["tensor_sha256"]:
        raise TableError(f"{folder / 'table.npy'}: its bytes do not match the sha256 in source.json (damaged install?)")
    return LearnedTable(
        name=name,
        title=source["title"],
        tensor=source["tensor"],
        origin="shipped",
        file="table.npy",
        table=_frozen(table),
        stored_dtype=source["dtype"],
        first_position_row=int(source.get("first_position_row", 0)),
        sha256=digest,
        license=source.get("license"),
        source={
            "model": source["model"],
            "package": f"{source['source']['package']} {source['source']['version']}",
            "wheel_sha256": source["source"]["wheel_sha256"],
            "member": source["source"]["member"],
            "license_file": source["license_file"],
            "config": source.get("config", {}),
        },
    )


# ---- safetensors files ---------------------------------------------------------------------


def parse_spec(spec: str) -> tuple[Path, str | None]:
    """``PATH`` or ``PATH:TENSOR`` → (path, tensor or None).  A path that exists as given wins."""
    if os.path.exists(spec) or ":" not in spec:
        return Path(spec), None
    path, _, tensor = spec.rpartition(":")
    return Path(path), tensor or None


def _pick_tensor(keys: list[str], where: str) -> str:
    for suffix in KNOWN_SUFFIXES:
        matches = sorted(key for key in keys if key == suffix or key.endswith("." + suffix))
        if matches:
            return matches[0]
    hints = [key for key in keys if "pos" in key.lower()][:8]
    raise TableError(
        f"{where}: no tensor with a known position-table name ({', '.join(KNOWN_SUFFIXES)}); "
        + (f"name one as PATH:TENSOR, e.g. {hints[0]} (candidates: {', '.join(hints)})" if hints else "name one as PATH:TENSOR")
    )


def _regular_file(path: Path, what: str = "file") -> None:
    """Raise :class:`TableError` unless ``path`` is (a link to) a regular file: a directory, FIFO or
    device would block a read or never end."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TableError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise TableError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file"
        raise TableError(f"{path}: not a regular file ({kind}); give a safetensors file" if what == "file" else f"{path}: not a regular file ({kind})")


MAX_CONFIG_BYTES = 4 * 1024 * 1024


def _read_json(path: Path, limit: int = MAX_CONFIG_BYTES) -> Any:
    """A small JSON file's value, or :class:`TableError` naming the file and the problem."""
    _regular_file(path, "JSON file")
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise TableError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise TableError(f"{path}: larger than {limit // (1024 * 1024)} MiB, not a model's JSON file")
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise TableError(f"{path}: not valid JSON ({exc})") from None


def _config_beside(path: Path) -> dict[str, Any]:
    """The config.json beside a weights file ({} when there is none)."""
    config = path.parent / "config.json"
    if not os.path.lexists(config):
        return {}
    value = _read_json(config)
    if not isinstance(value, dict):
        raise TableError(f"{config}: a model config is a JSON object, this file holds {type(value).__name__} {str(value)[:40]!r}")
    position_offset(value, config)  # say now what is wrong with it
    return value


def position_offset(config: dict[str, Any], where: Path | str = "config.json") -> int:
    """Rows reserved before position 0, from a model's config.json (0 when it does not say)."""
    model_type = str(config.get("model_type", "")).lower()
    if model_type in PADDING_OFFSET_TYPES:
        pad = config.get("pad_token_id", 1)
        if pad is None:
            pad = 0
        if isinstance(pad, bool) or not isinstance(pad, int) or not 0 <= pad < MAX_ROWS:
            raise TableError(f"{where}: pad_token_id must be a whole number from 0 to {MAX_ROWS - 1} for a {model_type} model, got {pad!r}")
        return pad + 1
    if model_type in OFFSET_TWO_TYPES:
        return 2
    return 0


def read_safetensors(path: Path, tensor: str | None = None) -> tuple[str, np.ndarray, str]:
    """(tensor name, the tensor as numpy, its safetensors dtype) from one file, via safetensors' numpy API."""
    from safetensors import SafetensorError, safe_open

    where = str(path)
    _regular_file(path)
    try:
        with safe_open(str(path), framework="np") as handle:
            keys = list(handle.keys())
            name = tensor if tensor is not None else _pick_tensor(keys, where)
            if name not in keys:
                raise TableError(f"{where}: no tensor named {name!r} (it has {len(keys)} tensors)")
            piece = handle.get_slice(name)
            dtype, shape = piece.get_dtype(), tuple(piece.get_shape())
            _check_shape(shape, f"{where}:{name}")
            if dtype not in SAFETENSORS_DTYPES:
                raise TableError(f"{where}:{name}: dtype {dtype} is not one of {', '.join(SAFETENSORS_DTYPES)} (convert it to float32)")
            array = handle.get_tensor(name)
    except (SafetensorError, OSError, ValueError) as exc:
        raise TableError(f"{where}: not a readable safetensors file ({exc})") from None
    return name, array, dtype


def _from_array(name: str, title: str, tensor: str, origin: str, path: Path, array: np.ndarray, dtype: str, offset: int, **extra: Any) -> LearnedTable:
    _check_shape(array.shape, f"{path}:{tensor}", offset)
    stored = np.ascontiguousarray(array, dtype=np.dtype(SAFETENSORS_DTYPES[dtype]).newbyteorder("<"))
    digest = hashlib.sha256(stored.tobytes()).hexdigest()
    # float16 has no JSON text of its own here: widened to float32, which holds every value exactly
    values = stored.astype(np.float32) if dtype == "F16" else stored
    return LearnedTable(
        name=name,
        title=title,
        tensor=tensor,
        origin=origin,
        file=path.name,
        table=_frozen(values),
        stored_dtype={"F16": "float16", "F32": "float32", "F64": "float64"}[dtype],
        first_position_row=offset,
        sha256=digest,
        **extra,
    )


def load_file_table(spec: str) -> LearnedTable:
    """A table from ``PATH[:TENSOR]`` (the command line's ``--learned-table``)."""
    path, tensor = parse_spec(spec)
    name, array, dtype = read_safetensors(path, tensor)
    config = _config_beside(path)
    stem = path.stem if path.stem not in ("model", "pytorch_model") else path.resolve().parent.name
    return _from_array(slug(stem), stem, name, "file", path, array, dtype, position_offset(config), license=_licence(config))


def _licence(config: dict[str, Any]) -> str | None:
    value = config.get("license")
    return value[:200] if isinstance(value, str) else None


# ---- the Hugging Face hub cache ----------------------------------------------------------------


def default_hf_cache() -> Path:
    """Where huggingface_hub keeps downloads: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]) / "hub"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "huggingface" / "hub"


def _snapshot(model_dir: Path) -> Path | None:
    """The snapshot that refs/main names, else the most recently changed one."""
    snapshots = model_dir / "snapshots"
    main = model_dir / "refs" / "main"
    if main.is_file():
        _regular_file(main, "ref file")
        with open(main, "rb") as handle:
            ref = handle.read(256).decode("ascii", "replace").strip()
        chosen = snapshots / ref
        if re.fullmatch(r"[0-9A-Za-z._-]{1,128}", ref) and chosen.is_dir():
            return chosen
    candidates = [path for path in snapshots.iterdir() if path.is_dir()] if snapshots.is_dir() else []
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)


def _weights_holding_table(snapshot: Path) -> tuple[Path, str] | None:
    """(safetensors file, tensor name) of the snapshot's position table, or None."""
    index = snapshot / "model.safetensors.index.json"
    if os.path.lexists(index):
        content = _read_json(index)
        weight_map = content.get("weight_map") if isinstance(content, dict) else None
        if not isinstance(weight_map, dict):
            raise TableError(f"{index}: has no \"weight_map\" object naming each tensor's file")
        try:
            name = _pick_tensor([key for key in weight_map if isinstance(key, str)], str(index))
        except TableError:
            return None  # a model without a learned position table: most are
        return inside_snapshot(snapshot, weight_map[name], index), name
    single = snapshot / "model.safetensors"
    if not os.path.lexists(single):
        return None
    _regular_file(single)
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(single), framework="np") as handle:
            return single, _pick_tensor(list(handle.keys()), str(single))
    except TableError:
        return None
    except (SafetensorError, OSError, ValueError) as exc:
        raise TableError(f"{single}: not a readable safetensors file ({exc})") from None


def inside_snapshot(snapshot: Path, entry: Any, index: Path) -> Path:
    """The weights file an index names: a file name within its snapshot (the hub links it into
    the model's ``blobs/``); an absolute path, ``..`` or a link leading out of the model is refused."""
    if not isinstance(entry, str) or not entry or entry.startswith(("/", "\\")) or any(part in ("..", "") for part in entry.replace("\\", "/").split("/")):
        raise TableError(f"{index}: names {str(entry)[:80]!r} as a weights file; it is not read (only a file inside its snapshot is)")
    path = snapshot / entry
    model_dir = snapshot.resolve().parent.parent
    target = path.resolve()
    if not target.is_relative_to(model_dir):
        raise TableError(f"{index}: its weights file {entry!r} leads outside the model's folder in the cache; it is not read")
    return path


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def hf_cache_tables(cache_dir: Path, warn: Callable[[str], None] | None = None) -> list[LearnedTable]:
    """Every model in the hub cache at ``cache_dir`` whose weights hold a learned position table
    that /learned can show.  Models without one are passed over silently (most have none); a
    model whose files are broken is skipped with one sentence to ``warn`` saying which file and why."""
    if not cache_dir.is_dir():
        raise TableError(f"{cache_dir}: no Hugging Face cache there")
    found = []
    for model_dir in sorted(cache_dir.glob("models--*"))[:MAX_CACHED_MODELS]:
        repo = model_dir.name[len("models--") :].replace("--", "/")
        try:
            snapshot = _snapshot(model_dir)
            if snapshot is None:
                continue
            located = _weights_holding_table(snapshot)
            if located is None:
                continue
            path, tensor = located
            name, array, dtype = read_safetensors(path, tensor)
            config = _config_beside(path)
            found.append(
                _from_array(
                    slug(repo), repo, name, "hf-cache", path, array, dtype, position_offset(config),
                    license=_licence(config), source={"model": repo, "snapshot": snapshot.name},
                )
            )
        except (TableError, OSError) as exc:
            if warn is not None:
                text = str(exc) if isinstance(exc, TableError) else f"{model_dir}: cannot be read ({exc})"
                warn(f"{repo} skipped: {text}")
    return found


# ---- what this process serves ------------------------------------------------------------------


def configured_tables(environ: dict[str, str] | None = None, warn: Callable[[str], None] | None = None) -> list[LearnedTable]:
    """The shipped table(s), then the command line's files, then the hub cache's (if asked for).

    Names are unique: a later table whose name is taken gets ``-2``, ``-3`` … appended.
    Raises :class:`TableError` for a file that cannot be used or a malformed variable.
    """
    try:
        chosen = settings.current() if environ is None else settings.Settings.from_environ(environ)
    except settings.SettingsError as exc:
        raise TableError(str(exc)) from None
    tables = [load_shipped(name) for name in SHIPPED]
    tables += [load_file_table(spec) for spec in chosen.learned_table_specs]
    cache = chosen.hf_cache
    if cache and cache.lower() not in ("0", "off", "false", "no"):
        directory = default_hf_cache() if cache.lower() in ("1", "on", "true", "yes") else Path(cache)
        tables += hf_cache_tables(directory, warn)
    taken: set[str] = set()
    unique = []
    for table in tables:
        name, counter = table.name, 1
        while name in taken:
            counter += 1
            name = f"{table.name}-{counter}"
        taken.add(name)
        unique.append(table if name == table.name else _renamed(table, name))
    return unique


def _renamed(table: LearnedTable, name: str) -> LearnedTable:
    from dataclasses import replace

    return replace(table, name=name)
