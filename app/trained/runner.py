"""A text of your own through a trained model (/heads, ``text=custom``): the model a worker runs.

Which file, decided once per process, is the registry's business (app/trained/models.py: the
``--model`` file, else the one inside the model's PyPI package); without one, /heads offers the
shipped texts only and says how to add the model.

A pass costs seconds, so each worker runs one at a time:

- a request for a text whose pass is running waits for that pass (no second pass of the same text);
- a request for another text while one runs is refused at once: :class:`ModelBusy` (HTTP 503 with
  Retry-After, the layer the running pass has reached in the message);
- a pass that runs longer than ``time_limit`` seconds (app.settings: ``PE_MODEL_TIME_LIMIT``,
  default 60 s) stops after the layer it is in: :class:`PassStopped` (HTTP 503);
- :meth:`Runner.status` says which layer a pass has reached (the page polls it);
- results are kept by text, the most recent :data:`RESULTS_KEPT` (least recently used goes first),
  as the shipped texts are stored: token ids and strings, and the kept layers' pre-rotation q and k
  in float16 (2.6 MB for 128 tokens).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from app.core.gguf_llama import LlamaModel

MAX_TOKENS = 128
# A text is refused before it is tokenised when it is longer than this (128 tokens of any script fit).
MAX_CHARS = 2000
RESULTS_KEPT = 16
FAILURES_KEPT = 16


class ModelBusy(Exception):
    """Another text's pass is running in this worker."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class PassStopped(Exception):
    """The pass took longer than the time limit (or the model could not be opened)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _TimeUp(Exception):
    pass


@dataclass
class _Job:
    text: str
    n_tokens: int
    n_layer: int
    started: float = field(default_factory=time.monotonic)
    layer: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    error: str | None = None

    def remaining_seconds(self, limit: float) -> int:
        """A guess at the seconds left: the pace so far times the layers to go, at most the limit."""
        elapsed = time.monotonic() - self.started
        guess = elapsed / self.layer * (self.n_layer - self.layer) if self.layer else limit - elapsed
        return max(1, math.ceil(min(guess, limit - elapsed)))


class Runner:
    """One worker's model: opened on first use, one pass at a time, results kept by text."""

    def __init__(self, path: Path | None, layers: list[int], time_limit: float) -> None:
        self.path = path
        self.layers = list(layers)
        self.time_limit = time_limit
        self._open_lock = threading.Lock()
        self._lock = threading.Lock()  # guards _job, _results, _failures
        self._model: LlamaModel | None = None
        self._tokenizer: Tokenizer | None = None
        self._job: _Job | None = None
        self._results: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._failures: OrderedDict[str, str] = OrderedDict()

    @property
    def available(self) -> bool:
        return self.path is not None

    def _opened(self) -> tuple[LlamaModel, Tokenizer]:
        with self._open_lock:
            if self._model is None or self._tokenizer is None:  # both are set together, or neither
                from app.core.gguf_llama import NotLlamaGGUF, make_tokenizer
                from app.trained import gguf_file

                if self.path is None:
                    raise PassStopped("This server has no model file.")
                try:
                    model = gguf_file.load_gguf(self.path)
                    tokenizer = make_tokenizer(model)
                except NotLlamaGGUF as exc:
                    raise PassStopped(f"The model file could not be opened: {exc}") from exc
                self._model, self._tokenizer = model, tokenizer
            return self._model, self._tokenizer

    @property
    def n_layer(self) -> int:
        return self._opened()[0].config.n_layer

    def encode(self, text: str) -> list[int]:
        """The file's own tokenizer (no BOS, as the shipped texts)."""
        return self._opened()[1].encode(text).ids

    def status(self, text: str) -> dict[str, Any]:
        """Where ``text`` stands in this worker: done, running (layer k of n), waiting for another
        text's pass, stopped (the last try's reason), or idle (not asked for yet)."""
        n = self.n_layer
        with self._lock:
            job = self._job
            if text in self._results:
                return {"state": "done", "layer": n, "n_layer": n}
            if job is not None and job.text == text:
                return {"state": "running", "layer": job.layer, "n_layer": n, "seconds": round(time.monotonic() - job.started, 1)}
            if job is not None:
                return {"state": "waiting", "layer": 0, "n_layer": n, "message": self._busy_message(job)}
            if text in self._failures:
                return {"state": "stopped", "layer": 0, "n_layer": n, "message": self._failures[text]}
            return {"state": "idle", "layer": 0, "n_layer": n}

    def _busy_message(self, job: _Job) -> str:
        return (
            f"The model is reading another text (layer {job.layer} of {job.n_layer}); this server runs one text at a "
            f"time. Try again in about {job.remaining_seconds(self.time_limit)} s."
        )

    def run(self, text: str) -> dict[str, Any]:
        """ids (T,), tokens, and q (L, H, T, d), k (L, Hkv, T, d) in float16 for the kept layers."""
        model, tokenizer = self._opened()
        with self._lock:
            if text in self._results:
                self._results.move_to_end(text)
                return self._results[text]
            job = self._job
            if job is not None and job.text != text:
                raise ModelBusy(self._busy_message(job), job.remaining_seconds(self.time_limit))
            mine = job is None
            if job is None:
                ids = tokenizer.encode(text).ids
                job = self._job = _Job(text, len(ids), model.config.n_layer)
        if not mine:
            job.done.wait(self.time_limit + 10)
            if job.result is None:
                raise PassStopped(job.error or "The pass of this text did not finish.")
            return job.result
        try:
            job.result = self._pass(model, tokenizer, job, ids)
        except _TimeUp:
            job.error = (
                f"The pass was stopped after {time.monotonic() - job.started:.1f} s at layer {job.layer} of {job.n_layer}: "
                f"this server allows {self.time_limit:g} s per text. A shorter text runs faster."
            )
        finally:
            with self._lock:
                self._job = None
                if job.result is not None:
                    self._results[text] = job.result
                    self._failures.pop(text, None)
                    while len(self._results) > RESULTS_KEPT:
                        self._results.popitem(last=False)
                else:
                    self._failures[text] = job.error or "The pass failed."
                    while len(self._failures) > FAILURES_KEPT:
                        self._failures.popitem(last=False)
            job.done.set()
        if job.result is None:
            raise PassStopped(job.error or "The pass failed.")
        return job.result

    def _pass(self, model: LlamaModel, tokenizer: Tokenizer, job: _Job, ids: list[int]) -> dict[str, Any]:
        from app.core.gguf_llama import forward

        def progress(layer: int, n: int) -> None:
            job.layer = layer
            if time.monotonic() - job.started > self.time_limit:
                raise _TimeUp

        keep = set(self.layers)
        res = forward(model, ids, keep_qk=True, progress=progress, logits=False)
        return {
            "ids": np.asarray(ids, dtype=np.int32),
            "tokens": [tokenizer.decode([i]) for i in ids],
            "q": np.stack([q for i, q in enumerate(res["q"]) if i in keep]).astype(np.float16),
            "k": np.stack([k for i, k in enumerate(res["k"]) if i in keep]).astype(np.float16),
        }

    def cached(self, text: str) -> bool:
        with self._lock:
            return text in self._results
