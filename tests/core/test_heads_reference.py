"""The shipped SmolLM2 data against the independent reference (transformers' GGUF loading and llama
code, tests/reference/model/): no model file needed.

- Tokens: the shipped ids of every text equal the reference tokenizer's ids.
- RoPE: the shipped pre-rotation q and k (float16), rotated by app.core's adjacent-pair RoPE, equal the
  reference's rotated q and k. transformers un-permutes the GGUF's W_q/W_k rows back to the half-split
  layout, so its dimension i pairs with i + 32, and GGUF dimension 2i is its i, 2i + 1 its i + 32.
  Tolerance: per rotary pair, |ours - reference| <= 2**-10 * |reference pair| + 1e-3 (float16 keeps 11
  significant bits, so storage alone moves a pair by up to about 2**-11 of its length; measured: at most
  0.0039 absolute on values up to 16).
"""

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.frequencies import inverse_frequencies
from app.core.gguf_llama import rope_adjacent

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "reference" / "model"
DATA = ROOT / "app" / "data" / "smollm2-135m"
REFERENCE = json.loads((REF / "reference.json").read_text())
META = json.loads((DATA / "meta.json").read_text())
D = META["head_dim"]
# GGUF (adjacent-pair) dimension j is transformers' (half-split) dimension HF_OF[j]
HF_OF = np.array([j // 2 + (j % 2) * (D // 2) for j in range(D)])


def test_reference_is_of_the_shipped_file():
    assert REFERENCE["gguf_sha256"] == META["gguf_sha256"]


@pytest.mark.parametrize("tid", sorted(REFERENCE["tokens"]))
def test_shipped_tokens_equal_the_reference_tokenizer(tid):
    shipped = np.load(DATA / f"{tid}.npz")["ids"].tolist()
    assert shipped == REFERENCE["tokens"][tid]


def test_every_shipped_text_with_a_string_has_reference_tokens():
    # random-repeated is random ids by construction (no string to tokenise); every other text is checked
    shipped = {t["id"] for t in META["texts"]} - {"random-repeated"}
    assert shipped == set(REFERENCE["tokens"])


def test_permutation_pairs_each_adjacent_pair_with_the_half_split_pair():
    # the pair (2i, 2i+1) of the GGUF layout is (i, i + D/2) of transformers' layout
    assert HF_OF[:4].tolist() == [0, D // 2, 1, D // 2 + 1]
    assert sorted(HF_OF.tolist()) == list(range(D))


@pytest.mark.parametrize("name", ["q", "k"])
def test_shipped_qk_rotated_by_app_rope_equal_the_reference_rotation(name):
    ref = np.load(REF / "qk.npz")
    text = REFERENCE["qk"]["text"]
    shipped = np.load(DATA / f"{text}.npz")
    assert shipped["ids"][: len(ref["ids"])].tolist() == ref["ids"].tolist()
    T = len(ref["ids"])
    inv = inverse_frequencies(D, META["rope_base"])
    for layer in ref["layers"].tolist():
        stored = shipped[name][META["layers"].index(layer)][:, :T].astype(np.float32)
        ours = rope_adjacent(stored, inv)
        theirs = ref[f"{name}{layer}"][..., HF_OF]
        diff = np.hypot(ours[..., 0::2] - theirs[..., 0::2], ours[..., 1::2] - theirs[..., 1::2])
        size = np.hypot(theirs[..., 0::2], theirs[..., 1::2])
        assert np.all(diff <= 2**-10 * size + 1e-3), (layer, float(diff.max()))
        # and the rotation matters: without it the stored vectors are far from the reference's
        far = np.hypot(stored[..., 0::2] - theirs[..., 0::2], stored[..., 1::2] - theirs[..., 1::2])
        assert far.max() > 100 * diff.max()
