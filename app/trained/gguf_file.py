"""A llama GGUF file opened for app.core.gguf_llama's forward pass, through a dequantised cache.

Reading the SmolLM2 file with ``gguf`` costs seconds (its 49,152-token vocabulary and merges are
parsed field by field) and dequantising its 4-bit blocks to float32 seconds more, ~540 MB each time.
So the first open writes every tensor, dequantised exactly as ``gguf.quants.dequantize`` gives it,
into one float32 ``.npy`` file beside the GGUF (``<file>.pe-cache/``), and every later open, in any
process, memory-maps it: a server worker or a test worker opens the model in milliseconds, and the
weights' pages are the kernel's file cache, shared by every process that maps them.

``gguf`` (and ``tokenizers`` for the tokenizer) come with the ``[model]`` extra; they are imported
only when a file is opened.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.core.gguf_llama import LAYER_KEYS, LlamaConfig, LlamaModel, NotLlamaGGUF

if TYPE_CHECKING:
    from gguf import GGUFReader, ReaderTensor


def _field(reader: GGUFReader, key: str, default: Any = None) -> Any:
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


CACHE_VERSION = 1
MAGIC = b"GGUF"


def check_file(path: str | os.PathLike) -> Path:
    """The cheap checks (exists, a regular file, starts with the GGUF magic); raise NotLlamaGGUF."""
    p = Path(path)
    if not p.exists():
        raise NotLlamaGGUF(f"{p} does not exist")
    if not p.is_file():
        raise NotLlamaGGUF(f"{p} is not a regular file")
    with p.open("rb") as f:
        head = f.read(4)
    if head != MAGIC:
        raise NotLlamaGGUF(f"{p} is not a GGUF file (it does not start with the bytes 'GGUF')")
    return p


def _read_gguf(path: Path) -> tuple[LlamaConfig, dict[str, ReaderTensor], dict[str, Any]]:
    """The file's config, tensors (gguf's reader) and tokenizer fields; raise NotLlamaGGUF with the reason."""
    try:
        import gguf
    except ImportError as exc:  # pragma: no cover - depends on the [model] extra
        raise NotLlamaGGUF(f"reading {path} needs the 'gguf' package (pip install .[model])") from exc
    try:
        reader = gguf.GGUFReader(str(path))
    except Exception as exc:
        raise NotLlamaGGUF(f"{path} is not a readable GGUF file: {exc}") from exc
    arch = _field(reader, "general.architecture")
    if arch != "llama":
        raise NotLlamaGGUF(f"{path}: general.architecture is {arch!r}, only 'llama' is supported")
    p = "llama."
    try:
        n_head = int(_field(reader, p + "attention.head_count"))
        d_model = int(_field(reader, p + "embedding_length"))
        n_layer = int(_field(reader, p + "block_count"))
        d_ff = int(_field(reader, p + "feed_forward_length"))
    except (TypeError, ValueError) as exc:
        raise NotLlamaGGUF(f"{path}: a llama.* size field is missing or not a number ({exc})") from exc
    head_dim = d_model // n_head
    rope_dims = int(_field(reader, p + "rope.dimension_count", head_dim))
    if rope_dims != head_dim:
        raise NotLlamaGGUF(f"{path}: partial RoPE ({rope_dims} of {head_dim} dims) is not supported")
    tokens = list(_field(reader, "tokenizer.ggml.tokens", []))
    if not tokens:
        raise NotLlamaGGUF(f"{path}: the file has no tokenizer vocabulary (tokenizer.ggml.tokens)")
    cfg = LlamaConfig(
        n_layer=n_layer,
        d_model=d_model,
        n_head=n_head,
        n_kv_head=int(_field(reader, p + "attention.head_count_kv", n_head)),
        head_dim=head_dim,
        d_ff=d_ff,
        rope_base=float(_field(reader, p + "rope.freq_base", 10000.0)),
        rms_eps=float(_field(reader, p + "attention.layer_norm_rms_epsilon", 1e-5)),
        vocab_size=int(_field(reader, p + "vocab_size", len(tokens))),
    )
    named = {t.name: t for t in reader.tensors}
    wanted = ["token_embd.weight", "output_norm.weight"] + [f"blk.{i}.{k}.weight" for i in range(n_layer) for k in LAYER_KEYS]
    for name in wanted:
        if name not in named:
            raise NotLlamaGGUF(f"{path}: tensor {name} is missing")
    if "output.weight" in named:
        wanted.append("output.weight")
    extra = {
        "tokens": tokens,
        "merges": list(_field(reader, "tokenizer.ggml.merges", [])),
        "bos_id": int(_field(reader, "tokenizer.ggml.bos_token_id", 1)),
        "eos_id": int(_field(reader, "tokenizer.ggml.eos_token_id", 2)),
    }
    return cfg, {name: named[name] for name in wanted}, extra


def read_field(path: str | os.PathLike, key: str, default: Any = None) -> Any:
    """One metadata field of a GGUF file (e.g. ``llama.context_length``), read with gguf's own reader;
    ``default`` when the file does not have it."""
    import gguf

    return _field(gguf.GGUFReader(str(check_file(path))), key, default)


def _dequantised(t: ReaderTensor) -> np.ndarray:
    from gguf.quants import dequantize

    # gguf's shape lists the fastest axis first; numpy wants it last.
    shape = tuple(int(s) for s in reversed(t.shape))
    return np.asarray(dequantize(t.data, t.tensor_type), dtype=np.float32).reshape(shape)


def cache_dir_for(path: str | os.PathLike) -> Path:
    """Where the dequantised copy of ``path`` lives: ``<file>.pe-cache`` beside it when that folder is
    writable, else under $XDG_CACHE_HOME (or ~/.cache)/pe-explorer."""
    p = Path(path).resolve()
    if os.access(p.parent, os.W_OK):
        return p.with_name(p.name + ".pe-cache")
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pe-explorer"
    st = p.stat()
    return base / f"{p.name}-{st.st_size}-{st.st_mtime_ns}"


def _source_stamp(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _cache_is_current(cache: Path, path: Path) -> bool:
    try:
        meta = json.loads((cache / "model.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("version") == CACHE_VERSION and meta.get("source") == _source_stamp(path)


def build_cache(path: str | os.PathLike, cache: Path | None = None) -> Path:
    """Dequantise every tensor of a llama GGUF once into one float32 .npy file (with model.json: the
    config and where each tensor lies; vocab.json: tokens and merges), so that later opens memory-map
    it: no parsing, no dequantising, and every process that maps it shares the same page cache.

    Processes that get here together (test workers, server workers) take turns on a lock file; the
    first one writes the cache to a temporary folder and renames it into place.
    """
    p = check_file(path)
    cache = cache or cache_dir_for(p)
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.with_name(cache.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _cache_is_current(cache, p):
            return cache
        cfg, tensors, extra = _read_gguf(p)
        sizes = {name: int(np.prod([int(s) for s in t.shape])) for name, t in tensors.items()}
        tmp = cache.with_name(f"{cache.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        flat = np.lib.format.open_memmap(tmp / "weights.npy", mode="w+", dtype=np.float32, shape=(sum(sizes.values()),))
        index, offset = {}, 0
        for name, t in tensors.items():
            arr = _dequantised(t)
            flat[offset : offset + arr.size] = arr.ravel()
            index[name] = [offset, list(arr.shape)]
            offset += arr.size
        flat.flush()
        del flat
        (tmp / "vocab.json").write_text(json.dumps({"tokens": extra["tokens"], "merges": extra["merges"]}, ensure_ascii=False))
        meta = {
            "version": CACHE_VERSION,
            "source": _source_stamp(p),
            "config": asdict(cfg),
            "tensors": index,
            "bos_id": extra["bos_id"],
            "eos_id": extra["eos_id"],
        }
        (tmp / "model.json").write_text(json.dumps(meta))  # written last: its presence marks a whole cache
        shutil.rmtree(cache, ignore_errors=True)
        os.rename(tmp, cache)
        return cache


def load_gguf(path: str | os.PathLike) -> LlamaModel:
    """A llama GGUF file as a LlamaModel whose weights are read-only float32 memory maps of its
    dequantised cache (made by :func:`build_cache` on first use); raise NotLlamaGGUF with the reason
    when the file is something else."""
    cache = build_cache(path)
    meta = json.loads((cache / "model.json").read_text())
    vocab = json.loads((cache / "vocab.json").read_text())
    flat = np.load(cache / "weights.npy", mmap_mode="r")

    def tensor(name: str) -> np.ndarray:
        offset, shape = meta["tensors"][name]
        return flat[offset : offset + int(np.prod(shape))].reshape(shape)

    cfg = LlamaConfig(**meta["config"])
    layers = [{k: tensor(f"blk.{i}.{k}.weight") for k in LAYER_KEYS} for i in range(cfg.n_layer)]
    embed = tensor("token_embd.weight")
    return LlamaModel(
        config=cfg,
        embed=embed,
        layers=layers,
        out_norm=tensor("output_norm.weight"),
        out_head=tensor("output.weight") if "output.weight" in meta["tensors"] else embed,
        tokens=vocab["tokens"],
        merges=vocab["merges"],
        bos_id=meta["bos_id"],
        eos_id=meta["eos_id"],
    )
