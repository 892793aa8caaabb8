"""A text of your own through the real model (app.trained.runner): one pass at a time, the time limit,
progress, the results kept by text; and the start-up check of ``pe-explorer --model``."""

from __future__ import annotations

import threading

import gguf
import numpy as np
import pytest

from app import settings
from app.__main__ import main
from app.core import gguf_llama
from app.trained import models
from app.trained import runner as model_runner
from tests.smollm import gguf_path

LAYERS = models.DEFAULT.heads.meta["layers"]


@pytest.fixture(scope="module")
def path():
    return gguf_path()


def test_a_shipped_text_typed_in_gives_the_shipped_queries_and_keys(path):
    runner = model_runner.Runner(path, LAYERS, time_limit=60)
    res = runner.run("dog bites man")
    shipped = models.DEFAULT.heads.text_arrays("dog-bites-man")
    assert res["ids"].tolist() == shipped["ids"].tolist() and res["tokens"] == ["dog", " bites", " man"]
    assert res["q"].shape == shipped["q"].shape and res["q"].dtype == np.float16
    # both float16 of the same pass (the shipped one made in float64 arithmetic): equal to float16's precision
    assert np.allclose(res["q"], shipped["q"], rtol=2**-9, atol=2e-3)
    assert np.allclose(res["k"], shipped["k"], rtol=2**-9, atol=2e-3)
    assert runner.status("dog bites man") == {"state": "done", "layer": 30, "n_layer": 30}
    assert runner.run("dog bites man") is res  # kept by text: no second pass


def test_one_pass_at_a_time_with_its_progress(path, monkeypatch):
    runner = model_runner.Runner(path, LAYERS, time_limit=60)
    reached, release = threading.Event(), threading.Event()
    real = gguf_llama.forward

    def held(model, ids, progress=None, **kwargs):
        def hold(layer, n):
            progress(layer, n)
            if layer == 2:
                reached.set()
                release.wait(30)

        return real(model, ids, progress=hold, **kwargs)

    monkeypatch.setattr(gguf_llama, "forward", held)
    first = threading.Thread(target=runner.run, args=("one two",))
    first.start()
    try:
        assert reached.wait(30)
        status = runner.status("one two")
        assert status["state"] == "running" and status["layer"] == 2 and status["n_layer"] == 30
        with pytest.raises(model_runner.ModelBusy) as busy:
            runner.run("three four")
        assert "layer 2 of 30" in busy.value.message and busy.value.retry_after >= 1
        assert runner.status("three four")["state"] == "waiting"
    finally:
        release.set()
        first.join(30)
    assert runner.status("one two")["state"] == "done"
    assert runner.status("three four")["state"] == "idle"


def test_a_pass_over_the_time_limit_stops_with_the_reason_and_a_later_try_runs(path):
    runner = model_runner.Runner(path, LAYERS, time_limit=1e-6)
    with pytest.raises(model_runner.PassStopped) as stopped:
        runner.run("five six")
    assert "at layer 1 of 30" in stopped.value.message and "1e-06 s per text" in stopped.value.message
    assert runner.status("five six") == {"state": "stopped", "layer": 0, "n_layer": 30, "message": stopped.value.message}
    runner.time_limit = 60.0
    assert runner.run("five six")["ids"].size == 2


# ---- pe-explorer --model: a file that cannot be used stops the server at start ----------------------


def _gguf(path, arch, with_tensor=False):
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(1)
    if arch == "llama":
        writer.add_head_count(2)
        writer.add_embedding_length(8)
        writer.add_feed_forward_length(16)
        writer.add_token_list(["a", "b"])
    if with_tensor:
        writer.add_tensor("token_embd.weight", np.zeros((2, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _bad_files(tmp_path):
    text = tmp_path / "notes.gguf"
    text.write_text("not a model\n")
    return [
        (tmp_path / "missing.gguf", "does not exist"),
        (tmp_path, "is not a regular file"),
        (text, "is not a GGUF file"),
        (_gguf(tmp_path / "gpt2.gguf", "gpt2"), "general.architecture is 'gpt2', only 'llama' is supported"),
        (_gguf(tmp_path / "empty-llama.gguf", "llama", with_tensor=True), "tensor output_norm.weight is missing"),
    ]


def test_a_bad_model_file_stops_the_server_at_start_with_one_sentence(tmp_path, monkeypatch, capsys, request):
    monkeypatch.setenv(settings.MODEL_ENV, "")  # main() sets it: restored after the test,
    request.addfinalizer(settings.current.cache_clear)  # and read again from the restored environment
    for bad, reason in _bad_files(tmp_path):
        with pytest.raises(SystemExit) as stop:
            main(["--model", str(bad), "--port", "0"])
        err = capsys.readouterr().err
        assert stop.value.code == 2, err
        assert err.count("\n") == 1 and str(bad) in err and reason in err, err
