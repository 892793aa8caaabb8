"""An operator's learned tables at start-up: odd files and configs refused with one sentence naming
the file, a broken hub-cache model skipped with a warning, a table too large for the per-request
budget refused with its shape, a small table opening on defaults that fit it, no server paths in
the answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from app.trained.learned_tables import MAX_VALUES, TableError, hf_cache_tables, load_file_table

ROOT = Path(__file__).resolve().parents[2]


def weights(path: Path, rows: int = 30, dim: int = 6, name: str = "wpe.weight") -> np.ndarray:
    table = (np.random.default_rng(rows + dim).standard_normal((rows, dim)) * 0.02).astype(np.float32)
    save_file({name: table}, str(path))
    return table


def model_in_cache(root: Path, repo: str, config: object | None = None, index: dict | None = None) -> Path:
    model = root / ("models--" + repo.replace("/", "--"))
    snapshot = model / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    if index is None:
        weights(snapshot / "model.safetensors")
    else:
        (snapshot / "model.safetensors.index.json").write_text(json.dumps(index))
    if config is not None:
        (snapshot / "config.json").write_text(json.dumps(config))
    return snapshot


def serve(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """The command line up to the point where it would start serving (a bad table stops it first)."""
    code = "import sys\nfrom app.web import serving\nserving.serve = lambda *a, **k: print('would serve') or True\nfrom app.__main__ import main\nmain(sys.argv[1:])\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "config, problem",
    [({"model_type": "roberta", "pad_token_id": [1]}, "pad_token_id must be a whole number"), ("abc", "a model config is a JSON object")],
    ids=["pad-token-list", "config-a-string"],
)
def test_a_bad_config_is_one_sentence_naming_it(tmp_path, config, problem):
    weights(tmp_path / "tiny.safetensors")
    (tmp_path / "config.json").write_text(json.dumps(config))
    done = serve({}, "--learned-table", str(tmp_path / "tiny.safetensors"))
    assert done.returncode == 2 and "would serve" not in done.stdout
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(tmp_path / "config.json") in lines[0] and problem in lines[0], done.stderr


def test_not_a_regular_file_is_said_as_such(tmp_path):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    for path, kind in [(fifo, "a FIFO"), (tmp_path, "a directory"), (Path("/dev/zero"), "a device")]:
        with pytest.raises(TableError) as caught:
            load_file_table(str(path))  # would block (FIFO) or read for ever (/dev/zero) if opened
        assert str(caught.value).startswith(f"{path}: not a regular file ({kind})")
    with pytest.raises(TableError, match="no such file"):
        load_file_table(str(tmp_path / "absent.safetensors"))


def test_a_table_too_large_for_a_request_is_refused_with_its_shape(tmp_path):
    path = tmp_path / "wide.safetensors"
    save_file({"wpe.weight": np.zeros((4096, 1025), np.float32)}, str(path))
    with pytest.raises(TableError) as caught:
        load_file_table(str(path))
    assert "[4096, 1025]" in str(caught.value) and f"{MAX_VALUES:,}" in str(caught.value)


def test_hub_cache_skips_broken_models_with_a_warning_and_keeps_the_rest(tmp_path: Path) -> None:
    model_in_cache(tmp_path, "good/gpt", {"model_type": "gpt2"})
    model_in_cache(tmp_path, "bad/roberta", {"model_type": "roberta", "pad_token_id": [1]})
    model_in_cache(tmp_path, "bad/text", "abc")
    secret = tmp_path / "secret.safetensors"
    weights(secret)
    model_in_cache(tmp_path, "bad/outside", index={"weight_map": {"wpe.weight": str(secret)}})
    model_in_cache(tmp_path, "bad/climbing", index={"weight_map": {"wpe.weight": "../../../../secret.safetensors"}})
    linked = model_in_cache(tmp_path, "bad/link", index={"weight_map": {"wpe.weight": "w.safetensors"}})
    (linked / "w.safetensors").symlink_to(secret)
    warnings: list[str] = []
    found = hf_cache_tables(tmp_path, warnings.append)
    assert [table.name for table in found] == ["good/gpt"]
    by_model = {text.split(" ", 1)[0]: text for text in warnings}
    assert set(by_model) == {"bad/roberta", "bad/text", "bad/outside", "bad/climbing", "bad/link"}, warnings
    assert "pad_token_id" in by_model["bad/roberta"] and "JSON object" in by_model["bad/text"]
    for name in ("bad/outside", "bad/climbing", "bad/link"):
        assert "model.safetensors.index.json" in by_model[name] and "not read" in by_model[name]
    # on the command line: warnings, and the server still starts with the good model
    done = serve({}, "--hf-cache", str(tmp_path))
    assert done.returncode == 0 and "would serve" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("warning: bad/") == 5


def test_a_small_table_opens_on_its_defaults_and_no_path_is_shown(tmp_path):
    """48 rows × 10 columns: the default window (63) and position (100) do not fit; they are lowered."""
    table = weights(tmp_path / "tiny-gpt.safetensors", rows=48, dim=10)
    code = (
        "import json\nfrom fastapi.testclient import TestClient\nfrom app.main import create_app\n"
        "c = TestClient(create_app())\n"
        "out = [c.get('/api/learned', params={'model': 'tiny-gpt'}), c.get('/learned', params={'model': 'tiny-gpt'}),\n"
        "       c.get('/api/learned', params={'model': 'tiny-gpt', 'last_position': 63})]\n"
        "print(json.dumps([[r.status_code, r.text] for r in out]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PE_EXPLORER_LEARNED_TABLES": json.dumps([str(tmp_path / "tiny-gpt.safetensors")])},
    )
    assert done.returncode == 0, done.stderr
    (api_status, api), (page_status, page), (asked_status, asked) = json.loads(done.stdout)
    assert api_status == 200 and page_status == 200
    body = json.loads(api)
    assert (body["last_position"], body["last_column"], body["position"]) == (47, 9, 47)
    np.testing.assert_array_equal(np.array(body["table"], dtype=np.float32), table)
    assert body["info"]["file"] == "tiny-gpt.safetensors"
    for text in (api, page):
        assert str(tmp_path) not in text and str(ROOT) not in text
    assert asked_status == 422 and "last_position" in asked  # a value given explicitly is still checked
