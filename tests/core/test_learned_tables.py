"""Where /learned's tables come from: the shipped one, a server operator's safetensors file, the
local Hugging Face cache; and the errors for files that cannot be shown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from app.trained.learned_tables import (
    TableError,
    configured_tables,
    default_hf_cache,
    hf_cache_tables,
    load_file_table,
    load_shipped,
    parse_spec,
    position_offset,
)


def gpt2_like(path: Path, rows: int = 40, dim: int = 8, dtype=np.float32, name: str = "wpe.weight") -> np.ndarray:
    table = (np.random.default_rng(rows * dim).standard_normal((rows, dim)) * 0.02).astype(dtype)
    save_file({name: table, "wte.weight": np.zeros((5, dim), dtype=dtype), "h.0.attn.bias": np.ones((3,), dtype)}, str(path))
    return table


def fake_cache(root: Path, repo: str, files: dict[str, np.ndarray], config: dict | None = None, sharded: bool = False) -> Path:
    model = root / ("models--" + repo.replace("/", "--"))
    snapshot = model / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (model / "refs").mkdir()
    (model / "refs" / "main").write_text("0123abcd")
    if sharded:
        weight_map = {}
        for index, (name, tensor) in enumerate(files.items()):
            shard = f"model-0000{index + 1}-of-0000{len(files)}.safetensors"
            save_file({name: tensor}, str(snapshot / shard))
            weight_map[name] = shard
        (snapshot / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    else:
        save_file(files, str(snapshot / "model.safetensors"))
    if config is not None:
        (snapshot / "config.json").write_text(json.dumps(config))
    return snapshot


def test_shipped_table_loads_and_checks_its_digest():
    table = load_shipped("all-minilm-l6-v2")
    assert table.max_len == 512 and table.dim == 384 and table.first_position_row == 0
    assert table.table.dtype == np.float32 and not table.table.flags.writeable
    assert table.license == "Apache-2.0" and table.origin == "shipped"
    assert table.sha256 == "4c347d866c9012e7160b42a7e36d9138935e0669cc62932df70cdc7d6401ea01"


def test_a_file_table_is_read_as_stored(tmp_path):
    path = tmp_path / "my-gpt.safetensors"
    expected = gpt2_like(path)
    table = load_file_table(str(path))
    assert table.name == "my-gpt" and table.tensor == "wpe.weight" and table.origin == "file"
    np.testing.assert_array_equal(table.table, expected)
    assert table.table.dtype == np.float32 and table.stored_dtype == "float32"


def test_tensor_named_explicitly_and_float16_widened_exactly(tmp_path):
    path = tmp_path / "weights.safetensors"
    expected = gpt2_like(path, dtype=np.float16, name="encoder.pos.weight")
    with pytest.raises(TableError, match="name one as PATH:TENSOR"):
        load_file_table(str(path))
    table = load_file_table(f"{path}:encoder.pos.weight")
    assert table.stored_dtype == "float16" and table.table.dtype == np.float32
    np.testing.assert_array_equal(table.table.astype(np.float16), expected)  # widening lost nothing


def test_float64_stays_float64(tmp_path):
    path = tmp_path / "t.safetensors"
    expected = gpt2_like(path, dtype=np.float64)
    table = load_file_table(str(path))
    assert table.table.dtype == np.float64
    np.testing.assert_array_equal(table.table, expected)


@pytest.mark.parametrize(
    ("tensors", "spec_tail", "message"),
    [
        ({"wpe.weight": np.zeros((4, 3, 2), np.float32)}, "", "2 dimensions"),
        ({"wpe.weight": np.zeros((9000, 4), np.float32)}, "", "outside what /learned shows"),
        ({"wpe.weight": np.zeros((1, 4), np.float32)}, "", "outside what /learned shows"),
        ({"wpe.weight": np.zeros((4, 4), np.int32)}, "", "dtype I32"),
        ({"wpe.weight": np.zeros((4, 4), np.float32)}, ":missing.weight", "no tensor named 'missing.weight'"),
    ],
)
def test_unusable_tables_are_refused_with_the_reason(tmp_path, tensors, spec_tail, message):
    path = tmp_path / "bad.safetensors"
    save_file(tensors, str(path))
    with pytest.raises(TableError, match=message):
        load_file_table(str(path) + spec_tail)


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(TableError, match="no such file"):
        load_file_table(str(tmp_path / "nope.safetensors"))
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(TableError, match="not a readable safetensors file"):
        load_file_table(str(garbage))


def test_parse_spec(tmp_path):
    assert parse_spec("/a/b.safetensors") == (Path("/a/b.safetensors"), None)
    assert parse_spec("/a/b.safetensors:transformer.wpe.weight") == (Path("/a/b.safetensors"), "transformer.wpe.weight")
    odd = tmp_path / "with:colon.safetensors"
    gpt2_like(odd)
    assert parse_spec(str(odd)) == (odd, None)  # a path that exists as given is a path


def test_position_offsets_from_config():
    assert position_offset({"model_type": "gpt2"}) == 0
    assert position_offset({"model_type": "bert"}) == 0
    assert position_offset({"model_type": "roberta", "pad_token_id": 1}) == 2
    assert position_offset({"model_type": "opt"}) == 2
    assert position_offset({}) == 0


def test_hub_cache_finds_gpt2_and_skips_models_without_a_table(tmp_path):
    wpe = (np.random.default_rng(1).standard_normal((64, 12)) * 0.02).astype(np.float32)
    fake_cache(tmp_path, "openai-community/gpt2", {"wpe.weight": wpe, "wte.weight": np.zeros((3, 12), np.float32)}, {"model_type": "gpt2"})
    fake_cache(tmp_path, "meta-llama/tiny", {"model.layers.0.q.weight": np.zeros((4, 4), np.float32)}, {"model_type": "llama"})
    roberta_rows = np.arange(20 * 6, dtype=np.float32).reshape(20, 6)
    fake_cache(
        tmp_path,
        "FacebookAI/roberta-tiny",
        {"roberta.embeddings.position_embeddings.weight": roberta_rows, "roberta.embeddings.word_embeddings.weight": np.zeros((2, 6), np.float32)},
        {"model_type": "roberta", "pad_token_id": 1},
        sharded=True,
    )
    (tmp_path / "datasets--someone--data").mkdir()  # not a model: ignored
    found = {table.name: table for table in hf_cache_tables(tmp_path)}
    assert set(found) == {"openai-community/gpt2", "facebookai/roberta-tiny"}
    gpt2 = found["openai-community/gpt2"]
    np.testing.assert_array_equal(gpt2.table, wpe)
    assert gpt2.origin == "hf-cache" and gpt2.max_len == 64
    roberta = found["facebookai/roberta-tiny"]
    assert roberta.tensor == "roberta.embeddings.position_embeddings.weight"
    assert roberta.first_position_row == 2 and roberta.max_len == 18
    np.testing.assert_array_equal(roberta.positions, roberta_rows[2:])


def test_hub_cache_must_exist(tmp_path):
    with pytest.raises(TableError, match="no Hugging Face cache"):
        hf_cache_tables(tmp_path / "absent")


def test_default_hub_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert default_hf_cache() == tmp_path / "home" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "direct"))
    assert default_hf_cache() == tmp_path / "direct"


def test_configured_tables_from_the_environment(tmp_path):
    a = tmp_path / "a" / "model.safetensors"
    a.parent.mkdir()
    gpt2_like(a, rows=10)
    b = tmp_path / "b" / "a.safetensors"  # same derived name "a": gets a suffix
    b.parent.mkdir()
    gpt2_like(b, rows=12)
    fake_cache(tmp_path / "hub", "openai-community/gpt2", {"transformer.wpe.weight": np.ones((30, 4), np.float32)})
    tables = configured_tables({"PE_EXPLORER_LEARNED_TABLES": json.dumps([str(a), str(b)]), "PE_EXPLORER_HF_CACHE": str(tmp_path / "hub")})
    assert [t.name for t in tables] == ["all-minilm-l6-v2", "a", "a-2", "openai-community/gpt2"]
    assert [t.max_len for t in tables] == [512, 10, 12, 30]
    assert [t.name for t in configured_tables({})] == ["all-minilm-l6-v2"]
    assert [t.name for t in configured_tables({"PE_EXPLORER_HF_CACHE": "off"})] == ["all-minilm-l6-v2"]


def test_malformed_environment_is_refused():
    with pytest.raises(TableError, match="JSON list"):
        configured_tables({"PE_EXPLORER_LEARNED_TABLES": "/just/a/path.safetensors"})
