"""Every lesson page carries one "what you see / try this" line under its figures, and every number in
it is a field of the page's own JSON twin (so it is computed, never typed, and follows the controls)."""

import math
import re
from html.parser import HTMLParser

import pytest

from app.lectures import lookup
from app.web.views import discover

VIEWS = [view.name for view in discover()]


class GuideParser(HTMLParser):
    """Collects the text and the data-field paths of each ``<p class="guide">`` and the twin link."""

    def __init__(self) -> None:
        super().__init__()
        self.guides: list[dict] = []
        self.twin: str | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("data-role") == "json-twin":
            self.twin = attrs["href"]
        if self._depth:
            self._depth += 1
            if "data-field" in attrs:
                self.guides[-1]["fields"].append(attrs["data-field"])
        elif tag == "p" and "guide" in (attrs.get("class") or "").split():
            self._depth = 1
            self.guides.append({"text": "", "fields": []})

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.guides[-1]["text"] += data


def guides_of(client, path):
    parser = GuideParser()
    parser.feed(client.get(path).text)
    return parser


@pytest.mark.parametrize("view", VIEWS)
def test_every_lesson_guides_with_numbers_from_its_twin(client, view):
    page = guides_of(client, f"/{view}")
    assert len(page.guides) == 1, f"/{view} should have one guide line under its figures"
    guide = page.guides[0]
    assert "What you see:" in guide["text"] and "Try this:" in guide["text"]
    assert guide["fields"], f"/{view}: the guide line has no computed number"
    twin = client.get(page.twin).json()
    for path in guide["fields"]:
        value = lookup(twin, path)  # raises on a path the twin does not have
        assert value is None or isinstance(value, (int, float, str, bool)), f"/{view}: {path} is not a single value"


def test_sinusoidal_guide_wavelengths_are_two_pi_over_the_frequencies(client):
    # Interleaved layout: w_i = b^(−2i/d), i = 0 … d/2 − 1, so 2π at the fast end and 2π·b^((d−2)/d) at the slow.
    data = client.get("/api/sinusoidal/table", params={"dim": 64, "base": 10000}).json()
    assert data["shortest_wavelength"] == pytest.approx(2 * math.pi, rel=1e-12)
    assert data["longest_wavelength"] == pytest.approx(2 * math.pi * 10000 ** (62 / 64), rel=1e-12)


@pytest.mark.parametrize(("heads", "head", "slope"), [(8, 0, 0.5), (8, 7, 2.0**-8), (16, 1, 2.0**-1)])
def test_relative_guide_slope_is_alibis(client, heads, head, slope):
    # ALiBi's geometric slopes for a power-of-two head count: m_h = 2^(−8(h+1)/H).
    data = client.get("/api/relative", params={"num_heads": heads, "head": head}).json()
    assert data["alibi"]["head_slope"] == pytest.approx(slope, rel=1e-12)


def test_guide_numbers_follow_the_parameters(client):
    # The same path read under other parameters gives another value: the line is not frozen text.
    default = guides_of(client, "/absolute")
    moved = guides_of(client, "/absolute?max_len=48")
    assert default.twin != moved.twin
    a, b = (client.get(p.twin).json() for p in (default, moved))
    assert lookup(a, "missing_positions") == 8 and lookup(b, "missing_positions") == 0
    assert re.search(r"max_len=48", moved.twin)
