"""One schema for every server: the OpenAPI document, and the client openapi-python-client generates
from it, are the same whether or not the server has the model for /heads' texts of your own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = "import json, sys; from app.main import create_app; sys.stdout.write(json.dumps(create_app().openapi(), sort_keys=True))"


def _spec(model: str | None) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PE_MODEL"}
    env["PYTHONPATH"] = str(ROOT)
    if model is not None:
        env["PE_MODEL"] = model  # a server started with --model (the file is only opened on the first text)
    out = subprocess.run([sys.executable, "-c", SPEC], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout)


def _client_files(spec: dict, folder: Path) -> dict[str, str]:
    folder.mkdir()
    (folder / "openapi.json").write_text(json.dumps(spec))
    (folder / "config.yaml").write_text("post_hooks: []\n")
    generator = Path(sys.executable).parent / "openapi-python-client"
    subprocess.run([str(generator), "generate", "--path", "openapi.json", "--meta", "none", "--output-path", "client",
                    "--config", "config.yaml"], cwd=folder, check=True, capture_output=True, timeout=300)
    return {str(path.relative_to(folder)): path.read_text() for path in sorted((folder / "client").rglob("*.py"))}


def test_the_generated_client_is_the_same_with_and_without_the_model(tmp_path):
    without, with_model = _spec(None), _spec(str(tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"))
    assert without == with_model
    heads = without["paths"]["/api/model/heads"]["get"]
    text = next(p for p in heads["parameters"] if p["name"] == "text")
    assert "custom" in json.dumps(text["schema"])
    assert "503" in heads["responses"] and "/api/model/heads/progress" in without["paths"]
    files_without = _client_files(without, tmp_path / "without")
    files_with = _client_files(with_model, tmp_path / "with")
    assert files_without == files_with
    # layer is an IntEnum whose members are the layers themselves (a string enum let VALUE_5 send "8").
    from app.views.heads import LAYERS

    layer = files_without["client/models/api_heads_api_model_heads_get_layer.py"]
    assert "(IntEnum)" in layer
    for value in LAYERS:
        assert f"    VALUE_{value} = {value}\n" in layer
