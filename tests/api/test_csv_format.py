"""The CSV writer (app/web/csv_format.py), parsed back with Python's ``csv`` module and ``float()``,
and every CSV export against the numbers of its JSON twin.

The reference for the numbers is ``float(text)`` of each cell: the export must give back the very
float64 (sign of zero included) that was written, and an empty cell where JSON has ``null``.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from app.web.csv_format import Columns, csv_bytes
from app.web.views import REGISTRY, discover


def parsed(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode())))


def every_kind_of_float(count: int, seed: int) -> np.ndarray:
    """Random bit patterns (every exponent, subnormals, NaN payloads, ±inf), decimal-looking values
    over 40 decades, and the edges where the notation changes."""
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


def same_float(text: str, value: float) -> bool:
    if not math.isfinite(value):
        return text == ""  # null in the JSON twin
    number = float(text)
    return number == value and math.copysign(1, number) == math.copysign(1, value)


@pytest.mark.parametrize("width", [1, 3, 16])
def test_floats_parse_back_bit_for_bit(width):
    values = every_kind_of_float(20000, seed=width)
    values = values[: values.size // width * width].reshape(-1, width)
    header = [f"c{c}" for c in range(width)]
    for rows in (values.tolist(), Columns(values)):
        lines = parsed(csv_bytes(header, rows))
        assert lines[0] == header and len(lines) == len(values) + 1
        # one column holding an empty cell (NaN) is an empty line, which the csv module reads as []
        assert all(same_float(text, value) for line, row in zip(lines[1:], values, strict=True)
                   for text, value in zip(line or [""], row, strict=True))


def test_integer_boolean_and_float_columns_mixed():
    rng = np.random.default_rng(7)
    count = 3000
    ints = rng.integers(-(10**17), 10**17, count)  # beyond float64's exact integers: written exactly
    flags = rng.random(count) < 0.5
    floats = every_kind_of_float(count, seed=11)[:count]
    rows = [[int(i), float(x), bool(f)] for i, x, f in zip(ints, floats, flags, strict=True)]
    for table in (rows, Columns(ints, floats, flags)):
        lines = parsed(csv_bytes(["i", "x", "flag"], table))[1:]
        assert [int(line[0]) for line in lines] == ints.tolist()
        assert all(same_float(line[1], x) for line, x in zip(lines, floats, strict=True))
        assert [line[2] for line in lines] == [str(bool(f)) for f in flags]


def test_gaps_and_masked_cells_are_empty():
    rows = [[1, 0.5, ""], [2, "", 2.5e-7], [3, None, -0.0], [4, 1e-5, float("nan")]]
    assert csv_bytes(["n", "a", "b"], rows) == b"n,a,b\n1,0.5,\n2,,2.5e-7\n3,,-0.0\n4,0.00001,\n"
    masked = np.ma.masked_array([[0.5, 1.0], [2e-5, np.inf]], mask=[[False, True], [True, False]])
    assert csv_bytes(["m", "a", "b"], Columns(np.array([7, 8]), masked)) == b"m,a,b\n7,0.5,\n8,,\n"
    counts = np.ma.masked_array([3, 4], mask=[False, True])  # an integer column with a gap
    assert parsed(csv_bytes(["n", "k"], Columns(np.array([1, 2]), counts))) == [["n", "k"], ["1", "3.0"], ["2", ""]]


@pytest.mark.parametrize(
    "header, rows",
    [
        (["label", "x"], [["a,b", 1.0], ['say "hi"', 2.5e-5], ["line\nbreak", 3.0]]),  # text needs quoting
        (["has,comma", 5, None], [[1.0, 2.0, 3.0]]),
        (["huge"], [[10**400]]),  # beyond orjson's integers: the csv module writes it
    ],
)
def test_text_and_odd_cells_are_quoted_and_kept(header, rows):
    lines = parsed(csv_bytes(header, rows))
    assert lines[0] == ["" if cell is None else str(cell) for cell in header]
    assert [list(line) for line in lines[1:]] == [[str(cell) for cell in row] for row in rows]


def test_float32_cells_are_their_shortest_float32_text():
    # The JSON twin writes float32 values as their own shortest digits (orjson); the export agrees.
    rows = [[np.float32(0.1)], [np.float32(1e-5)]]
    assert csv_bytes(["x"], rows) == b"x\n0.1\n0.00001\n"


def test_empty_tables_have_the_header_only():
    assert csv_bytes(["x"], []) == b"x\n"
    assert csv_bytes(["x"], Columns(np.zeros((0, 3)))) == b"x\n"


def test_columns_match_their_rows():
    table = Columns(np.arange(4), np.array([[0.1, 1e-6], [np.nan, -np.inf], [1e16, 3.0], [1e-5, -2e-5]]), np.array([True, False, True, True]))
    assert len(table) == 4
    assert table.rows()[0] == [0, 0.1, 1e-6, True]
    assert csv_bytes(["i", "a", "b", "f"], table) == csv_bytes(["i", "a", "b", "f"], table.rows())


# ---- every export against its JSON twin -------------------------------------------------------------


def _cells_equal(text: str, value) -> bool:
    """A CSV cell against the JSON twin's value, exactly (null is NaN or ±inf, or an empty cell)."""
    if value is None or value == "":
        return text == ""
    if isinstance(value, bool):
        return text == str(value)
    if isinstance(value, (int, np.integer)):
        return text == str(int(value))
    if isinstance(value, (float, np.floating)):
        return same_float(text, float(value))
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
        for line, row in zip(parsed[1:], rows, strict=True):
            assert len(line) == len(row)
            assert all(_cells_equal(text, value) for text, value in zip(line, row, strict=True)), (line, row)


def test_sinusoidal_export_is_the_twins_table(client):
    query = {"seq_len": 40, "dim": 512, "base": 1e9, "start": 10000000}
    twin = client.get("/api/sinusoidal/table", params=query).json()
    lines = list(csv.reader(io.StringIO(client.get("/api/sinusoidal/table.csv", params=query).text)))
    assert [int(line[0]) for line in lines[1:]] == twin["positions"]
    assert [[float(cell) for cell in line[1:]] for line in lines[1:]] == twin["table"]
    # Every number is the very text of the JSON twin (orjson's shortest digits, small values included).
    twin_text = client.get("/api/sinusoidal/table", params=query).text
    assert all(cell in twin_text for line in lines[1:] for cell in line[1:])


def test_score_export_is_the_twins_matrix(client):
    query = {"seq_len": 64, "causal": "true", "content": "random"}
    twin = client.get("/api/rope/scores", params=query).json()
    lines = list(csv.reader(io.StringIO(client.get("/api/rope/scores.csv", params=query).text)))
    cells = [[None if cell == "" else float(cell) for cell in line[1:]] for line in lines[1:]]
    assert cells == twin["scores"]  # masked cells: empty in the CSV, null in the JSON
    assert any(None in row for row in cells)
