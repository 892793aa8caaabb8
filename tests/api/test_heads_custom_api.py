"""/api/model/heads?text=custom on a server that has the model (its own process: ``pe-explorer --model``),
and the answers of a worker that is busy or over its time limit."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest
from starlette.exceptions import HTTPException

from app.trained import runner as model_runner
from app.views import heads as heads_view
from tests.smollm import gguf_path, model_server


@pytest.fixture(scope="module")
def server():
    with model_server(gguf_path()) as url:
        yield url


def _get(url, path, **query):
    try:
        with urllib.request.urlopen(f"{url}{path}?{urlencode(query)}", timeout=120) as r:
            return r.status, r.headers, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read())


def test_a_short_text_of_your_own_is_the_same_page_as_the_shipped_one(server):
    status, _, custom = _get(server, "/api/model/heads", text="custom", custom_text="dog bites man", layer=1, head=2, band_lo=0, band_hi=31)
    assert status == 200
    _, _, shipped = _get(server, "/api/model/heads", text="dog-bites-man", layer=1, head=2, band_lo=0, band_hi=31)
    assert custom["tokens"] == shipped["tokens"] == ["dog", " bites", " man"]
    assert custom["token_ids"] == shipped["token_ids"]
    for m, row in enumerate(custom["weights"]):
        assert all(v is None for v in row[m + 1 :]) and math.isclose(sum(row[: m + 1]), 1.0, rel_tol=1e-5)
        assert row[: m + 1] == pytest.approx(shipped["weights"][m][: m + 1], abs=1e-4)
    assert custom["surgered_weights"][2][:3] == pytest.approx(shipped["surgered_weights"][2][:3], abs=1e-4)
    assert [c["class"] for c in custom["head_classes"]] == [c["class"] for c in shipped["head_classes"]]
    _, headers, progress = _get(server, "/api/model/heads/progress", custom_text="dog bites man")
    assert progress == {"state": "done", "layer": 30, "n_layer": 30} and headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7" * 129, "129 tokens long; the model reads at most 128"),  # SmolLM2 splits digits one by one
        ("   ", "Type a text"),
        ("x" * (model_runner.MAX_CHARS + 1), "at most 2000 characters"),
    ],
    ids=["129-tokens", "blank", "too-many-characters"],
)
def test_a_text_the_model_cannot_take_is_a_422_naming_custom_text(server, text, message):
    status, _, body = _get(server, "/api/model/heads", text="custom", custom_text=text)
    assert status == 422
    assert body["detail"][0]["param"] == "custom_text" and message in body["detail"][0]["msg"]


def test_the_page_of_a_new_text_answers_at_once_and_fetches_the_pass(server):
    with urllib.request.urlopen(f"{server}/heads?text=custom&custom_text=a+page+of+its+own", timeout=30) as r:
        html = r.read().decode()
    assert '"data":null' in html.replace(" ", "")  # the pass is not run for the page: its script asks the twin


class _Stub:
    def __init__(self, exc):
        self.exc = exc

    def run(self, text):
        raise self.exc


@pytest.mark.parametrize(
    ("exc", "retry_after"),
    [(model_runner.ModelBusy("The model is reading another text (layer 4 of 30).", 7), "7"), (model_runner.PassStopped("stopped after 9.0 s"), None)],
    ids=["busy", "time-limit"],
)
def test_a_busy_worker_or_a_stopped_pass_is_a_503_with_its_message(monkeypatch, exc, retry_after):
    monkeypatch.setattr(heads_view, "RUNNER", _Stub(exc))
    monkeypatch.setattr(heads_view, "CUSTOM", True)  # as on a server that has the model
    with pytest.raises(HTTPException) as answer:
        heads_view._custom_arrays("any text")
    assert answer.value.status_code == 503 and answer.value.detail == exc.message
    assert (answer.value.headers or {}).get("Retry-After") == retry_after
