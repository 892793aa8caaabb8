"""The compact encoding the pages ask for: same numbers as the JSON twin, bit for bit; opt-in only.

Decoded here independently of the app: base64 → little-endian float64 bytes (numpy.frombuffer),
non-finite values → null as JSON has them.
"""

import base64
import math

import numpy as np
import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover

COMPACT = "application/vnd.pe-explorer.compact+json"
VIEWS = discover()


def decode(value):
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"dtype", "bdata", "shape", "layout"}:
            # A Toeplitz matrix as its 2L−1 diagonals: cell (m, n) is diagonals[L − 1 + n − m].
            assert value["dtype"] == "f8" and value["layout"] == "toeplitz"
            size = value["shape"][0]
            diagonals = np.frombuffer(base64.b64decode(value["bdata"]), dtype="<f8")
            assert value["shape"] == [size, size] and diagonals.size == 2 * size - 1
            rows = [[float(diagonals[size - 1 + n - m]) for n in range(size)] for m in range(size)]
            return _plain(rows)
        if set(value) == {"dtype", "bdata", "shape"}:
            assert value["dtype"] == "f8"
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype="<f8").reshape(value["shape"])
            return _plain(array.tolist())
        return {key: decode(item) for key, item in value.items()}
    return value


def _plain(value):
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value if math.isfinite(value) else None


def same_bits(a, b) -> bool:
    """Equal, with floats compared by their bits (so 0.0 and -0.0 differ)."""
    if isinstance(a, float) and isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b) and type(a) is type(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_bits(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("view", VIEWS, ids=[view.name for view in VIEWS])
def test_compact_twin_decodes_to_the_json_twin(client, view):
    plain = client.get(view.api_path)
    packed = client.get(view.api_path, headers={"accept": COMPACT})
    assert plain.status_code == packed.status_code == 200
    assert plain.headers["content-type"].startswith("application/json")
    assert packed.headers["content-type"].startswith(COMPACT)
    assert "Accept" in plain.headers["vary"] and "Accept" in packed.headers["vary"]
    assert plain.headers["etag"] != packed.headers["etag"]
    assert same_bits(decode(packed.json()), plain.json())


@pytest.mark.parametrize(
    "url",
    [
        "/api/rope/scores?seq_len=512&causal=true",  # NaN-masked cells become null
        "/api/rope/scores?seq_len=100000&head_dim=8",
        "/api/sinusoidal/table?seq_len=512&dim=512",
    ],
)
def test_large_arrays_travel_as_float64_bytes(client, url):
    plain = client.get(url)
    packed = client.get(url, headers={"accept": f"{COMPACT}, application/json;q=0.9", "accept-encoding": "identity"})
    assert plain.status_code == packed.status_code == 200
    assert '"bdata"' in packed.text and len(packed.content) < len(plain.content)
    assert same_bits(decode(packed.json()), plain.json())


@pytest.mark.parametrize("causal", ["false", "true"])
def test_a_toeplitz_score_matrix_travels_as_its_diagonals(client, causal):
    """One repeated token at L = 512: 1023 numbers on the wire instead of 262,144 (issue 7: ≤ 100 KB)."""
    url = f"/api/rope/scores?seq_len=512&causal={causal}"
    packed = client.get(url, headers={"accept": COMPACT, "accept-encoding": "gzip"})
    assert packed.status_code == 200
    assert packed.json()["scores"]["layout"] == "toeplitz"
    assert len(packed.content) < 100_000
    assert same_bits(decode(packed.json()), client.get(url).json())


def test_a_matrix_that_is_toeplitz_only_up_to_rounding_is_sent_whole(client):
    # Block means above 512 positions are Toeplitz in exact arithmetic, not bit for bit.
    url = "/api/rope/scores?seq_len=1500&head_dim=8"
    packed = client.get(url, headers={"accept": COMPACT})
    assert "layout" not in packed.json()["scores"]
    assert same_bits(decode(packed.json()), client.get(url).json())


def test_multi_megabyte_compact_bodies_are_not_gzipped(client):
    """Random float64 bytes barely compress; gzipping 2.7 MB of them would cost ~130 ms per request."""
    url = "/api/rope/scores?seq_len=512&content=random"
    packed = client.get(url, headers={"accept": COMPACT, "accept-encoding": "gzip"})
    assert packed.status_code == 200
    assert "content-encoding" not in packed.headers  # neither the cache nor the middleware gzips it
    plain = client.get(url)
    assert same_bits(decode(packed.json()), plain.json())
    assert len(packed.content) < len(plain.content) / 1.5  # the bytes, not the digits


def test_small_compact_bodies_are_gzipped(client):
    packed = client.get("/api/sinusoidal/table", headers={"accept": COMPACT, "accept-encoding": "gzip"})
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    assert '"bdata"' in packed.text


def test_scripts_get_plain_json_by_default(client):
    for accept in (None, "application/json", "*/*"):
        headers = {"accept": accept} if accept else {}
        response = client.get("/api/sinusoidal/table?seq_len=512&dim=512", headers=headers)
        assert response.headers["content-type"].startswith("application/json")
        assert '"bdata"' not in response.text
        assert isinstance(response.json()["table"][0][0], float)


def test_compact_response_is_gzipped_when_accepted(client):
    response = client.get("/api/rope/scores?seq_len=200", headers={"accept": COMPACT, "accept-encoding": "gzip"})
    assert response.headers.get("content-encoding") == "gzip"
    assert response.headers["content-type"].startswith(COMPACT)


def test_compact_etag_revalidates(client):
    first = client.get("/api/rope/scores?seq_len=300", headers={"accept": COMPACT})
    again = client.get("/api/rope/scores?seq_len=300", headers={"accept": COMPACT, "if-none-match": first.headers["etag"]})
    assert again.status_code == 304
