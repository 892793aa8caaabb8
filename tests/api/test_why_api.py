"""/api/attention/order, the "Why position?" twin: defaults, exact zero, and refused sentences."""

import pytest


def test_defaults_dog_bites_man(client):
    data = client.get("/api/attention/order").json()
    assert data["words"] == ["dog", "bites", "man"] and data["other_words"] == ["man", "bites", "dog"]
    assert data["word_text"] == "bites" and data["other_index"] == 1
    none = data["schemes"]["none"]
    assert none["out"] == none["other_out"]  # the same floats, exactly
    assert none["diff"] == [0.0] * 8 and none["diff_norm"] == 0.0
    assert none["identical"] is True and none["equivariant"] is True
    for position in ("learned", "sinusoidal", "rope"):
        scheme = data["schemes"][position]
        assert scheme["identical"] is False and scheme["diff_norm"] > 1e-4


def test_repeated_words(client):
    data = client.get("/api/attention/order", params={"sentence": "The cat saw the dog", "word": 2, "reorder": "rotate"}).json()
    assert data["other_words"] == ["cat", "saw", "the", "dog", "The"]
    assert data["repeats"] == [
        {"word": "the", "positions": [0, 3], "none": True, "learned": False, "sinusoidal": False, "rope": False}
    ]
    assert data["schemes"]["none"]["identical"] is True


def test_csv_has_one_row_per_component(client):
    lines = client.get("/api/attention/order.csv", params={"dim": 4}).text.strip().split("\n")
    assert lines[0].startswith("component,none_sentence,none_reordered,none_difference")
    assert len(lines) == 5


@pytest.mark.parametrize(
    ("params", "param", "fragment"),
    [
        ({"sentence": " ".join(["word"] * 13)}, "sentence", "13 words"),  # too long: refused, not truncated
        ({"sentence": "a" * 21}, "sentence", "21 characters"),
        ({"sentence": "hello, world"}, "sentence", "','"),
        ({"sentence": "   "}, "sentence", "at least one word"),
        ({"sentence": "x" * 500}, "sentence", ""),
        ({"word": 3}, "word", "the sentence has 3 words"),
        ({"word": -1}, "word", ""),
        ({"dim": 5}, "dim", ""),
        ({"dim": 64}, "dim", ""),
        ({"reorder": "sideways"}, "reorder", ""),
        ({"seed": -1}, "seed", ""),
        ({"position": "rope"}, "position", "Unknown parameter"),  # display-only: not part of the API
    ],
)
def test_bad_input(client, params, param, fragment):
    response = client.get("/api/attention/order", params=params)
    assert response.status_code == 422
    items = [item for item in response.json()["detail"] if item["param"] == param]
    assert items and fragment in items[0]["msg"]


def test_page_shows_the_message_next_to_the_sentence(client):
    page = client.get("/why", params={"sentence": " ".join(["w"] * 14)})
    assert page.status_code == 422
    assert "14 words" in page.text and 'id="err-sentence"' in page.text
