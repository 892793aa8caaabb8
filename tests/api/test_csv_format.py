"""The bulk CSV formatter (app/web/csv_format.py) against Python's own ``csv.writer``, and every CSV
export parsed back with ``csv`` + ``float()`` against the numbers of its JSON twin.

``csv.writer`` writes ``str(value)`` for every cell (``repr`` for floats), so it is the reference for
the text; the JSON twin (orjson, parsed by the ``json`` module) is the reference for the numbers.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from app.web import csv_format
from app.web.csv_format import Columns, csv_bytes
from app.web.views import REGISTRY, discover


def reference(header, rows) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows.rows() if isinstance(rows, Columns) else rows)
    return buffer.getvalue().encode()


def every_kind_of_float(count: int, seed: int) -> np.ndarray:
    """Random bit patterns (every exponent, subnormals, NaN payloads, ±inf), decimal-looking values
    over 40 decades, and the edges where repr changes notation."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, size=count, dtype=np.uint64).view(np.float64)
    digits = 10.0 ** rng.integers(0, 17, count)
    decimal = np.round(rng.standard_normal(count) * digits) / digits * 10.0 ** rng.integers(-20, 20, count)
    edges = []
    for power in range(-12, 22):
        edge = 10.0**power
        edges += [edge, -edge, np.nextafter(edge, 0), np.nextafter(edge, np.inf), 1.5 * edge, 123456789.0 * edge]
    edges += [0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1 + 0.2]
    values = np.concatenate([bits, decimal, np.array(edges)])
    rng.shuffle(values)
    return values


@pytest.mark.parametrize("few_edits", [0, 10**9])  # edits by np.insert and filter, or by joined pieces
@pytest.mark.parametrize("width", [1, 3, 16])
def test_floats_are_written_as_repr(width, few_edits, monkeypatch):
    monkeypatch.setattr(csv_format, "_FEW_EDITS", few_edits)
    values = every_kind_of_float(20000, seed=width)
    values = values[: values.size // width * width].reshape(-1, width)
    header = [f"c{c}" for c in range(width)]
    rows = values.tolist()
    expected = reference(header, rows)
    assert csv_bytes(header, rows) == expected
    assert csv_bytes(header, Columns(values)) == expected


@pytest.mark.parametrize("few_edits", [0, 10**9])
def test_integer_boolean_and_float_columns_mixed(few_edits, monkeypatch):
    monkeypatch.setattr(csv_format, "_FEW_EDITS", few_edits)
    rng = np.random.default_rng(7)
    count = 3000
    ints = rng.integers(-(10**14), 10**14, count)
    small = rng.integers(-5, 5, count)
    flags = rng.random(count) < 0.5
    floats = every_kind_of_float(count, seed=11)[:count]
    header = ["i", "x", "flag", "j"]
    rows = [[int(i), float(x), bool(f), int(j)] for i, x, f, j in zip(ints, floats, flags, small)]
    expected = reference(header, rows)
    assert csv_bytes(header, rows) == expected
    assert csv_bytes(header, Columns(ints, floats, flags, small)) == expected


def test_numpy_scalars_in_rows_are_written_like_csv_writer():
    rows = [[np.int64(3), np.float64(1e-5), np.bool_(True)], [np.int32(-4), np.float64(np.nan), np.bool_(False)]]
    assert csv_bytes(["a", "b", "c"], rows) == reference(["a", "b", "c"], rows)


def test_gaps_are_empty_cells():
    rows = [[1, 0.5, ""], [2, "", 2.5e-7], [3, None, -0.0], [4, 1e-5, None]]
    assert csv_bytes(["n", "a", "b"], rows) == reference(["n", "a", "b"], rows) == b"n,a,b\n1,0.5,\n2,,2.5e-07\n3,,-0.0\n4,1e-05,\n"
    masked = np.ma.masked_array([[0.5, 1.0], [2e-5, np.inf]], mask=[[False, True], [True, False]])
    assert csv_bytes(["m", "a", "b"], Columns(np.array([7, 8]), masked)) == b"m,a,b\n7,0.5,\n8,,inf\n"


@pytest.mark.parametrize(
    "header, rows",
    [
        (["label", "x"], [["a,b", 1.0], ['say "hi"', 2.5e-5], ["line\nbreak", float("nan")]]),  # text needs quoting
        (["x"], [[np.float32(0.1)], [np.float32(1e-5)]]),  # float32 scalars: numpy's own str
        (["x", "y"], [[1, 2.0], [3.0, 4]]),  # int and float in one column
        (["big"], [[10**17], [-(10**16)]]),  # integers beyond float64's exact range
        (["x", "y"], [[1.0], [2.0, 3.0]]),  # ragged
        (["x"], []),
        (["has,comma", 5, None], [[1.0, 2.0, 3.0]]),
        (["huge"], [[10**400]]),
    ],
)
def test_other_tables_fall_back_to_csv_writer(header, rows):
    assert csv_bytes(header, rows) == reference(header, rows)


def test_rows_may_be_any_iterable():
    assert csv_bytes(["x", "s"], ([float(i), "a"] for i in range(3))) == b"x,s\n0.0,a\n1.0,a\n2.0,a\n"
    assert csv_bytes(["x"], ((1e-5,) for _ in range(2))) == b"x\n1e-05\n1e-05\n"


def test_columns_match_their_rows():
    table = Columns(np.arange(4), np.array([[0.1, 1e-6], [np.nan, -np.inf], [1e16, 3.0], [1e-5, -2e-5]]), np.array([True, False, True, True]))
    assert len(table) == 4
    assert table.rows()[1][:2] == [1, pytest.approx(float("nan"), nan_ok=True)]
    assert csv_bytes(["i", "a", "b", "f"], table) == reference(["i", "a", "b", "f"], table)


# ---- every export against its JSON twin -------------------------------------------------------------


def _cells_equal(text: str, value) -> bool:
    """A CSV cell against the JSON twin's value, exactly (null is NaN or ±inf, or an empty cell)."""
    if value is None or value == "":
        return text in ("", "nan", "inf", "-inf")
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, (int, np.integer)):
        return text == str(int(value))
    if isinstance(value, (float, np.floating)):
        parsed = float(text)
        return parsed == float(value) and math.copysign(1, parsed) == math.copysign(1, float(value))
    return text == str(value)


CSV_VIEWS = [view.name for view in discover() if view.csv is not None]
QUERIES = {
    "sinusoidal": [{}, {"seq_len": 512, "dim": 512, "base": 1e9, "start": 10000000}, {"layout": "tensor2tensor", "seq_len": 64, "dim": 64}],
    "scores": [{}, {"seq_len": 4096, "content": "random", "head_dim": 32, "base": 1e9}, {"seq_len": 300, "causal": "true"}],
    "relative": [{}, {"query_len": 256, "key_len": 256, "max_relative_position": 256, "num_heads": 256, "head": 255}],
}


@pytest.mark.parametrize("name", CSV_VIEWS)
def test_export_parses_back_to_the_twins_numbers(client, name):
    view = REGISTRY[name]
    for query in QUERIES.get(name, [{}]):
        export = client.get(view.api_path + ".csv", params=query)
        assert export.status_code == 200, export.text
        assert export.headers["content-type"].startswith("text/csv")
        parsed = list(csv.reader(io.StringIO(export.text)))
        # The rows the view builds from the twin's own (JSON-parsed) numbers.
        header, rows = view.csv(client.get(view.api_path, params=query).json())
        rows = rows.rows() if isinstance(rows, Columns) else [list(row) for row in rows]
        assert parsed[0] == [str(item) for item in header]
        assert len(parsed) == len(rows) + 1
        for line, row in zip(parsed[1:], rows):
            assert len(line) == len(row)
            assert all(_cells_equal(text, value) for text, value in zip(line, row)), (line, row)


def test_sinusoidal_export_is_the_twins_table(client):
    query = {"seq_len": 40, "dim": 512, "base": 1e9, "start": 10000000}
    twin = client.get("/api/sinusoidal/table", params=query).json()
    lines = list(csv.reader(io.StringIO(client.get("/api/sinusoidal/table.csv", params=query).text)))
    assert [int(line[0]) for line in lines[1:]] == twin["positions"]
    assert [[float(cell) for cell in line[1:]] for line in lines[1:]] == twin["table"]
    # Small values are written as repr writes them (1.5e-05, 1e-07), which orjson does not.
    text = "\n".join(",".join(line) for line in lines)
    small = [v for row in twin["table"] for v in row if v != 0 and abs(v) < 1e-4]
    assert all(repr(v) in text for v in small)


def test_score_export_is_the_twins_matrix(client):
    query = {"seq_len": 64, "causal": "true", "content": "random"}
    twin = client.get("/api/rope/scores", params=query).json()
    lines = list(csv.reader(io.StringIO(client.get("/api/rope/scores.csv", params=query).text)))
    cells = [[float(cell) for cell in line[1:]] for line in lines[1:]]
    for row, expected in zip(cells, twin["scores"]):
        assert [None if math.isnan(v) else v for v in row] == expected
