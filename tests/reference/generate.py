"""Generate the committed reference data in tests/reference/data/.

The values come from the real reference libraries (PyTorch + Hugging Face
transformers). Their functions are called directly, not re-implemented. The
app's own numpy code is later tested against these files. This script is not
app code, and the app must not import it.

How to run (from the repository root). Use a throwaway venv outside the repo:

    python3 -m venv /tmp/hfref
    /tmp/hfref/bin/pip install torch==2.13.0 transformers numpy
    /tmp/hfref/bin/python tests/reference/generate.py

The committed data was produced with torch 2.13.0+cpu, transformers 5.24.0 and
numpy 2.4.6 on Python 3.11.7. Every output file records the versions
it was made with. The script is deterministic: all random inputs come from
numpy generators with fixed seeds, and running it again rewrites byte-identical
files with the same versions.

Files written (see tests/reference/README.md for the field meanings):
    rope_init.json     transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS + default RoPE
    rope_apply.json    rotate-half (Llama, GPT-NeoX) and interleaved (GPT-J) application
    t5_buckets.json    T5Attention._relative_position_bucket
    alibi_slopes.json  Bloom build_alibi_tensor, MPT build_mpt_alibi_tensor, paper cross-check
    sinusoidal.json    DistilBERT, Marian, Whisper sinusoidal tables
    hf_configs.json    published config.json files of current families through their config class and
                       rotary module (Gemma 3, Llama 4, Qwen2/2.5/3-VL, Phi-3, gpt-oss, DeepSeek V2/V3,
                       Qwen3, Mistral, transformers-5 rope_parameters)
    mrope.json         Qwen2-VL get_rope_index, Qwen2-VL and Qwen3-VL multimodal rotary embeddings

Pass file names to write only those: `generate.py hf_configs`.
"""

import copy
import json
import math
import os
import sys

import numpy as np
import torch
import transformers

transformers.logging.set_verbosity_error()

from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.bloom import modeling_bloom
from transformers.models.distilbert import modeling_distilbert
from transformers.models.gpt_neox import modeling_gpt_neox
from transformers.models.gptj import modeling_gptj
from transformers.models.llama import modeling_llama
from transformers.models.marian import modeling_marian
from transformers.models.mpt import modeling_mpt
from transformers.models.t5 import modeling_t5
from transformers.models.whisper import modeling_whisper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "data")
GENERATOR = "tests/reference/generate.py"
NUM_HEADS = 4  # num_attention_heads used in every rope_init config; hidden_size = head_dim * NUM_HEADS

torch.set_num_threads(1)


def f64(t):
    """A torch tensor (any float dtype) -> nested list of Python floats (float64 repr of the value)."""
    return t.detach().double().tolist()


def header(description, **extra):
    h = {
        "generator": GENERATOR,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "python": "%d.%d.%d" % sys.version_info[:3],
        "description": description,
    }
    h.update(extra)
    return h


def write(name, head, cases):
    """One case per line, so diffs stay readable. The result is still one JSON document."""
    path = os.path.join(OUT_DIR, name)
    head = dict(head)
    head["case_count"] = len(cases)
    parts = ["{"]
    for k, v in head.items():
        parts.append("%s: %s," % (json.dumps(k), json.dumps(v, allow_nan=False)))
    parts.append('"cases": [')
    parts.append(",\n".join(json.dumps(c, allow_nan=False, separators=(", ", ": ")) for c in cases))
    parts.append("]}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts) + "\n")
    # the file must parse back
    with open(path, encoding="utf-8") as fh:
        assert len(json.load(fh)["cases"]) == len(cases)
    print("wrote %s: %d cases" % (path, len(cases)))


# ---------------------------------------------------------------------------
# 1. rope_init.json
# ---------------------------------------------------------------------------

HEAD_DIMS = [2, 8, 64, 128]
THETAS = [10000.0, 500000.0]
FACTORS = [2.0, 4.0, 8.0, 32.0]
L0S = [2048, 4096, 8192]


def longrope_lists(r):
    """Seeded short/long factor lists of length r/2, values in [1, 60], sorted ascending.

    The seed depends only on the rotary dim r, so every longrope case with the same r uses the same lists."""
    rng = np.random.default_rng(1000 + r)
    short = np.sort(rng.uniform(1.0, 60.0, r // 2)).tolist()
    long = np.sort(rng.uniform(1.0, 60.0, r // 2)).tolist()
    return short, long


def make_config(cfg):
    """Build the LlamaConfig from the recorded fields (a fresh object every time: standardisation mutates it)."""
    cfg = copy.deepcopy(cfg)
    return LlamaConfig(
        head_dim=cfg["head_dim"],
        hidden_size=cfg["hidden_size"],
        num_attention_heads=cfg["num_attention_heads"],
        max_position_embeddings=cfg["max_position_embeddings"],
        rope_parameters=cfg["rope_parameters"],
    )


def rope_case(case_id, cfg, seq_len, reference="ROPE_INIT_FUNCTIONS"):
    """Run one rope_init case.

    cfg: the config fields set, exactly as in a config.json (transformers 5 layout: rope_theta and
    partial_rotary_factor live inside rope_parameters).
    reference: "ROPE_INIT_FUNCTIONS" (the rope_type's init function), or for rope_type default
    "LlamaRotaryEmbedding.compute_default_rope_parameters" / "GPTNeoXRotaryEmbedding.compute_default_rope_parameters".
    """
    rope_type = cfg["rope_parameters"]["rope_type"]
    case = {"id": case_id, "rope_type": rope_type, "reference": reference, "config": copy.deepcopy(cfg),
            "seq_len": seq_len}
    if reference == "ROPE_INIT_FUNCTIONS":
        fn = ROPE_INIT_FUNCTIONS[rope_type]
        module_cls = modeling_llama.LlamaRotaryEmbedding
        call = lambda c: fn(c, None, seq_len=seq_len)
    elif reference == "LlamaRotaryEmbedding.compute_default_rope_parameters":
        module_cls = modeling_llama.LlamaRotaryEmbedding
        call = lambda c: module_cls.compute_default_rope_parameters(c)
    elif reference == "GPTNeoXRotaryEmbedding.compute_default_rope_parameters":
        module_cls = modeling_gpt_neox.GPTNeoXRotaryEmbedding
        call = lambda c: module_cls.compute_default_rope_parameters(c)
    else:
        raise ValueError(reference)
    try:
        config = make_config(cfg)
        inv_freq, attention_factor = call(config)
    except Exception as exc:  # noqa: BLE001  the reference raises: its error is the recorded answer
        case["error"] = type(exc).__name__
        case["message"] = str(exc)
        return case
    case["rope_parameters_standardized"] = copy.deepcopy(dict(config.rope_parameters))
    case["inv_freq"] = f64(inv_freq)
    case["attention_factor"] = float(attention_factor)

    # What the forward pass applies: build the rotary module the way a model does (its __init__ calls the init
    # function with seq_len=None), then, if seq_len is given, run forward() once with max(position_ids)+1 == seq_len,
    # which triggers dynamic_rope_update (dynamic: recompute at seq_len; longrope: short/long switch).
    module = module_cls(make_config(cfg))
    if seq_len is not None:
        x = torch.zeros(1, 1, cfg["head_dim"], dtype=torch.float32)
        module(x, torch.tensor([[0, seq_len - 1]], dtype=torch.long))
    case["forward_attention_factor"] = float(module.attention_scaling)
    fwd = module.inv_freq.detach()
    if not torch.equal(fwd, inv_freq.to(fwd.dtype)):
        case["forward_inv_freq"] = f64(fwd)
    return case


def base_cfg(head_dim, theta, max_pos, rope_parameters, prf=None):
    rp = {"rope_type": rope_parameters.pop("rope_type"), "rope_theta": theta}
    if prf is not None:
        rp["partial_rotary_factor"] = prf
    rp.update(rope_parameters)
    return {
        "head_dim": head_dim,
        "hidden_size": head_dim * NUM_HEADS,
        "num_attention_heads": NUM_HEADS,
        "max_position_embeddings": max_pos,
        "rope_parameters": rp,
    }


def gen_rope_init():
    cases = []
    add = cases.append

    # ---- default (Llama ignores partial_rotary_factor; GPT-NeoX's default honours it)
    for d in HEAD_DIMS:
        for th in THETAS:
            add(rope_case("default/d%d/theta%g" % (d, th), base_cfg(d, th, 4096, {"rope_type": "default"}), None,
                          "LlamaRotaryEmbedding.compute_default_rope_parameters"))
    for d in [64, 128]:
        for th in THETAS:
            for prf in [0.25, 0.5]:
                cfg = base_cfg(d, th, 4096, {"rope_type": "default"}, prf)
                add(rope_case("default/neox/d%d/theta%g/prf%g" % (d, th, prf), cfg, None,
                              "GPTNeoXRotaryEmbedding.compute_default_rope_parameters"))
                add(rope_case("default/llama-ignores-prf/d%d/theta%g/prf%g" % (d, th, prf), cfg, None,
                              "LlamaRotaryEmbedding.compute_default_rope_parameters"))

    # ---- linear (original_max_position_embeddings is not used by linear; max_position_embeddings = factor*4096)
    for d in HEAD_DIMS:
        for th in THETAS:
            for s in FACTORS:
                add(rope_case("linear/d%d/theta%g/s%g" % (d, th, s),
                              base_cfg(d, th, int(s * 4096), {"rope_type": "linear", "factor": s}), None))
    for d in [64, 128]:
        for prf in [0.25, 0.5]:
            add(rope_case("linear/d%d/theta10000/s4/prf%g" % (d, prf),
                          base_cfg(d, 1e4, 16384, {"rope_type": "linear", "factor": 4.0}, prf), None))

    # ---- dynamic: it reads max_position_embeddings (Lmax), not original_max_position_embeddings. Here the grid's L0
    # value is used as max_position_embeddings (the trained length); no original_max_position_embeddings is set.
    for d in HEAD_DIMS:
        for th in THETAS:
            for s in FACTORS:
                for lm in L0S:
                    cfg = base_cfg(d, th, lm, {"rope_type": "dynamic", "factor": s})
                    for sl in [None, lm // 2, lm, lm + 1, int(s * lm)]:
                        add(rope_case("dynamic/d%d/theta%g/s%g/Lmax%d/seq%s" % (d, th, s, lm, sl), cfg, sl))
    for d in [64, 128]:
        for prf in [0.25, 0.5]:
            cfg = base_cfg(d, 1e4, 4096, {"rope_type": "dynamic", "factor": 4.0}, prf)
            for sl in [None, 2048, 4096, 4097, 16384]:
                add(rope_case("dynamic/d%d/theta10000/s4/Lmax4096/prf%g/seq%s" % (d, prf, sl), cfg, sl))
    # r = 2 through partial rotary (d=8, prf=0.25): ZeroDivisionError like d=2
    add(rope_case("dynamic/d8/theta10000/s4/Lmax4096/prf0.25/seqNone",
                  base_cfg(8, 1e4, 4096, {"rope_type": "dynamic", "factor": 4.0}, 0.25), None))

    # ---- yarn: max_position_embeddings = factor * L0, defaults for everything optional
    for d in HEAD_DIMS:
        for th in THETAS:
            for s in FACTORS:
                for l0 in L0S:
                    add(rope_case("yarn/d%d/theta%g/s%g/L0%d" % (d, th, s, l0),
                                  base_cfg(d, th, int(s * l0), {"rope_type": "yarn", "factor": s,
                                                                "original_max_position_embeddings": l0}), None))
    yarn_variants = [
        ("beta16-2", {"beta_fast": 16, "beta_slow": 2}),
        ("beta0-0-falls-back-to-32-1", {"beta_fast": 0, "beta_slow": 0}),
        ("truncateFalse", {"truncate": False}),
        ("truncateTrue-explicit", {"truncate": True}),
        ("mscale1-mscale_all_dim1", {"mscale": 1.0, "mscale_all_dim": 1.0}),
        ("mscale0.707-mscale_all_dim1", {"mscale": 0.707, "mscale_all_dim": 1.0}),
        ("mscale1-mscale_all_dim0.5", {"mscale": 1.0, "mscale_all_dim": 0.5}),
        ("mscale-alone", {"mscale": 0.707}),
        ("mscale_all_dim-alone", {"mscale_all_dim": 1.0}),
        ("attention_factor1.5", {"attention_factor": 1.5}),
        ("attention_factor1.5-with-mscales", {"attention_factor": 1.5, "mscale": 0.707, "mscale_all_dim": 1.0}),
        ("beta16-2-truncateFalse", {"beta_fast": 16, "beta_slow": 2, "truncate": False}),
    ]
    for d in [64, 128]:
        for th in THETAS:
            for s in [4.0, 32.0]:
                for vname, extra in yarn_variants:
                    rp = {"rope_type": "yarn", "factor": s, "original_max_position_embeddings": 4096}
                    rp.update(extra)
                    add(rope_case("yarn/d%d/theta%g/s%g/L04096/%s" % (d, th, s, vname),
                                  base_cfg(d, th, int(s * 4096), rp), None))
    for d in [64, 128]:
        for prf in [0.25, 0.5]:
            for trunc in [True, False]:
                add(rope_case("yarn/d%d/theta10000/s4/L04096/prf%g/truncate%s" % (d, prf, trunc),
                              base_cfg(d, 1e4, 16384, {"rope_type": "yarn", "factor": 4.0,
                                                       "original_max_position_embeddings": 4096,
                                                       "truncate": trunc}, prf), None))
    # factor None -> max_position_embeddings / original_max_position_embeddings
    add(rope_case("yarn/d128/theta10000/factorNone/Lmax16384/L04096",
                  base_cfg(128, 1e4, 16384, {"rope_type": "yarn", "factor": None,
                                             "original_max_position_embeddings": 4096}), None))
    # explicit factor that disagrees with Lmax/L0: the explicit factor wins
    add(rope_case("yarn/d128/theta10000/s4/Lmax65536/L04096",
                  base_cfg(128, 1e4, 65536, {"rope_type": "yarn", "factor": 4.0,
                                             "original_max_position_embeddings": 4096}), None))
    # original_max_position_embeddings omitted: standardisation copies max_position_embeddings into it
    add(rope_case("yarn/d128/theta10000/s4/Lmax4096/L0-omitted",
                  base_cfg(128, 1e4, 4096, {"rope_type": "yarn", "factor": 4.0}), None))
    # gpt-oss-like and DeepSeek-V3-like
    add(rope_case("yarn/gpt-oss-like/d64/theta150000/s32/L04096",
                  base_cfg(64, 150000.0, 131072, {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                                                  "beta_slow": 1.0, "truncate": False,
                                                  "original_max_position_embeddings": 4096}), None))
    add(rope_case("yarn/deepseek-v3-like/d64/theta10000/s40/L04096",
                  base_cfg(64, 10000.0, 163840, {"rope_type": "yarn", "factor": 40.0, "beta_fast": 32,
                                                 "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0,
                                                 "original_max_position_embeddings": 4096}), None))

    # ---- longrope: max_position_embeddings = factor * L0, explicit factor, seeded short/long lists
    for d in HEAD_DIMS:
        short, long = longrope_lists(d)
        for th in THETAS:
            for s in FACTORS:
                for l0 in L0S:
                    cfg = base_cfg(d, th, int(s * l0), {"rope_type": "longrope", "factor": s,
                                                        "original_max_position_embeddings": l0,
                                                        "short_factor": short, "long_factor": long})
                    for sl in [None, l0, l0 + 1]:
                        add(rope_case("longrope/d%d/theta%g/s%g/L0%d/seq%s" % (d, th, s, l0, sl), cfg, sl))
    for d in [64, 128]:
        short, long = longrope_lists(d)
        for s in [4.0, 32.0]:
            variants = [
                ("factor-omitted", {}, int(s * 4096)),
                ("factor-omitted-attention_factor1.25", {"attention_factor": 1.25}, int(s * 4096)),
                ("attention_factor1.25", {"factor": s, "attention_factor": 1.25}, int(s * 4096)),
                # explicit factor disagreeing with Lmax/L0 (Lmax = 2*s*L0): the explicit factor wins
                ("factor-vs-Lmax-2x", {"factor": s}, int(2 * s * 4096)),
            ]
            for vname, extra, lmax in variants:
                rp = {"rope_type": "longrope", "original_max_position_embeddings": 4096,
                      "short_factor": short, "long_factor": long}
                rp.update(extra)
                cfg = base_cfg(d, 1e4, lmax, rp)
                for sl in [None, 4096, 4097]:
                    add(rope_case("longrope/d%d/theta10000/s%g/L04096/%s/seq%s" % (d, s, vname, sl), cfg, sl))
    for d in [64, 128]:
        for prf in [0.25, 0.5]:
            r = int(d * prf)
            short, long = longrope_lists(r)
            cfg = base_cfg(d, 1e4, 16384, {"rope_type": "longrope", "factor": 4.0,
                                           "original_max_position_embeddings": 4096,
                                           "short_factor": short, "long_factor": long}, prf)
            for sl in [None, 4096, 4097]:
                add(rope_case("longrope/d%d/theta10000/s4/L04096/prf%g/seq%s" % (d, prf, sl), cfg, sl))
    # original_max_position_embeddings omitted: standardisation copies max_position_embeddings (so factor stays explicit)
    short, long = longrope_lists(128)
    cfg = base_cfg(128, 1e4, 4096, {"rope_type": "longrope", "factor": 4.0,
                                    "short_factor": short, "long_factor": long})
    for sl in [None, 4096, 4097]:
        add(rope_case("longrope/d128/theta10000/s4/Lmax4096/L0-omitted/seq%s" % sl, cfg, sl))

    # ---- llama3: max_position_embeddings = factor * L0
    for d in HEAD_DIMS:
        for th in THETAS:
            for s in FACTORS:
                for l0 in L0S:
                    add(rope_case("llama3/d%d/theta%g/s%g/L0%d/low1/high4" % (d, th, s, l0),
                                  base_cfg(d, th, int(s * l0), {"rope_type": "llama3", "factor": s,
                                                                "original_max_position_embeddings": l0,
                                                                "low_freq_factor": 1.0,
                                                                "high_freq_factor": 4.0}), None))
    for d in [64, 128]:
        for th in THETAS:
            for s in [8.0, 32.0]:
                for l0 in L0S:
                    add(rope_case("llama3/d%d/theta%g/s%g/L0%d/low2/high8" % (d, th, s, l0),
                                  base_cfg(d, th, int(s * l0), {"rope_type": "llama3", "factor": s,
                                                                "original_max_position_embeddings": l0,
                                                                "low_freq_factor": 2.0,
                                                                "high_freq_factor": 8.0}), None))
    for d in [64, 128]:
        for prf in [0.25, 0.5]:
            add(rope_case("llama3/d%d/theta500000/s8/L08192/prf%g" % (d, prf),
                          base_cfg(d, 5e5, 65536, {"rope_type": "llama3", "factor": 8.0,
                                                   "original_max_position_embeddings": 8192,
                                                   "low_freq_factor": 1.0, "high_freq_factor": 4.0}, prf), None))
    add(rope_case("llama3/d128/theta500000/s8/Lmax8192/L0-omitted",
                  base_cfg(128, 5e5, 8192, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                            "high_freq_factor": 4.0}), None))

    # ---- proportional (extra; not in the app's required list): exponent uses head_dim, zero-padded
    for d in [64, 128]:
        for prf in [0.25, 0.5, 1.0]:
            add(rope_case("proportional/d%d/theta10000/prf%g" % (d, prf),
                          base_cfg(d, 1e4, 4096, {"rope_type": "proportional"}, prf), None))

    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    desc = ("RoPE inverse frequencies and attention factors from transformers' own functions. rope_type default: "
            "LlamaRotaryEmbedding/GPTNeoXRotaryEmbedding.compute_default_rope_parameters (default is not in "
            "ROPE_INIT_FUNCTIONS); every other rope_type: ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=...). "
            "config is built as LlamaConfig(head_dim, hidden_size, num_attention_heads, max_position_embeddings, "
            "rope_parameters), so the library's standardisation applies. inv_freq is the float32 result as float64. "
            "forward_attention_factor is the attention_scaling that LlamaRotaryEmbedding (GPTNeoXRotaryEmbedding for "
            "that reference) applies to cos and sin after its __init__ and, when seq_len is given, one forward() "
            "with max(position_ids)+1 == seq_len; forward_inv_freq appears only if that module's inv_freq differs "
            "from inv_freq.")
    write("rope_init.json", header(desc), cases)
    return cases


# ---------------------------------------------------------------------------
# 2. rope_apply.json
# ---------------------------------------------------------------------------

POSITIONS = [0, 1, 2, 5, 7, 100, 4095]


def seeded_qk(d, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d).astype(np.float32).astype(np.float64)
    k = rng.standard_normal(d).astype(np.float32).astype(np.float64)
    return q, k


def angles64(positions, base, r):
    """float64 angles m * theta_j with theta_j = base^(-2j/r), j = 0..r/2-1 (the reference inv_freq formula)."""
    inv_freq = 1.0 / (base ** (np.arange(0, r, 2, dtype=np.float64) / r))
    return np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :]


def apply_rotate_half(fn, q, k, positions, base, r):
    """Llama / GPT-NeoX apply_rotary_pos_emb: q,k (batch=1, heads=1, seq=P, d); cos,sin (1, P, r), emb = cat(f, f)."""
    P, d = len(positions), len(q)
    ang = torch.from_numpy(angles64(positions, base, r))
    emb = torch.cat((ang, ang), dim=-1)[None]
    cos, sin = emb.cos(), emb.sin()
    qt = torch.from_numpy(q).expand(1, 1, P, d).clone()
    kt = torch.from_numpy(k).expand(1, 1, P, d).clone()
    qo, ko = fn(qt, kt, cos, sin)
    return qo[0, 0], ko[0, 0]


def apply_gptj(q, k, positions, base, r):
    """GPT-J: tensor (batch=1, seq=P, heads=1, d); sin,cos (1, P, r/2); the first r dims go through
    modeling_gptj.apply_rotary_pos_emb (rotate_every_two) and the rest pass, exactly as GPTJAttention.forward slices."""
    P, d = len(positions), len(q)
    ang = torch.from_numpy(angles64(positions, base, r))[None]
    sin, cos = ang.sin(), ang.cos()
    outs = []
    for v in (q, k):
        t = torch.from_numpy(v).expand(1, P, 1, d).clone()
        rot = modeling_gptj.apply_rotary_pos_emb(t[:, :, :, :r], sin, cos)
        outs.append(torch.cat([rot, t[:, :, :, r:]], dim=-1)[0, :, 0])
    return outs[0], outs[1]


def gen_rope_apply():
    cases = []
    conventions = []
    for d in [2, 8, 64]:
        for base in [10000.0, 500000.0]:
            conventions.append(("rotate_half", "transformers.models.llama.modeling_llama.apply_rotary_pos_emb", d, d,
                                base))
            conventions.append(("interleaved", "transformers.models.gptj.modeling_gptj.apply_rotary_pos_emb", d, d,
                                base))
    for base in [10000.0, 500000.0]:
        conventions.append(("rotate_half", "transformers.models.gpt_neox.modeling_gpt_neox.apply_rotary_pos_emb",
                            64, 16, base))
        conventions.append(("interleaved", "transformers.models.gptj.modeling_gptj.apply_rotary_pos_emb", 64, 16,
                            base))
    for conv, ref, d, r, base in conventions:
        seed = 7000 + d  # same q,k for both conventions at a given head_dim, so they can be compared
        q, k = seeded_qk(d, seed)
        if ref.endswith("modeling_llama.apply_rotary_pos_emb"):
            qo, ko = apply_rotate_half(modeling_llama.apply_rotary_pos_emb, q, k, POSITIONS, base, r)
        elif ref.endswith("modeling_gpt_neox.apply_rotary_pos_emb"):
            qo, ko = apply_rotate_half(modeling_gpt_neox.apply_rotary_pos_emb, q, k, POSITIONS, base, r)
        else:
            qo, ko = apply_gptj(q, k, POSITIONS, base, r)
        assert qo.dtype == torch.float64
        cases.append({"id": "%s/d%d/r%d/base%g" % (conv, d, r, base), "convention": conv, "reference": ref,
                      "head_dim": d, "rotary_dim": r, "base": base, "seed": seed, "positions": POSITIONS,
                      "q": q.tolist(), "k": k.tolist(), "q_rot": f64(qo), "k_rot": f64(ko)})
    # textbook example: d = 2, q = k = (1, 0)
    for conv in ["rotate_half", "interleaved"]:
        q = np.array([1.0, 0.0])
        k = np.array([1.0, 0.0])
        if conv == "rotate_half":
            ref = "transformers.models.llama.modeling_llama.apply_rotary_pos_emb"
            qo, ko = apply_rotate_half(modeling_llama.apply_rotary_pos_emb, q, k, POSITIONS, 10000.0, 2)
        else:
            ref = "transformers.models.gptj.modeling_gptj.apply_rotary_pos_emb"
            qo, ko = apply_gptj(q, k, POSITIONS, 10000.0, 2)
        cases.append({"id": "%s/d2/r2/base10000/unit" % conv, "convention": conv, "reference": ref, "head_dim": 2,
                      "rotary_dim": 2, "base": 10000.0, "seed": None, "positions": POSITIONS, "q": q.tolist(),
                      "k": k.tolist(), "q_rot": f64(qo), "k_rot": f64(ko)})
    desc = ("RoPE application conventions. q and k are float32-representable values (seeded float64 normals rounded "
            "to float32, stored exactly). The angles m*theta_j, theta_j = base^(-2j/r), and cos/sin are computed in "
            "float64 here and passed as float64 tensors, together with q/k as float64 tensors, to the reference apply "
            "functions, so every output is float64 arithmetic: the data tests the CONVENTION (pairing, sign, partial "
            "slicing) to ~1e-12, not float32 rounding. rotate_half: cos/sin = cos/sin(cat(freqs, freqs)) as "
            "LlamaRotaryEmbedding builds them (attention_scaling 1). interleaved: GPT-J sin/cos of shape (.., r/2), "
            "repeat_interleave'd inside apply_rotary_pos_emb; partial GPT-J slices q[:r] / q[r:] as GPTJAttention "
            "does. q_rot[i] / k_rot[i] is the rotated vector at positions[i].")
    write("rope_apply.json", header(desc, precision="float64 end to end (see description)"), cases)
    return cases


# ---------------------------------------------------------------------------
# 3. t5_buckets.json
# ---------------------------------------------------------------------------

def gen_t5():
    rel = list(range(-300, 301)) + [-20000, -1000, 1000, 20000]
    cases = []
    for nb, md in [(32, 128), (16, 64), (64, 256), (8, 20)]:
        for bidir in [True, False]:
            b = modeling_t5.T5Attention._relative_position_bucket(torch.tensor(rel, dtype=torch.long),
                                                                  bidirectional=bidir, num_buckets=nb,
                                                                  max_distance=md)
            cases.append({"num_buckets": nb, "max_distance": md, "bidirectional": bidir,
                          "relative_position": rel, "bucket": [int(x) for x in b.tolist()]})
    desc = ("transformers.models.t5.modeling_t5.T5Attention._relative_position_bucket(relative_position, "
            "bidirectional, num_buckets, max_distance), with relative_position = key_position - query_position "
            "(memory - context), passed as an int64 tensor. bucket[i] belongs to relative_position[i].")
    write("t5_buckets.json", header(desc), cases)
    return cases


# ---------------------------------------------------------------------------
# 4. alibi_slopes.json
# ---------------------------------------------------------------------------

def paper_get_slopes(n):
    """CROSS-CHECK ONLY, not a reference: ALiBi slopes from the closed form in REFERENCE-FORMULAS.md section 6.

    n a power of 2: m_h = 2^(-8h/n), h = 1..n. Otherwise P = 2^floor(log2 n): the P slopes for P heads, then
    2^(-4(2i+1)/P) for i = 0..n-P-1 (every other slope of the 2P series, starting at the first), appended."""
    P = 2 ** math.floor(math.log2(n))
    slopes = [2.0 ** (-8.0 * h / P) for h in range(1, P + 1)]
    slopes += [2.0 ** (-4.0 * (2 * i + 1) / P) for i in range(n - P)]
    return slopes


def gen_alibi():
    cases = []
    for n in range(1, 129):
        # Bloom: attention_mask of ones, length 2 -> positions cumsum(mask)-1 = [0, 1]; alibi[h, 0, 1] = slope_h * 1
        mask = torch.ones(1, 2, dtype=torch.long)
        bloom = modeling_bloom.build_alibi_tensor(mask, n, torch.float32)
        assert bloom.shape == (n, 1, 2)
        assert torch.all(bloom[:, 0, 0] == 0)
        bloom_slopes = bloom[:, 0, 1]
        assert torch.equal(bloom_slopes, modeling_bloom._get_alibi_slopes(n, torch.device("cpu")))
        # MPT: positions arange(1 - L, 1) = [-1, 0] for L = 2; alibi[h, 0, 0] = -slope_h
        mpt = modeling_mpt.build_mpt_alibi_tensor(n, 2, alibi_bias_max=8)
        assert mpt.shape == (n, 1, 2)
        assert torch.all(mpt[:, 0, 1] == 0)
        mpt_slopes = -mpt[:, 0, 0]
        paper = paper_get_slopes(n)
        a, b, c = f64(bloom_slopes), f64(mpt_slopes), paper
        for x, y, z in zip(a, b, c, strict=True):
            if not (abs(x - z) <= 1e-6 * abs(z) and abs(y - z) <= 1e-6 * abs(z)):
                raise AssertionError("ALiBi slopes disagree for n=%d: bloom=%r mpt=%r paper=%r" % (n, x, y, z))
        assert len(a) == len(b) == len(c) == n
        cases.append({"num_heads": n, "bloom": a, "mpt": b, "alibi_bias_max": 8,
                      "crosscheck_paper_get_slopes": c})
    desc = ("ALiBi slopes per head (head 0 first). bloom: transformers.models.bloom.modeling_bloom.build_alibi_tensor("
            "attention_mask=ones(1, 2), num_heads, float32)[:, 0, 1], i.e. the bias at key position 1 divided by the "
            "position 1 (asserted equal to bloom._get_alibi_slopes). mpt: -build_mpt_alibi_tensor(num_heads, 2, "
            "alibi_bias_max=8)[:, 0, 0], i.e. the bias at relative position -1 divided by -1. Both are float32 "
            "values stored as float64. crosscheck_paper_get_slopes: NOT a library reference; float64 closed form of "
            "the ALiBi paper's get_slopes written in generate.py from REFERENCE-FORMULAS.md section 6. The generator "
            "asserts all three agree to 1e-6 relative.")
    write("alibi_slopes.json", header(desc), cases)
    return cases


# ---------------------------------------------------------------------------
# 5. sinusoidal.json
# ---------------------------------------------------------------------------

def gen_sinusoidal():
    cases = []
    shapes = [(16, 8), (50, 64), (10, 7), (128, 128), (4, 2)]
    for length, dim in shapes:
        refs = [
            ("distilbert", "interleaved",
             "transformers.models.distilbert.modeling_distilbert.create_sinusoidal_embeddings(n_pos, dim, out)",
             lambda L, D: modeling_distilbert.create_sinusoidal_embeddings(L, D, torch.empty(L, D))),
            ("marian", "concatenated",
             "transformers.models.marian.modeling_marian.MarianSinusoidalPositionalEmbedding(num_positions, "
             "embedding_dim).create_weight()",
             lambda L, D: modeling_marian.MarianSinusoidalPositionalEmbedding(L, D).create_weight()),
            ("whisper", "concatenated_t2t",
             "transformers.models.whisper.modeling_whisper.sinusoids(length, channels)",
             lambda L, D: modeling_whisper.sinusoids(L, D)),
        ]
        for name, layout, ref, fn in refs:
            case = {"id": "%s/L%d/d%d" % (name, length, dim), "reference_name": name, "reference": ref,
                    "layout": layout, "length": length, "dim": dim}
            try:
                table = fn(length, dim)
            except Exception as exc:  # noqa: BLE001  the reference raises: its error is the recorded answer
                case["error"] = type(exc).__name__
                case["message"] = str(exc)
            else:
                assert tuple(table.shape) == (length, dim)
                case["dtype"] = str(table.dtype).replace("torch.", "")
                case["table"] = f64(table)
            cases.append(case)
    desc = ("Sinusoidal absolute position tables, rows = positions 0..length-1, columns = dim. distilbert: "
            "interleaved (even columns sin, odd columns cos, w_i = 10000^(-2i/d)). marian: concatenated "
            "[sin(p w_0..) | cos(p w_0..)], same w_i, ceil(d/2) sines. whisper: tensor2tensor spacing, "
            "inv_ts_i = exp(-i ln(10000)/(d/2 - 1)), [sin | cos]. All three produce float32 tables (stored as "
            "float64). Where a reference raises, the case has error/message instead of table (Whisper: odd dim "
            "-> ValueError, dim 2 -> ZeroDivisionError).")
    write("sinusoidal.json", header(desc), cases)
    return cases


# ---------------------------------------------------------------------------
# 6. hf_configs.json: published config.json files of current families
# ---------------------------------------------------------------------------

PHI3_SHORT = [1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.25, 1.25, 1.4, 1.45, 1.5, 1.65, 1.7, 1.8, 1.9, 2.0] + [2.0] * 16 + \
    [2.05, 2.1, 2.15, 2.2, 2.25, 2.3, 2.35, 2.4, 2.5, 2.6, 2.7, 2.8, 2.85, 2.9, 2.95, 3.0]
PHI3_LONG = [1.08, 1.11, 1.14, 1.34, 1.59, 1.6, 1.62, 2.62, 3.18, 3.2, 3.67, 4.05, 5.48, 5.51, 7.03, 8.65] + \
    [float(v) for v in np.linspace(9.5, 60.0, 16)] + [float(v) for v in np.linspace(61.0, 64.8, 16)]

# Each family: (id, source, config.json as published).  The hub could not be reached from the machine this was
# written on; each dict was written from the model's published config.json as recalled and cross-checked
# against the checkpoint named in the transformers config class docstrings and defaults.  Only the keys that
# matter for RoPE (and a few unrelated ones, to show they are ignored) are kept.  PHI3_* are stand-in factor
# lists with the published lists' length and shape, not the published values.
HF_FAMILIES = [
    ("gemma3-4b-it", "google/gemma-3-4b-it config.json (Gemma3ForConditionalGeneration; text_config with "
     "rope_scaling linear 8; rope_theta 1e6 and rope_local_base_freq 1e4 left to Gemma3TextConfig's defaults)",
     {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "image_token_index": 262144,
      "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240,
                      "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "num_hidden_layers": 34,
                      "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
      "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 896,
                        "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14}}),
    ("gemma3-1b-it", "google/gemma-3-1b-it config.json (text only, model_type gemma3_text)",
     {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 1152, "head_dim": 256,
      "num_attention_heads": 4, "num_key_value_heads": 1, "num_hidden_layers": 26, "max_position_embeddings": 32768,
      "rope_theta": 1000000, "rope_local_base_freq": 10000, "rope_scaling": None, "sliding_window": 512,
      "sliding_window_pattern": 6}),
    ("gemma3-v5-per-layer", "Gemma 3 (4B text) as transformers 5 saves it: rope_parameters per layer type",
     {"model_type": "gemma3_text", "hidden_size": 2560, "head_dim": 256, "num_attention_heads": 8,
      "num_hidden_layers": 34, "max_position_embeddings": 131072,
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}),
    ("llama4-scout", "meta-llama/Llama-4-Scout-17B-16E(-Instruct) config.json (text_config: llama3 scaling with "
     "factor 16 and low = high = 1, NoPE every 4th layer by no_rope_layer_interval's default)",
     {"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
      "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
                      "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48,
                      "max_position_embeddings": 10485760, "rope_theta": 500000.0,
                      "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                                       "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                      "attention_chunk_size": 8192, "attn_temperature_tuning": True, "floor_scale": 8192,
                      "attn_scale": 0.1, "interleave_moe_layer_step": 1, "use_qk_norm": True},
      "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408}}),
    ("qwen2-vl-7b-instruct", "Qwen/Qwen2-VL-7B-Instruct config.json (rope_scaling type mrope, mrope_section 16/24/24)",
     {"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl", "hidden_size": 3584,
      "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 32768,
      "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
      "vision_config": {"depth": 32, "embed_dim": 1280, "num_heads": 16}}),
    ("qwen2.5-vl-7b-instruct", "Qwen/Qwen2.5-VL-7B-Instruct config.json (rope_scaling type mrope)",
     {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "hidden_size": 3584,
      "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,
      "max_position_embeddings": 128000, "rope_theta": 1000000.0,
      "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
      "vision_config": {"depth": 32, "hidden_size": 1280, "out_hidden_size": 3584}}),
    ("qwen3-vl-8b-instruct", "Qwen/Qwen3-VL-8B-Instruct config.json (text_config: interleaved M-RoPE 24/20/20, "
     "rope_theta 5e6)",
     {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
      "text_config": {"model_type": "qwen3_vl_text", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
                      "num_key_value_heads": 8, "num_hidden_layers": 36, "max_position_embeddings": 262144,
                      "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"},
                      "rope_theta": 5000000},
      "vision_config": {"model_type": "qwen3_vl", "depth": 27, "hidden_size": 1152}}),
    ("phi3-mini-128k-su", "microsoft/Phi-3-mini-128k-instruct config.json, first release (rope_scaling type su, "
     "original_max_position_embeddings only at the top level); stand-in factor lists",
     {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
      "num_hidden_layers": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
      "rope_theta": 10000.0, "rope_scaling": {"type": "su", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG}}),
    ("phi3-yarn-type", "a Phi-3 config whose rope_scaling says type yarn (Phi3Config reads it as longrope); "
     "synthetic, stand-in lists",
     {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
      "original_max_position_embeddings": 4096,
      "rope_scaling": {"type": "yarn", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG,
                       "original_max_position_embeddings": 4096}}),
    ("gpt-oss-20b", "openai/gpt-oss-20b config.json (YaRN factor 32, truncate false; sliding/full layers share it)",
     {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "head_dim": 64, "hidden_size": 2880,
      "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 24,
      "max_position_embeddings": 131072, "rope_theta": 150000, "sliding_window": 128,
      "layer_types": ["sliding_attention", "full_attention"] * 12,
      "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
                       "rope_type": "yarn", "truncate": False}}),
    ("deepseek-v3", "deepseek-ai/DeepSeek-V3 config.json (YaRN factor 40, mscale = mscale_all_dim = 1)",
     {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
      "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61, "q_lora_rank": 1536,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "max_position_embeddings": 163840, "rope_theta": 10000,
      "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                       "original_max_position_embeddings": 4096, "type": "yarn"}}),
    ("deepseek-v2-lite", "deepseek-ai/DeepSeek-V2-Lite config.json (YaRN factor 40, mscale = mscale_all_dim = 0.707)",
     {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "hidden_size": 2048,
      "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 27, "q_lora_rank": None,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "max_position_embeddings": 163840, "rope_theta": 10000,
      "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                       "original_max_position_embeddings": 4096, "type": "yarn"}}),
    ("qwen3-8b", "Qwen/Qwen3-8B config.json (no scaling, rope_theta 1e6, head_dim 128)",
     {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "head_dim": 128, "hidden_size": 4096,
      "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 36,
      "max_position_embeddings": 40960, "rope_theta": 1000000, "rope_scaling": None, "sliding_window": None}),
    ("qwen3-8b-yarn", "Qwen/Qwen3-8B with the rope_scaling block its model card gives for 131072 tokens",
     {"model_type": "qwen3", "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 131072, "rope_theta": 1000000,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}),
    ("mistral-7b-instruct-v0.3", "mistralai/Mistral-7B-Instruct-v0.3 config.json",
     {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 32768,
      "rope_theta": 1000000.0, "sliding_window": None}),
    ("mistral-small-3.1-24b", "mistralai/Mistral-Small-3.1-24B-Instruct-2503 config.json (mistral3 wrapper, "
     "text_config rope_theta 1e9)",
     {"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3",
      "text_config": {"model_type": "mistral", "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 32,
                      "num_key_value_heads": 8, "num_hidden_layers": 40, "max_position_embeddings": 131072,
                      "rope_theta": 1000000000.0, "sliding_window": None},
      "vision_config": {"model_type": "pixtral", "hidden_size": 1024}}),
    ("llama3.1-8b-v5", "meta-llama/Llama-3.1-8B as transformers 5 saves it (flat rope_parameters)",
     {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
      "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                          "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}),
]


def _load_config(config_dict):
    from transformers import CONFIG_MAPPING
    d = copy.deepcopy(config_dict)
    return CONFIG_MAPPING[d.pop("model_type")].from_dict(d)


def _rotary_class(text_config):
    import importlib
    base = text_config.model_type
    for suffix in ("_text",):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    module = importlib.import_module("transformers.models.%s.modeling_%s" % (base, base))
    names = [n for n in dir(module) if n.endswith("RotaryEmbedding") and "Vision" not in n]
    text = [n for n in names if "Text" in n]
    return getattr(module, (text or names)[0])


def hf_config_case(case_id, source, config_dict):
    case = {"id": case_id, "source": source, "config": copy.deepcopy(config_dict)}
    reference_dict = copy.deepcopy(config_dict)
    if case_id == "phi3-mini-128k-su":
        # transformers 5.24 refuses this dict (KeyError: original_max_position_embeddings missing inside
        # rope_parameters for longrope); with the top-level value copied in, Phi3Config accepts it.
        reference_dict["rope_scaling"]["original_max_position_embeddings"] = reference_dict["original_max_position_embeddings"]
        try:
            _load_config(config_dict)
            case["transformers_refuses_as_published"] = None
        except Exception as exc:  # noqa: BLE001  whatever transformers raises is recorded
            case["transformers_refuses_as_published"] = "%s: %s" % (type(exc).__name__, exc)
        case["reference_config"] = reference_dict
    config = _load_config(reference_dict)
    text = config.get_text_config()
    cls = _rotary_class(text)
    module = cls(text)
    case["reference"] = "%s.%s(config.get_text_config())" % (cls.__module__, cls.__name__)
    case["rope_parameters_standardized"] = copy.deepcopy(dict(text.rope_parameters))
    case["head_dim"] = getattr(text, "head_dim", None)
    case["layer_types"] = list(getattr(text, "layer_types", None) or [])
    settings = {}
    if isinstance(module.rope_type, dict):
        for layer_type in module.rope_type:
            settings[layer_type] = {
                "rope_type": module.rope_type[layer_type],
                "inv_freq": f64(getattr(module, "%s_inv_freq" % layer_type)),
                "attention_factor": float(getattr(module, "%s_attention_scaling" % layer_type)),
            }
    else:
        settings["all"] = {"rope_type": module.rope_type, "inv_freq": f64(module.inv_freq),
                           "attention_factor": float(module.attention_scaling)}
    case["settings"] = settings
    if getattr(text, "no_rope_layers", None) is not None:
        case["no_rope_layers"] = list(text.no_rope_layers)
    if text.model_type in ("deepseek_v2", "deepseek_v3"):
        import importlib
        mod = importlib.import_module("transformers.models.%s.modeling_%s" % (text.model_type, text.model_type))
        case["softmax_scale_multiplier"] = float(mod.yarn_apply_mscale(text.rope_parameters, 1.0))
        case["softmax_scale_reference"] = "%s.yarn_apply_mscale(rope_parameters, 1.0)" % mod.__name__
    return case


def gen_hf_configs():
    cases = [hf_config_case(*family) for family in HF_FAMILIES]
    desc = ("Published config.json files of current model families, loaded with transformers' own config class "
            "(CONFIG_MAPPING[model_type].from_dict) and evaluated with the model's own rotary-embedding module "
            "built from config.get_text_config(). settings: one entry per RoPE setting of the module ('all' when "
            "one setting serves every layer, else per layer type), with the module's inv_freq (float32 as float64) "
            "and attention_scaling. softmax_scale_multiplier (DeepSeek): yarn_apply_mscale(rope_parameters, 1.0), "
            "the factor the model multiplies its softmax scale by. source says where each dict comes from.")
    write("hf_configs.json", header(desc), cases)
    return cases



# ---------------------------------------------------------------------------
# 7. mrope.json
# ---------------------------------------------------------------------------

MROPE_LAYOUTS = [
    # (text_before, (T, H, W) after the 2x2 merge, text_after, modality)
    (3, (1, 2, 3), 2, "image"),
    (0, (1, 4, 4), 5, "image"),
    (5, (1, 1, 7), 0, "image"),
    (2, (3, 2, 2), 3, "video"),
    (1, (6, 2, 3), 2, "video"),
]
MROPE_ROTARY = [
    # (reference, head_dim, base, mrope_section)
    ("qwen2_vl", 128, 1000000.0, [16, 24, 24]),
    ("qwen2_vl", 16, 10000.0, [2, 3, 3]),
    ("qwen2_vl", 64, 1000000.0, [8, 12, 12]),
    ("qwen3_vl", 128, 5000000.0, [24, 20, 20]),
    ("qwen3_vl", 128, 1000000.0, [16, 24, 24]),
    ("qwen3_vl", 16, 10000.0, [2, 3, 3]),
]
MROPE_EXTRA_POSITIONS = [[5, 7, 11], [100, 3, 250], [0, 0, 0], [4095, 17, 3], [12, 40, 40]]


def gen_mrope():
    import functools
    import types

    from transformers.models.qwen2_vl import modeling_qwen2_vl
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen3_vl import modeling_qwen3_vl
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig

    model_cls = modeling_qwen2_vl.Qwen2VLModel
    fake = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=types.SimpleNamespace(spatial_merge_size=2)))
    # get_vision_position_ids reads nothing from self
    fake.get_vision_position_ids = functools.partial(model_cls.get_vision_position_ids, fake)

    cases = []
    for text_before, (t, h, w), text_after, modality in MROPE_LAYOUTS:
        kind = 1 if modality == "image" else 2
        count = t * h * w
        types_row = [0] * text_before + [kind] * count + [0] * text_after
        input_ids = torch.arange(len(types_row)).view(1, -1) + 10
        grid = torch.tensor([[t, 2 * h, 2 * w]])
        position_ids, deltas = model_cls.get_rope_index(
            fake,
            input_ids,
            torch.tensor([types_row]),
            image_grid_thw=grid if kind == 1 else None,
            video_grid_thw=grid if kind == 2 else None,
        )
        cases.append({
            "id": "rope_index/%s/before%d/T%dH%dW%d/after%d" % (modality, text_before, t, h, w, text_after),
            "kind": "rope_index",
            "reference": "Qwen2VLModel.get_rope_index (spatial_merge_size 2)",
            "text_before": text_before, "grid_thw_merged": [t, h, w], "grid_thw": [t, 2 * h, 2 * w],
            "text_after": text_after, "modality": modality,
            "position_ids": position_ids[:, 0, :].tolist(),
            "rope_delta": int(deltas[0, 0]),
        })

    rng = np.random.default_rng(4242)
    sample = cases[0]["position_ids"]
    for reference, head_dim, base, section in MROPE_ROTARY:
        positions = [list(col) for col in zip(*sample, strict=True)] + MROPE_EXTRA_POSITIONS
        rope_parameters = {"rope_type": "default", "rope_theta": base, "mrope_section": section}
        if reference == "qwen2_vl":
            config = Qwen2VLTextConfig(hidden_size=4 * head_dim, num_attention_heads=4, rope_parameters=rope_parameters)
            module = modeling_qwen2_vl.Qwen2VLRotaryEmbedding(config)
            apply = modeling_qwen2_vl.apply_rotary_pos_emb
        else:
            config = Qwen3VLTextConfig(hidden_size=4 * head_dim, num_attention_heads=4, head_dim=head_dim, rope_parameters=rope_parameters)
            module = modeling_qwen3_vl.Qwen3VLTextRotaryEmbedding(config)
            apply = modeling_qwen3_vl.apply_rotary_pos_emb
        pos = torch.tensor(positions, dtype=torch.long).T[:, None, :]  # (3, 1, N)
        x = torch.zeros(1, len(positions), head_dim, dtype=torch.float32)
        cos, sin = module(x, pos)
        q = rng.standard_normal(head_dim).astype(np.float32)
        k = rng.standard_normal(head_dim).astype(np.float32)
        qt = torch.tensor(q).expand(1, 1, len(positions), head_dim)
        kt = torch.tensor(k).expand(1, 1, len(positions), head_dim)
        q_rot, k_rot = apply(qt, kt, cos, sin)
        cases.append({
            "id": "rotary/%s/d%d/theta%g/%s" % (reference, head_dim, base, "-".join(map(str, section))),
            "kind": "rotary",
            "reference": "%s rotary embedding forward + apply_rotary_pos_emb (float32)" % reference,
            "model": reference, "head_dim": head_dim, "base": base, "mrope_section": section,
            "positions": positions,
            "inv_freq": f64(module.inv_freq),
            "cos": f64(cos[0]), "sin": f64(sin[0]),
            "q": f64(torch.tensor(q)), "k": f64(torch.tensor(k)),
            "q_rot": f64(q_rot[0, 0]), "k_rot": f64(k_rot[0, 0]),
        })
    desc = ("M-RoPE. rope_index cases: Qwen2VLModel.get_rope_index on [text][one image or video][text], "
            "position_ids (3 x N: t, h, w) and the rope delta. rotary cases: the Qwen2-VL / Qwen3-VL text rotary "
            "module's cos/sin (N x head_dim, float32) for the given (t, h, w) positions, and seeded q, k rotated by "
            "apply_rotary_pos_emb (float32).")
    write("mrope.json", header(desc), cases)
    return cases


GENERATORS = {
    "rope_init": gen_rope_init,
    "rope_apply": gen_rope_apply,
    "t5_buckets": gen_t5,
    "alibi_slopes": gen_alibi,
    "sinusoidal": gen_sinusoidal,
    "hf_configs": gen_hf_configs,
    "mrope": gen_mrope,
}


def main():
    """``generate.py [name ...]``: only the named files (e.g. ``hf_configs``); all of them by default."""
    os.makedirs(OUT_DIR, exist_ok=True)
    torch.manual_seed(0)
    for name in sys.argv[1:] or GENERATORS:
        GENERATORS[name]()


if __name__ == "__main__":
    main()
